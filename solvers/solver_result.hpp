#pragma once
// What every solver of solvers/ takes and reports.
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "dslash/core/view.hpp"

namespace dslash {

struct SolverParams {
  double tolerance = 1e-10;  // stop when ||b - M x|| / ||b|| <= tolerance
  int max_iterations = 1000;
};

struct SolverResult {
  // The recurrence's residual reached the tolerance. In single precision the recurrence drifts from
  // the true residual (relative_residual): check that one (mixed_cgnr's is the true one).
  bool converged = false;
  int iterations = 0;
  // ||b - M x|| / ||b|| of the returned x, recomputed from scratch (not the recurrence's).
  double relative_residual = 0;
  // The recurrence's ||r|| / ||b|| before the first iteration and after each one.
  std::vector<double> history;
  std::string breakdown;  // empty, or why the method could not go on (BiCGStab: a zero denominator)
};

// The checks every solver starts with: std::invalid_argument naming the solver for a tolerance or
// iteration limit that makes no sense, and for a zero source the exact answer x = 0 (no iteration).
template <class Vector>
std::optional<SolverResult> solve_trivially(const char* solver, const SolverParams& params, double b_norm, const Vector& x) {
  if (!(params.tolerance > 0)) throw std::invalid_argument(std::string(solver) + ": tolerance must be positive");
  if (params.max_iterations < 0) throw std::invalid_argument(std::string(solver) + ": max_iterations must be >= 0");
  if (b_norm != 0) return std::nullopt;
  deep_copy(x, typename Vector::value_type(0));
  SolverResult zero;
  zero.converged = true;
  zero.history.push_back(0);
  return zero;
}

}  // namespace dslash
