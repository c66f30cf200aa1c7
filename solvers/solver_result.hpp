#pragma once
// What every solver of solvers/ takes and reports.
#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "dslash/core/view.hpp"

namespace dslash {

struct SolverParams {
  double tolerance = 1e-10;  // stop when ||b - M x|| / ||b||, recomputed in the solve's precision, is <= tolerance
  int max_iterations = 1000;
  // Reliable updates: the true residual is recomputed in the solve's precision whenever the
  // iterated one has fallen by this factor since the last recomputation (QUDA's delta). 0.01, not
  // QUDA's customary 0.1: half the updates at the same iteration counts on the fields tried
  // (docs/history/HISTORY.md, "The GPU solver, session by session").
  double reliable_delta = 0.01;
  // Called after every iteration with the iteration number, the iterated ||r|| / ||b||, and whether
  // that iteration ended in a reliable update (the residual is then the recomputed one). Host code.
  std::function<void(int iteration, double relative_residual, bool reliable_update)> progress = {};
  // Block solvers (solvers/block_cg.hpp): right-hand side r's own tolerance, where given (else tolerance).
  std::vector<double> rhs_tolerance = {};
};

// One recomputation of the true residual b - M x (a reliable update).
struct TrueResidual {
  int iteration = 0;
  double relative = 0;  // ||b - M x|| / ||b||
};

// How a solve ended: its true residual met the tolerance, it ran out of iterations, the method could
// not go on (a zero denominator, a stalled true residual, a NaN or Inf), or its residual grew away.
enum class Stop { Converged, IterationLimit, Breakdown, Diverged };

inline const char* to_string(Stop stop) {
  switch (stop) {
    case Stop::Converged: return "converged";
    case Stop::IterationLimit: return "iteration limit";
    case Stop::Breakdown: return "breakdown";
    case Stop::Diverged: return "diverged";
  }
  return "?";
}

struct SolverResult {
  // The true residual, recomputed in the solve's precision, reached the tolerance.
  bool converged = false;
  Stop stop = Stop::IterationLimit;
  int iterations = 0;
  // ||b - M x|| / ||b|| of the returned x, recomputed from scratch in the solve's precision.
  double relative_residual = 0;
  // The iterated (sloppy) ||r|| / ||b|| before the first iteration and after each one.
  std::vector<double> history;
  // Every reliable update: after which iteration, and the true residual it found.
  std::vector<TrueResidual> reliable_updates;
  // Empty, or why the solve stopped early (stop is Breakdown or Diverged), with its cause: a zero
  // denominator, a stalled true residual, a NaN or Inf residual, a residual grown far past its lowest.
  std::string breakdown;
  // Wall time spent allocating the solver's own vectors, part of the solve's: fresh memory is page
  // faults on its first touch (on a CPU with huge pages, their compaction too) or a device
  // allocation. QUDA reports it apart (its preamble); so does `dslash solve`.
  double setup_seconds = 0;
};

// Whether the residual of x recomputed with the reference operator in double confirms a solve that
// its solver calls converged: within 100x the tolerance (a single-precision solve: or 1e-4, its
// rounding). Far past it the solver's operator is not M, and x is a wrong answer: a kernel given its
// halo that leaves out the halo's hops still "converges", to an x with a reference residual of 1e-1.
inline bool reference_confirms(double reference_residual, double tolerance, bool single_precision) {
  return reference_residual <= std::max(100 * tolerance, single_precision ? 1e-4 : 0.0);
}

// Runs allocate() (a solver's allocations, and their first touch) and adds its wall time, to the
// end of any device work it started, to result.setup_seconds.
template <class Space, class Allocate>
void timed_setup(SolverResult& result, const Allocate& allocate) {
  const auto start = std::chrono::steady_clock::now();
  allocate();
  Space::execution_space::fence();
  result.setup_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The checks every solver starts with: std::invalid_argument naming the solver for a tolerance,
// iteration limit or reliable-update factor that makes no sense, and for a zero source the exact
// answer x = 0 (no iteration).
inline void check_solver_params(const char* solver, const SolverParams& params) {
  if (!(params.tolerance > 0)) throw std::invalid_argument(std::string(solver) + ": tolerance must be positive");
  if (params.max_iterations < 0) throw std::invalid_argument(std::string(solver) + ": max_iterations must be >= 0");
  if (!(params.reliable_delta > 0 && params.reliable_delta < 1))
    throw std::invalid_argument(std::string(solver) + ": reliable_delta must be in (0, 1)");
}
// The result of a zero source: x = 0 exactly, converged without an iteration.
inline SolverResult zero_source_result() {
  SolverResult zero;
  zero.converged = true;
  zero.stop = Stop::Converged;
  zero.history.push_back(0);
  return zero;
}
template <class Vector>
std::optional<SolverResult> solve_trivially(const char* solver, const SolverParams& params, double b_norm, const Vector& x) {
  check_solver_params(solver, params);
  if (b_norm != 0) return std::nullopt;
  deep_copy(x, typename Vector::value_type(0));
  return zero_source_result();
}

}  // namespace dslash
