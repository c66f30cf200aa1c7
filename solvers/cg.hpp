#pragma once
// CGNR: conjugate gradients on the normal equations M_ee_hat^dagger M_ee_hat x = M_ee_hat^dagger b of
// the even-odd Wilson system. Written in the CGLS form, which carries the residual r = b - M_ee_hat x
// itself (not only the normal one), so the stopping rule is on the system's own relative residual
// ||r|| / ||b||, recomputed in the precise precision by reliable updates (solvers/reliable_update.hpp).
#include "solvers/solver_result.hpp"
#include "solvers/wilson_operator.hpp"

namespace dslash {

// Solves M_ee_hat x = b on even packed buffers of `op`, starting from the x given (zero it for a cold
// start). The iterations run on `sloppy`, the same operator in precision Sloppy (float under a
// double `op`: mixed precision); x and the true residual are kept in Real. Norms and coefficients
// are in double. Not converging within max_iterations is reported in the result, not thrown.
template <class Real, class Sloppy, class Space>
SolverResult cgnr(const EvenOddWilson<Real, Space>& op, const EvenOddWilson<Sloppy, Space>& sloppy, const typename EvenOddWilson<Real, Space>::vector_type& b,
                  const typename EvenOddWilson<Real, Space>::vector_type& x, const SolverParams& params = {});

// One precision throughout.
template <class Real, class Space>
SolverResult cgnr(const EvenOddWilson<Real, Space>& op, const typename EvenOddWilson<Real, Space>::vector_type& b,
                  const typename EvenOddWilson<Real, Space>::vector_type& x, const SolverParams& params = {}) {
  return cgnr(op, op, b, x, params);
}

}  // namespace dslash
