#include "bench/benchmark.hpp"
#include "bench/rotating_spinors.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bench/metrics.hpp"
#include "dslash/core.hpp"
#include "dslash/lattice/field_ops.hpp"
#include "kernels/dslash_kernel.hpp"
#include "kernels/reference_dslash.hpp"
#if defined(DSLASH_HAVE_CUDA)
#include "dslash/core/backend/cuda/space.hpp"
#endif

namespace dslash::bench {

std::string tune_key(const DslashConfig& cfg, const Geometry& geom, int bytes_per_real, const std::string& where) {
  return geom.to_string() + "|" + to_string(cfg.kernel) + "|" + to_string(cfg.dispatch) + "|" +
         (cfg.half ? "half" : bytes_per_real == 4 ? "single" : "double") + "|" + to_string(cfg.isa) + "|nrhs" + std::to_string(cfg.nrhs) + "|" +
         to_string(cfg.out) + "|" + to_string(cfg.layout) + "|r" + std::to_string(cfg.compress) +
         (cfg.dispatch == Dispatch::Team ? "|z" + std::to_string(cfg.block_z) : "") + "|" + where + "|" + build_id();
}

ByteModel variant_bytes(const DslashConfig& cfg, int bytes_per_real) {
  const bool mrhs = cfg.kernel == KernelFamily::Mrhs;
  // Half precision: 2-byte codes and a 4-byte norm a spinor, the lanes single's.
  return bytes_per_site(cfg.out != Subset::Full, cfg.half ? 2 : bytes_per_real, mrhs ? cfg.nrhs : 1, cfg.compress,
                        padded_rhs(cfg.kernel, cfg.nrhs, simd_lanes(cfg.isa, bytes_per_real)), cfg.half ? 4 : 0);
}

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::string tile_text(const std::array<index_t, 4>& t) {
  return std::to_string(t[0]) + "." + std::to_string(t[1]) + "." + std::to_string(t[2]) + "." + std::to_string(t[3]);
}

// Candidate MDRange tiles over (x or x/2, y, z, t): whole x rows (unit-stride streams), and blocks
// of y, z, t that trade parallelism for neighbour reuse. The default tile is always a candidate, so
// a tuned tile is never slower than the default as measured.
std::vector<std::array<index_t, 4>> tile_candidates(const std::array<index_t, 4>& extent) {
  std::set<std::array<index_t, 4>> c = {DslashConfig{}.tile};
  for (index_t y : {index_t{0}, extent[1] / 2, index_t{4}, index_t{2}, index_t{1}})
    for (index_t z : {index_t{1}, index_t{2}, index_t{4}})
      for (index_t t : {index_t{1}, index_t{2}})
        if (y >= 0 && y <= extent[1]) c.insert({0, y, z, t});
  // Columns of a few whole z planes that run all of t: a site's t - 1 neighbour was read as a t + 1
  // neighbour two planes of the column earlier, and a thin column keeps it in the last-level cache
  // where a whole-lattice plane does not (mrhs gains; vnode, whose links dominate, does not).
  for (index_t z : {index_t{2}, index_t{4}, index_t{8}})
    if (z < extent[2]) c.insert({0, 0, z, 0});
  // Whole-t columns of y x z blocks, 4 to 12 a side: a column's t-slice (x by y by z sites) small
  // enough for a core's own L2, so its t - 1 and z - 1 neighbours are still there when read again.
  // mrhs at 48^4 reads each neighbour's 1.5 KiB from the L3 otherwise (a z-line is 1.7 MiB)
  // (docs/history/HISTORY.md, "vnode's access pattern taken apart, and whole-t columns for mrhs").
  // The blocks of 4-6 a side also with t in blocks of 8 planes: dynamic threads take neighbouring
  // tiles at once, so a block's y and z halos are read while its neighbours still hold them (whole-t
  // columns drift apart in t), and one plane in 8 reads its t - 1 neighbours from afar (in 2 for
  // 2-plane blocks). The tuner picks them for mrhs at 48^4 on the device host (docs/history/HISTORY.md,
  // "mrhs at its own traffic's rate, and t in blocks of 8 planes").
  for (index_t y : {index_t{4}, index_t{6}, index_t{8}, index_t{12}})
    for (index_t z : {index_t{4}, index_t{6}, index_t{8}, index_t{12}})
      if (y < extent[1] && z < extent[2]) {
        c.insert({0, y, z, 0});
        if (y <= 6 && z <= 6 && 8 < extent[3]) c.insert({0, y, z, 8});
      }
  c.insert({extent[0] / 2 > 0 ? extent[0] / 2 : 1, 0, 1, 1});
  return {c.begin(), c.end()};
}

// Every candidate timed once, then the leading few again in interleaved rounds, which alone decide
// among them: on a shared host a slow phase of a few seconds otherwise picks the winner, a shape
// that then runs slower than others it beat once.
TunedChoice choose_fastest(std::size_t candidates, const std::function<std::optional<double>(std::size_t)>& time) {
  struct Timed {
    std::size_t index;
    double seconds;
  };
  std::vector<Timed> timed;
  for (std::size_t k = 0; k < candidates; ++k)
    if (const auto t = time(k)) timed.push_back({k, *t});
  if (timed.empty()) throw std::runtime_error("the tuner could launch none of its candidate shapes");
  // Ties go to the earlier candidate. (A partial sort, not std::stable_sort, whose temporary buffer
  // GCC 13 flags with a false -Warray-bounds.)
  const auto leading = std::min(timed.size(), kRetimedCandidates);
  std::partial_sort(timed.begin(), timed.begin() + static_cast<std::ptrdiff_t>(leading), timed.end(),
                    [](const Timed& a, const Timed& b) { return a.seconds < b.seconds || (a.seconds == b.seconds && a.index < b.index); });
  timed.resize(leading);
  if (timed.size() > 1) {
    for (Timed& c : timed) c.seconds = std::numeric_limits<double>::infinity();
    for (int round = 0; round < kRetimeRounds; ++round)
      for (Timed& c : timed)
        if (const auto t = time(c.index)) c.seconds = std::min(c.seconds, *t);
  }
  const Timed& best = *std::min_element(timed.begin(), timed.end(), [](const Timed& a, const Timed& b) { return a.seconds < b.seconds; });
  return {best.index, best.seconds};
}

void record_times(VariantResult& r, std::vector<double> times) {
  r.times = std::move(times);
  const TimeSummary summary = summarize_times(r.times);
  r.time_min = summary.min;
  r.time_median = summary.median;
  r.time_max = summary.max;
  r.spread = summary.spread;
}

void rate_best_call(VariantResult& r, int bytes_per_real, double site_rhs, int processes) {
  const ByteModel bytes = variant_bytes(r.cfg, bytes_per_real);
  r.gflops = kFlopsPerSite * site_rhs * processes / r.time_min / 1e9;
  r.gbytes_model = bytes.model * site_rhs * processes / r.time_min / 1e9;
  r.compulsory_bytes = bytes.compulsory;  // the roofline waits for the run's last ceilings: rate_against
}

void rate_against(VariantResult& r, const Ceilings& ceilings, int processes) {
  r.fma_peak_gflops = processes * ceilings.fma_peak_GFLOPs(r.cfg.isa);
  r.roofline_gflops = processes * ceilings.roofline_GFLOPs(r.cfg.isa, r.compulsory_bytes);
  r.percent_of_roofline = 100.0 * r.gflops / r.roofline_gflops;
}

template <class Real>
CheckOutcome check_against_reference(const GaugeField<Real>& u, const std::vector<SpinorField<Real>>& in,
                                     const std::vector<SpinorField<Real>>& out, bool dagger, int half_link_reals) {
  const GaugeField<double> ud = convert_precision<double>(u);
  CheckOutcome c;
  bool passed = true;
  for (std::size_t k = 0; k < in.size(); ++k) {
    SpinorField<double> expect(u.geometry(), out[k].subset(), "bench_reference");
    dslash_reference(ud, convert_precision<double>(in[k]), expect, dagger);
    const double error = relative_difference(out[k], expect);
    c.relative_error = std::max(c.relative_error, error);
    const double bound = half_link_reals != 0 ? half_precision_bound(half_link_reals, std::sqrt(norm2(in[k]) / norm2(expect)))
                                              : (sizeof(Real) == 4 ? 1e-5 : 1e-12);
    passed = passed && error < bound;
  }
  c.passed = passed;
  return c;
}

template <class Real, class Space>
Benchmark<Real, Space>::Benchmark(const Geometry& geom, const BenchSettings& settings, TuneCache* cache)
    : geom_(geom), settings_(settings), cache_(cache), u_(geom, "bench_gauge") {
  fill_random_su3(u_, settings.seed);
}

template <class Real, class Space>
VariantResult Benchmark<Real, Space>::run(const VariantRequest& request) {
  constexpr bool kDevice = !Space::host_accessible;
  VariantResult r;
  DslashKernel<Real, Space> d(u_, with_host_cache_policy<Real, Space>(request.cfg, geom_));
  r.cfg = d.config();
  r.label = d.label();
  r.lanes = d.layout().lanes;
  r.link_prefetch_into = to_string(d.link_prefetch());
  if (r.cfg.dispatch == Dispatch::Team && d.block_z() < d.layout().outer[2]) r.block_z = d.block_z();
  if (request.cfg.dispatch == Dispatch::MDRange && !request.tune_tile && request.cfg.tile != DslashConfig{}.tile) r.tile_source = "user";

  // Inputs: Gaussian spinors of the input parity, packed into every rotating set.
  std::vector<SpinorField<Real>> in;
  for (int k = 0; k < r.cfg.nrhs; ++k) fill_gaussian(in.emplace_back(geom_, d.in_subset(), "bench_in"), settings_.seed + 100 + static_cast<std::uint64_t>(k));
  const std::uint64_t spinor_bytes = r.cfg.half ? d.half_spinor_bytes() : d.spinor_bytes();
  r.rotating_sets = rotating_sets(settings_.llc_bytes, d.link_bytes(), 2 * spinor_bytes);
  r.call_bytes = d.link_bytes() + 2 * spinor_bytes;
  RotatingSpinors<Real, Space> sets(d, in, r.rotating_sets);
  // One timed call on the next rotating set: the Dslash, or with traffic its loads and stores alone.
  const auto apply_once = [&](bool traffic = false) {
    const std::size_t k = sets.advance();
    if constexpr (kDevice) {
#if defined(DSLASH_HAVE_CUDA)
      cuda::EventTimer timer;  // the kernel's own time, without the host's launch latency
      timer.start();
      sets.apply(d, k);
      return timer.stop();
#endif
    }
    const auto start = std::chrono::steady_clock::now();
    if (traffic) d.apply_traffic(sets.in[k], sets.out[k]);
    else sets.apply(d, k);
    return seconds_since(start);
  };
  const auto best_of = [&](int n) {  // the tuner's measure
    double best = 1e30;
    for (int i = 0; i < n; ++i) best = std::min(best, apply_once());
    return best;
  };

  // Tuning: look the launch shape up in the cache, else search it and remember the winner.
  const int threads = omp_get_max_threads();
  if (request.tune_tile || request.tune_team) {
    // A shape tuned under one schedule is not the one for another (the CLI's --schedule).
    std::string where = "threads" + std::to_string(threads) + "," + to_string(OpenMP::schedule());
#if defined(DSLASH_HAVE_CUDA)
    if constexpr (kDevice) where = "gpu=" + cuda::device_info().name;
#endif
    const std::string key = tune_key(r.cfg, geom_, sizeof(Real), where);
    const auto cached = cache_ ? cache_->find(key) : std::nullopt;
    std::array<index_t, 4> tile = r.cfg.tile;
    int team = r.cfg.team_size;
    index_t per_team = r.cfg.sites_per_team;
    bool parsed = false;
    if (cached) {
      long long a = 0, b = 0, c = 0, e = 0, s = 0;
      int t = 0;
      if (request.tune_tile && std::sscanf(cached->c_str(), "tile=%lld.%lld.%lld.%lld", &a, &b, &c, &e) == 4) {
        tile = {a, b, c, e};
        parsed = true;
      } else if (request.tune_team && std::sscanf(cached->c_str(), "team=%d/%lld", &t, &s) == 2 && t >= 1 && s >= 0) {
        team = t;
        per_team = s;
        parsed = true;
      }
      if (!parsed) std::fprintf(stderr, "warning: tune cache entry for %s is malformed; retuning\n", r.label.c_str());
    }
    if (parsed) {
      r.tile_source = "cache";
    } else {
      struct Shape {
        std::array<index_t, 4> tile;
        int team;
        index_t per_team;
        std::string value;  // as the tune cache stores it
      };
      std::vector<Shape> shapes;
      if (request.tune_tile) {
        const index_t x_extent = r.cfg.out == Subset::Full ? d.layout().outer[0] : d.layout().outer[0] / 2;
        for (const auto& tl : tile_candidates({x_extent, d.layout().outer[1], d.layout().outer[2], d.layout().outer[3]}))
          shapes.push_back({tl, team, per_team, "tile=" + tile_text(tl)});
        std::fprintf(stderr, "  tuning %s: %zu tiles\n", r.label.c_str(), shapes.size());
      } else if (kDevice) {
        // A GPU team is a block: team_size threads (x the lanes) per block, and per thread 1, 4 or 16 sites.
        for (int tm : {8, 16, 32, 64, 128})
          if (tm * r.lanes <= 1024)
            for (index_t per_thread : {index_t{1}, index_t{4}, index_t{16}})
              shapes.push_back({tile, tm, tm * per_thread, "team=" + std::to_string(tm) + "/" + std::to_string(tm * per_thread)});
      } else {
        for (int tm : {1, 2, 4, 8})
          if (tm <= std::max(1, threads))
            for (index_t pt : {index_t{0}, index_t{16}, index_t{64}, index_t{256}})
              shapes.push_back({tile, tm, pt, "team=" + std::to_string(tm) + "/" + std::to_string(pt)});
      }
      best_of(1);  // warm the caches and the page tables
      const TunedChoice chosen = choose_fastest(shapes.size(), [&](std::size_t k) -> std::optional<double> {
        try {
          d.set_launch(shapes[k].tile, shapes[k].team, shapes[k].per_team);
          return best_of(settings_.tune_iters);
        } catch (const std::invalid_argument&) {
          return std::nullopt;  // a shape this kernel cannot launch (a GPU block past its registers: at launch)
        }
      });
      const Shape& shape = shapes[chosen.index];
      tile = shape.tile;
      team = shape.team;
      per_team = shape.per_team;
      if (!request.tune_tile) std::fprintf(stderr, "  tuning %s: team %d, %lld sites per team\n", r.label.c_str(), team, static_cast<long long>(per_team));
      if (cache_) cache_->store(key, shape.value, chosen.seconds);
      r.tile_source = "tuned";
    }
    d.set_launch(tile, team, per_team);
    r.cfg = d.config();
  }

  std::vector<double> times;
  for (int i = 0; i < settings_.warmup; ++i) apply_once();
  for (int i = 0; i < settings_.iters; ++i) times.push_back(apply_once());
  record_times(r, std::move(times));
  const double site_rhs = static_cast<double>(d.output_sites()) * r.cfg.nrhs;
  rate_best_call(r, sizeof(Real), site_rhs);

  if (settings_.traffic) {  // the same rule as the Dslash: untimed warm-up, then every timed call counts
    for (int i = 0; i < settings_.warmup; ++i) apply_once(true);
    for (int i = 0; i < settings_.iters; ++i) r.traffic_times.push_back(apply_once(true));
    r.traffic_gflops = kFlopsPerSite * site_rhs / summarize_times(r.traffic_times).min / 1e9;
    // The check below reads the Dslash's output: compute it again where the traffic overwrote it.
    if (settings_.check) d.apply(sets.in[0], sets.out[0]);
  }

  if (settings_.check) {
    std::vector<SpinorField<Real>> out;
    sets.unpack(d, 0, out);
    r.check = check_against_reference(u_, in, out, r.cfg.dagger, r.cfg.half ? r.cfg.compress : 0);
  }
  return r;
}

template class Benchmark<float>;
template class Benchmark<double>;
#if defined(DSLASH_HAVE_CUDA)
template class Benchmark<float, CudaSpace>;
template class Benchmark<double, CudaSpace>;
#endif
template CheckOutcome check_against_reference(const GaugeField<float>&, const std::vector<SpinorField<float>>&,
                                              const std::vector<SpinorField<float>>&, bool, int);
template CheckOutcome check_against_reference(const GaugeField<double>&, const std::vector<SpinorField<double>>&,
                                              const std::vector<SpinorField<double>>&, bool, int);

}  // namespace dslash::bench
