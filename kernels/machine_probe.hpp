#pragma once
// The two roofline ceilings (CONVENTIONS.md), measured with the instruction set and the threads a
// kernel uses, and the in-cache rate of the Dslash body alone. Included by the per-ISA translation
// units after the ISA header.
#include <omp.h>

#include <chrono>

#include "dslash/core.hpp"
#include "kernels/dslash_body.hpp"
#include "kernels/dslash_runner.hpp"
#include "kernels/kernel_layout.hpp"
#include "simd/fence.hpp"

namespace dslash::kernels {

// a = b + s c over n reals with streaming stores; returns seconds. n is a multiple of the lanes.
template <class Vec>
double stream_triad(typename Vec::value_type* a, const typename Vec::value_type* b, const typename Vec::value_type* c,
                    index_t n, typename Vec::value_type s) {
  constexpr index_t W = static_cast<index_t>(Vec::size);
  const Vec scale(s);
  const auto start = std::chrono::steady_clock::now();
  parallel_for("stream_triad", RangePolicy<>(n / W), [=](index_t i) {
    simd::stream_store(a + i * W, simd::madd(scale, Vec::load_aligned(c + i * W), Vec::load_aligned(b + i * W)));
  });
#pragma omp parallel
  simd::store_fence();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Every thread runs kChains independent FMA chains (enough to cover the FMA latency on both
// ports); returns FLOP/s over all threads.
template <class Vec>
double fma_peak(index_t iterations) {
  using Real = typename Vec::value_type;
  constexpr int kChains = 12, W = static_cast<int>(Vec::size);
  const int threads = omp_get_max_threads();
  View<Real, 1> sink("fma_sink", static_cast<std::size_t>(threads) * W);
  Real* out = sink.data();
  RangePolicy<> one_each(threads);
  one_each.set_schedule(Schedule::Static);  // one index a thread, each thread's own chains
  const auto start = std::chrono::steady_clock::now();
  parallel_for("fma_peak", one_each, [=](index_t t) {
    Vec acc[kChains];
    for (int k = 0; k < kChains; ++k) acc[k] = Vec(Real(0.5) + Real(0.01) * static_cast<Real>(k + t));
    const Vec m(Real(0.999999)), add(Real(1e-7));
    for (index_t i = 0; i < iterations; ++i)
      for (int k = 0; k < kChains; ++k) acc[k] = simd::madd(acc[k], m, add);
    Vec sum = acc[0];
    for (int k = 1; k < kChains; ++k) sum = sum + acc[k];
    sum.store_aligned(out + t * W);  // keeps the loop alive
  });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return 2.0 * W * kChains * static_cast<double>(iterations) * threads / seconds;
}

// The Dslash body alone: one thread sweeps the 128 output sites of a 4^4 outer lattice (site-major
// spinors; the fields fit in L2, except vnode's links, which reach into L3) again and again, with no
// parallel region or fence per sweep.
// Returns FLOP/s, W lanes per site, from the best of `repeats` sweeps of 20 microseconds or more:
// what the kernel's instructions can do with their data close by, even on a machine whose speed
// comes and goes (a shared VM) between longer timings.
template <class Real, class Vec, bool Folded>
double body_flops(int repeats) {
  constexpr int W = static_cast<int>(Vec::size);
  using Body = DslashBody<Real, Vec, Folded, true>;
  constexpr index_t kSites = 128;
  View<Real, 1> in("body_in", kSites * 24 * W), out("body_out", kSites * 24 * W), links("body_links", kSites * 8 * Body::kLinkReals);
  // Values in [0.1, 1): no zeros or denormals that would change the timing.
  for (std::size_t k = 0; k < in.size(); ++k) in(k) = Real(0.1) + Real(0.9) * static_cast<Real>(k % 97) / Real(97);
  for (std::size_t k = 0; k < links.size(); ++k) links(k) = Real(0.1) + Real(0.9) * static_cast<Real>(k % 89) / Real(89);
  RunArgs<Real> a{};
  a.fields.in = in.data();
  a.fields.out = out.data();
  a.fields.links = links.data();
  a.sites.outer = {4, 4, 4, 4};
  a.sites.t_end = 4;
  a.sites.checkerboard = true;
  a.sites.blocks = 1;
  const KernelLayout::Strides st = KernelLayout{}.spinor_strides(false, kSites);  // one block, site-major
  a.fields.site_stride = st.site;
  a.fields.block_stride = st.block;
  a.fields.component_stride = st.component;
  a.launch.link_prefetch = LinkPrefetch::IntoL1;  // the kernel's instructions as they run in cache
  const Body body(a);
  const int sweeps = static_cast<int>(20e-6 * 30e9 / (1320.0 * W * kSites)) + 1;  // 20 us at 30 GFLOP/s
  double best = 1e30;
  for (int r = 0; r < repeats + 1; ++r) {  // the first is a warm-up
    const auto start = std::chrono::steady_clock::now();
    for (int s = 0; s < sweeps; ++s)
      for (index_t i = 0; i < kSites; ++i) {
        index_t x[4];
        body.coords(i, x);
        typename Body::Sums unused{};
        body.template site<false>(i, x, unused);
      }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (r > 0 && seconds < best) best = seconds;
  }
  simd::store_fence();
  return 1320.0 * W * kSites * sweeps / best;
}

// A kernel's memory traffic alone: the sites of a launch in the kernel's own order (a.dispatch), each
// reading all 8 of its links (as stored: 18, 12 or 8 reals each) and the 24 component vectors of its 8 neighbours (every block) and
// streaming out 24 vectors per block, with the kernel's prefetches, one add per loaded vector and
// nothing else. Out of cache it shows how much of the roofline the kernel's access pattern allows
// before any arithmetic; the output of each component is the sum of the 8 neighbours' (no lane
// permutes: not a Dslash).
template <class Real, class Vec, bool Folded, bool SiteMajor, int Reals>
void launch_traffic(const RunArgs<Real>& args) {
  using Body = DslashBody<Real, Vec, Folded, SiteMajor, Reals>;
  constexpr int W = Body::W, kLinkVectors = 8 * Body::kLinkReals / W;
  const Body body(args);
  const index_t cs = body.component_stride(), ls = body.link_stride();
  body.for_each_site([&](const Body&, index_t i, const index_t (&x)[4], typename Body::Sums&) {
    index_t nb[8];
    bool wraps = false;
    [&]<int... H>(std::integer_sequence<int, H...>) { ((nb[H] = body.template neighbour<H>(x, wraps)), ...); }(std::make_integer_sequence<int, 8>{});
    const Real* links = body.site_links(i);
    Body::prefetch_later_links(links, args.launch.link_prefetch);
    Vec link_sum(Real(0));
    if constexpr (SiteMajor) {
      for (int k = 0; k < kLinkVectors; ++k) link_sum = link_sum + Vec::load_aligned(links + k * W);
    } else {  // component-major: each stored component is an array over the sites
      for (int e = 0; e < 8 * Body::kLinkReals / Body::kLinkLanes; ++e)
        link_sum = link_sum + (Folded ? Vec::load_aligned(links + e * W * ls) : Vec(links[e * ls]));
    }
    for (int b = 0; b < args.sites.blocks; ++b) {
      const Real* psi[8];
      for (int h = 0; h < 8; ++h) psi[h] = body.spinor(nb[h], b);
      Body::prefetch_far_neighbours(psi);
      Vec acc[24];
      for (Vec& v : acc) v = Vec(Real(0));
      for (const Real* p : psi)
        for (int k = 0; k < 24; ++k) acc[k] = acc[k] + Vec::load_aligned(p + k * cs * W);
      acc[0] = acc[0] + link_sum * Vec(Real(0));  // keeps the link loads without changing the sum
      Real* o = args.fields.out + (i * args.fields.site_stride + b * args.fields.block_stride) * W;
      for (int k = 0; k < 24; ++k) simd::stream_store(o + k * cs * W, acc[k]);
    }
  });
}
template <class Real, class Vec, bool Folded>
void run_traffic(const RunArgs<Real>& args) {  // the links as the kernel stores them: compressed or not
  with_layout_and_compression(args, [&]<bool SiteMajor, int Reals>() { launch_traffic<Real, Vec, Folded, SiteMajor, Reals>(args); });
}

}  // namespace dslash::kernels
