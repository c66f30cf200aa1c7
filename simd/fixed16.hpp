#pragma once
// Half precision storage (docs/CONVENTIONS.md, "Half precision storage"): QUDA's 16-bit fixed
// point. A real x is the code q in -32767..32767 times a scale; spinors take one scale a site, from
// the site's norm (max |real|), links the fixed scale of norm 1 (SU(3) entries lie in [-1, 1]).
// These scalar functions are the definition: every SIMD form (simd/) agrees with them bit for bit,
// so each is a single float operation or an exact one (no sum that an FMA could contract).
#include <math.h>

#include <cstdint>

#include "dslash/core/macros.hpp"

namespace dslash::fixed16 {

// The largest code; -32768 is never written, so the codes are symmetric about zero.
inline constexpr float kMaxCode = 32767.0f;
// Sites whose norm is below this are stored as zero: above it 32767 / norm and norm / 32767 stay
// finite and normal, so no subnormal arises and flush-to-zero arithmetic (CUDA's -ftz) agrees.
inline constexpr float kNormMin = 0x1p-100f;
// The norm of links: the scale that maps [-1, 1] onto the codes.
inline constexpr float kLinkNorm = 1.0f;
// The norm of 8-real links' two phases, which lie in [-pi, pi]: pi rounded up to a float.
inline constexpr float kPhaseNorm = 3.14159274f;

// The norm stored for a site whose largest |real| is max_abs (NaN stays NaN).
DSLASH_INLINE_FUNCTION float site_norm(float max_abs) { return max_abs < kNormMin ? 0.0f : max_abs; }
// real = code * load_scale(norm): a zero norm reads back zeros, never NaN.
DSLASH_INLINE_FUNCTION float load_scale(float norm) { return norm * (1.0f / kMaxCode); }
// code = round(real * store_scale(norm)): 0 for a zero site.
DSLASH_INLINE_FUNCTION float store_scale(float norm) { return norm > 0.0f ? kMaxCode / norm : 0.0f; }

DSLASH_INLINE_FUNCTION float to_float(std::int16_t code, float load_scale) { return static_cast<float>(code) * load_scale; }
// Round to nearest, ties to even (rintf in the default rounding mode, as the SIMD conversions),
// after clamping to the codes: a real beyond the norm saturates rather than wrapping.
DSLASH_INLINE_FUNCTION std::int16_t to_code(float x, float store_scale) {
  float y = x * store_scale;
  y = y > kMaxCode ? kMaxCode : y;
  y = y < -kMaxCode ? -kMaxCode : y;
#if DSLASH_ON_DEVICE
  return static_cast<std::int16_t>(__float2int_rn(y));  // one conversion where rintf and a cast are two
#else
  return static_cast<std::int16_t>(rintf(y));
#endif
}

}  // namespace dslash::fixed16
