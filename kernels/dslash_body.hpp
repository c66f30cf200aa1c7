#pragma once
// The one Dslash kernel body, included only through kernels/runner_table.hpp by the per-ISA
// translation units (kernels/dslash_<isa>.cpp).
// Vec is a SIMD batch (xsimd or our fallback); Folded says whether the lanes hold virtual nodes
// (vnode: links vary per lane, neighbours across the fold are lane-permuted) or right-hand sides
// (naive with W = 1, mrhs: links broadcast). Each hop, one spin row of the half spinor at a time:
// project, permute it if the hop crosses the fold, the colour mat-vec, reconstruct into the
// accumulator (a site's 12 output components, kept in L1). With gauge compression (Reals = 12 or 8
// stored reals per link, kernels/link_compression.hpp) each hop first rebuilds its link in registers.
// The same body runs on the GPU (kernels/cuda_runners.cuh) with Vec = simd::SimtLane: the W lanes are
// W neighbouring threads, and the launch runs on the Cuda execution space with that vector length.
#include <stdexcept>
#include <string>
#include <utility>

#include "dslash/core.hpp"
#include "dslash/core/macros.hpp"
#include "kernels/dslash_runner.hpp"
#include "kernels/kernel_build.hpp"
#include "kernels/face_lanes.hpp"
#include "kernels/kernel_layout.hpp"
#include "kernels/link_compression.hpp"
#include "simd/complex.hpp"
#include "simd/fence.hpp"
#include "simd/fixed16.hpp"
#include "simd/lane_traits.hpp"
#include "kernels/spin_projector.hpp"

namespace dslash::kernels {

using simd::Complex;

// a + K z for K in {+1, -1, +i, -i}, written as 1, -1, 2, -2: a sign flip or an i is free.
template <int K, class V>
DSLASH_INLINE_FUNCTION Complex<V> add_unit(const Complex<V>& a, const Complex<V>& z) {
  if constexpr (K == 1) return {a.re + z.re, a.im + z.im};
  else if constexpr (K == -1) return {a.re - z.re, a.im - z.im};
  else if constexpr (K == 2) return {a.re - z.im, a.im + z.re};
  else return {a.re + z.im, a.im - z.re};
}

// Complex component k (= 3*spin + colour) of the spinor whose component 0 is at p: (re, im) vectors
// component_stride vectors apart, or with Pairs (vnode on the GPU) a lane's (re, im) adjacent
// (kernels/kernel_layout.hpp). Fetch256: one GPU thread a site, each load fetching its 256-byte
// neighbourhood into L2 (simd::load_fetch_256b).
template <class Vec, bool Pairs = false, bool Fetch256 = false, class Real>
DSLASH_INLINE_FUNCTION Complex<Vec> load_component(const Real* p, int k, index_t component_stride) {
  constexpr index_t W = static_cast<index_t>(Vec::size);
  if constexpr (Pairs) return simd::load_pair<Vec>(p + 2 * k * component_stride * W);
  else if constexpr (Fetch256) return {Vec(simd::load_fetch_256b(p + 2 * k * component_stride)), Vec(simd::load_fetch_256b(p + (2 * k + 1) * component_stride))};
  else return {Vec::load_aligned(p + 2 * k * component_stride * W), Vec::load_aligned(p + (2 * k + 1) * component_stride * W)};
}

// SiteMajor: the spinors and links are stored site-major (LayoutRight, the CPU default), so a site's
// 24 component vectors are adjacent and every load and store offset is a constant. With the stride
// read at run time, each neighbour needs 24 computed offsets, which spill on a CPU (mrhs AVX2: ~170
// extra integer instructions per site, more than the projection's own loads and adds). Not site-major
// (LayoutLeft), component e of every site is one array, site fastest: what a GPU warp coalesces.
// StreamLinks: read the links evict-first (simd::load_once), and in single precision the neighbour
// spinors with a 256-byte L2 fetch (simd::load_fetch_256b), for the GPU's naive team launch only
// (for_each_site says why).
// E: the epilogue of RunArgs for the even-odd operator's second hop (DslashKernel::apply_xpay):
// out = a x + b D in with its norm (Norm, CG), and <w, out> and <w2, out> too (NormDot, BiCGStab).
template <Epilogue E>
using EpilogueSumsOf = std::conditional_t<E == Epilogue::NormDot, EpilogueSums, double>;

// Half: the spinors and links in 16-bit fixed point (RunFixed16, Real = float arithmetic), without
// epilogue or received halo (a split direction's hops are dropped, as in every body, and added by
// single precision face kernels: solvers/half_hopping.hpp); each neighbour's codes are scaled by its
// site's norm as they load, and the output stores its own norm (docs/CONVENTIONS.md, "Half precision storage").
template <class Real, class Vec, bool Folded, bool SiteMajor = false, int Reals = 18, bool StreamLinks = false, Epilogue E = Epilogue::None,
          bool Half = false>
struct DslashBody {
  static_assert(!Half || (std::is_same_v<Real, float> && E == Epilogue::None), "half precision: float arithmetic, no epilogue");
  static constexpr bool Xpay = E != Epilogue::None;
  // What a launch sums over its sites: the norm alone in one double unless the inner products are
  // asked for, since every extra sum costs the register-bound GPU kernels (docs/history/HISTORY.md).
  using Sums = EpilogueSumsOf<E>;
  static constexpr int W = static_cast<int>(Vec::size);
  static constexpr int kLinkLanes = Folded ? W : 1;       // reals per stored link component
  static constexpr int kRowReals = 6 * kLinkLanes;        // one colour row of one link: 3 complex
  static constexpr int kLinkReals = Reals * kLinkLanes;   // one link, as stored (18, 12 or 8 components)
  static constexpr int kFaceLinkReals = 18 * kLinkLanes;   // a face's link (DslashFaces): always whole
  static constexpr bool kSimt = simd::is_simt<Vec>;      // lanes are GPU threads, not a register
  static constexpr bool kPairs = kSimt && Folded;        // a lane's (re, im) adjacent: kernels/kernel_layout.hpp
  static constexpr bool kGpuNaive = kSimt && W == 1;     // one site per GPU thread
  static constexpr bool kFetchSpinors256 = StreamLinks && kGpuNaive && sizeof(Real) == 4 && !Half;
  // Link prefetch was measured per vector width; see site.
  static constexpr bool kVector512 = W * sizeof(Real) >= 64 && !kSimt;
  using C = Complex<Vec>;
  using Stored = std::conditional_t<Half, std::int16_t, Real>;  // a spinor's or link's real in memory
  // A neighbour's spinor: its first stored real, and in half precision the scale of its codes.
  struct HalfSpinor {
    const std::int16_t* p;
    Vec scale;
  };
  using SpinorRef = std::conditional_t<Half, HalfSpinor, const Real*>;

