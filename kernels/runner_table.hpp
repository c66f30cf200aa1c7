#pragma once
// What one instruction set's translation unit (kernels/dslash_<isa>.cpp) hands to the baseline code:
// the Dslash and face runners of every family, the lane probes and the roofline ceilings. Include
// the ISA header (simd/avx2.hpp, simd/fallback.hpp, ...) first: permutes and stores come from it.
#include "kernels/dslash_body.hpp"
#include "kernels/face_body.hpp"
#include "kernels/machine_probe.hpp"
#include "kernels/simd_probe.hpp"

namespace dslash::kernels {

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

template <class Vec>
void probe_complex_op(SimdOp op, const typename Vec::value_type* a, const typename Vec::value_type* b,
                      const typename Vec::value_type* c, typename Vec::value_type* out) {
  complex_op<Vec>(op, a, b, c, out);
  if (op == SimdOp::StreamStore) simd::store_fence();
}

template <class Real, class Vec>
RunnerTable<Real> runner_table(bool with_naive) {
  RunnerTable<Real> t;
  if (with_naive) t.naive = &run_dslash<Real, Vec, false>;
  t.mrhs = &run_dslash<Real, Vec, false>;
  t.vnode = &run_dslash<Real, Vec, true>;
  if (with_naive) t.naive_faces = &run_faces<Real, Vec, false>;
  t.mrhs_faces = &run_faces<Real, Vec, false>;
  t.vnode_faces = &run_faces<Real, Vec, true>;
  if (with_naive) t.naive_project_all = &run_project_all<Real, Vec, false>;
  t.mrhs_project_all = &run_project_all<Real, Vec, false>;
  t.vnode_project_all = &run_project_all<Real, Vec, true>;
  if (with_naive) t.naive_traffic = &run_traffic<Real, Vec, false>;
  t.mrhs_traffic = &run_traffic<Real, Vec, false>;
  t.vnode_traffic = &run_traffic<Real, Vec, true>;
  t.probe = {static_cast<int>(Vec::size), &probe_permute<Vec>, &probe_complex_op<Vec>, &probe_half<Vec>, &probe_keep_half<Vec>};
  t.machine = {&stream_triad<Vec>, &fma_peak<Vec>, &body_flops<Real, Vec, false>, &body_flops<Real, Vec, true>};
  return t;
}

}  // namespace dslash::kernels
