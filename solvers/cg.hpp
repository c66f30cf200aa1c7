#pragma once
// CGNR: conjugate gradients on the normal equations M_ee_hat^dagger M_ee_hat x = M_ee_hat^dagger b of
// the even-odd Wilson system, in double precision. Written in the CGLS form, which carries the
// residual r = b - M_ee_hat x itself (not only the normal one), so the stopping rule is on the
// system's own relative residual ||r|| / ||b||.
#include "solvers/solver_result.hpp"
#include "solvers/wilson_operator.hpp"

namespace dslash {

// Solves M_ee_hat x = b on even packed buffers, starting from the x given (zero it for a cold start).
// Not converging within max_iterations is reported in the result, not thrown.
SolverResult cgnr(const EvenOddWilson<double>& op, const EvenOddWilson<double>::vector_type& b,
                  const EvenOddWilson<double>::vector_type& x, const SolverParams& params = {});

}  // namespace dslash