  RunArgs<Real> a;   // a copy: a GPU kernel takes the body by value
  index_t x_extent;  // outer x extent of the output index space: l0 / 2 checkerboarded, l0 full
  bool halo_in_kernel = false;  // a.halo.received holds the split directions' halo: messages or the neighbours' inputs (CPU only)

  explicit DslashBody(const RunArgs<Real>& args) : a(args), x_extent(args.sites.checkerboard ? args.sites.outer[0] / 2 : args.sites.outer[0]) {
    for (int mu = 0; mu < 4; ++mu) halo_in_kernel |= args.halo.split[mu] && args.halo.received.has_hop(mu, 0);
  }

  DSLASH_INLINE_FUNCTION index_t component_stride() const {
    if constexpr (SiteMajor) return 1;
    else return a.fields.component_stride;
  }
  // Distance between a link's stored components, in reals over kLinkLanes: 1 site-major, else the
  // number of outer sites (component-major, as the spinors).
  DSLASH_INLINE_FUNCTION index_t link_stride() const {
    if constexpr (SiteMajor) return 1;
    else return a.fields.link_stride;
  }
  // The first stored component of output site i's 8 links (with pairs, its first (re, im) pair).
  DSLASH_INLINE_FUNCTION const Stored* site_links(index_t i) const {
    const Stored* links = nullptr;
    if constexpr (Half) links = a.fields.half.links;
    else links = a.fields.links;
    if constexpr (SiteMajor) return links + i * 8 * kLinkReals;
    else return links + i * kLinkLanes * (kPairs ? 2 : 1);
  }
  // Half precision: the first norm vector of output or input site i, block b.
  DSLASH_INLINE_FUNCTION index_t norm_at(index_t i, int b) const { return (i * a.fields.half.norm_site_stride + b * a.fields.half.norm_block_stride) * W; }

  // Sites in the launch: outer t in [t_begin, t_end), all of x (or x/2), y, z; in index order they
  // are the contiguous range [first_site, first_site + launch_sites).
  DSLASH_INLINE_FUNCTION index_t slab_sites() const { return x_extent * a.sites.outer[1] * a.sites.outer[2]; }
  DSLASH_INLINE_FUNCTION index_t first_site() const { return slab_sites() * a.sites.t_begin; }
  index_t launch_sites() const { return slab_sites() * (a.sites.t_end - a.sites.t_begin); }

  // Outer coordinates from the output index space (x or x/2, y, z, t).
  DSLASH_INLINE_FUNCTION void coords(index_t xi, index_t y, index_t z, index_t t, index_t (&x)[4]) const {
    x[0] = a.sites.checkerboard ? 2 * xi + ((y + z + t + a.sites.out_parity) & 1) : xi;
    x[1] = y;
    x[2] = z;
    x[3] = t;
  }
  DSLASH_INLINE_FUNCTION void coords(index_t i, index_t (&x)[4]) const {
    const index_t xi = i % x_extent;
    i /= x_extent;
    const index_t y = i % a.sites.outer[1];
    i /= a.sites.outer[1];
    coords(xi, y, i % a.sites.outer[2], i / a.sites.outer[2], x);
  }
  // The team launch's traversal: its index j -> the output site's coordinates and storage index.
  // Index order is x fastest, then y, z, t, so a t-neighbour is read again a whole t-plane later;
  // with blocks of block_z z-planes, t inside the block loop, it is read again one block-plane
  // later, while still in the cache (DslashKernel::block_z). With block_z = outer z, index order.
  //   z-planes 0..3 at t = 0, 1, 2, ..., then z-planes 4..7 at t = 0, 1, 2, ...
  // CPU only: on the GPU even the untaken blocked branch costs the register-bound team launch
  // (docs/history/HISTORY.md, "The team traversal in z-blocks").
  DSLASH_INLINE_FUNCTION index_t traversal_site(index_t j, index_t (&x)[4]) const {
    if constexpr (!kSimt) {
      const index_t bz = a.launch.block_z;
      if (bz < a.sites.outer[2]) {
        const index_t plane = x_extent * a.sites.outer[1], nt = a.sites.t_end - a.sites.t_begin;
        j -= first_site();
        const index_t xy = j % plane;
        j /= plane;
        const index_t z = (j / bz / nt) * bz + j % bz, t = a.sites.t_begin + (j / bz) % nt;
        coords(xy % x_extent, xy / x_extent, z, t, x);
        return xy + plane * (z + a.sites.outer[2] * t);
      }
    }
    coords(j, x);
    return j;
  }
  // Storage index of outer coordinates in the input field.
  DSLASH_INLINE_FUNCTION index_t in_index(const index_t (&x)[4]) const {
    const index_t lex = x[0] + a.sites.outer[0] * (x[1] + a.sites.outer[1] * (x[2] + a.sites.outer[2] * x[3]));
    return a.sites.checkerboard ? lex / 2 : lex;
  }

  // Stored component k of the link at lk, its components ls * kLinkLanes reals apart; with pairs a
  // lane's components 2j and 2j + 1 adjacent (one load for both).
  // Half precision: the scale of stored real k, of norm 1 but the phases of 8-real links (k = 0, 1).
  DSLASH_INLINE_FUNCTION static constexpr float link_load_scale(int k) {
    return (Reals == 8 && k < 2 ? fixed16::kPhaseNorm : fixed16::kLinkNorm) / fixed16::kMaxCode;
  }
  DSLASH_INLINE_FUNCTION static Vec link_real(const Stored* lk, int k, index_t ls = 1) {
    if constexpr (Half) {
      const Vec scale(link_load_scale(k));
      if constexpr (kPairs) {
        const C z = simd::load_fixed16_pair(lk + (k & ~1) * W * ls, scale);
        return (k & 1) != 0 ? z.im : z.re;
      } else if constexpr (Folded) {
        return simd::load_fixed16(lk + k * W * ls, scale);
      } else {
        return Vec(fixed16::to_float(lk[k * ls], link_load_scale(k)));  // broadcast across the right-hand sides
      }
    } else if constexpr (kPairs) {
      const C z = simd::load_pair<Vec>(lk + (k & ~1) * W * ls);
      return (k & 1) != 0 ? z.im : z.re;
    } else if constexpr (Folded) {
      return Vec::load_aligned(lk + k * W * ls);
    } else if constexpr (StreamLinks) {
      return Vec(simd::load_once(lk + k * ls));
    } else {
      return Vec(lk[k * ls]);  // broadcast across the right-hand sides
    }
  }
  // Complex entry ab of the link row at lk.
  template <class L>
  DSLASH_INLINE_FUNCTION static C link(const L* lk, int ab, index_t ls = 1) {
    if constexpr (kPairs && Half) return simd::load_fixed16_pair(lk + 2 * ab * W * ls, Vec(link_load_scale(2)));
    else if constexpr (kPairs) return simd::load_pair<Vec>(lk + 2 * ab * W * ls);
    else return {link_real(lk, 2 * ab, ls), link_real(lk, 2 * ab + 1, ls)};
  }

