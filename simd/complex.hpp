#pragma once
// Include the ISA header (simd/avx2.hpp, simd/fallback.hpp, ...) first: madd and nmadd come from it.
// Split complex SIMD numbers: one vector of real parts, one of imaginary parts (xsimd's complex
// batches are split the same way), and the complex arithmetic the Dslash needs.
#include "dslash/core/macros.hpp"

namespace dslash::simd {

template <class V>
struct Complex {
  V re, im;
};

template <class V> DSLASH_INLINE_FUNCTION Complex<V> operator+(const Complex<V>& a, const Complex<V>& b) { return {a.re + b.re, a.im + b.im}; }
template <class V> DSLASH_INLINE_FUNCTION Complex<V> operator-(const Complex<V>& a, const Complex<V>& b) { return {a.re - b.re, a.im - b.im}; }
template <class V> DSLASH_INLINE_FUNCTION Complex<V> times_i(const Complex<V>& a) { return {-a.im, a.re}; }        // i (x + iy) = -y + ix
template <class V> DSLASH_INLINE_FUNCTION Complex<V> times_minus_i(const Complex<V>& a) { return {a.im, -a.re}; } // -i (x + iy) = y - ix

// acc + a * b
template <class V>
DSLASH_INLINE_FUNCTION Complex<V> mul_add(const Complex<V>& a, const Complex<V>& b, const Complex<V>& acc) {
  return {nmadd(a.im, b.im, madd(a.re, b.re, acc.re)), madd(a.im, b.re, madd(a.re, b.im, acc.im))};
}
// a * b
template <class V>
DSLASH_INLINE_FUNCTION Complex<V> mul(const Complex<V>& a, const Complex<V>& b) {
  return {nmadd(a.im, b.im, a.re * b.re), madd(a.im, b.re, a.re * b.im)};
}
// acc + conj(a) * b
template <class V>
DSLASH_INLINE_FUNCTION Complex<V> conj_mul_add(const Complex<V>& a, const Complex<V>& b, const Complex<V>& acc) {
  return {madd(a.im, b.im, madd(a.re, b.re, acc.re)), nmadd(a.im, b.re, madd(a.re, b.im, acc.im))};
}

}  // namespace dslash::simd
