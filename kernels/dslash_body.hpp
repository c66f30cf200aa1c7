#pragma once
// The one Dslash kernel body, included only through kernels/runner_table.hpp by the per-ISA
// translation units (kernels/dslash_<isa>.cpp).
// Vec is a SIMD batch (xsimd or our fallback); Folded says whether the lanes hold virtual nodes
// (vnode: links vary per lane, neighbours across the fold are lane-permuted) or right-hand sides
// (naive with W = 1, mrhs: links broadcast). Each hop: project to a half spinor, permute it if the
// hop crosses the fold, two colour mat-vecs, reconstruct into the accumulator.
#include <utility>

#include "dslash/core.hpp"
#include "kernels/dslash_runner.hpp"
#include "kernels/kernel_layout.hpp"
#include "simd/complex.hpp"
#include "simd/fence.hpp"
#include "kernels/spin_projector.hpp"

namespace dslash::kernels {

using simd::Complex;

// The lane bit of direction Mu when W lanes fold the last log2(W) directions; -1 if not folded.
template <int W>
constexpr int lane_bit(int mu) {
  int d = 0;
  while ((1 << d) < W) ++d;
  return mu >= 4 - d ? mu - (4 - d) : -1;
}

// a + K z for K in {+1, -1, +i, -i}, written as 1, -1, 2, -2: a sign flip or an i is free.
template <int K, class V>
inline Complex<V> add_unit(const Complex<V>& a, const Complex<V>& z) {
  if constexpr (K == 1) return {a.re + z.re, a.im + z.im};
  else if constexpr (K == -1) return {a.re - z.re, a.im - z.im};
  else if constexpr (K == 2) return {a.re - z.im, a.im + z.re};
  else return {a.re + z.im, a.im - z.re};
}

// Complex component k (= 3*spin + colour) of the spinor whose component 0 is at p: (re, im) vectors
// component_stride vectors apart.
template <class Vec, class Real>
inline Complex<Vec> load_component(const Real* p, int k, index_t component_stride) {
  constexpr index_t W = static_cast<index_t>(Vec::size);
  return {Vec::load_aligned(p + 2 * k * component_stride * W), Vec::load_aligned(p + (2 * k + 1) * component_stride * W)};
}

// SiteMajor: the spinors are stored site-major (LayoutRight, the default), so a site's 24 component
// vectors are adjacent and every load and store offset is a constant. With the stride read at run
// time, each neighbour needs 24 computed offsets, which spill (mrhs AVX2: ~170 extra integer
// instructions per site, more than the projection's own loads and adds).
template <class Real, class Vec, bool Folded, bool SiteMajor = false>
struct DslashBody {
  static constexpr int W = static_cast<int>(Vec::size);
  static constexpr int kRowReals = 6 * (Folded ? W : 1);  // one colour row of one link: 3 complex
  static constexpr int kLinkReals = 3 * kRowReals;       // one link
  // Link prefetch and mat-vec inlining were measured per vector width; see site and accumulate.
  static constexpr bool kVector512 = W * sizeof(Real) >= 64;
  using C = Complex<Vec>;

  const RunArgs<Real>& a;
  index_t x_extent;  // outer x extent of the output index space: l0 / 2 checkerboarded, l0 full

  explicit DslashBody(const RunArgs<Real>& args) : a(args), x_extent(args.checkerboard ? args.outer[0] / 2 : args.outer[0]) {}

  index_t component_stride() const {
    if constexpr (SiteMajor) return 1;
    else return a.component_stride;
  }

  // Sites in the launch: outer t in [t_begin, t_end), all of x (or x/2), y, z; in index order they
  // are the contiguous range [first_site, first_site + launch_sites).
  index_t slab_sites() const { return x_extent * a.outer[1] * a.outer[2]; }
  index_t first_site() const { return slab_sites() * a.t_begin; }
  index_t launch_sites() const { return slab_sites() * (a.t_end - a.t_begin); }