  // Hop H's link as the mat-vec reads it. Stored whole (18), its rows are read from memory where
  // they are used; compressed (12, 8), it is rebuilt once per hop into registers.
  struct StoredLink {
    const Stored* p;  // the link's first component
    index_t ls;
    DSLASH_FORCE_INLINE C row_times(int r, const C (&h)[3]) const { return DslashBody::row_times(p + r * kRowReals * ls, h, ls); }
  };
  struct RebuiltLink {
    C u[3][3];
    DSLASH_FORCE_INLINE C row_times(int r, const C (&h)[3]) const {
      return simd::mul_add(u[r][2], h[2], simd::mul_add(u[r][1], h[1], simd::mul(u[r][0], h[0])));
    }
  };
  template <int H>
  DSLASH_FORCE_INLINE auto hop_link(const Stored* links) const {
    const index_t ls = link_stride();
    const Stored* p = links + link_offset(H, Reals) * kLinkLanes * ls;
    if constexpr (Reals == 18) {
      return StoredLink{p, ls};
    } else {
      RebuiltLink l;
      unpack_link<Reals>([&](int k) { return link_real(p, k, ls); }, l.u);
      return l;
    }
  }

  // Hop H (0..7): direction Mu = H / 2, forward when H is even.
  template <bool Dagger, int H>
  DSLASH_INLINE_FUNCTION static constexpr int sign() {
    return projector_sign(H % 2 == 0, Dagger);
  }

  // Spin row K (0 or 1) of hop H from the neighbour's spinor psi, all the way into the accumulator:
  // h = row K of P psi(x +- mu) (3 colours, in registers), lane-permuted if the hop crosses the fold;
  // then for each colour row r, U(r, :) h added to the two output spins it feeds.
  // `wraps`: the hop leaves the outer lattice (for a folded direction: it crosses the fold).
  template <bool Dagger, int H, int K, class Link>
  DSLASH_FORCE_INLINE void half_hop(C (&acc)[3][4], const SpinorRef& psi, bool wraps, const Link& link) const {
    constexpr int Mu = H / 2, S = sign<Dagger, H>();
    C h[3];
    project_row<Mu, S, K>(h, psi, component_stride());
    across_fold<H>(h, wraps);
    for (int r = 0; r < 3; ++r) reconstruct_row<Mu, S, K>(acc[r], link.row_times(r, h));
  }

  // The half spinor h of hop H as this site's lanes need it. `wraps`: the hop leaves the outer
  // lattice (for a folded direction: it crosses the fold).
  template <int H>
  DSLASH_FORCE_INLINE void across_fold(C (&h)[3], bool wraps) const {
    constexpr int Mu = H / 2;
    if constexpr (Folded && lane_bit<W>(Mu) >= 0) {
      if (wraps)  // the neighbour lives in the other virtual node: swap lanes across this fold
        for (C& z : h) z = {simd::permute<lane_bit<W>(Mu)>(z.re), simd::permute<lane_bit<W>(Mu)>(z.im)};
    }
    if (wraps && a.halo.split[Mu]) drop_remote_lanes<H>(h);
  }

  // Direction Mu is split between domains: the lanes whose neighbour lies in another domain get
  // nothing here; kernels/dslash_faces.hpp adds their hop from the halo. Unfolded: every lane.
  // Folded, the lane's virtual node (0 = lower half of the domain, 1 = upper) decides:
  //   forward hop, node 0 | node 1 -> node 1 | beyond: keep node 0, drop node 1 (and the mirror backward)
  template <int H>
  DSLASH_INLINE_FUNCTION static void drop_remote_lanes(C (&h)[3]) {
    constexpr int Bit = lane_bit<W>(H / 2);
    Vec keep(Real(0));
    if constexpr (Folded && Bit >= 0 && kSimt) {
      keep = Vec(((Vec::lane() >> Bit) & 1) == (H % 2 == 0 ? 0 : 1) ? Real(1) : Real(0));
    } else if constexpr (Folded && Bit >= 0) {
      alignas(64) Real k[W];
      for (int l = 0; l < W; ++l) k[l] = ((l >> Bit) & 1) == (H % 2 == 0 ? 0 : 1) ? Real(1) : Real(0);
      keep = Vec::load_aligned(k);
    }
    for (C& z : h) z = {z.re * keep, z.im * keep};
  }

