#pragma once
// Our own scalar fallback (xsimd 8.1 has no scalar or emulated batch): W lanes in a plain array,
// with the interface of the per-ISA batches. W = 1 is the scalar type of the naive kernel; larger W
// emulates a vector ISA lane by lane (the tests use it to fold a lattice 16 ways on any CPU).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "simd/fixed16.hpp"

namespace dslash::simd {

template <class Real, int W>
struct FallbackBatch {
  using value_type = Real;
  static constexpr std::size_t size = W;
  std::array<Real, W> v;

  FallbackBatch() = default;
  FallbackBatch(Real x) { v.fill(x); }  // broadcast, as xsimd::batch(T)
  static FallbackBatch load_aligned(const Real* p) {
    FallbackBatch b;
    for (int i = 0; i < W; ++i) b.v[i] = p[i];
    return b;
  }
  void store_aligned(Real* p) const {
    for (int i = 0; i < W; ++i) p[i] = v[i];
  }
  static FallbackBatch load_unaligned(const Real* p) { return load_aligned(p); }
  void store_unaligned(Real* p) const { store_aligned(p); }
  Real get(int i) const { return v[static_cast<std::size_t>(i)]; }

#define DSLASH_FALLBACK_OP(op)                                              \
  friend FallbackBatch operator op(const FallbackBatch& a, const FallbackBatch& b) { \
    FallbackBatch r;                                                        \
    for (int i = 0; i < W; ++i) r.v[i] = a.v[i] op b.v[i];                  \
    return r;                                                               \
  }
  DSLASH_FALLBACK_OP(+)
  DSLASH_FALLBACK_OP(-)
  DSLASH_FALLBACK_OP(*)
#undef DSLASH_FALLBACK_OP
  friend FallbackBatch operator-(const FallbackBatch& a) {
    FallbackBatch r;
    for (int i = 0; i < W; ++i) r.v[i] = -a.v[i];
    return r;
  }
};

template <class Real, int W>
inline FallbackBatch<Real, W> madd(const FallbackBatch<Real, W>& a, const FallbackBatch<Real, W>& b,
                                   const FallbackBatch<Real, W>& c) {
  return a * b + c;
}
template <class Real, int W>
inline FallbackBatch<Real, W> nmadd(const FallbackBatch<Real, W>& a, const FallbackBatch<Real, W>& b,
                                    const FallbackBatch<Real, W>& c) {
  return c - a * b;
}

// The vector maths of gauge compression (kernels/link_compression.hpp), lane by lane.
template <class Real, int W>
inline FallbackBatch<Real, W> sqrt_nonnegative(const FallbackBatch<Real, W>& x) {  // sqrt(max(x, 0))
  FallbackBatch<Real, W> r;
  for (int i = 0; i < W; ++i) r.v[i] = std::sqrt(std::max(x.v[i], Real(0)));
  return r;
}
template <class Real, int W>
inline void sin_cos(const FallbackBatch<Real, W>& x, FallbackBatch<Real, W>& s, FallbackBatch<Real, W>& c) {
  for (int i = 0; i < W; ++i) {
    s.v[i] = std::sin(x.v[i]);
    c.v[i] = std::cos(x.v[i]);
  }
}
template <class Real, int W>
inline FallbackBatch<Real, W> inverse(const FallbackBatch<Real, W>& x) {
  FallbackBatch<Real, W> r;
  for (int i = 0; i < W; ++i) r.v[i] = Real(1) / x.v[i];
  return r;
}

// Half precision storage (simd/fixed16.hpp): its scalar definition, lane by lane.
template <int W>
inline FallbackBatch<float, W> max_abs(const FallbackBatch<float, W>& m, const FallbackBatch<float, W>& x) {
  FallbackBatch<float, W> r;
  for (int i = 0; i < W; ++i) r.v[i] = std::max(m.v[i], std::fabs(x.v[i]));
  return r;
}
template <int W>
inline FallbackBatch<float, W> fixed16_site_norm(const FallbackBatch<float, W>& max_abs) {
  FallbackBatch<float, W> r;
  for (int i = 0; i < W; ++i) r.v[i] = fixed16::site_norm(max_abs.v[i]);
  return r;
}
template <int W>
inline FallbackBatch<float, W> fixed16_store_scale(const FallbackBatch<float, W>& norm) {
  FallbackBatch<float, W> r;
  for (int i = 0; i < W; ++i) r.v[i] = fixed16::store_scale(norm.v[i]);
  return r;
}
template <int W>
inline FallbackBatch<float, W> load_fixed16(const std::int16_t* q, const FallbackBatch<float, W>& scale) {
  FallbackBatch<float, W> r;
  for (int i = 0; i < W; ++i) r.v[i] = fixed16::to_float(q[i], scale.v[i]);
  return r;
}
template <int W>
inline void store_fixed16(std::int16_t* q, const FallbackBatch<float, W>& x, const FallbackBatch<float, W>& store_scale) {
  for (int i = 0; i < W; ++i) q[i] = fixed16::to_code(x.v[i], store_scale.v[i]);
}

// Swap lanes whose index differs in bit Level: lane i takes lane i ^ (1 << Level).
//   Level 0: AB CD EF GH -> BA DC FE HG     Level 1: ABCD EFGH -> CDAB GHEF     Level 2: ABCDEFGH -> EFGHABCD
template <int Level, class Real, int W>
inline FallbackBatch<Real, W> permute(const FallbackBatch<Real, W>& a) {
  static_assert((1 << Level) < W, "permute level out of range for this width");
  FallbackBatch<Real, W> r;
  for (int i = 0; i < W; ++i) r.v[i] = a.v[i ^ (1 << Level)];
  return r;
}

template <class Real, int W>
inline void stream_store(Real* p, const FallbackBatch<Real, W>& b) {
  b.store_aligned(p);
}

}  // namespace dslash::simd
