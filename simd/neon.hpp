#pragma once
// NEON (AArch64): 4 floats or 2 doubles per vector. Include only from aarch64 translation units.
#include <arm_neon.h>

#include <cstdint>

#include "simd/xsimd_shim.hpp"

namespace dslash::simd {

using NeonFloat = Batch<float, xsimd::neon64>;
using NeonDouble = Batch<double, xsimd::neon64>;

template <int Level>
inline NeonFloat permute(const NeonFloat& a) {
  static_assert(Level >= 0 && Level < 2);
  const float32x4_t r = to_register(a);
  if constexpr (Level == 0) return vrev64q_f32(r);  // ABCD -> BADC
  else return vextq_f32(r, r, 2);                   // ABCD -> CDAB
}
template <int Level>
inline NeonDouble permute(const NeonDouble& a) {
  static_assert(Level == 0);
  const float64x2_t r = to_register(a);
  return vextq_f64(r, r, 1);  // AB -> BA
}

// Half precision storage (simd/xsimd_shim.hpp): 4 codes <-> 4 floats, as simd/avx512.hpp;
// vcvtnq rounds to nearest, ties to even, whatever FPCR says.
inline NeonFloat load_fixed16(const std::int16_t* q, const NeonFloat& scale) {
  return NeonFloat(vcvtq_f32_s32(vmovl_s16(vld1_s16(q)))) * scale;
}
inline void store_fixed16(std::int16_t* q, const NeonFloat& x, const NeonFloat& store_scale) {
  vst1_s16(q, vqmovn_s32(vcvtnq_s32_f32(to_register(fixed16_clamped(x, store_scale)))));
}

inline void stream_store(float* p, const NeonFloat& b) { b.store_aligned(p); }
inline void stream_store(double* p, const NeonDouble& b) { b.store_aligned(p); }

}  // namespace dslash::simd
