#pragma once
// SIMT lanes: the GPU form of a W-lane vector (KokkosDslash's GPUThreadSIMD, Grid's SIMT vectors).
// W neighbouring threads of a block (threadIdx.x = 0..W-1, the policy's vector length) hold one lane
// each, so the CPU kernel bodies run unchanged: a load reads this thread's lane, and W threads read
// W adjacent reals, one coalesced access. Include only from .cu files (nvcc).
//
// A lane permute is a warp shuffle inside the W-thread group: lane i takes lane i ^ (1 << Level).
//   Level 0: AB CD EF GH -> BA DC FE HG     Level 1: ABCD EFGH -> CDAB GHEF     Level 2: ABCDEFGH -> EFGHABCD
// All W threads of a group work on the same site, so they take the same branches and the group is
// whole at every shuffle, even when other groups of the warp have left the kernel.
#include <cstddef>

#include "dslash/core/macros.hpp"
#include "simd/complex.hpp"
#include "simd/lane_traits.hpp"

namespace dslash::simd {

template <class Real, int W>
struct SimtLane {
  static_assert(W >= 1 && W <= 32 && (W & (W - 1)) == 0, "a SIMT vector is 1, 2, 4, 8, 16 or 32 threads of one warp");
  using value_type = Real;
  static constexpr std::size_t size = W;
  Real v;

  SimtLane() = default;
  DSLASH_INLINE_FUNCTION SimtLane(Real x) : v(x) {}  // broadcast, as xsimd::batch(T)

  // Callable from the host-and-device kernel bodies; meaningful on the device only (there is no lane
  // on the host, where these bodies never run with SimtLane).
  DSLASH_INLINE_FUNCTION static int lane() {
#if DSLASH_ON_DEVICE
    return W == 1 ? 0 : static_cast<int>(threadIdx.x);
#else
    return 0;
#endif
  }
  DSLASH_INLINE_FUNCTION static SimtLane load_aligned(const Real* p) { return SimtLane(p[lane()]); }
  DSLASH_INLINE_FUNCTION static SimtLane load_unaligned(const Real* p) { return load_aligned(p); }
  DSLASH_INLINE_FUNCTION void store_aligned(Real* p) const { p[lane()] = v; }
  DSLASH_INLINE_FUNCTION void store_unaligned(Real* p) const { store_aligned(p); }

