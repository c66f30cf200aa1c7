#pragma once
// AVX2 + FMA: 8 floats or 4 doubles per vector. Include only from translation units built with
// -mavx2 -mfma.
#include <immintrin.h>

#include <cstdint>

#include "simd/xsimd_shim.hpp"

namespace dslash::simd {

using Avx2Float = Batch<float, xsimd_avx2>;
using Avx2Double = Batch<double, xsimd_avx2>;

// Lane i takes lane i ^ (1 << Level).
template <int Level>
inline Avx2Float permute(const Avx2Float& a) {
  static_assert(Level >= 0 && Level < 3);
  const __m256 r = to_register(a);
  if constexpr (Level == 0) return _mm256_permute_ps(r, 0xB1);        // ABCD EFGH -> BADC FEHG
  else if constexpr (Level == 1) return _mm256_permute_ps(r, 0x4E);   // ABCD EFGH -> CDAB GHEF
  else return _mm256_permute2f128_ps(r, r, 0x01);                     // ABCD EFGH -> EFGH ABCD
}
template <int Level>
inline Avx2Double permute(const Avx2Double& a) {
  static_assert(Level >= 0 && Level < 2);
  const __m256d r = to_register(a);
  if constexpr (Level == 0) return _mm256_permute_pd(r, 0x5);         // AB CD -> BA DC
  else return _mm256_permute2f128_pd(r, r, 0x01);                     // AB CD -> CD AB
}

// Half precision storage (simd/xsimd_shim.hpp): 8 codes <-> 8 floats, as simd/avx512.hpp.
inline Avx2Float load_fixed16(const std::int16_t* q, const Avx2Float& scale) {
  const __m128i codes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
  return Avx2Float(_mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(codes))) * scale;
}
inline void store_fixed16(std::int16_t* q, const Avx2Float& x, const Avx2Float& store_scale) {
  const __m256i codes = _mm256_cvtps_epi32(to_register(fixed16_clamped(x, store_scale)));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(q), _mm_packs_epi32(_mm256_castsi256_si128(codes), _mm256_extracti128_si256(codes, 1)));
}

inline void stream_store(float* p, const Avx2Float& b) { _mm256_stream_ps(p, to_register(b)); }
inline void stream_store(double* p, const Avx2Double& b) { _mm256_stream_pd(p, to_register(b)); }

}  // namespace dslash::simd
