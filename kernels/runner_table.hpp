#pragma once
// What one instruction set's table unit (generated from kernels/isa_table.cpp.in) hands to the
// baseline code: the Dslash and face runners of every family (runner_table), the lane probes and the
// roofline ceilings (probe_table). Include the ISA header (simd/avx2.hpp, simd/fallback.hpp, ...) first: permutes and
// stores come from it. The Dslash bodies themselves (run_dslash_stored) are compiled in units of
// their own, one per family and link storage (kernels/isa_kernels.cpp.in).
#include <cstdint>
#include <type_traits>

#include "kernels/dslash_body.hpp"
#include "kernels/face_body.hpp"
#include "kernels/machine_probe.hpp"
#include "kernels/simd_probe.hpp"

namespace dslash::kernels {

// In a table unit: the family's run_dslash_stored for every link storage and layout is compiled in
// the kernel units, so this unit refers to them instead of compiling them again.
#define DSLASH_BODIES_COMPILED_ELSEWHERE(Real, Vec, Folded)                        \
  extern template void run_dslash_stored<Real, Vec, Folded, true, 18>(const RunArgs<Real>&);  \
  extern template void run_dslash_stored<Real, Vec, Folded, true, 12>(const RunArgs<Real>&);  \
  extern template void run_dslash_stored<Real, Vec, Folded, true, 8>(const RunArgs<Real>&);   \
  extern template void run_dslash_stored<Real, Vec, Folded, false, 18>(const RunArgs<Real>&); \
  extern template void run_dslash_stored<Real, Vec, Folded, false, 12>(const RunArgs<Real>&); \
  extern template void run_dslash_stored<Real, Vec, Folded, false, 8>(const RunArgs<Real>&);

#define DSLASH_HALF_BODIES_COMPILED_ELSEWHERE(Vec, Folded)                                      \
  extern template void run_dslash_half_stored<Vec, Folded, true, 18>(const RunArgs<float>&);  \
  extern template void run_dslash_half_stored<Vec, Folded, true, 12>(const RunArgs<float>&);  \
  extern template void run_dslash_half_stored<Vec, Folded, true, 8>(const RunArgs<float>&);   \
  extern template void run_dslash_half_stored<Vec, Folded, false, 18>(const RunArgs<float>&); \
  extern template void run_dslash_half_stored<Vec, Folded, false, 12>(const RunArgs<float>&); \
  extern template void run_dslash_half_stored<Vec, Folded, false, 8>(const RunArgs<float>&);

template <class Vec, int Level = 0>
void probe_permute(int level, const typename Vec::value_type* in, typename Vec::value_type* out) {
  if constexpr ((1 << Level) < static_cast<int>(Vec::size)) {
    if (level == Level) return simd::permute<Level>(Vec::load_aligned(in)).store_aligned(out);
    probe_permute<Vec, Level + 1>(level, in, out);
  }
}

// The face halves of simd/lane_traits.hpp at lane bit `level`: out = expand_half(in, node), or
// out[0, W/2) = compress_half(in, node).
template <class Vec, int Level = 0>
void probe_half(bool expand, int level, int node, const typename Vec::value_type* in, typename Vec::value_type* out) {
  if constexpr ((1 << Level) < static_cast<int>(Vec::size)) {
    if (level != Level) return probe_half<Vec, Level + 1>(expand, level, node, in, out);
    Vec v;
    if (!expand) return simd::compress_half<Level>(out, Vec::load_aligned(in), node);
    simd::expand_half<Level>(v, in, node);
    v.store_aligned(out);
  }
}

// out = keep_half<level>(in, node) (simd/lane_traits.hpp).
template <class Vec, int Level = 0>
void probe_keep_half(int level, int node, const typename Vec::value_type* in, typename Vec::value_type* out) {
  if constexpr ((1 << Level) < static_cast<int>(Vec::size)) {
    if (level != Level) return probe_keep_half<Vec, Level + 1>(level, node, in, out);
    simd::keep_half<Level>(Vec::load_aligned(in), node).store_aligned(out);
  }
}

// Half precision storage: the vector conversions and site scales (simd/xsimd_shim.hpp), W lanes.
template <class Vec>
void probe_load_fixed16(const std::int16_t* codes, const float* scale, float* out) {
  simd::load_fixed16(codes, Vec::load_aligned(scale)).store_aligned(out);
}
template <class Vec>
void probe_store_fixed16(const float* x, const float* store_scale, std::int16_t* codes) {
  simd::store_fixed16(codes, Vec::load_aligned(x), Vec::load_aligned(store_scale));
}
template <class Vec>
void probe_fixed16_scales(const float* m, const float* x, float* norm, float* load_scale, float* store_scale) {
  const Vec n = simd::fixed16_site_norm(simd::max_abs(Vec::load_aligned(m), Vec::load_aligned(x)));
  n.store_aligned(norm);
  simd::fixed16_load_scale(n).store_aligned(load_scale);
  simd::fixed16_store_scale(n).store_aligned(store_scale);
}

template <class Vec>
void probe_complex_op(SimdOp op, const typename Vec::value_type* a, const typename Vec::value_type* b,
                      const typename Vec::value_type* c, typename Vec::value_type* out) {
  complex_op<Vec>(op, a, b, c, out);
  if (op == SimdOp::StreamStore) simd::store_fence();
}

// naive is the one-lane unfolded body (the scalar set's mrhs); vnode where its units are built;
// half precision (float tables) where DSLASH_HALF_ISAS builds it.
template <class Real, class Vec, bool WithVnode, bool WithHalf = false>
RunnerTable<Real> runner_table() {
  RunnerTable<Real> t;
  FamilyRunners<Real>& mrhs = t.family[static_cast<int>(KernelFamily::Mrhs)];
  mrhs = {&run_dslash<Real, Vec, false>, &run_faces<Real, Vec, false>, &run_project_all<Real, Vec, false>, &run_traffic<Real, Vec, false>};
  if constexpr (WithHalf) set_half_runners<Vec, false>(mrhs);
  if constexpr (Vec::size == 1) t.family[static_cast<int>(KernelFamily::Naive)] = mrhs;
  if constexpr (WithVnode) {
    FamilyRunners<Real>& vnode = t.family[static_cast<int>(KernelFamily::Vnode)];
    vnode = {&run_dslash<Real, Vec, true>, &run_faces<Real, Vec, true>, &run_project_all<Real, Vec, true>, &run_traffic<Real, Vec, true>};
    if constexpr (WithHalf) set_half_runners<Vec, true>(vnode);
  }
  return t;
}

template <class Real, class Vec, bool WithVnode>
ProbeTable<Real> probe_table() {
  ProbeTable<Real> t;
  t.probe = {static_cast<int>(Vec::size), &probe_permute<Vec>, &probe_complex_op<Vec>, &probe_half<Vec>, &probe_keep_half<Vec>};
  if constexpr (std::is_same_v<Real, float>) {
    t.probe.load_fixed16 = &probe_load_fixed16<Vec>;
    t.probe.store_fixed16 = &probe_store_fixed16<Vec>;
    t.probe.fixed16_scales = &probe_fixed16_scales<Vec>;
  }
  t.machine = {&stream_triad<Vec>, &fma_peak<Vec>, &body_flops<Real, Vec, false>, nullptr};
  if constexpr (WithVnode) t.machine.vnode_body = &body_flops<Real, Vec, true>;
  return t;
}

}  // namespace dslash::kernels