  DSLASH_INLINE_FUNCTION friend SimtLane operator+(const SimtLane& a, const SimtLane& b) { return SimtLane(a.v + b.v); }
  DSLASH_INLINE_FUNCTION friend SimtLane operator-(const SimtLane& a, const SimtLane& b) { return SimtLane(a.v - b.v); }
  DSLASH_INLINE_FUNCTION friend SimtLane operator*(const SimtLane& a, const SimtLane& b) { return SimtLane(a.v * b.v); }
  DSLASH_INLINE_FUNCTION friend SimtLane operator-(const SimtLane& a) { return SimtLane(-a.v); }
};

template <class Real, int W>
inline constexpr bool is_simt<SimtLane<Real, W>> = true;

template <class Real, int W>
DSLASH_INLINE_FUNCTION SimtLane<Real, W> madd(const SimtLane<Real, W>& a, const SimtLane<Real, W>& b, const SimtLane<Real, W>& c) {
  return SimtLane<Real, W>(fma(a.v, b.v, c.v));
}
template <class Real, int W>
DSLASH_INLINE_FUNCTION SimtLane<Real, W> nmadd(const SimtLane<Real, W>& a, const SimtLane<Real, W>& b, const SimtLane<Real, W>& c) {
  return SimtLane<Real, W>(fma(-a.v, b.v, c.v));
}

// The vector maths of gauge compression (kernels/link_compression.hpp): CUDA's own functions on
// the device (the host never runs SimtLane, but compiles these bodies).
template <class Real, int W>
DSLASH_INLINE_FUNCTION SimtLane<Real, W> sqrt_nonnegative(const SimtLane<Real, W>& x) {  // sqrt(max(x, 0))
  return SimtLane<Real, W>(sqrt(fmax(x.v, Real(0))));
}
template <class Real, int W>
DSLASH_INLINE_FUNCTION void sin_cos(const SimtLane<Real, W>& x, SimtLane<Real, W>& s, SimtLane<Real, W>& c) {
  s = SimtLane<Real, W>(sin(x.v));
  c = SimtLane<Real, W>(cos(x.v));
}
template <class Real, int W>
DSLASH_INLINE_FUNCTION SimtLane<Real, W> inverse(const SimtLane<Real, W>& x) {
  return SimtLane<Real, W>(Real(1) / x.v);
}

// The threads of this thread's W-group, as a warp mask (the block is W threads wide, so a row of the
// block is one group and a warp holds 32 / W of them).
template <int W>
__device__ inline unsigned group_mask() {
  if constexpr (W == 32) return 0xffffffffu;
  else return ((1u << W) - 1u) << ((threadIdx.y * W) % 32u);
}

template <int Level, class Real, int W>
DSLASH_INLINE_FUNCTION SimtLane<Real, W> permute(const SimtLane<Real, W>& a) {
  static_assert((1 << Level) < W, "permute level out of range for this width");
#if DSLASH_ON_DEVICE
  return SimtLane<Real, W>(__shfl_xor_sync(group_mask<W>(), a.v, 1 << Level, W));
#else
  return a;
#endif
}

// Streaming store: evict-first, the output is not read again by this kernel.
template <class Real, int W>
DSLASH_INLINE_FUNCTION void stream_store(Real* p, const SimtLane<Real, W>& b) {
#if DSLASH_ON_DEVICE
  __stcs(p + SimtLane<Real, W>::lane(), b.v);
#else
  b.store_aligned(p);
#endif
}

// The GPU's vnode layout keeps each lane's (re, im) adjacent (kernels/kernel_layout.hpp): a thread
// reads or writes a complex number in one access, 8 bytes (single) or 16 (double). naive and mrhs
// lost with it, so their 4- and 8-byte accesses stay (docs/history/HISTORY.md, "GPU: the vnode layout").
//   p: re0 im0 re1 im1 ... (lane l at p + 2l)
template <class Real>
struct RealPair;
template <>
struct RealPair<float> {
  using type = float2;
};
template <>
struct RealPair<double> {
  using type = double2;
};

// This thread's lane of the complex vector at p (declared in simd/lane_traits.hpp).
template <class Vec>
DSLASH_INLINE_FUNCTION Complex<Vec> load_pair(const typename Vec::value_type* p) {
  using Pair = typename RealPair<typename Vec::value_type>::type;
  const Pair z = reinterpret_cast<const Pair*>(p)[Vec::lane()];
  return {Vec(z.x), Vec(z.y)};
}

// A plain global load of one float or double through `ld.global.<Qualifier>`, as non-volatile asm:
// the compiler may move it, and hoists such loads far ahead of their use (kernels/dslash_body.hpp,
// for_each_site, says where that pays). CUDA's own __ldcs is volatile asm, which pins every load in
// program order (ptxas then spilled 1.4 KiB a thread in the naive kernel). The qualifier is pasted
// into the instruction's text, so each load is a function of its own.
#if DSLASH_ON_DEVICE
#define DSLASH_QUALIFIED_LOAD(name, qualifier)                                         \
  template <class Real>                                                                \
  DSLASH_INLINE_FUNCTION Real name(const Real* p) {                                    \
    Real r;                                                                            \
    if constexpr (sizeof(Real) == 4) asm("ld.global." qualifier ".f32 %0, [%1];" : "=f"(r) : "l"(p)); \
    else asm("ld.global." qualifier ".f64 %0, [%1];" : "=d"(r) : "l"(p));             \
    return r;                                                                          \
  }
#else
#define DSLASH_QUALIFIED_LOAD(name, qualifier) \
  template <class Real>                        \
  DSLASH_INLINE_FUNCTION Real name(const Real* p) { return *p; }
#endif

// A real the kernel reads once (a link): ld.global.cs, evict-first in L2.
DSLASH_QUALIFIED_LOAD(load_once, "cs")

// A real whose 256-byte neighbourhood other threads read soon (naive's neighbour spinors: a warp
// reads 128 bytes of a component, the next warp the next 128): ld.global.L2::256B has the L2 fetch
// the whole 256-byte block from DRAM on a miss. It gains in single only, changes nothing on links,
// and costs every other launch, so naive's team launch alone uses it (docs/history/HISTORY.md,
// "GPU: Nsight Compute on the best kernel, and a 256-byte L2 fetch").
DSLASH_QUALIFIED_LOAD(load_fetch_256b, "L2::256B")

#undef DSLASH_QUALIFIED_LOAD

// Streaming store of this thread's lane of a complex vector to p: evict-first, the output is not
// read again by this kernel.
template <class Vec>
DSLASH_INLINE_FUNCTION void stream_store_pair(typename Vec::value_type* p, const Complex<Vec>& z) {
  using Pair = typename RealPair<typename Vec::value_type>::type;
  Pair* q = reinterpret_cast<Pair*>(p) + Vec::lane();
#if DSLASH_ON_DEVICE
  __stcs(q, Pair{z.re.v, z.im.v});
#else
  *q = Pair{z.re.v, z.im.v};
#endif
}

// Reals per SIMT vector of the mrhs and vnode kernels: 32 bytes, one DRAM sector per group access.
template <class Real>
inline constexpr int kSimtLanes = static_cast<int>(32 / sizeof(Real));

}  // namespace dslash::simd
