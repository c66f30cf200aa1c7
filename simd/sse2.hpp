#pragma once
// SSE2: 4 floats or 2 doubles per vector. Include only from translation units built for SSE2.
#include <emmintrin.h>

#include <cstdint>

#include "simd/xsimd_shim.hpp"

namespace dslash::simd {

using Sse2Float = Batch<float, xsimd_sse2>;
using Sse2Double = Batch<double, xsimd_sse2>;

// Lane i takes lane i ^ (1 << Level).
template <int Level>
inline Sse2Float permute(const Sse2Float& a) {
  static_assert(Level >= 0 && Level < 2);
  const __m128 r = to_register(a);
  if constexpr (Level == 0) return _mm_shuffle_ps(r, r, 0xB1);  // ABCD -> BADC
  else return _mm_shuffle_ps(r, r, 0x4E);                       // ABCD -> CDAB
}
template <int Level>
inline Sse2Double permute(const Sse2Double& a) {
  static_assert(Level == 0);
  const __m128d r = to_register(a);
  return _mm_shuffle_pd(r, r, 1);  // AB -> BA
}

// Half precision storage (simd/xsimd_shim.hpp): 4 codes <-> 4 floats, as simd/avx512.hpp. SSE2 has
// no sign extension of 16-bit integers: each code goes to the top half of a 32-bit lane, and an
// arithmetic shift brings it down.
inline Sse2Float load_fixed16(const std::int16_t* q, const Sse2Float& scale) {
  const __m128i codes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(q));
  return Sse2Float(_mm_cvtepi32_ps(_mm_srai_epi32(_mm_unpacklo_epi16(codes, codes), 16))) * scale;
}
inline void store_fixed16(std::int16_t* q, const Sse2Float& x, const Sse2Float& store_scale) {
  const __m128i codes = _mm_cvtps_epi32(to_register(fixed16_clamped(x, store_scale)));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(q), _mm_packs_epi32(codes, codes));
}

// Non-temporal stores: the output is not read again, so skip the write-allocate read.
inline void stream_store(float* p, const Sse2Float& b) { _mm_stream_ps(p, to_register(b)); }
inline void stream_store(double* p, const Sse2Double& b) { _mm_stream_pd(p, to_register(b)); }

}  // namespace dslash::simd
