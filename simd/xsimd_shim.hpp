#pragma once
// Every construct that depends on the xsimd version lives here (written against Debian's xsimd
// 8.1; xsimd 9+ renamed hadd to reduce_add and changed some arch spellings).
#include <xsimd/xsimd.hpp>

#include <type_traits>

#include "simd/fixed16.hpp"

namespace dslash::simd {

// The x86-64 instruction sets we compile kernels for, as xsimd arch tags.
using xsimd_sse2 = xsimd::sse2;
using xsimd_avx2 = xsimd::fma3<xsimd::avx2>;  // AVX2 with FMA: every AVX2 CPU we target has it
using xsimd_avx512 = xsimd::avx512f;

template <class T, class A>
using Batch = xsimd::batch<T, A>;

// Fused multiply-add forms: madd = a*b + c, nmadd = c - a*b.
template <class T, class A>
inline Batch<T, A> madd(const Batch<T, A>& a, const Batch<T, A>& b, const Batch<T, A>& c) {
  return xsimd::fma(a, b, c);
}
template <class T, class A>
inline Batch<T, A> nmadd(const Batch<T, A>& a, const Batch<T, A>& b, const Batch<T, A>& c) {
  return xsimd::fnma(a, b, c);
}

#if defined(__x86_64__) || defined(__i386__)
// xsimd 8.1 has no fma for AVX-512F: its generic one is a * b + c, two roundings that the compiler
// fuses or not instantiation by instantiation (GCC 13 fused the xpay epilogue of the Norm and
// NormDot kernels differently: their outputs an ulp apart). The instructions themselves, as templates
// so that only the -mavx512f unit instantiates them.
template <class A>
  requires std::is_same_v<A, xsimd::avx512f>
inline Batch<float, A> madd(const Batch<float, A>& a, const Batch<float, A>& b, const Batch<float, A>& c) {
  return _mm512_fmadd_ps(a, b, c);
}
template <class A>
  requires std::is_same_v<A, xsimd::avx512f>
inline Batch<double, A> madd(const Batch<double, A>& a, const Batch<double, A>& b, const Batch<double, A>& c) {
  return _mm512_fmadd_pd(a, b, c);
}
template <class A>
  requires std::is_same_v<A, xsimd::avx512f>
inline Batch<float, A> nmadd(const Batch<float, A>& a, const Batch<float, A>& b, const Batch<float, A>& c) {
  return _mm512_fnmadd_ps(a, b, c);  // c - a b
}
template <class A>
  requires std::is_same_v<A, xsimd::avx512f>
inline Batch<double, A> nmadd(const Batch<double, A>& a, const Batch<double, A>& b, const Batch<double, A>& c) {
  return _mm512_fnmadd_pd(a, b, c);
}
#endif

// The vector maths of gauge compression (kernels/link_compression.hpp).
template <class T, class A>
inline Batch<T, A> sqrt_nonnegative(const Batch<T, A>& x) {  // sqrt(max(x, 0)): rounding may take x a little below 0
  return xsimd::sqrt(xsimd::max(x, Batch<T, A>(T(0))));
}
template <class T, class A>
inline void sin_cos(const Batch<T, A>& x, Batch<T, A>& s, Batch<T, A>& c) {
  const auto sc = xsimd::sincos(x);
  s = sc.first;
  c = sc.second;
}
// The correctly rounded quotient: xsimd 8.1 divides floats on neon64 as 32-bit NEON does, by a
// reciprocal estimate and two Newton steps, an ulp or two off.
template <class A>
inline Batch<float, A> divide(const Batch<float, A>& a, const Batch<float, A>& b) {
#if defined(__aarch64__)
  if constexpr (std::is_same_v<A, xsimd::neon64>) return vdivq_f32(a, b);
#endif
  return a / b;
}
template <class T, class A>
inline Batch<T, A> inverse(const Batch<T, A>& x) {
  if constexpr (std::is_same_v<T, float>) return divide(Batch<float, A>(1.0f), x);
  else return Batch<T, A>(T(1)) / x;
}

// Half precision storage (simd/fixed16.hpp), lane by lane as its scalar definition; the
// conversions between codes and floats are the instruction set's own (load_fixed16, store_fixed16).
template <class A>
inline Batch<float, A> max_abs(const Batch<float, A>& m, const Batch<float, A>& x) {  // max(m, |x|)
  return xsimd::max(m, xsimd::abs(x));
}
template <class A>
inline Batch<float, A> fixed16_site_norm(const Batch<float, A>& max_abs) {
  return xsimd::select(max_abs < Batch<float, A>(fixed16::kNormMin), Batch<float, A>(0.0f), max_abs);
}
template <class A>
inline Batch<float, A> fixed16_store_scale(const Batch<float, A>& norm) {  // the zero lanes' inf is not selected
  return xsimd::select(norm > Batch<float, A>(0.0f), divide(Batch<float, A>(fixed16::kMaxCode), norm), Batch<float, A>(0.0f));
}
// x * store_scale clamped to the codes, ready for the rounding conversion to integers.
template <class A>
inline Batch<float, A> fixed16_clamped(const Batch<float, A>& x, const Batch<float, A>& store_scale) {
  const Batch<float, A> k(fixed16::kMaxCode);
  return xsimd::max(xsimd::min(x * store_scale, k), -k);
}

template <class T, class A>
inline T reduce_add(const Batch<T, A>& b) {
#if XSIMD_VERSION_MAJOR >= 9
  return xsimd::reduce_add(b);
#else
  return xsimd::hadd(b);
#endif
}

// The raw intrinsic register of a batch, and back.
template <class T, class A>
inline typename Batch<T, A>::register_type to_register(const Batch<T, A>& b) {
  return b;
}

// What the running CPU (and OS) supports.
struct CpuFeatures {
  bool sse2, avx2_fma, avx512f, neon;
};
inline CpuFeatures detect_cpu() {
  const auto a = xsimd::available_architectures();
#if defined(__x86_64__) || defined(__i386__)
  return {a.sse2 != 0, a.avx2 != 0 && a.fma3_avx2 != 0, a.avx512f != 0, false};
#else
  return {false, false, false, a.neon64 != 0 || a.neon != 0};
#endif
}

}  // namespace dslash::simd
