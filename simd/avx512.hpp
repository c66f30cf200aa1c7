#pragma once
// AVX-512F: 16 floats or 8 doubles per vector. Include only from translation units built with
// -mavx512f. (GCC 12 warns falsely inside these intrinsics, bug 105593: never -Werror here.)
#include <immintrin.h>

#include <cstdint>

#include "simd/xsimd_shim.hpp"
// after the shim: lane_traits.hpp brings complex.hpp, whose arithmetic needs the shim's madd
#include "simd/lane_traits.hpp"

namespace dslash::simd {

using Avx512Float = Batch<float, xsimd_avx512>;
using Avx512Double = Batch<double, xsimd_avx512>;

// Lane i takes lane i ^ (1 << Level). Letters are lanes, a space every 128 bits.
template <int Level>
inline Avx512Float permute(const Avx512Float& a) {
  static_assert(Level >= 0 && Level < 4);
  const __m512 r = to_register(a);
  if constexpr (Level == 0) return _mm512_permute_ps(r, 0xB1);                // ABCD -> BADC in each 128
  else if constexpr (Level == 1) return _mm512_permute_ps(r, 0x4E);           // ABCD -> CDAB in each 128
  else if constexpr (Level == 2) return _mm512_shuffle_f32x4(r, r, 0xB1);     // Q0 Q1 Q2 Q3 -> Q1 Q0 Q3 Q2
  else return _mm512_shuffle_f32x4(r, r, 0x4E);                               // Q0 Q1 Q2 Q3 -> Q2 Q3 Q0 Q1
}
template <int Level>
inline Avx512Double permute(const Avx512Double& a) {
  static_assert(Level >= 0 && Level < 3);
  const __m512d r = to_register(a);
  if constexpr (Level == 0) return _mm512_permute_pd(r, 0x55);                // AB -> BA in each 128
  else if constexpr (Level == 1) return _mm512_shuffle_f64x2(r, r, 0xB1);     // Q0 Q1 Q2 Q3 -> Q1 Q0 Q3 Q2
  else return _mm512_shuffle_f64x2(r, r, 0x4E);                               // Q0 Q1 Q2 Q3 -> Q2 Q3 Q0 Q1
}

// simd/lane_traits.hpp's face halves in one instruction each way, through registers (a compress
// straight to memory is microcoded and slow on AMD Zen 4).
//   expand   Level 0, node 1: ABCD EFGH (256 bits) -> 0A0B 0C0D 0E0F 0G0H
//   compress Level 0, node 1: 0A0B 0C0D 0E0F 0G0H   -> ABCD EFGH
template <int Level>
inline void expand_half(Avx512Float& v, const float* src, int node) {
  const __mmask16 m = static_cast<__mmask16>(node ? half_lanes_mask<16, Level>(1) : half_lanes_mask<16, Level>(0));
  v = _mm512_maskz_expand_ps(m, _mm512_castps256_ps512(_mm256_loadu_ps(src)));
}
template <int Level>
inline void compress_half(float* dst, const Avx512Float& v, int node) {
  const __mmask16 m = static_cast<__mmask16>(node ? half_lanes_mask<16, Level>(1) : half_lanes_mask<16, Level>(0));
  _mm256_storeu_ps(dst, _mm512_castps512_ps256(_mm512_maskz_compress_ps(m, to_register(v))));
}
template <int Level>
inline void expand_half(Avx512Double& v, const double* src, int node) {
  const __mmask8 m = static_cast<__mmask8>(node ? half_lanes_mask<8, Level>(1) : half_lanes_mask<8, Level>(0));
  v = _mm512_maskz_expand_pd(m, _mm512_castpd256_pd512(_mm256_loadu_pd(src)));
}
template <int Level>
inline void compress_half(double* dst, const Avx512Double& v, int node) {
  const __mmask8 m = static_cast<__mmask8>(node ? half_lanes_mask<8, Level>(1) : half_lanes_mask<8, Level>(0));
  _mm256_storeu_pd(dst, _mm512_castpd512_pd256(_mm512_maskz_compress_pd(m, to_register(v))));
}
template <int Level>
inline Avx512Float keep_half(const Avx512Float& v, int node) {
  return _mm512_maskz_mov_ps(static_cast<__mmask16>(half_lanes_mask<16, Level>(node)), to_register(v));
}
template <int Level>
inline Avx512Double keep_half(const Avx512Double& v, int node) {
  return _mm512_maskz_mov_pd(static_cast<__mmask8>(half_lanes_mask<8, Level>(node)), to_register(v));
}

// Half precision storage (simd/xsimd_shim.hpp): 16 codes <-> 16 floats, lane i the scalar
// fixed16::to_float / to_code of lane i. The conversion rounds as MXCSR says: to nearest, ties to
// even, as rintf; the clamp keeps the 32-bit integers inside int16, so the narrowing is exact.
inline Avx512Float load_fixed16(const std::int16_t* q, const Avx512Float& scale) {
  const __m256i codes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q));
  return Avx512Float(_mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(codes))) * scale;
}
inline void store_fixed16(std::int16_t* q, const Avx512Float& x, const Avx512Float& store_scale) {
  const __m512i codes = _mm512_cvtps_epi32(to_register(fixed16_clamped(x, store_scale)));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(q), _mm512_cvtepi32_epi16(codes));
}

inline void stream_store(float* p, const Avx512Float& b) { _mm512_stream_ps(p, to_register(b)); }
inline void stream_store(double* p, const Avx512Double& b) { _mm512_stream_pd(p, to_register(b)); }

}  // namespace dslash::simd