  // Outer coordinates from the output index space (x or x/2, y, z, t).
  void coords(index_t xi, index_t y, index_t z, index_t t, index_t (&x)[4]) const {
    x[0] = a.checkerboard ? 2 * xi + ((y + z + t + a.out_parity) & 1) : xi;
    x[1] = y;
    x[2] = z;
    x[3] = t;
  }
  void coords(index_t i, index_t (&x)[4]) const {
    const index_t xi = i % x_extent;
    i /= x_extent;
    const index_t y = i % a.outer[1];
    i /= a.outer[1];
    coords(xi, y, i % a.outer[2], i / a.outer[2], x);
  }
  // Storage index of outer coordinates in the input field.
  index_t in_index(const index_t (&x)[4]) const {
    const index_t lex = x[0] + a.outer[0] * (x[1] + a.outer[1] * (x[2] + a.outer[2] * x[3]));
    return a.checkerboard ? lex / 2 : lex;
  }

  static C link(const Real* lk, int ab) {
    if constexpr (Folded) return {Vec::load_aligned(lk + 2 * ab * W), Vec::load_aligned(lk + (2 * ab + 1) * W)};
    else return {Vec(lk[2 * ab]), Vec(lk[2 * ab + 1])};  // broadcast across the right-hand sides
  }

  // Hop H (0..7): direction Mu = H / 2, forward when H is even.
  template <bool Dagger, int H>
  static constexpr int sign() {
    return projector_sign(H % 2 == 0, Dagger);
  }

  // Phase 1 of a site: the neighbour's half spinor h = P psi(x +- mu), lane-permuted if the hop
  // crosses the fold. Kept in a small L1 buffer so phase 2 needs few registers.
  // `wraps`: the hop leaves the outer lattice (for a folded direction: it crosses the fold).
  template <bool Dagger, int H>
  void project(C (&h)[2][3], const Real* psi, bool wraps) const {
    constexpr int Mu = H / 2;
    spin_project<Mu, sign<Dagger, H>()>(h, psi, component_stride());
    if constexpr (Folded && lane_bit<W>(Mu) >= 0) {
      if (wraps)  // the neighbour lives in the other virtual node: swap lanes across this fold
        for (auto& hk : h)
          for (C& z : hk) z = {simd::permute<lane_bit<W>(Mu)>(z.re), simd::permute<lane_bit<W>(Mu)>(z.im)};
    }
    if (wraps && a.halo[Mu]) drop_remote_lanes<H>(h);
  }

  // Direction Mu is split between domains: the lanes whose neighbour lies in another domain get
  // nothing here; kernels/dslash_faces.hpp adds their hop from the halo. Unfolded: every lane.
  // Folded, the lane's virtual node (0 = lower half of the domain, 1 = upper) decides:
  //   forward hop, node 0 | node 1 -> node 1 | beyond: keep node 0, drop node 1 (and the mirror backward)
  template <int H>
  static void drop_remote_lanes(C (&h)[2][3]) {
    constexpr int Bit = lane_bit<W>(H / 2);
    Vec keep(Real(0));
    if constexpr (Folded && Bit >= 0) {
      alignas(64) Real k[W];
      for (int l = 0; l < W; ++l) k[l] = ((l >> Bit) & 1) == (H % 2 == 0 ? 0 : 1) ? Real(1) : Real(0);
      keep = Vec::load_aligned(k);
    }
    for (auto& hk : h)
      for (C& z : hk) z = {z.re * keep, z.im * keep};
  }

