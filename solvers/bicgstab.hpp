#pragma once
// BiCGStab (van der Vorst) on M_ee_hat itself: no normal equations, so about half of CGNR's operator
// applications per iteration of convergence on a well-conditioned system. The stopping rule is the
// true residual, recomputed in the precise precision by reliable updates (solvers/reliable_update.hpp).
#include "solvers/solver_result.hpp"
#include "solvers/wilson_operator.hpp"

namespace dslash {

// Solves M_ee_hat x = b on even packed buffers of `op`, starting from the x given (zero it for a cold
// start), iterating on `sloppy` (the same operator in precision Sloppy: float under a double `op` is
// mixed precision). Not converging within max_iterations, or a breakdown (a zero denominator, a
// stalled true residual), is reported in the result, not thrown.
template <class Real, class Sloppy, class Space>
SolverResult bicgstab(const EvenOddWilson<Real, Space>& op, const EvenOddWilson<Sloppy, Space>& sloppy, const typename EvenOddWilson<Real, Space>::vector_type& b,
                      const typename EvenOddWilson<Real, Space>::vector_type& x, const SolverParams& params = {});

// One precision throughout.
template <class Real, class Space>
SolverResult bicgstab(const EvenOddWilson<Real, Space>& op, const typename EvenOddWilson<Real, Space>::vector_type& b,
                      const typename EvenOddWilson<Real, Space>::vector_type& x, const SolverParams& params = {}) {
  return bicgstab(op, op, b, x, params);
}

}  // namespace dslash
