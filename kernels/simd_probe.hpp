#pragma once
// One SimdOp of the SIMD probe (SimdProbe in dslash_runner.hpp) on plain arrays of W lanes, complex
// operands split (W real parts, then W imaginary): the same code checks a CPU register type
// (runner_table.hpp) and the GPU's SIMT lanes (cuda_runners.cuh), lane by lane. Include the ISA
// header first: stream_store comes from it.
#include "dslash/core/macros.hpp"
#include "kernels/dslash_runner.hpp"
#include "simd/complex.hpp"

namespace dslash::kernels {

template <class Vec, class Real = typename Vec::value_type>
DSLASH_INLINE_FUNCTION void complex_op(SimdOp op, const Real* a, const Real* b, const Real* c, Real* out) {
  constexpr int W = static_cast<int>(Vec::size);
  const simd::Complex<Vec> x{Vec::load_aligned(a), Vec::load_aligned(a + W)}, y{Vec::load_aligned(b), Vec::load_aligned(b + W)},
      z{Vec::load_aligned(c), Vec::load_aligned(c + W)};
  simd::Complex<Vec> r = x;
  switch (op) {
    case SimdOp::Mul: r = simd::mul(x, y); break;
    case SimdOp::MulAdd: r = simd::mul_add(x, y, z); break;
    case SimdOp::ConjMulAdd: r = simd::conj_mul_add(x, y, z); break;
    case SimdOp::TimesI: r = simd::times_i(x); break;
    case SimdOp::TimesMinusI: r = simd::times_minus_i(x); break;
    case SimdOp::StreamStore:
      simd::stream_store(out, x.re);
      simd::stream_store(out + W, x.im);
      return;
  }
  r.re.store_aligned(out);
  r.im.store_aligned(out + W);
}

}  // namespace dslash::kernels
