#pragma once
// What one instruction set's translation unit (kernels/dslash_<isa>.cpp) hands to the baseline code:
// the Dslash and face runners of every family, the lane probes and the roofline ceilings. Include
// the ISA header (simd/avx2.hpp, simd/fallback.hpp, ...) first: permutes and stores come from it.
#include "kernels/dslash_body.hpp"
#include "kernels/face_body.hpp"
#include "kernels/machine_probe.hpp"

namespace dslash::kernels {

template <class Vec, int Level = 0>
void probe_permute(int level, const typename Vec::value_type* in, typename Vec::value_type* out) {
  if constexpr ((1 << Level) < static_cast<int>(Vec::size)) {
    if (level == Level) return simd::permute<Level>(Vec::load_aligned(in)).store_aligned(out);
    probe_permute<Vec, Level + 1>(level, in, out);
  }
}

template <class Vec>
void probe_complex_op(SimdOp op, const typename Vec::value_type* a, const typename Vec::value_type* b,
                      const typename Vec::value_type* c, typename Vec::value_type* out) {
  constexpr int W = static_cast<int>(Vec::size);
  const auto load = [](const typename Vec::value_type* p) { return Complex<Vec>{Vec::load_aligned(p), Vec::load_aligned(p + W)}; };
  const Complex<Vec> x = load(a), y = load(b), z = load(c);
  Complex<Vec> r{};
  switch (op) {
    case SimdOp::Mul: r = simd::mul(x, y); break;
    case SimdOp::MulAdd: r = simd::mul_add(x, y, z); break;
    case SimdOp::ConjMulAdd: r = simd::conj_mul_add(x, y, z); break;
    case SimdOp::TimesI: r = simd::times_i(x); break;
    case SimdOp::TimesMinusI: r = simd::times_minus_i(x); break;
    case SimdOp::StreamStore:
      simd::stream_store(out, x.re);
      simd::stream_store(out + W, x.im);
      simd::store_fence();
      return;
  }
  r.re.store_aligned(out);
  r.im.store_aligned(out + W);
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
  if (with_naive) t.naive_traffic = &run_traffic<Real, Vec, false>;
  t.mrhs_traffic = &run_traffic<Real, Vec, false>;
  t.vnode_traffic = &run_traffic<Real, Vec, true>;
  t.probe = {static_cast<int>(Vec::size), &probe_permute<Vec>, &probe_complex_op<Vec>};
  t.machine = {&stream_triad<Vec>, &fma_peak<Vec>, &body_flops<Real, Vec, false>, &body_flops<Real, Vec, true>};
  return t;
}

}  // namespace dslash::kernels
