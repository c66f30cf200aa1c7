// Google Benchmark suite: every kernel x dispatch x precision at a few lattice sizes (and mrhs and
// vnode with compressed links, .../r12 and .../r8), with FLOP/s and model bytes/s counters, the halo
// work of a split domain against the same kernel without halos (halo/...), and the abstraction-cost
// pair (the same naive kernel through the View layer and on raw pointers), and the solvers' BLAS
// passes (blas/...). Wall-clock time (UseRealTime): the kernels are OpenMP-parallel.
//   build/release/bench/bench_dslash --benchmark_filter=vnode
#include <benchmark/benchmark.h>
#include <omp.h>

#include "bench/benchmark.hpp"
#include "bench/machine.hpp"
#include "bench/metrics.hpp"
#include "dslash/core.hpp"
#include "dslash/lattice/field_ops.hpp"
#include "kernels/dslash_faces.hpp"
#include "kernels/dslash_kernel.hpp"
#include "solvers/blas.hpp"
#if defined(DSLASH_HAVE_CUDA)
#include "dslash/core/backend/cuda/space.hpp"
#endif

namespace dslash {
namespace {

// A random SU(3) gauge field (seed 1) on geom: every benchmark's links.
template <class Real>
GaugeField<Real> random_gauge(const Geometry& geom) {
  GaugeField<Real> u(geom);
  fill_random_su3(u, 1);
  return u;
}

// The right-hand sides a kernel of `family` takes here: one vector of them for mrhs, else one.
template <class Real>
int rhs_per_call(KernelFamily family, SimdIsa isa) {
  return family == KernelFamily::Mrhs ? simd_lanes(isa, sizeof(Real)) : 1;
}

// Gaussian spinors for each of d's right-hand sides (seeds 2, 3, ...), packed in d's layout.
template <class Real, class Space>
typename DslashKernel<Real, Space>::spinor_view packed_gaussian_input(const DslashKernel<Real, Space>& d, const Geometry& geom) {
  std::vector<SpinorField<Real>> in;
  for (int k = 0; k < d.config().nrhs; ++k) fill_gaussian(in.emplace_back(geom, d.in_subset()), 2 + static_cast<std::uint64_t>(k));
  const auto packed = d.allocate_spinors("in");
  d.pack(in, packed);
  return packed;
}

template <class Real>
void BM_Dslash(benchmark::State& state, KernelFamily kernel, Dispatch dispatch, int compress) {
  const int L = static_cast<int>(state.range(0));
  const Geometry geom({L, L, L, L});
  const GaugeField<Real> u = random_gauge<Real>(geom);
  DslashConfig cfg{.kernel = kernel, .dispatch = dispatch, .isa = best_isa(), .compress = compress};
  cfg.nrhs = rhs_per_call<Real>(kernel, cfg.isa);
  const DslashKernel<Real> d(u, with_host_cache_policy<Real, HostSpace>(cfg, u.geometry()));
  const auto packed_in = packed_gaussian_input(d, geom);
  const auto packed_out = d.allocate_spinors("out");
  for (auto _ : state) d.apply(packed_in, packed_out);
  const double site_rhs = static_cast<double>(d.output_sites()) * cfg.nrhs * static_cast<double>(state.iterations());
  const auto bytes = bench::variant_bytes(cfg, sizeof(Real));
  state.counters["FLOP/s"] = benchmark::Counter(bench::kFlopsPerSite * site_rhs, benchmark::Counter::kIsRate);
  state.counters["bytes/s(model)"] = benchmark::Counter(bytes.model * site_rhs, benchmark::Counter::kIsRate, benchmark::Counter::kIs1024);
  state.SetLabel(d.label());
}

#if defined(DSLASH_HAVE_CUDA)
// The same on the GPU: each iteration timed with CUDA events around the launch (manual time), the
// fields resident in device memory. Skipped with the reason where no GPU is usable.
template <class Real>
void BM_CudaDslash(benchmark::State& state, KernelFamily kernel, Dispatch dispatch, int compress) {
  if (const std::string why = cuda::unavailable_reason(); !why.empty()) {
    state.SkipWithError(why.c_str());
    return;
  }
  const int L = static_cast<int>(state.range(0));
  const Geometry geom({L, L, L, L});
  const GaugeField<Real> u = random_gauge<Real>(geom);
  DslashConfig cfg{.kernel = kernel, .dispatch = dispatch, .compress = compress, .team_size = 32};
  cfg.nrhs = rhs_per_call<Real>(kernel, SimdIsa::Simt);
  const DslashKernel<Real, CudaSpace> d(u, cfg);
  const auto packed_in = packed_gaussian_input(d, geom);
  const auto packed_out = d.allocate_spinors("out");
  d.apply(packed_in, packed_out);  // warm-up
  cuda::EventTimer timer;
  for (auto _ : state) {
    timer.start();
    d.apply(packed_in, packed_out);
    state.SetIterationTime(timer.stop());
  }
  const double site_rhs = static_cast<double>(d.output_sites()) * cfg.nrhs * static_cast<double>(state.iterations());
  const auto bytes = bench::variant_bytes(cfg, sizeof(Real));
  state.counters["FLOP/s"] = benchmark::Counter(bench::kFlopsPerSite * site_rhs, benchmark::Counter::kIsRate);
  state.counters["bytes/s(model)"] = benchmark::Counter(bytes.model * site_rhs, benchmark::Counter::kIsRate, benchmark::Counter::kIs1024);
  state.SetLabel(d.label());
}
#endif

// A domain's whole halo work in a call, its split directions wrapped onto itself (as under MPI with
// one rank per direction, minus the messages' travel): project every face (in one launch, as a CPU
// rank does), then the kernel with
// those hops left out and the face kernels adding them (faces), or the kernel reading the messages
// itself (kernel: a CPU rank whose halo is in first, HaloComplete::Auto). Counters: the call and
// each stage against the same kernel on the whole periodic domain (call/plain - 1 is what the halo
// costs a rank before any message moves).
template <class Real>
void BM_Halo(benchmark::State& state, KernelFamily kernel, std::array<bool, 4> splits, bool in_kernel) {
  const int L = static_cast<int>(state.range(0));
  const Geometry geom({L, L, L, L});
  const GaugeField<Real> u = random_gauge<Real>(geom);
  DslashConfig cfg{.kernel = kernel, .isa = best_isa()};
  cfg.nrhs = rhs_per_call<Real>(kernel, cfg.isa);
  const DslashKernel<Real> plain(u, with_host_cache_policy<Real, HostSpace>(cfg, u.geometry()));
  cfg.halo = splits;
  const DslashKernel<Real> d(u, with_host_cache_policy<Real, HostSpace>(cfg, u.geometry()));
  const DslashFaces<Real> faces(d, u);
  const auto packed_in = packed_gaussian_input(d, geom);
  const auto packed_out = d.allocate_spinors("out");
  std::array<std::array<std::vector<Real>, 2>, 4> half;
  std::array<std::array<const Real*, 2>, 4> messages{};
  std::array<std::array<Real*, 2>, 4> halves{};
  for (std::size_t mu = 0; mu < 4; ++mu) {
    for (auto& h : half[mu]) h.resize(faces.halo_reals(static_cast<int>(mu)));
    messages[mu] = {half[mu][0].data(), half[mu][1].data()};
    halves[mu] = {half[mu][0].data(), half[mu][1].data()};
  }
  const ReceivedHalo<Real> received = faces.received(messages);
  plain.apply(packed_in, packed_out);
  const double t0 = omp_get_wtime();
  for (int k = 0; k < 10; ++k) plain.apply(packed_in, packed_out);
  const double plain_call = (omp_get_wtime() - t0) / 10;
  double stage[3] = {};  // project, interior, complete
  for (auto _ : state) {
    const double s0 = omp_get_wtime();
    faces.project_all(packed_in, halves);
    const double s1 = omp_get_wtime();
    if (in_kernel) d.apply(packed_in, packed_out, {.received = received});
    else d.apply(packed_in, packed_out);
    const double s2 = omp_get_wtime();
    if (!in_kernel)
      for (int mu = 0; mu < 4; ++mu)
        if (splits[static_cast<std::size_t>(mu)]) faces.complete_both(mu, half[static_cast<std::size_t>(mu)][0].data(), half[static_cast<std::size_t>(mu)][1].data(), packed_out);
    stage[0] += s1 - s0, stage[1] += s2 - s1, stage[2] += omp_get_wtime() - s2;
  }
  // Each as a fraction of the plain call: the call's ratio to it, and its stages'.
  const double plain_total = static_cast<double>(state.iterations()) * plain_call;
  state.counters["call/plain"] = (stage[0] + stage[1] + stage[2]) / plain_total;
  state.counters["project/plain"] = stage[0] / plain_total;
  state.counters["interior/plain"] = stage[1] / plain_total;
  state.counters["complete/plain"] = stage[2] / plain_total;
  state.SetLabel(d.label());
}

// The face projections of a y, z, t split L^4 domain, alone: one direction's (mu = 1..3, both hops,
// DslashFaces::project_both), the three one launch each (mu = kEachFace), or in one launch, each
// face vector read once (mu = kAllFaces, DslashFaces::project_all: a CPU rank's way). From the cache
// (the same call again) or from DRAM (`cold`: a line of every 64 bytes of twice the last-level
// cache read between calls, untimed), as after an interior that streamed the fields through.
// items_per_second: face sites (x right-hand sides) of every hop projected.
constexpr int kEachFace = -1, kAllFaces = -2;
template <class Real>
void BM_FaceProject(benchmark::State& state, KernelFamily kernel, int mu, bool cold) {
  const int L = static_cast<int>(state.range(0));
  const Geometry geom({L, L, L, L});
  const GaugeField<Real> u = random_gauge<Real>(geom);
  DslashConfig cfg{.kernel = kernel, .isa = best_isa()};
  cfg.nrhs = rhs_per_call<Real>(kernel, cfg.isa);
  cfg.halo = {false, true, true, true};
  const DslashKernel<Real> d(u, with_host_cache_policy<Real, HostSpace>(cfg, u.geometry()));
  const DslashFaces<Real> faces(d, u);
  const auto packed_in = packed_gaussian_input(d, geom);
  std::array<std::array<std::vector<Real>, 2>, 4> half;
  std::array<std::array<Real*, 2>, 4> halves{};
  index_t face_sites = 0;
  for (int nu = 1; nu < 4; ++nu) {
    const auto n = static_cast<std::size_t>(nu);
    if (mu >= 0 && nu != mu) continue;
    for (auto& h : half[n]) h.resize(faces.halo_reals(nu));
    halves[n] = {half[n][0].data(), half[n][1].data()};
    face_sites += 2 * faces.face_sites(nu);
  }
  const std::uint64_t llc = bench::last_level_cache().bytes;
  std::vector<unsigned char> sweep(cold ? 2 * std::max<std::uint64_t>(llc, 64ull << 20) : 0, 1);
  unsigned sink = 0;
  for (auto _ : state) {
    for (std::size_t k = 0; k < sweep.size(); k += 64) sink += sweep[k];
    const double t0 = omp_get_wtime();
    if (mu == kAllFaces) faces.project_all(packed_in, halves);
    else
      for (int nu = 1; nu < 4; ++nu)
        if (mu == kEachFace || nu == mu) faces.project_both(nu, packed_in, halves[static_cast<std::size_t>(nu)][0], halves[static_cast<std::size_t>(nu)][1]);
    state.SetIterationTime(omp_get_wtime() - t0);
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(state.iterations() * face_sites * cfg.nrhs);
  state.SetLabel(d.label());
}

#if defined(DSLASH_HAVE_CUDA)
// A GPU rank's share of a t-split call (1.1.1.N grid, one rank per GPU) as launches on one stream,
// without messages, against the plain kernel on the whole periodic domain L^3 x L/2 (in the bench:
// --gpu-per-rank's control). Each way, timed by CUDA events around its launches:
//   faces   the kernel with the t hops left out, then the face kernel adding both t faces (what
//           HaloDslash does after the interior today; the projection overlaps and is left out)
//   slabs   the same sites as three launches: outer t in [1, T - 1) and the two boundary slabs, the
//           plain kernel in each (what a rank that computes its boundary slabs after the interior,
//           from the received halo, would pay at best)
template <class Real>
void BM_CudaHaloT(benchmark::State& state, KernelFamily kernel, bool slabs) {
  if (const std::string why = cuda::unavailable_reason(); !why.empty()) {
    state.SkipWithError(why.c_str());
    return;
  }
  const int L = static_cast<int>(state.range(0));
  const Geometry geom({L, L, L, L / 2});
  const GaugeField<Real> u = random_gauge<Real>(geom);
  DslashConfig cfg{.kernel = kernel, .dispatch = Dispatch::Range};
  const DslashKernel<Real, CudaSpace> plain(u, cfg);
  cfg.halo = {false, false, false, true};
  const DslashKernel<Real, CudaSpace> d(u, cfg);
  const DslashFaces<Real, CudaSpace> faces(d, u);
  const auto packed_in = packed_gaussian_input(d, geom);
  const auto packed_out = d.allocate_spinors("out");
  using DeviceReals = View<Real, 1, LayoutRight, CudaSpace>;
  const DeviceReals forward("forward_half", faces.halo_reals(3)), backward("backward_half", faces.halo_reals(3));
  faces.project_both(3, packed_in, forward.data(), backward.data());
  const index_t T = plain.outer_t();
  const auto call = [&] {
    if (slabs) {
      plain.apply(packed_in, packed_out, {.slab = TSlab{1, T - 1}});
      plain.apply(packed_in, packed_out, {.slab = TSlab{0, 1}});
      plain.apply(packed_in, packed_out, {.slab = TSlab{T - 1, T}});
    } else {
      d.apply(packed_in, packed_out);
      faces.complete_both(3, forward.data(), backward.data(), packed_out);
    }
  };
  cuda::EventTimer timer;
  plain.apply(packed_in, packed_out);
  call();
  double plain_seconds = 0;
  for (int k = 0; k < 20; ++k) {
    timer.start();
    plain.apply(packed_in, packed_out);
    plain_seconds += timer.stop();
  }
  for (auto _ : state) {
    timer.start();
    call();
    state.SetIterationTime(timer.stop());
  }
  state.counters["plain_us"] = 1e6 * plain_seconds / 20;
  state.SetLabel(d.label());
}
#endif

// The abstraction-cost pair: one naive checkerboarded Dslash (D_{e<-o}, double), written once over
// an accessor. ViewAccess holds the fields' Views by value, as Kokkos code captures them, and goes
// through View::operator() with its runtime strides; RawAccess indexes the same storage by hand.
struct ViewAccess {
  View<std::complex<double>, 4> u;
  View<std::complex<double>, 3> in, out;
  std::complex<double> link(site_t s, int mu, int a, int b) const { return u(s, mu, a, b); }
  std::complex<double> psi(index_t i, int sp, int c) const { return in(i, sp, c); }
  std::complex<double>& chi(index_t i, int sp, int c) const { return out(i, sp, c); }
};
struct RawAccess {
  const std::complex<double>* u;
  const std::complex<double>* in;
  std::complex<double>* out;
  std::complex<double> link(site_t s, int mu, int a, int b) const { return u[((s * 4 + mu) * 3 + a) * 3 + b]; }
  std::complex<double> psi(index_t i, int sp, int c) const { return in[(i * 4 + sp) * 3 + c]; }
  std::complex<double>& chi(index_t i, int sp, int c) const { return out[(i * 4 + sp) * 3 + c]; }
};

template <class Access>
void naive_dslash_eo(const Geometry& g, const Access& acc) {
  using C = std::complex<double>;
  const C I(0, 1);
  parallel_for("naive_abstraction", RangePolicy<>(g.half_volume()), [&](index_t i) {
    const site_t x = g.site_from_cb(i, Parity::Even);
    C r[4][3] = {};
    for (int mu = 0; mu < 4; ++mu)
      for (int dir : {+1, -1}) {
        const site_t n = g.neighbour(x, mu, dir), ls = dir > 0 ? x : n;
        const index_t j = Geometry::cb_index(n);
        // (1 - dir g_mu) psi: the two rows of the spin projection, with g_mu's single entry per row.
        C h[2][3], uh[2][3];
        const int s = -dir;
        const int partner[4][2] = {{3, 2}, {3, 2}, {2, 3}, {2, 3}};
        const C coef[4][2] = {{I, I}, {-1.0, 1.0}, {I, -I}, {1.0, 1.0}};
        for (int c = 0; c < 3; ++c)
          for (int k = 0; k < 2; ++k) h[k][c] = acc.psi(j, k, c) + static_cast<double>(s) * coef[mu][k] * acc.psi(j, partner[mu][k], c);
        for (int a = 0; a < 3; ++a)
          for (int k = 0; k < 2; ++k) {
            uh[k][a] = 0;
            for (int b = 0; b < 3; ++b)
              uh[k][a] += (dir > 0 ? acc.link(ls, mu, a, b) : std::conj(acc.link(ls, mu, b, a))) * h[k][b];
          }
        const int from2[4] = {1, 1, 0, 0}, from3[4] = {0, 0, 1, 1};
        const C c2[4] = {-I, 1.0, -I, 1.0}, c3[4] = {-I, -1.0, I, 1.0};
        for (int a = 0; a < 3; ++a) {
          r[0][a] += uh[0][a];
          r[1][a] += uh[1][a];
          r[2][a] += static_cast<double>(s) * c2[mu] * uh[from2[mu]][a];
          r[3][a] += static_cast<double>(s) * c3[mu] * uh[from3[mu]][a];
        }
      }
    for (int sp = 0; sp < 4; ++sp)
      for (int c = 0; c < 3; ++c) acc.chi(i, sp, c) = r[sp][c];
  });
}

void BM_AbstractionCost(benchmark::State& state, bool through_views) {
  const int L = static_cast<int>(state.range(0));
  const Geometry geom({L, L, L, L});
  const GaugeField<double> u = random_gauge<double>(geom);
  SpinorField<double> in(geom, Subset::Odd), out(geom, Subset::Even);
  fill_gaussian(in, 2);
  for (auto _ : state) {
    if (through_views) naive_dslash_eo(geom, ViewAccess{u.view(), in.view(), out.view()});
    else naive_dslash_eo(geom, RawAccess{u.data(), in.data(), out.data()});
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["FLOP/s"] = benchmark::Counter(bench::kFlopsPerSite * static_cast<double>(geom.half_volume()) *
                                                    static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

// The mrhs or vnode body alone on one thread, its data in cache (kernels/machine_probe.hpp): the best
// of many short sweeps, so a machine whose speed comes and goes still shows what the body can do.
// The ceiling a kernel reaches at most at large lattices, whatever the memory does.
constexpr int kBodyIterations = 5, kBodySweepsPerIteration = 1000;
template <class Real>
void BM_Body(benchmark::State& state, KernelFamily kernel) {
  const MachineProbe<Real> probe = machine_probe<Real>(best_isa());
  double best = 0;
  for (auto _ : state) {
    const double flops = (kernel == KernelFamily::Vnode ? probe.vnode_body : probe.mrhs_body)(kBodySweepsPerIteration);
    best = flops > best ? flops : best;
  }
  state.counters["FLOP/s"] = best;
  state.SetLabel(std::string(to_string(kernel)) + " body, " + to_string(best_isa()) + ", in cache, best of " +
                 std::to_string(kBodyIterations * kBodySweepsPerIteration) + " sweeps");
}

// A solver's BLAS pass over buffers of n reals on the host, with bytes/s counted as the pass's
// loads and stores (docs/DESIGN.md, "The solvers"). A reduction's short body is where the backend's
// reduction shows: one running sum made axpby_norm2 as slow in single precision as in double
// (docs/history/HISTORY.md, "The BLAS reductions, and the functor on the loop's stack").
enum class BlasPass { Axpby, AxpbyNorm2, ReDot, AxpyXpay };
template <class Real>
void BM_Blas(benchmark::State& state, BlasPass pass) {
  const auto n = static_cast<std::size_t>(state.range(0));
  View<Real, 1> x("x", n), y("y", n), z("z", n);
  for (std::size_t i = 0; i < n; ++i) {
    x.data()[i] = static_cast<Real>(static_cast<int>(i % 7) - 3);
    y.data()[i] = static_cast<Real>(static_cast<int>(i % 5) - 2);
    z.data()[i] = static_cast<Real>(static_cast<int>(i % 3) - 1);
  }
  // Coefficients of modulus 1 keep the values from growing over the iterations.
  const Real a = Real(0.5), b = Real(-0.5);
  double sum = 0;
  for (auto _ : state) {
    switch (pass) {
      case BlasPass::Axpby: axpby(a, x, b, y); break;
      case BlasPass::AxpbyNorm2: sum += axpby_norm2(a, x, b, y); break;
      case BlasPass::ReDot: sum += re_dot(x, y); break;
      case BlasPass::AxpyXpay: axpy_xpay(a, x, y, z, b); break;
    }
    benchmark::DoNotOptimize(sum);
  }
  const double vectors = pass == BlasPass::AxpyXpay ? 5 : pass == BlasPass::ReDot ? 2 : 3;  // read + written
  state.counters["bytes/s"] = benchmark::Counter(vectors * static_cast<double>(n * sizeof(Real)) * static_cast<double>(state.iterations()),
                                                 benchmark::Counter::kIsRate, benchmark::Counter::kIs1024);
}

// Every family x dispatch x precision uncompressed; the range dispatch of mrhs and vnode also with
// compressed links (a name ending in /r12 or /r8).
struct DslashEntry {
  KernelFamily kernel;
  Dispatch dispatch;
  bool single;
  int compress;
  std::string name(const char* prefix) const {
    return std::string(prefix) + to_string(kernel) + "/" + to_string(dispatch) + "/" + (single ? "single" : "double") +
           (compress != 18 ? "/r" + std::to_string(compress) : "");
  }
};
std::vector<DslashEntry> dslash_entries() {
  std::vector<DslashEntry> v;
  for (KernelFamily k : {KernelFamily::Naive, KernelFamily::Mrhs, KernelFamily::Vnode})
    for (Dispatch d : {Dispatch::Range, Dispatch::Team, Dispatch::MDRange})
      for (bool single : {true, false}) v.push_back({k, d, single, 18});
  for (KernelFamily k : {KernelFamily::Mrhs, KernelFamily::Vnode})
    for (bool single : {true, false})
      for (int compress : {12, 8}) v.push_back({k, Dispatch::Range, single, compress});
  return v;
}

void register_all() {
  for (const DslashEntry& e : dslash_entries()) {
    auto* b = e.single ? benchmark::RegisterBenchmark(e.name("dslash/").c_str(), BM_Dslash<float>, e.kernel, e.dispatch, e.compress)
                       : benchmark::RegisterBenchmark(e.name("dslash/").c_str(), BM_Dslash<double>, e.kernel, e.dispatch, e.compress);
    b->Arg(8)->Arg(16)->UseRealTime()->Unit(benchmark::kMillisecond);
  }
#if defined(DSLASH_HAVE_CUDA)
  for (const DslashEntry& e : dslash_entries()) {
    auto* b = e.single ? benchmark::RegisterBenchmark(e.name("cuda/").c_str(), BM_CudaDslash<float>, e.kernel, e.dispatch, e.compress)
                       : benchmark::RegisterBenchmark(e.name("cuda/").c_str(), BM_CudaDslash<double>, e.kernel, e.dispatch, e.compress);
    b->Arg(16)->Arg(32)->UseManualTime()->Unit(benchmark::kMicrosecond);
  }
  for (KernelFamily k : {KernelFamily::Naive, KernelFamily::Vnode})
    for (bool single : {true, false})
      for (bool slabs : {false, true}) {
        const std::string name = std::string("cuda_halo/") + to_string(k) + "/t/" + (single ? "single" : "double") + (slabs ? "/slabs" : "/faces");
        (single ? benchmark::RegisterBenchmark(name.c_str(), BM_CudaHaloT<float>, k, slabs) : benchmark::RegisterBenchmark(name.c_str(), BM_CudaHaloT<double>, k, slabs))
            ->Arg(32)->UseManualTime()->Unit(benchmark::kMicrosecond);
      }
#endif
  // t split (a 1.1.1.N grid) and y, z, t split (1.2.2.2), the halo's hops added by the face kernels or the kernel.
  for (KernelFamily k : {KernelFamily::Naive, KernelFamily::Mrhs, KernelFamily::Vnode})
    for (bool three : {false, true})
      for (bool single : {true, false})
        for (bool in_kernel : {false, true}) {
          const std::array<bool, 4> splits{false, three, three, true};
          const std::string name = std::string("halo/") + to_string(k) + (three ? "/yzt/" : "/t/") + (single ? "single" : "double") +
                                   (in_kernel ? "/kernel" : "/faces");
          auto* b = single ? benchmark::RegisterBenchmark(name.c_str(), BM_Halo<float>, k, splits, in_kernel)
                           : benchmark::RegisterBenchmark(name.c_str(), BM_Halo<double>, k, splits, in_kernel);
          b->Arg(16)->Arg(32)->UseRealTime()->Unit(benchmark::kMillisecond);
        }
  // The projection of each split direction alone, of the three one launch each, and of the three
  // in one launch, from the cache and from DRAM.
  for (KernelFamily k : {KernelFamily::Naive, KernelFamily::Mrhs, KernelFamily::Vnode})
    for (bool single : {true, false})
      for (int mu : {1, 2, 3, kEachFace, kAllFaces})
        for (bool cold : {false, true}) {
          const std::string which = mu == kEachFace ? "yzt-each" : mu == kAllFaces ? "yzt-all" : std::string(1, "xyzt"[mu]);
          const std::string name = std::string("faces/") + to_string(k) + "/project/" + which + "/" + (single ? "single" : "double") +
                                   (cold ? "/dram" : "/cache");
          auto* b = single ? benchmark::RegisterBenchmark(name.c_str(), BM_FaceProject<float>, k, mu, cold)
                           : benchmark::RegisterBenchmark(name.c_str(), BM_FaceProject<double>, k, mu, cold);
          b->Arg(16)->Arg(32)->UseManualTime()->Unit(benchmark::kMicrosecond);
          if (cold) b->Iterations(100);  // each sweeps the cache first: milliseconds of untimed reads
        }
  for (KernelFamily k : {KernelFamily::Mrhs, KernelFamily::Vnode})
    for (bool single : {true, false}) {
      const std::string name = std::string("body/") + to_string(k) + "/" + (single ? "single" : "double");
      (single ? benchmark::RegisterBenchmark(name.c_str(), BM_Body<float>, k) : benchmark::RegisterBenchmark(name.c_str(), BM_Body<double>, k))
          ->Iterations(kBodyIterations)->Unit(benchmark::kMillisecond);
    }
  for (bool views : {true, false})
    benchmark::RegisterBenchmark(views ? "abstraction_cost/naive/view" : "abstraction_cost/naive/raw", BM_AbstractionCost, views)
        ->Arg(8)->Arg(16)->UseRealTime()->Unit(benchmark::kMillisecond);
  // 786432 reals: a 16^3 x 32 even-odd vector (in cache); 12582912: 32^4 (from memory on most machines).
  const std::pair<BlasPass, const char*> passes[] = {
      {BlasPass::Axpby, "axpby"}, {BlasPass::AxpbyNorm2, "axpby_norm2"}, {BlasPass::ReDot, "re_dot"}, {BlasPass::AxpyXpay, "axpy_xpay"}};
  for (const auto& [pass, name] : passes)
    for (bool single : {true, false}) {
      const std::string full = std::string("blas/") + name + "/" + (single ? "single" : "double");
      (single ? benchmark::RegisterBenchmark(full.c_str(), BM_Blas<float>, pass) : benchmark::RegisterBenchmark(full.c_str(), BM_Blas<double>, pass))
          ->Arg(786432)->Arg(12582912)->UseRealTime()->Unit(benchmark::kMicrosecond);
    }
}

}  // namespace
}  // namespace dslash

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("git", dslash::bench::git_revision());
  benchmark::AddCustomContext("simd", dslash::to_string(dslash::best_isa()));
  benchmark::AddCustomContext("threads", std::to_string(omp_get_max_threads()));
  benchmark::AddCustomContext("compiler", dslash::bench::compiler_description());
  dslash::register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
