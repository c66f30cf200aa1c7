#pragma once
// BiCGStab (van der Vorst) on M_ee_hat itself, in double precision: no normal equations, so about
// half of CGNR's operator applications per iteration of convergence on a well-conditioned system.
#include "solvers/solver_result.hpp"
#include "solvers/wilson_operator.hpp"

namespace dslash {

// Solves M_ee_hat x = b on even packed buffers, starting from the x given (zero it for a cold start).
// Not converging within max_iterations, or a breakdown (a zero denominator), is reported in the
// result, not thrown.
SolverResult bicgstab(const EvenOddWilson<double>& op, const EvenOddWilson<double>::vector_type& b,
                      const EvenOddWilson<double>::vector_type& x, const SolverParams& params = {});

}  // namespace dslash
