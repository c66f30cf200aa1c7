#include "solvers/cg.hpp"

#include <cmath>
#include <stdexcept>

namespace dslash {

namespace {

// r = b - M x, into r (scratch: a buffer for M x).
void residual(const EvenOddWilson<double>& op, const EvenOddWilson<double>::vector_type& b,
              const EvenOddWilson<double>::vector_type& x, const EvenOddWilson<double>::vector_type& r) {
  op.apply(x, r);
  xpay(b, -1.0, r);
}

}  // namespace

SolverResult cgnr(const EvenOddWilson<double>& op, const EvenOddWilson<double>::vector_type& b,
              const EvenOddWilson<double>::vector_type& x, const SolverParams& params) {
  const double b_norm = std::sqrt(norm2(b));
  if (auto trivial = solve_trivially("cgnr", params, b_norm, x)) return *trivial;
  SolverResult result;
  const auto r = op.allocate("cg_r"), s = op.allocate("cg_s"), p = op.allocate("cg_p"), q = op.allocate("cg_q");
  residual(op, b, x, r);
  op.apply(r, s, true);  // s = M^dagger r, the normal equations' residual
  deep_copy(p, s);
  double gamma = norm2(s);
  double r_rel = std::sqrt(norm2(r)) / b_norm;
  result.history.push_back(r_rel);
  while (r_rel > params.tolerance && result.iterations < params.max_iterations) {
    op.apply(p, q);
    const double alpha = gamma / norm2(q);
    axpy(alpha, p, x);
    axpy(-alpha, q, r);
    op.apply(r, s, true);
    const double gamma_next = norm2(s);
    xpay(s, gamma_next / gamma, p);
    gamma = gamma_next;
    r_rel = std::sqrt(norm2(r)) / b_norm;
    ++result.iterations;
    result.history.push_back(r_rel);
  }
  residual(op, b, x, r);
  result.relative_residual = std::sqrt(norm2(r)) / b_norm;
  result.converged = r_rel <= params.tolerance;
  return result;
}

}  // namespace dslash
