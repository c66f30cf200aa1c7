#pragma once
// Half precision storage (simd/fixed16.hpp) on SIMT lanes (simd/simt.hpp): each thread
// converts its own K lanes with the scalar definition, reading or writing its K codes in one access
// (2K bytes, aligned: a vector of W codes is). Include only from .cu files (nvcc).
#include <cstdint>

#include "simd/fixed16.hpp"
#include "simd/simt.hpp"

namespace dslash::simd {

template <int K>
struct alignas(2 * K) Fixed16Chunk {
  std::int16_t c[K];
};

template <int W, int K>
DSLASH_INLINE_FUNCTION SimtLane<float, W, K> load_fixed16(const std::int16_t* q, const SimtLane<float, W, K>& scale) {
  const Fixed16Chunk<K> codes = reinterpret_cast<const Fixed16Chunk<K>*>(q)[SimtLane<float, W, K>::thread()];
  SimtLane<float, W, K> r;
  for (int k = 0; k < K; ++k) r.v[k] = fixed16::to_float(codes.c[k], scale.v[k]);
  return r;
}
template <int W, int K>
DSLASH_INLINE_FUNCTION void store_fixed16(std::int16_t* q, const SimtLane<float, W, K>& x, const SimtLane<float, W, K>& store_scale) {
  Fixed16Chunk<K> codes;
  for (int k = 0; k < K; ++k) codes.c[k] = fixed16::to_code(x.v[k], store_scale.v[k]);
  reinterpret_cast<Fixed16Chunk<K>*>(q)[SimtLane<float, W, K>::thread()] = codes;
}

template <int W, int K>
DSLASH_INLINE_FUNCTION SimtLane<float, W, K> max_abs(const SimtLane<float, W, K>& m, const SimtLane<float, W, K>& x) {
  return SimtLane<float, W, K>::each([](float a, float b) { return fmaxf(a, fabsf(b)); }, m, x);
}
template <int W, int K>
DSLASH_INLINE_FUNCTION SimtLane<float, W, K> fixed16_site_norm(const SimtLane<float, W, K>& max_abs) {
  return SimtLane<float, W, K>::each([](float a) { return fixed16::site_norm(a); }, max_abs);
}
template <int W, int K>
DSLASH_INLINE_FUNCTION SimtLane<float, W, K> fixed16_store_scale(const SimtLane<float, W, K>& norm) {
  return SimtLane<float, W, K>::each([](float a) { return fixed16::store_scale(a); }, norm);
}

}  // namespace dslash::simd
