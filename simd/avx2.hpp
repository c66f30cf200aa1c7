#pragma once
// AVX2 + FMA: 8 floats or 4 doubles per vector. Include only from translation units built with
// -mavx2 -mfma.
#include <immintrin.h>

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

inline void stream_store(float* p, const Avx2Float& b) { _mm256_stream_ps(p, to_register(b)); }
inline void stream_store(double* p, const Avx2Double& b) { _mm256_stream_pd(p, to_register(b)); }

}  // namespace dslash::simd
