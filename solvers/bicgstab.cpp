#include "solvers/bicgstab.hpp"

#include <cmath>
#include <stdexcept>

namespace dslash {

SolverResult bicgstab(const EvenOddWilson<double>& op, const EvenOddWilson<double>::vector_type& b,
                      const EvenOddWilson<double>::vector_type& x, const SolverParams& params) {
  using C = std::complex<double>;
  const PackedComplex layout = op.complex_layout();
  const double b_norm = std::sqrt(norm2(b));
  if (auto trivial = solve_trivially("bicgstab", params, b_norm, x)) return *trivial;
  SolverResult result;
  const auto r = op.allocate("bicgstab_r"), r0 = op.allocate("bicgstab_r0"), p = op.allocate("bicgstab_p"), v = op.allocate("bicgstab_v"),
             s = op.allocate("bicgstab_s"), t = op.allocate("bicgstab_t");
  op.residual(b, x, r);
  deep_copy(r0, r);  // the shadow residual
  deep_copy(p, 0.0);
  deep_copy(v, 0.0);
  C rho = 1, alpha = 1, omega = 1;
  double r_rel = std::sqrt(norm2(r)) / b_norm;
  result.history.push_back(r_rel);
  while (r_rel > params.tolerance && result.iterations < params.max_iterations) {
    const C rho_next = dot(layout, r0, r);
    if (std::abs(rho_next) == 0 || std::abs(omega) == 0) {
      result.breakdown = "rho or omega is zero";
      break;
    }
    const C beta = rho_next / rho * (alpha / omega);
    rho = rho_next;
    caxpby(layout, -omega, v, C(1), p);  // p = r + beta (p - omega v)
    caxpby(layout, C(1), r, beta, p);
    op.apply(p, v);
    const C r0v = dot(layout, r0, v);
    if (std::abs(r0v) == 0) {
      result.breakdown = "<r0, M p> is zero";
      break;
    }
    alpha = rho / r0v;
    deep_copy(s, r);
    caxpby(layout, -alpha, v, C(1), s);  // s = r - alpha v
    op.apply(s, t);
    const double tt = norm2(t);
    omega = tt == 0 ? C(0) : dot(layout, t, s) / tt;
    caxpby(layout, alpha, p, C(1), x);  // x += alpha p + omega s
    caxpby(layout, omega, s, C(1), x);
    deep_copy(r, s);
    caxpby(layout, -omega, t, C(1), r);  // r = s - omega t
    r_rel = std::sqrt(norm2(r)) / b_norm;
    ++result.iterations;
    result.history.push_back(r_rel);
  }
  op.residual(b, x, r);
  result.relative_residual = std::sqrt(norm2(r)) / b_norm;
  result.converged = r_rel <= params.tolerance;
  return result;
}

}  // namespace dslash
