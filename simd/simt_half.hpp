#pragma once
// Half precision storage (simd/fixed16.hpp) on SIMT lanes (simd/simt.hpp): each thread converts its
// own lane with the scalar definition, so the W threads of a vector read or write W adjacent codes,
// one coalesced access. Include only from .cu files (nvcc).
#include <cstdint>

#include "simd/fixed16.hpp"
#include "simd/simt.hpp"

namespace dslash::simd {

template <int W>
DSLASH_INLINE_FUNCTION SimtLane<float, W> load_fixed16(const std::int16_t* q, const SimtLane<float, W>& scale) {
  return SimtLane<float, W>(fixed16::to_float(q[SimtLane<float, W>::lane()], scale.v));
}
template <int W>
DSLASH_INLINE_FUNCTION void store_fixed16(std::int16_t* q, const SimtLane<float, W>& x, const SimtLane<float, W>& store_scale) {
  q[SimtLane<float, W>::lane()] = fixed16::to_code(x.v, store_scale.v);
}

template <int W>
DSLASH_INLINE_FUNCTION SimtLane<float, W> max_abs(const SimtLane<float, W>& m, const SimtLane<float, W>& x) {
  return SimtLane<float, W>(fmaxf(m.v, fabsf(x.v)));
}
template <int W>
DSLASH_INLINE_FUNCTION SimtLane<float, W> fixed16_site_norm(const SimtLane<float, W>& max_abs) {
  return SimtLane<float, W>(fixed16::site_norm(max_abs.v));
}
template <int W>
DSLASH_INLINE_FUNCTION SimtLane<float, W> fixed16_store_scale(const SimtLane<float, W>& norm) {
  return SimtLane<float, W>(fixed16::store_scale(norm.v));
}

// The GPU's vnode layout (kernels/kernel_layout.hpp): lane l's (re, im) codes at q[2 l], q[2 l + 1].
template <int W>
DSLASH_INLINE_FUNCTION Complex<SimtLane<float, W>> load_fixed16_pair(const std::int16_t* q, const SimtLane<float, W>& scale) {
  const short2 c = reinterpret_cast<const short2*>(q)[SimtLane<float, W>::lane()];
  return {SimtLane<float, W>(fixed16::to_float(c.x, scale.v)), SimtLane<float, W>(fixed16::to_float(c.y, scale.v))};
}
template <int W>
DSLASH_INLINE_FUNCTION void store_fixed16_pair(std::int16_t* q, const Complex<SimtLane<float, W>>& z, const SimtLane<float, W>& store_scale) {
  short2 c;
  c.x = fixed16::to_code(z.re.v, store_scale.v);
  c.y = fixed16::to_code(z.im.v, store_scale.v);
  reinterpret_cast<short2*>(q)[SimtLane<float, W>::lane()] = c;
}

}  // namespace dslash::simd