  // The pieces of a hop, shared with the halo face kernels (kernels/face_body.hpp), which take both
  // spin rows at once. Inlining is forced because GCC's own choice flips with small edits, and an
  // outlined piece copies its operands through the stack (docs/history/HISTORY.md, "Link order and inlining").
  //
  // Spin row K of h = P psi for direction Mu and projector sign S: h_K = p_K + S k p[a_K].
  template <int Mu, int S, int K, class Psi>
  DSLASH_FORCE_INLINE static void project_row(C (&h)[3], const Psi& psi, index_t component_stride) {
    constexpr Projector P = kProjector[Mu];
    constexpr int A = K == 0 ? P.a0 : P.a1, Unit = K == 0 ? P.k0 : P.k1;
    for (int c = 0; c < 3; ++c)
      h[c] = add_unit<S * Unit>(spinor_component(psi, 3 * K + c, component_stride), spinor_component(psi, 3 * A + c, component_stride));
  }
  // Complex component k of a neighbour's spinor (load_component), from its codes in half precision.
  template <class Psi>
  DSLASH_FORCE_INLINE static C spinor_component(const Psi& psi, int k, index_t component_stride) {
    if constexpr (std::is_same_v<Psi, HalfSpinor>) {
      const std::int16_t* q = psi.p + 2 * k * component_stride * W;
      if constexpr (kPairs) return simd::load_fixed16_pair(q, psi.scale);
      else return {simd::load_fixed16(q, psi.scale), simd::load_fixed16(q + component_stride * W, psi.scale)};
    } else {
      return load_component<Vec, kPairs, kFetchSpinors256>(psi, k, component_stride);
    }
  }
  template <int Mu, int S, class Psi>
  DSLASH_FORCE_INLINE static void spin_project(C (&h)[2][3], const Psi& psi, index_t component_stride) {
    project_row<Mu, S, 0>(h[0], psi, component_stride);
    project_row<Mu, S, 1>(h[1], psi, component_stride);
  }
  // One colour row of U (3 complex at `row`) times one spin row h.
  template <class L>
  DSLASH_FORCE_INLINE static C row_times(const L* row, const C (&h)[3], index_t ls = 1) {
    return simd::mul_add(link(row, 2, ls), h[2], simd::mul_add(link(row, 1, ls), h[1], simd::mul(link(row, 0, ls), h[0])));
  }
  DSLASH_FORCE_INLINE static void mat_vec_row(const Real* row, const C (&h)[2][3], C (&uh)[2]) {
    uh[0] = row_times(row, h[0]);
    uh[1] = row_times(row, h[1]);
  }
  // Spin row K's share of one colour row of the four output spins: acc[K] += uh, and the lower spin
  // that row K feeds (2 if b2 = K, else 3) gets S k uh.
  template <int Mu, int S, int K>
  DSLASH_FORCE_INLINE static void reconstruct_row(C (&acc)[4], const C& uh) {
    constexpr Projector P = kProjector[Mu];
    constexpr int Lower = P.b2 == K ? 2 : 3, Unit = P.b2 == K ? P.k2 : P.k3;
    acc[K] = acc[K] + uh;
    acc[Lower] = add_unit<S * Unit>(acc[Lower], uh);
  }
  // Colour row r of the four spins from both projected rows: acc += (uh0, uh1, S k2 uh[b2], S k3 uh[b3]).
  template <int Mu, int S>
  DSLASH_INLINE_FUNCTION static void reconstruct(C (&acc)[4], const C (&uh)[2]) {
    reconstruct_row<Mu, S, 0>(acc, uh[0]);
    reconstruct_row<Mu, S, 1>(acc, uh[1]);
  }

  // Storage index (in the input field) of the neighbour of x in hop H, and whether it wraps.
  template <int H>
  DSLASH_INLINE_FUNCTION index_t neighbour(const index_t (&x)[4], bool& wraps) const {
    constexpr int Mu = H / 2;
    index_t n[4] = {x[0], x[1], x[2], x[3]};
    if constexpr (H % 2 == 0) {
      wraps = x[Mu] + 1 == a.sites.outer[Mu];
      n[Mu] = wraps ? 0 : x[Mu] + 1;
    } else {
      wraps = x[Mu] == 0;
      n[Mu] = wraps ? a.sites.outer[Mu] - 1 : x[Mu] - 1;
    }
    return in_index(n);
  }

  DSLASH_INLINE_FUNCTION SpinorRef spinor(index_t site, int b) const {
    const index_t at = (site * a.fields.site_stride + b * a.fields.block_stride) * W;
    if constexpr (Half) return {a.fields.half.in + at, simd::fixed16_load_scale(Vec::load_aligned(a.fields.half.in_norm + norm_at(site, b)))};
    else return a.fields.in + at;
  }

  // The links are most of the traffic and stream in site order: on 512-bit vectors ask for a later
  // site's now, where they fit the last-level cache (a.link_prefetch, DslashKernel::link_prefetch).
  // From DRAM the prefetched lines would hold the miss buffers that the neighbours' loads need, and
  // on AVX2 the hardware prefetcher follows the links alone (docs/history/HISTORY.md, "The link
  // prefetch at 48^4, from DRAM" and "Prefetch and mat-vec inlining per vector width").
  // GPUs: none (latency is hidden by other warps). Component-major links: the next sites are adjacent.
  // From DRAM, vnode's 12-real links (96 lines a site, single) gain from a prefetch into L2
  // (prefetcht1) where its 144 whole-link lines and its 8-real ones do not (link_prefetch_for).
  DSLASH_FORCE_INLINE static void prefetch_later_links(const Stored* links, LinkPrefetch where) {
    if (where == LinkPrefetch::IntoL1) prefetch_later_links_with<3>(links);  // prefetcht0
    else if (where == LinkPrefetch::IntoL2) prefetch_later_links_with<2>(links);  // prefetcht1
  }
  template <int Locality>
  DSLASH_FORCE_INLINE static void prefetch_later_links_with(const Stored* links) {
    constexpr int kPrefetchSites = kVector512 && SiteMajor ? 2 : 0, kLinkLines = static_cast<int>(8 * kLinkReals * sizeof(Stored) / 64);
    if constexpr (kPrefetchSites > 0) {
      const Stored* later = links + kPrefetchSites * 8 * kLinkReals;
      for (int line = 0; line < kLinkLines; ++line) __builtin_prefetch(later + line * (64 / sizeof(Stored)), 0, Locality);
    }
  }
  // The hops read their neighbours one after another, so ask for the far ones (z and t, whole planes
  // away; x and y are a few sites away and in cache) up front: out of cache their misses then
  // overlap. Asking for all eight costs the in-cache body for nothing more. mrhs needs it most, and no
  // family gained reliably without it (docs/history/HISTORY.md, "The far-neighbour prefetch at 48^4").
  DSLASH_FORCE_INLINE static void prefetch_far_neighbours(const SpinorRef (&psi)[8]) {
    if constexpr (SiteMajor && !kSimt && !Half) {
      constexpr int kSpinorLines = static_cast<int>(24 * W * sizeof(Real) / 64);
      for (int hop = 4; hop < 8; ++hop)
        for (int line = 0; line < kSpinorLines; ++line) __builtin_prefetch(psi[hop] + line * (64 / sizeof(Real)));
    }
  }

