#pragma once
// AVX-512F: 16 floats or 8 doubles per vector. Include only from translation units built with
// -mavx512f. (GCC 12 warns falsely inside these intrinsics, bug 105593: never -Werror here.)
#include <immintrin.h>

#include "simd/xsimd_shim.hpp"

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

inline void stream_store(float* p, const Avx512Float& b) { _mm512_stream_ps(p, to_register(b)); }
inline void stream_store(double* p, const Avx512Double& b) { _mm512_stream_pd(p, to_register(b)); }

}  // namespace dslash::simd
