#pragma once
// The solve driver: M x = b on the full lattice, for any number of right-hand sides, through the
// even sites. It builds the even-odd operator (and the single-precision one of a mixed solve),
// prepares each even source, runs CGNR or BiCGStab on it, reconstructs the odd sites, and counts and
// times what it did; `dslash solve` (src/cli) binds it to the command line. The precision x backend
// pairs are instantiated once, in solve_driver.cpp.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dslash/lattice/gauge_field.hpp"
#include "dslash/lattice/spinor_field.hpp"
#include "kernels/kernel_options.hpp"
#include "solvers/hopping_term.hpp"
#include "solvers/solver_result.hpp"
#if defined(DSLASH_HAVE_CUDA)
#include "dslash/core/backend/cuda/space.hpp"
#endif

namespace dslash {

enum class SolveMethod { Cgnr, BiCGStab };
// Mixed: x and the true residual in double, the iterations in single (reliable updates).
enum class SolvePrecision { Double, Single, Mixed };
// Cuda: the vectors and kernels on the GPU, the fields crossing to the host only before and after each solve.
enum class SolveBackend { Cpu, Cuda };

// Where a solve's operators get their hopping terms when not from this process's own kernels
// (LocalHopping): mpi::HaloHopping decomposes them over MPI ranks, which the solvers know nothing of.
// u is this process's block, in the operator's precision.
class HoppingFactory {
 public:
  virtual ~HoppingFactory() = default;
  virtual std::shared_ptr<const HoppingTerm<double, HostSpace>> make(const GaugeField<double>& u, const DslashConfig& config, HostSpace) const = 0;
  virtual std::shared_ptr<const HoppingTerm<float, HostSpace>> make(const GaugeField<float>& u, const DslashConfig& config, HostSpace) const = 0;
#if defined(DSLASH_HAVE_CUDA)
  virtual std::shared_ptr<const HoppingTerm<double, CudaSpace>> make(const GaugeField<double>& u, const DslashConfig& config, CudaSpace) const = 0;
  virtual std::shared_ptr<const HoppingTerm<float, CudaSpace>> make(const GaugeField<float>& u, const DslashConfig& config, CudaSpace) const = 0;
#endif
};

// One iteration of one solve, for a progress report.
struct SolveProgress {
  int solve = 0, solves = 1;  // which solver call (from 0), of how many
  int iteration = 0;
  double residual = 0;  // the iterated ||b - M x|| / ||b||, in units of the full source
  bool reliable_update = false;  // the iteration ended in one: the residual is the recomputed one
};

struct SolveConfig {
  SolveMethod method = SolveMethod::Cgnr;
  SolvePrecision precision = SolvePrecision::Double;
  SolveBackend backend = SolveBackend::Cpu;
  double mass = 0;
  double tolerance = 1e-10;  // on ||b - M x|| / ||b|| of the full system
  int max_iterations = 1000;  // per solver call
  double reliable_delta = SolverParams{}.reliable_delta;
  // The precise operator's kernels. kernel.nrhs right-hand sides go into each solver call (mrhs: all
  // of them at once, any number; else 1), so the number of sources is a multiple of it. Over an
  // mrhs kernel either method is a block solve (solvers/block_cg.hpp, solvers/block_bicgstab.hpp):
  // each right-hand side its own scalars and stop.
  DslashConfig kernel = {};
  int sloppy_compress = 0;  // mixed: the reals per link of the single-precision operator (0: kernel.compress)
  bool sloppy_half = false;  // mixed: that operator in half precision storage (solvers/half_hopping.hpp)
  bool profile = false;  // time every launch inside the solver calls, by label
  std::function<void(const SolveProgress&)> on_iteration = {};  // after every iteration, where given
  std::function<void(int solve)> on_solve_end = {};             // after each solver call, where given
  const HoppingFactory* hopping = nullptr;                      // null: this process's own kernels
};

// One solver call: right-hand sides [first, first + count) together (mrhs), or one.
struct SolveRecord {
  int first = 0, count = 1;
  SolverResult result = {};  // a block solve's as one (BlockSolverResult::summary)
  std::vector<SolverResult> rhs;  // each right-hand side's: a block's own, else the result
  double time_s = 0;
  double scale = 1;  // ||b_hat|| / ||b||: the even system's relative residuals in units of the full source's norm
  std::vector<double> rhs_scale;  // the same per right-hand side
  std::int64_t precise_dslash = 0, sloppy_dslash = 0;  // hopping applications in each operator
  double dslash_s = 0;  // the time inside them
};

// With SolveConfig::profile: one label's launches, timed to their end (core/profiling.hpp fences
// them). The fastest and slowest call say whether every call is slow or a few are.
struct LaunchTime {
  std::string label;
  std::int64_t calls = 0;
  double seconds = 0, min_s = 0, max_s = 0;
};

// Over MPI ranks: how the operators' halos travelled (the precise operator's transport), and how
// many of their hops (both operators', with the setup's) read the halo in place.
struct HaloUse {
  std::string transport;
  std::int64_t read_in_place = 0, hops = 0;
};

struct SolveOutcome {
  std::vector<SolveRecord> solves;
  std::vector<SpinorField<double>> x;  // this process's sites, one field per right-hand side
  SolvePrecision precision = SolvePrecision::Double;
  DslashConfig config;                 // what the precise operator's kernels ran with (on the GPU: simt, left)
  std::optional<HaloUse> halo;         // where the hopping terms span processes
  std::vector<LaunchTime> launches;    // with profile: longest total first
  double launch_seconds = 0;           // with profile: their sum
  // Every solver call's true residual met the tolerance; the first that did not (null if none).
  bool converged() const;
  const SolveRecord* first_unconverged() const;
};

// Solves M x = b for every b (this process's sites, the whole lattice without a HoppingFactory),
// kernel.nrhs at a time. Throws std::invalid_argument where a kernel refuses the configuration.
// Under MPI, collective: every rank calls it with its block and the same config.
SolveOutcome solve_wilson(const SolveConfig& config, const GaugeField<double>& u, const std::vector<SpinorField<double>>& b);

// The figures over every solver call of an outcome.
struct SolveTotals {
  int iterations = 0, reliable_updates = 0;
  double time_s = 0, setup_s = 0;  // setup: allocating the solvers' vectors, part of time_s
  double dslash_s = 0, flops = 0;  // inside the hopping applications, 1320 flops a site each
  std::int64_t in_double = 0, in_single = 0;  // hopping applications by precision
  double per_iteration_s() const { return iterations > 0 ? time_s / iterations : 0; }
  double gflops() const { return time_s > 0 ? flops / time_s / 1e9 : 0.0; }  // of Dslash over the whole solve
  double dslash_gflops() const { return dslash_s > 0 ? flops / dslash_s / 1e9 : 0.0; }
  double over_dslash() const { return dslash_s > 0 ? time_s / dslash_s : 0.0; }
  // The iterations alone: the solver's allocations are setup (QUDA's preamble), not linear algebra.
  double over_dslash_without_setup() const { return dslash_s > 0 ? (time_s - setup_s) / dslash_s : 0.0; }
};
// lattice: the whole lattice (under MPI every rank applies the operators to its block at once).
SolveTotals solve_totals(const SolveOutcome& outcome, const Geometry& lattice);

// x checked with the scalar reference operator in double on the whole lattice: ||b - M x|| / ||b||
// for each right-hand side, the worst (NaN where any is), and whether it confirms the solver's
// convergence (reference_confirms).
struct ReferenceCheck {
  std::vector<double> residuals;
  double worst = 0;
  bool confirms = false;
};
ReferenceCheck check_with_reference(const GaugeField<double>& u, const std::vector<SpinorField<double>>& b, const std::vector<SpinorField<double>>& x,
                                    double mass, double tolerance, bool single_precision);

}  // namespace dslash
