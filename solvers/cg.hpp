#pragma once
// CGNR: conjugate gradients on the normal equations M_ee_hat^dagger M_ee_hat x = M_ee_hat^dagger b of
// the even-odd Wilson system, in double precision. Written in the CGLS form, which carries the
// residual r = b - M_ee_hat x itself (not only the normal one), so the stopping rule is on the
// system's own relative residual ||r|| / ||b||.
#include "solvers/solver_result.hpp"
#include "solvers/wilson_operator.hpp"

namespace dslash {

// Solves M_ee_hat x = b on even packed buffers, starting from the x given (zero it for a cold start),
// in the operator's precision (norms and coefficients in double). Not converging within
// max_iterations is reported in the result, not thrown.
template <class Real>
SolverResult cgnr(const EvenOddWilson<Real>& op, const typename EvenOddWilson<Real>::vector_type& b,
                  const typename EvenOddWilson<Real>::vector_type& x, const SolverParams& params = {});

// Mixed precision by defect correction: CGNR in single precision (`inner`, the same operator in
// float) solves for a correction to inner_tolerance of the current residual; the correction is added
// to x in double and the true residual b - M x recomputed in double, until it meets params.tolerance.
// So the answer meets a double-precision tolerance that single precision alone cannot reach.
// `iterations` counts the inner iterations; `history` holds the true residual after each correction.
// A correction that stops reducing the residual ends the solve, with `breakdown` saying so.
SolverResult mixed_cgnr(const EvenOddWilson<double>& op, const EvenOddWilson<float>& inner, const EvenOddWilson<double>::vector_type& b,
                        const EvenOddWilson<double>::vector_type& x, const SolverParams& params = {}, double inner_tolerance = 1e-5);

}  // namespace dslash