  // sums: the epilogue's (untouched without Xpay).
  template <bool Dagger>
  DSLASH_INLINE_FUNCTION void site(index_t i, const index_t (&x)[4], Sums& sums) const {
    const Stored* links = site_links(i);
    if constexpr (kSimt) {
      // A GPU thread finds each neighbour just before its hop: with all eight found up front (as a
      // CPU core must, to prefetch them) their indices and pointers stay live across every hop and
      // take 64 of the registers that set the GPU's occupancy. Every output is a streaming store,
      // boundary sites too: on the GPU it is only a cache hint, and the face kernels that complete
      // them run after this kernel.
      for (int b = 0; b < a.sites.blocks; ++b) {
        C acc[3][4];
        zero(acc);
        [&]<int... H>(std::integer_sequence<int, H...>) { (hop<Dagger, H>(acc, x, b, links), ...); }(std::make_integer_sequence<int, 8>{});
        store(acc, i, b, false, sums);
      }
      return;
    }
    prefetch_later_links(links, a.launch.link_prefetch);
    index_t nb[8];
    bool wraps[8];
    [&]<int... H>(std::integer_sequence<int, H...>) { ((nb[H] = neighbour<H>(x, wraps[H])), ...); }(std::make_integer_sequence<int, 8>{});
    // A site with a hop left to the halo is read back soon (DslashFaces::complete): keep it in cache.
    // With the messages in hand (halo_in_kernel) its hops are added here, and it streams out too.
    bool boundary = false;
    for (int h = 0; h < 8; ++h) boundary |= wraps[h] && a.halo.split[static_cast<std::size_t>(h / 2)];
    for (int b = 0; b < a.sites.blocks; ++b) {
      // Hop by hop, one spin row at a time: the row's half spinor and its mat-vec stay in registers,
      // the 24-vector accumulator in L1, so the projection's adds interleave with the FMAs
      // (docs/history/HISTORY.md, "Hop by hop, one spin row at a time").
      SpinorRef psi[8];
      for (int h = 0; h < 8; ++h) psi[h] = spinor(nb[h], b);
      prefetch_far_neighbours(psi);
      C acc[3][4];
      zero(acc);
      // Forced inline: GCC outlined this lambda and kept two copies of the accumulator, one in its
      // caller's frame and one in its own (mrhs AVX2 body/ probe 57 against 68 inlined).
      [&]<int... H>(std::integer_sequence<int, H...>) __attribute__((always_inline)) {
        ((both_rows<Dagger, H>(acc, psi[H], wraps[H], links)), ...);
      }(std::make_integer_sequence<int, 8>{});
      if constexpr (!Half)  // half precision takes no received halo (its launches pass none)
        if (boundary && halo_in_kernel) {
          [&]<int... H>(std::integer_sequence<int, H...>) { (add_received<Dagger, H>(acc, i, b, psi[H], wraps[H], links), ...); }(std::make_integer_sequence<int, 8>{});
        }
      store(acc, i, b, boundary && !halo_in_kernel, sums);
    }
  }

  // Hop H of a boundary site from the neighbour domain's message, when it is in before this launch
  // (a.received): what DslashFaces::complete would add to the stored output, added here in
  // registers after the local hops, in the order complete adds them (directions in turn, forward
  // first) and with the same links, so the bits are the same either way.
  // psi: the local vector the hop's wrapped index reads (spinor(nb, b)); the neighbour's vector of
  // the same index is its face vector.
  template <bool Dagger, int H>
  DSLASH_FORCE_INLINE void add_received(C (&acc)[3][4], index_t i, int b, const Real* psi, bool wraps, const Real* links) const {
    constexpr int Mu = H / 2, S = sign<Dagger, H>(), Hop = H % 2;
    const Real* message = a.halo.received.message[Mu][Hop];
    const Real* neighbour_in = a.halo.received.neighbour_in[Mu][Hop];
    if (!wraps || !a.halo.split[Mu] || (message == nullptr && neighbour_in == nullptr)) return;
    using Lanes = FaceLanes<Real, Vec, Folded>;
    const index_t slot = a.halo.received.slot[Mu][i];
    const int node = Lanes::face_node(Hop == 0, true);
    C h[2][3];
    if constexpr (kSimt) {  // not reached: a GPU rank's faces complete after its kernel (DslashKernel::check_received)
      return;
    } else if (neighbour_in != nullptr) {
      // The projection the neighbour would have sent, made here; across a fold its face lanes move
      // to ours and the others are zero, as a message's expand leaves them:
      //   forward, lane bit 0: neighbour's node 0 lanes A_C_ E_G_ -> permute _A_C _E_G -> 0A0C 0E0G
      spin_project<Mu, S>(h, neighbour_in + (psi - a.fields.in), component_stride());
      if constexpr (Lanes::template kHalfLanes<Mu>)
        for (auto& row : h)
          for (C& z : row) z = {simd::keep_half<lane_bit<W>(Mu)>(simd::permute<lane_bit<W>(Mu)>(z.re), node),
                                simd::keep_half<lane_bit<W>(Mu)>(simd::permute<lane_bit<W>(Mu)>(z.im), node)};
    } else {
      Lanes::template get_half_spinor<Mu>(h, message, a.halo.received.items[Mu], a.sites.blocks, slot, b, node);
    }
    // Forward U_mu(x), backward U_mu(x - mu)^dagger (from the domain below, in the site's own slot
    // too: DslashKernel's `below`).
    const Real* face_link = a.halo.received.links[Mu][Hop];
    if constexpr (SiteMajor && Reals == 18)
      face_link = links + link_offset(H, Reals) * kLinkLanes;  // the same numbers, in L1 since its local hop
    else
      face_link += slot * kFaceLinkReals;
    for (int r = 0; r < 3; ++r) {
      C uh[2];
      mat_vec_row(face_link + r * kRowReals, h, uh);
      reconstruct<Mu, S>(acc[r], uh);
    }
  }

  // Hop H from the neighbour's spinor psi, both spin rows, with one read (or rebuild) of its link.
  template <bool Dagger, int H>
  DSLASH_FORCE_INLINE void both_rows(C (&acc)[3][4], const SpinorRef& psi, bool wraps, const Stored* links) const {
    const auto link = hop_link<H>(links);
    if constexpr (kGpuNaive) {
      // Naive on the GPU projects both spin rows first (12 registers), then reads each colour row of
      // the link once and feeds both: no link element is live across the two spin rows, so the
      // evict-first team launch (for_each_site) does not spill. mrhs and vnode keep the row-by-row
      // order, which is the faster for them (docs/history/HISTORY.md, "GPU: links evict-first").
      constexpr int Mu = H / 2, S = sign<Dagger, H>();
      C h[2][3];
      spin_project<Mu, S>(h, psi, component_stride());
      across_fold<H>(h[0], wraps);
      across_fold<H>(h[1], wraps);
      for (int r = 0; r < 3; ++r) reconstruct<Mu, S>(acc[r], {link.row_times(r, h[0]), link.row_times(r, h[1])});
    } else {
      half_hop<Dagger, H, 0>(acc, psi, wraps, link);
      half_hop<Dagger, H, 1>(acc, psi, wraps, link);
    }
  }
  // Hop H of block b at outer site x, its neighbour found here (the GPU's order).
  template <bool Dagger, int H>
  DSLASH_FORCE_INLINE void hop(C (&acc)[3][4], const index_t (&x)[4], int b, const Stored* links) const {
    bool wraps = false;
    const SpinorRef psi = spinor(neighbour<H>(x, wraps), b);
    both_rows<Dagger, H>(acc, psi, wraps, links);
  }

