#pragma once
// BiCGStab's definition (solvers/bicgstab.hpp), instantiated per memory space by solvers/instantiate.hpp.
#include "solvers/bicgstab.hpp"

#include "solvers/reliable_update.hpp"

namespace dslash {

template <class Real, class Sloppy, class Space>
SolverResult bicgstab(const EvenOddWilson<Real, Space>& op, const EvenOddWilson<Sloppy, Space>& sloppy, const typename EvenOddWilson<Real, Space>::vector_type& b,
                      const typename EvenOddWilson<Real, Space>::vector_type& x, const SolverParams& params) {
  using C = std::complex<double>;
  SolverResult result;
  reliable::Updater<Real, Sloppy, Space> updates("bicgstab", op, sloppy, b, x, params, result);
  if (!updates.done()) {
    const PackedComplex layout = sloppy.complex_layout();
    const auto& r = updates.r_sloppy();  // also s = r - alpha v within an iteration
    const auto& x_s = updates.x_sloppy();
    const auto r0 = sloppy.allocate("bicgstab_r0"), p = sloppy.allocate("bicgstab_p"), v = sloppy.allocate("bicgstab_v"),
               t = sloppy.allocate("bicgstab_t");
    C rho, alpha, omega;
    const auto start = [&] {
      deep_copy(r0, r);  // the shadow residual
      fill(p, Sloppy(0));
      fill(v, Sloppy(0));
      rho = alpha = omega = 1;
    };
    start();
    while (updates.may_iterate()) {
      const C rho_next = sloppy.dot(r0, r);
      if (std::abs(rho_next) == 0 || std::abs(omega) == 0) {
        result.breakdown = "rho or omega is zero";
        break;
      }
      const C beta = rho_next / rho * (alpha / omega);
      rho = rho_next;
      caxpby(layout, -omega, v, C(1), p);  // p = r + beta (p - omega v)
      caxpby(layout, C(1), r, beta, p);
      sloppy.apply(p, v);
      const C r0v = sloppy.dot(r0, v);
      if (std::abs(r0v) == 0) {
        result.breakdown = "<r0, M p> is zero";
        break;
      }
      alpha = rho / r0v;
      caxpby(layout, -alpha, v, C(1), r);  // s = r - alpha v, in r
      sloppy.apply(r, t);
      const double tt = sloppy.norm2(t);
      omega = tt == 0 ? C(0) : sloppy.dot(t, r) / tt;
      caxpby(layout, alpha, p, C(1), x_s);  // x_s += alpha p + omega s
      caxpby(layout, omega, r, C(1), x_s);
      caxpby(layout, -omega, t, C(1), r);  // r = s - omega t
      if (updates.after_iteration(sloppy.norm2(r)) == reliable::Step::Restarted) start();
    }
  }
  updates.finish();
  return result;
}

}  // namespace dslash