  // The three pieces of a hop, shared with the halo face kernels (kernels/face_body.hpp).
  // Inlining is fixed here, as measured, because GCC's own choice flips with small edits: an outlined
  // projection copies every h through the stack (vnode AVX2: -20% at 32^4). The colour mat-vec is
  // inlined too, except for broadcast links on 512-bit vectors (mrhs on AVX-512), which run 15% faster
  // with one out-of-line call per row; on AVX2 that call cost mrhs single 11-13% (the accumulators
  // go through the stack around every call). Narrower vectors (naive, SSE) inline it as AVX2 does.
  static constexpr bool kInlineMatVec = Folded || !kVector512;
  // h = P psi for direction Mu and projector sign S: the two independent spin rows.
  template <int Mu, int S>
  [[gnu::always_inline]] static void spin_project(C (&h)[2][3], const Real* psi, index_t component_stride) {
    constexpr Projector P = kProjector[Mu];
    const auto load = [&](int k) { return load_component<Vec>(psi, k, component_stride); };
    for (int c = 0; c < 3; ++c) {
      h[0][c] = add_unit<S * P.k0>(load(c), load(3 * P.a0 + c));
      h[1][c] = add_unit<S * P.k1>(load(3 + c), load(3 * P.a1 + c));
    }
  }
  // One colour row of U (3 complex at `row`) times both spin rows: uh[k] = U(r, :) h[k].
  [[gnu::always_inline]] static void mat_vec_row(const Real* row, const C (&h)[2][3], C (&uh)[2]) {
    const C u0 = link(row, 0), u1 = link(row, 1), u2 = link(row, 2);
    for (int k = 0; k < 2; ++k) uh[k] = simd::mul_add(u2, h[k][2], simd::mul_add(u1, h[k][1], simd::mul(u0, h[k][0])));
  }
  [[gnu::noinline]] static void mat_vec_row_call(const Real* row, const C (&h)[2][3], C (&uh)[2]) { mat_vec_row(row, h, uh); }
  // Colour row r of the four spins from the two projected rows: acc += (uh0, uh1, S k2 uh[b2], S k3 uh[b3]).
  template <int Mu, int S>
  static void reconstruct(C (&acc)[4], const C (&uh)[2]) {
    constexpr Projector P = kProjector[Mu];
    acc[0] = acc[0] + uh[0];
    acc[1] = acc[1] + uh[1];
    acc[2] = add_unit<S * P.k2>(acc[2], uh[P.b2]);
    acc[3] = add_unit<S * P.k3>(acc[3], uh[P.b3]);
  }

  // Phase 2: colour row r of hop H, U(r, :) h, reconstructed into the row's four spins.
  template <bool Dagger, int H>
  static void accumulate(C (&acc)[4], const C (&h)[2][3], const Real* row) {
    C uh[2];
    if constexpr (kInlineMatVec) mat_vec_row(row, h, uh);
    else mat_vec_row_call(row, h, uh);
    reconstruct<H / 2, sign<Dagger, H>()>(acc, uh);
  }

  // Storage index (in the input field) of the neighbour of x in hop H, and whether it wraps.
  template <int H>
  index_t neighbour(const index_t (&x)[4], bool& wraps) const {
    constexpr int Mu = H / 2;
    index_t n[4] = {x[0], x[1], x[2], x[3]};
    if constexpr (H % 2 == 0) {
      wraps = x[Mu] + 1 == a.outer[Mu];
      n[Mu] = wraps ? 0 : x[Mu] + 1;
    } else {
      wraps = x[Mu] == 0;
      n[Mu] = wraps ? a.outer[Mu] - 1 : x[Mu] - 1;
    }
    return in_index(n);
  }

  const Real* spinor(index_t site, int b) const { return a.in + (site * a.site_stride + b * a.block_stride) * W; }