  DSLASH_FORCE_INLINE static void zero(C (&acc)[3][4]) {
    for (auto& row : acc)
      for (C& z : row) z = {Vec(Real(0)), Vec(Real(0))};
  }

  // The epilogue at output site i, block b (xpay_sums).
  DSLASH_FORCE_INLINE void xpay(C (&acc)[3][4], index_t i, int b, Sums& sums) const {
    const index_t offset = (i * a.fields.site_stride + b * a.fields.block_stride) * W;
    const auto at = [&](const Real* v) { return v != nullptr ? v + offset : nullptr; };
    xpay_sums<E>(a.epilogue.x + offset, at(a.epilogue.w), at(a.epilogue.w2), component_stride(), a.epilogue.a, a.epilogue.b, acc, sums);
  }
  // acc <- a x + b acc over a site's 12 components (x, w, w2: the site's reals, in acc's layout);
  // sums += ||acc||^2 (Norm), and ||acc||^2, <w, acc> = sum conj(w) acc and <w2, acc> (NormDot:
  // BiCGStab's M passes). A site's products are summed in Real, lane by lane; the sites in double.
  // The epilogue's arithmetic, shared with the GPU's face completion (kernels/face_body.hpp). Its
  // fused multiply-adds are spelled out: left to contraction, GCC 13 and nvcc fused the Norm and
  // NormDot instantiations differently (outputs an ulp apart, norms in the last bits).
  template <Epilogue Sum>
  DSLASH_FORCE_INLINE static void xpay_sums(const Real* x, const Real* w, const Real* w2, index_t stride, Real a, Real b, C (&acc)[3][4],
                                            EpilogueSumsOf<Sum>& sums) {
    const Vec xa(a), xb(b);
    Vec squares(Real(0));
    for (int sp = 0; sp < 4; ++sp)
      for (int r = 0; r < 3; ++r) {
        const C xv = load_component<Vec, kPairs>(x, 3 * sp + r, stride);
        C& z = acc[r][sp];
        z = {simd::madd(xa, xv.re, xb * z.re), simd::madd(xa, xv.im, xb * z.im)};
        squares = simd::madd(z.im, z.im, simd::madd(z.re, z.re, squares));
      }
    if constexpr (Sum == Epilogue::Norm) {
      add_lanes(squares, sums);
    } else {
      add_lanes(squares, sums[0]);
      add_dot(w, stride, acc, sums[1], sums[2]);
      add_dot(w2, stride, acc, sums[3], sums[4]);
    }
  }
  // re + i im += <w, acc> = sum conj(w) acc over the site's components (w: the site's reals).
  DSLASH_FORCE_INLINE static void add_dot(const Real* w, index_t stride, const C (&acc)[3][4], double& re, double& im) {
    Vec dot_re(Real(0)), dot_im(Real(0));
    for (int sp = 0; sp < 4; ++sp)
      for (int r = 0; r < 3; ++r) {
        const C wv = load_component<Vec, kPairs>(w, 3 * sp + r, stride);
        const C& z = acc[r][sp];
        dot_re = simd::madd(wv.im, z.im, simd::madd(wv.re, z.re, dot_re));
        dot_im = simd::nmadd(wv.im, z.re, simd::madd(wv.re, z.im, dot_im));
      }
    add_lanes(dot_re, re);
    add_lanes(dot_im, im);
  }
  // sum += the lanes of v, in double.
  DSLASH_FORCE_INLINE static void add_lanes(const Vec& v, double& sum) {
    if constexpr (kSimt) {
      sum += static_cast<double>(v.v);  // this thread's lane; the reduction adds the others
    } else {
      alignas(64) Real lanes[W];
      v.store_aligned(lanes);
      for (int l = 0; l < W; ++l) sum += static_cast<double>(lanes[l]);
    }
  }

  // The accumulator of output site i, block b: streamed out, or kept in cache for a boundary site.
  DSLASH_FORCE_INLINE void store(C (&acc)[3][4], index_t i, int b, bool boundary, Sums& sums) const {
    if constexpr (Half) return store_half(acc, i, b);
    if constexpr (Xpay) xpay(acc, i, b, sums);
    Real* o = a.fields.out + (i * a.fields.site_stride + b * a.fields.block_stride) * W;
    for (int sp = 0; sp < 4; ++sp)  // in storage order: whole lines for the write-combining buffers
      for (int r = 0; r < 3; ++r) {
        Real* re = o + 2 * (3 * sp + r) * component_stride() * W;
        if constexpr (kPairs) {
          simd::stream_store_pair(re, acc[r][sp]);  // im next to re; streamed, as on the GPU's site()
          continue;
        }
        Real* im = re + component_stride() * W;
        if (boundary) {
          acc[r][sp].re.store_aligned(re);
          acc[r][sp].im.store_aligned(im);
        } else {
          simd::stream_store(re, acc[r][sp].re);
          simd::stream_store(im, acc[r][sp].im);
        }
      }
  }

  // Half precision: the site's norm per lane (its largest |real|), then its 24 codes scaled by it.
  DSLASH_FORCE_INLINE void store_half(const C (&acc)[3][4], index_t i, int b) const {
    Vec largest(0.0f);
    for (const auto& row : acc)
      for (const C& z : row) largest = simd::max_abs(simd::max_abs(largest, z.re), z.im);
    const Vec norm = simd::fixed16_site_norm(largest), scale = simd::fixed16_store_scale(norm);
    norm.store_aligned(a.fields.half.out_norm + norm_at(i, b));
    std::int16_t* o = a.fields.half.out + (i * a.fields.site_stride + b * a.fields.block_stride) * W;
    for (int sp = 0; sp < 4; ++sp)
      for (int r = 0; r < 3; ++r) {
        std::int16_t* re = o + 2 * (3 * sp + r) * component_stride() * W;
        if constexpr (kPairs) {
          simd::store_fixed16_pair(re, acc[r][sp], scale);
        } else {
          simd::store_fixed16(re, acc[r][sp].re, scale);
          simd::store_fixed16(re + component_stride() * W, acc[r][sp].im, scale);
        }
      }
  }

