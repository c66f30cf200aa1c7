#pragma once
// CGNR: conjugate gradients on the normal equations M_ee_hat^dagger M_ee_hat x = M_ee_hat^dagger b of
// the even-odd Wilson system, in double precision. Written in the CGLS form, which carries the
// residual r = b - M_ee_hat x itself (not only the normal one), so the stopping rule is on the
// system's own relative residual ||r|| / ||b||.
#include <vector>

#include "solvers/wilson_operator.hpp"

namespace dslash {

struct CgParams {
  double tolerance = 1e-10;  // stop when ||b - M x|| / ||b|| <= tolerance
  int max_iterations = 1000;
};

struct CgResult {
  bool converged = false;  // the recurrence's residual reached the tolerance
  int iterations = 0;
  // ||b - M x|| / ||b|| of the returned x, recomputed from scratch (not the recurrence's).
  double relative_residual = 0;
  // The recurrence's ||r|| / ||b|| before the first iteration and after each one.
  std::vector<double> history;
};

// Solves M_ee_hat x = b on even packed buffers, starting from the x given (zero it for a cold start).
// Not converging within max_iterations is reported in the result, not thrown.
CgResult cgnr(const EvenOddWilson<double>& op, const EvenOddWilson<double>::vector_type& b,
              const EvenOddWilson<double>::vector_type& x, const CgParams& params = {});

}  // namespace dslash