  template <bool Dagger>
  void site(index_t i, const index_t (&x)[4]) const {
    const Real* links = a.links + i * 8 * kLinkReals;
    // The links are most of the traffic and stream in site order: on 512-bit vectors ask for a later
    // site's now (Intel AVX-512 device, 32^4: vnode 15% slower without). On AVX2 the hardware prefetcher
    // follows them alone, and asking for 72 lines per vnode site only tied up the miss buffers (AMD
    // Zen 3: vnode on one core 17 -> 22 GFLOP/s without it, mrhs unchanged).
    constexpr int kPrefetchSites = kVector512 ? 2 : 0, kLinkLines = static_cast<int>(8 * kLinkReals * sizeof(Real) / 64);
    if constexpr (kPrefetchSites > 0)
      for (int line = 0; line < kLinkLines; ++line) __builtin_prefetch(links + kPrefetchSites * 8 * kLinkReals + line * (64 / sizeof(Real)));
    index_t nb[8];
    bool wraps[8];
    [&]<int... H>(std::integer_sequence<int, H...>) { ((nb[H] = neighbour<H>(x, wraps[H])), ...); }(std::make_integer_sequence<int, 8>{});
    // A site with a hop left to the halo is read back soon (DslashFaces::complete): keep it in cache.
    bool boundary = false;
    for (int h = 0; h < 8; ++h) boundary |= wraps[h] && a.halo[static_cast<std::size_t>(h / 2)];
    for (int b = 0; b < a.blocks; ++b) {
      C h[8][2][3];
      [&]<int... H>(std::integer_sequence<int, H...>) {
        (project<Dagger, H>(h[H], spinor(nb[H], b), wraps[H]), ...);
      }(std::make_integer_sequence<int, 8>{});
      Real* o = a.out + (i * a.site_stride + b * a.block_stride) * W;
      for (int r = 0; r < 3; ++r) {
        C acc[4];
        for (C& z : acc) z = {Vec(Real(0)), Vec(Real(0))};
        [&]<int... H>(std::integer_sequence<int, H...>) {
          (accumulate<Dagger, H>(acc, h[H], links + link_row(Folded, H, r) * kRowReals), ...);
        }(std::make_integer_sequence<int, 8>{});
        for (int sp = 0; sp < 4; ++sp) {
          Real* re = o + 2 * (3 * sp + r) * component_stride() * W;
          Real* im = re + component_stride() * W;
          if (boundary) {
            acc[sp].re.store_aligned(re);
            acc[sp].im.store_aligned(im);
          } else {
            simd::stream_store(re, acc[sp].re);
            simd::stream_store(im, acc[sp].im);
          }
        }
      }
    }
  }

  template <bool Dagger>
  void launch() const {
    const index_t n = first_site() + launch_sites();
    switch (a.dispatch) {
      case Dispatch::Range:
        parallel_for(a.label, RangePolicy<>(first_site(), n), [this](index_t i) {
          index_t x[4];
          coords(i, x);
          site<Dagger>(i, x);
        });
        break;
      case Dispatch::MDRange:
        parallel_for(a.label, MDRangePolicy<4>({0, 0, 0, a.t_begin}, {x_extent, a.outer[1], a.outer[2], a.t_end}, a.tile),
                     [this](index_t xi, index_t y, index_t z, index_t t) {
                       index_t x[4];
                       coords(xi, y, z, t, x);
                       site<Dagger>(xi + x_extent * (y + a.outer[1] * (z + a.outer[2] * t)), x);
                     });
        break;
      case Dispatch::Team: {
        const index_t chunk = a.sites_per_team > 0 ? a.sites_per_team : 4 * a.team_size;
        const index_t first = first_site();
        parallel_for(a.label, TeamPolicy<>((launch_sites() + chunk - 1) / chunk, a.team_size), [this, first, n, chunk](const TeamMember& m) {
          const index_t base = first + m.league_rank() * chunk;
          parallel_for(TeamThreadRange(m, base, base + chunk < n ? base + chunk : n), [&](index_t i) {
            index_t x[4];
            coords(i, x);
            site<Dagger>(i, x);
          });
        });
        break;
      }
    }
    if constexpr (W > 1) {
#pragma omp parallel
      simd::store_fence();  // streaming stores are weakly ordered: publish them before anyone reads
    }
  }
};

template <class Real, class Vec, bool Folded, bool SiteMajor>
void launch_dslash(const RunArgs<Real>& args) {
  const DslashBody<Real, Vec, Folded, SiteMajor> body(args);
  if (args.dagger) body.template launch<true>();
  else body.template launch<false>();
}

template <class Real, class Vec, bool Folded>
void run_dslash(const RunArgs<Real>& args) {
  if (args.component_stride == 1) launch_dslash<Real, Vec, Folded, true>(args);
  else launch_dslash<Real, Vec, Folded, false>(args);
}

}  // namespace dslash::kernels