  // A launch of f(index..., Sums& sums): with Xpay a parallel_reduce whose sums it returns (or, with
  // a.norm_into or a.sums_into, leaves there), else a parallel_for (the sums a dead local).
  template <class F>
  struct WithoutSum {
    F f;
    template <class... I>
    DSLASH_INLINE_FUNCTION void operator()(const I&... i) const {
      Sums unused{};
      f(i..., unused);
    }
  };
  template <class Policy, class F>
  Sums launch(const Policy& policy, const F& f) const {
    Sums sum{};
    if constexpr (E == Epilogue::Norm)
      if (a.epilogue.norm_into.device != nullptr) {
        parallel_reduce(a.launch.label, policy, f, a.epilogue.norm_into);
        return sum;
      }
    if constexpr (E == Epilogue::NormDot)
      if (a.epilogue.sums_into.device != nullptr) {
        parallel_reduce(a.launch.label, policy, f, a.epilogue.sums_into);
        return sum;
      }
    if constexpr (Xpay) parallel_reduce(a.launch.label, policy, f, sum);
    else parallel_for(a.launch.label, policy, WithoutSum<F>{f});
    return sum;
  }

  // Runs site_fn(body, i, x, sums) over the launch's sites in the order of a.dispatch, on Exec, and
  // returns the sums (the epilogue's; zero without Xpay). Each site is one index of vector
  // length W on a GPU (W threads, one per lane), of vector length 1 on a CPU (the lanes are the
  // register). site_fn is copied into the launch, so on a GPU it holds no host pointers: it gets the
  // body to work with.
  template <class Exec = DefaultExecutionSpace, class SiteFn>
  Sums for_each_site(const SiteFn& site_fn) const {
    constexpr int kIndexLanes = kSimt ? W : 1;
    const DslashBody body = *this;
    const index_t first = first_site(), n = first + launch_sites(), x_ext = x_extent;
    Sums sums{};
    switch (a.launch.dispatch) {
      case Dispatch::Range:
        sums = launch(RangePolicy<Exec>(first, n, kIndexLanes), DSLASH_LAMBDA(index_t i, Sums& sum) {
          index_t x[4];
          body.coords(i, x);
          site_fn(body, i, x, sum);
        });
        break;
      case Dispatch::MDRange:
        sums = launch(MDRangePolicy<4, Exec>({0, 0, 0, a.sites.t_begin}, {x_extent, a.sites.outer[1], a.sites.outer[2], a.sites.t_end}, a.launch.tile, kIndexLanes),
                      DSLASH_LAMBDA(index_t xi, index_t y, index_t z, index_t t, Sums& sum) {
                         index_t x[4];
                         body.coords(xi, y, z, t, x);
                         site_fn(body, xi + x_ext * (y + body.a.sites.outer[1] * (z + body.a.sites.outer[2] * t)), x, sum);
                       });
        break;
      case Dispatch::Team: {
        // Naive on the GPU reads its links evict-first here, so the link stream (75% of the bytes,
        // each read once) leaves the L2 to the neighbour spinors, which other sites read again. In
        // single it also reads the neighbour spinors with a 256-byte L2 fetch (double does not gain).
        // Not in range and mdrange: those loads (asm, simd/simt.hpp) are hoisted far ahead of their
        // use, which the team kernel holds in registers and the others, with their index arithmetic,
        // spill; nor for mrhs. The figures: docs/history/HISTORY.md, "GPU: links evict-first".
        using TeamBody = DslashBody<Real, Vec, Folded, SiteMajor, Reals, kGpuNaive, E, Half>;
        const TeamBody team_body(a);
        const index_t chunk = a.launch.sites_per_team;
        sums = launch(TeamPolicy<Exec>((launch_sites() + chunk - 1) / chunk, a.launch.team_size, kIndexLanes), DSLASH_LAMBDA(const TeamMember& m, Sums& sum) {
          const index_t base = first + m.league_rank() * chunk;
          parallel_for(TeamThreadRange(m, base, base + chunk < n ? base + chunk : n), [&](index_t j) {
            index_t x[4];
            const index_t i = team_body.traversal_site(j, x);
            site_fn(team_body, i, x, sum);
          });
        });
        break;
      }
    }
    if constexpr (W > 1 && !kSimt) {
#pragma omp parallel
      simd::store_fence();  // streaming stores are weakly ordered: publish them before anyone reads
    }
    return sums;
  }
};

// Half precision storage's conversions at one site (Half bodies, every block): encode the floats
// at a.fields.in into a.fields.half.out (each lane's norm, then its codes), or decode
// a.fields.half.in into the floats at a.fields.out. The same layout and norm vectors as the kernel's.
template <bool Encode>
struct ConvertHalfSite {
  template <class Body>
  DSLASH_INLINE_FUNCTION void operator()(const Body& body, index_t i, const index_t (&)[4], typename Body::Sums&) const {
    using C = typename Body::C;
    const index_t cs = body.component_stride();
    for (int b = 0; b < body.a.sites.blocks; ++b) {
      const index_t at = (i * body.a.fields.site_stride + b * body.a.fields.block_stride) * Body::W;
      if constexpr (Encode) {
        C acc[3][4];
        for (int sp = 0; sp < 4; ++sp)
          for (int r = 0; r < 3; ++r) acc[r][sp] = Body::spinor_component(body.a.fields.in + at, 3 * sp + r, cs);
        body.store_half(acc, i, b);
      } else {
        const typename Body::HalfSpinor psi = body.spinor(i, b);
        float* o = body.a.fields.out + at;
        for (int k = 0; k < 12; ++k) {
          const C z = Body::spinor_component(psi, k, cs);
          if constexpr (Body::kPairs) {
            simd::stream_store_pair(o + 2 * k * cs * Body::W, z);
          } else {
            z.re.store_aligned(o + 2 * k * cs * Body::W);
            z.im.store_aligned(o + (2 * k + 1) * cs * Body::W);
          }
        }
      }
    }
  }
};

// The Dslash at one site, as for_each_site calls it.
template <bool Dagger>
struct DslashSite {
  template <class Body>
  DSLASH_INLINE_FUNCTION void operator()(const Body& body, index_t i, const index_t (&x)[4], typename Body::Sums& sums) const {
    body.template site<Dagger>(i, x, sums);
  }
};

template <class Real, class Vec, bool Folded, bool SiteMajor, int Reals, Epilogue E, class Exec, bool Half = false>
void launch_dslash(const RunArgs<Real>& args) {
  const DslashBody<Real, Vec, Folded, SiteMajor, Reals, false, E, Half> body(args);
  const auto sums = args.dagger ? body.template for_each_site<Exec>(DslashSite<true>{}) : body.template for_each_site<Exec>(DslashSite<false>{});
  if constexpr (E == Epilogue::Norm)
    if (args.epilogue.norm_into.device == nullptr) *args.epilogue.sums = {sums, 0, 0, 0, 0};
  if constexpr (E == Epilogue::NormDot)
    if (args.epilogue.sums_into.device == nullptr) *args.epilogue.sums = sums;
}

// Calls launch<SiteMajor>() for the layout of args, and with_layout_and_compression
// launch<SiteMajor, Reals>() for its gauge compression too: each is a template parameter, so every
// offset and the link rebuild are known at compile time. Only what the build holds
// (kernels/kernel_build.hpp) is instantiated; DslashKernel refuses the rest before a launch.
// ComponentMajorOnly: the layout is known to be component-major (the GPU's), whatever the strides.
template <bool ComponentMajorOnly = false, class Real, class Launch>
void with_layout(const RunArgs<Real>& args, const Launch& launch) {
  if constexpr (ComponentMajorOnly) {
    launch.template operator()<false>();
  } else if (args.fields.component_stride == 1) {
    launch.template operator()<true>();
  } else {
    if constexpr (!build::kCpuLeftLayout) throw std::invalid_argument("the component-major CPU layout is not built");
    else launch.template operator()<false>();
  }
}
template <bool ComponentMajorOnly = false, class Real, class Launch>
void with_layout_and_compression(const RunArgs<Real>& args, const Launch& launch) {
  with_layout<ComponentMajorOnly>(args, [&]<bool SiteMajor>() {
    if constexpr (build::kLinks12)
      if (args.fields.reals_per_link == 12) return launch.template operator()<SiteMajor, 12>();
    if constexpr (build::kLinks8)
      if (args.fields.reals_per_link == 8) return launch.template operator()<SiteMajor, 8>();
    if (args.fields.reals_per_link != 18) throw std::invalid_argument("links of " + std::to_string(args.fields.reals_per_link) + " reals are not built");
    launch.template operator()<SiteMajor, 18>();
  });
}

// The family of a GPU kernel (SIMT lanes): naive one lane a site, vnode folded, mrhs neither.
template <class Vec, bool Folded>
inline constexpr KernelFamily simt_family = Vec::size == 1 ? KernelFamily::Naive : Folded ? KernelFamily::Vnode : KernelFamily::Mrhs;
// Whether the epilogue is built: on the CPU where the build has it (DSLASH_CPU_XPAY), for whole
// links, with the inner product; on the GPU always, for 12-real links too and with the inner
// product as kernels/kernel_options.hpp says.
template <class Vec>
inline constexpr bool xpay_built = simd::is_simt<Vec> || build::kCpuXpay;
template <class Vec, bool Folded>
inline constexpr bool xpay_with_compressed_links =
    simd::is_simt<Vec> && gpu_epilogue_takes_12_real_links(simt_family<Vec, Folded>, std::is_same_v<typename Vec::value_type, float>);
template <class Vec, bool Folded>
inline constexpr bool xpay_with_dot = !simd::is_simt<Vec> || gpu_epilogue_takes_inner_product(simt_family<Vec, Folded>);

// One layout and link storage of a family, with every epilogue built for it, both daggers: the unit
// a CPU kernel build compiles on its own (kernels/isa_kernels.cpp.in). The epilogue is a template
// parameter, as the layout, because a run-time branch in the store costs the GPU kernels
// (docs/history/HISTORY.md, "The xpay epilogue, as a template parameter").
template <class Real, class Vec, bool Folded, bool SiteMajor, int Reals, class Exec = DefaultExecutionSpace>
void run_dslash_stored(const RunArgs<Real>& args) {
  if constexpr (xpay_built<Vec> && Reals == 18 && xpay_with_dot<Vec, Folded>) {
    if (args.epilogue.w != nullptr) return launch_dslash<Real, Vec, Folded, SiteMajor, Reals, Epilogue::NormDot, Exec>(args);
  }
  if constexpr (xpay_built<Vec> && (Reals == 18 || (Reals == 12 && xpay_with_compressed_links<Vec, Folded>))) {
    if (args.epilogue.x != nullptr) return launch_dslash<Real, Vec, Folded, SiteMajor, Reals, Epilogue::Norm, Exec>(args);
  }
  launch_dslash<Real, Vec, Folded, SiteMajor, Reals, Epilogue::None, Exec>(args);
}

// A family's Dslash: the layout and link storage of args chosen at run time. The GPU's layout is
// always component-major.
template <class Real, class Vec, bool Folded, class Exec = DefaultExecutionSpace>
void run_dslash(const RunArgs<Real>& args) {
  with_layout_and_compression<simd::is_simt<Vec>>(args, [&]<bool SiteMajor, int Reals>() { run_dslash_stored<Real, Vec, Folded, SiteMajor, Reals, Exec>(args); });
}

// Half precision storage's conversions (ConvertHalfSite) over a launch's sites, range dispatch.
template <class Vec, bool Folded, bool SiteMajor, bool Encode, class Exec = DefaultExecutionSpace>
void run_convert_half_stored(const RunArgs<float>& args) {
  const DslashBody<float, Vec, Folded, SiteMajor, 18, false, Epilogue::None, true> body(args);
  body.template for_each_site<Exec>(ConvertHalfSite<Encode>{});
}
template <class Vec, bool Folded, bool Encode, class Exec = DefaultExecutionSpace>
void run_convert_half(const RunArgs<float>& args) {
  with_layout<simd::is_simt<Vec>>(args, [&]<bool SiteMajor>() { run_convert_half_stored<Vec, Folded, SiteMajor, Encode, Exec>(args); });
}

// A family's half precision runners, in every table (kernels/runner_table.hpp, cuda_runners.cuh):
// the Dslash and the conversions.
template <class Vec, bool Folded, class Exec = DefaultExecutionSpace>
void set_half_runners(FamilyRunners<float>& f);

// Half precision storage (RunFixed16): one layout and link storage, the unit its own
// (kernels/isa_kernels.cpp.in), and the family's entry.
template <class Vec, bool Folded, bool SiteMajor, int Reals, class Exec = DefaultExecutionSpace>
void run_dslash_half_stored(const RunArgs<float>& args) {
  launch_dslash<float, Vec, Folded, SiteMajor, Reals, Epilogue::None, Exec, true>(args);
}
template <class Vec, bool Folded, class Exec = DefaultExecutionSpace>
void run_dslash_half(const RunArgs<float>& args) {
  with_layout_and_compression<simd::is_simt<Vec>>(args, [&]<bool SiteMajor, int Reals>() { run_dslash_half_stored<Vec, Folded, SiteMajor, Reals, Exec>(args); });
}

template <class Vec, bool Folded, class Exec>
void set_half_runners(FamilyRunners<float>& f) {
  f.dslash_half = &run_dslash_half<Vec, Folded, Exec>;
  f.encode_half = &run_convert_half<Vec, Folded, true, Exec>;
  f.decode_half = &run_convert_half<Vec, Folded, false, Exec>;
}

}  // namespace dslash::kernels
