#pragma once
// Runs and measures one kernel variant: warm-up, timed repetitions, optional tuning of the launch
// shape, optional check against the reference. On the host each call is timed by the wall clock
// around the blocking apply; with Space = CudaSpace, by CUDA events around the launch, the fields
// resident in device memory.
// Timing rule (every bench, and --traffic): `warmup` untimed calls, then `iters` timed calls that
// all count: the rate is the best of them, and min/median/max are over all of them.
#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench/machine.hpp"
#include "bench/metrics.hpp"
#include "bench/tune_cache.hpp"
#include "dslash/lattice/gauge_field.hpp"
#include "dslash/lattice/spinor_field.hpp"
#include "kernels/kernel_options.hpp"

namespace dslash::bench {

struct BenchSettings {
  int iters = 10, warmup = 2, tune_iters = 3;
  bool check = false;
  bool traffic = false;  // also time the kernel's memory traffic alone (DslashKernel::apply_traffic)
  std::uint64_t seed = 1;
  std::uint64_t llc_bytes = 0;  // the last-level cache this process may count on (0: unknown): rotating_sets
};

// The --check verdict of one variant: its worst relative difference from the reference over the
// right-hand sides, within the precision's tolerance or not.
struct CheckOutcome {
  double relative_error = 0;
  bool passed = false;
};
// Outputs against the reference: within single's or double's tolerance, or with half_link_reals
// (half precision storage, its links' stored reals) within the format's half_precision_bound.
template <class Real>
CheckOutcome check_against_reference(const GaugeField<Real>& u, const std::vector<SpinorField<Real>>& in,
                                     const std::vector<SpinorField<Real>>& out, bool dagger, int half_link_reals = 0);

struct VariantRequest {
  DslashConfig cfg;
  bool tune_tile = false, tune_team = false;
};

struct VariantResult {
  DslashConfig cfg;
  std::string label, tile_source = "default";  // default, user, tuned or cache
  int lanes = 1;
  std::vector<double> times;                   // timed repetitions, seconds
  double time_min = 0, time_median = 0, time_max = 0;  // over all of them
  // Rates are the whole run's (under MPI, all ranks together); rate_against sets the last three.
  double gflops = 0, gbytes_model = 0, roofline_gflops = 0, percent_of_roofline = 0, fma_peak_gflops = 0;
  double compulsory_bytes = 0;  // per output site and right-hand side (CONVENTIONS.md)
  double spread = 0;           // (median - min) / min: > 0.1 means the machine was noisy
  double traffic_gflops = 0;   // the traffic alone, at 1320 FLOP per site and RHS, best call; 0 if not measured
  std::vector<double> traffic_times;  // its timed calls, seconds
  int rotating_sets = 1;       // input/output sets cycled through so a cache-resident run is not flattered
  std::string link_prefetch_into = "none";  // later sites' links prefetched into "L1", "L2" or "none" (DslashKernel::link_prefetch)
  index_t block_z = 0;         // team launch: z-planes a traversal block (DslashKernel::block_z); 0 = index order
  std::uint64_t call_bytes = 0;  // what one call reads and writes: links, one input and one output set (kDramFootprintFactor)
  std::optional<CheckOutcome> check;  // with --check
};

// The timing rule's figures of r's timed calls (seconds): min, median and max over all of them, and the spread.
void record_times(VariantResult& r, std::vector<double> times);
// r's headline rates from its best call: site_rhs output sites x right-hand sides per process, on
// `processes` processes together.
void rate_best_call(VariantResult& r, int bytes_per_real, double site_rhs, int processes = 1);

// The byte model of a variant: checkerboarded or not, mrhs's right-hand sides sharing its links,
// and the links as the kernel stores them (cfg.compress reals each).
ByteModel variant_bytes(const DslashConfig& cfg, int bytes_per_real);

// r's roofline on the run's best ceilings (measured per process, times the processes that ran it),
// and r's share of it.
void rate_against(VariantResult& r, const Ceilings& ceilings, int processes = 1);

template <class Real, class Space = HostSpace>
class Benchmark {
 public:
  Benchmark(const Geometry& geom, const BenchSettings& settings, TuneCache* cache);
  VariantResult run(const VariantRequest& request);
  std::uint64_t gauge_bytes() const { return u_.view().span_bytes(); }

 private:
  Geometry geom_;
  BenchSettings settings_;
  TuneCache* cache_;
  GaugeField<Real> u_;
};

// The tune-cache key of a variant; `where` names what ran it ("threads16", or the GPU's name).
std::string tune_key(const DslashConfig& cfg, const Geometry& geom, int bytes_per_real, const std::string& where);

// "4.4.4.4": a tile as --tile takes it, the tune cache stores it and the reports print it.
std::string tile_text(const std::array<index_t, 4>& tile);

// Candidate MDRange tiles for the outer extents (x or x/2, y, z, t) of a launch; 0 = the whole extent.
std::vector<std::array<index_t, 4>> tile_candidates(const std::array<index_t, 4>& extent);

// The tuner's pick among `candidates` shapes, time(k) timing shape k once (nullopt: it cannot be
// launched): each timed once, then the kRetimedCandidates fastest again in kRetimeRounds interleaved
// rounds, whose best time alone decides. Throws std::runtime_error if none can be launched.
inline constexpr std::size_t kRetimedCandidates = 4;
inline constexpr int kRetimeRounds = 3;
struct TunedChoice {
  std::size_t index = 0;
  double seconds = 0;
};
TunedChoice choose_fastest(std::size_t candidates, const std::function<std::optional<double>(std::size_t)>& time);

}  // namespace dslash::bench
