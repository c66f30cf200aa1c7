#pragma once
// What every solver of solvers/ takes and reports.
#include <string>
#include <vector>

namespace dslash {

struct SolverParams {
  double tolerance = 1e-10;  // stop when ||b - M x|| / ||b|| <= tolerance
  int max_iterations = 1000;
};

struct SolverResult {
  bool converged = false;  // the recurrence's residual reached the tolerance
  int iterations = 0;
  // ||b - M x|| / ||b|| of the returned x, recomputed from scratch (not the recurrence's).
  double relative_residual = 0;
  // The recurrence's ||r|| / ||b|| before the first iteration and after each one.
  std::vector<double> history;
  std::string breakdown;  // empty, or why the method could not go on (BiCGStab: a zero denominator)
};

}  // namespace dslash
