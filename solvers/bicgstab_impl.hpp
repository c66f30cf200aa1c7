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
    typename EvenOddWilson<Sloppy, Space>::vector_type r0, p, v, t;
    timed_setup<Space>(result, [&] {
      r0 = sloppy.allocate("bicgstab_r0");
      p = sloppy.allocate("bicgstab_p");
      v = sloppy.allocate("bicgstab_v");
      t = sloppy.allocate("bicgstab_t");
    });
    C rho, alpha, omega, rho_next;
    const auto start = [&] {
      deep_copy(r0, r);  // the shadow residual
      fill(p, Sloppy(0));
      fill(v, Sloppy(0));
      rho = alpha = omega = 1;
    };
    start();
    // Each inner product comes from the pass that writes one of its vectors (blas.hpp): an iteration
    // makes 21 passes over the vectors besides its four hops, not 32
    // (the solution's and residual's updates share one: QUDA's caxpbypzYmbw).
    rho_next = sloppy.dot(r0, r);
    while (updates.may_iterate()) {
      if (std::abs(rho_next) == 0 || std::abs(omega) == 0) {
        result.breakdown = "rho or omega is zero";
        break;
      }
      const C beta = rho_next / rho * (alpha / omega);
      rho = rho_next;
      caxpbypcz(layout, C(1), r, -beta * omega, v, beta, p);  // p = r + beta (p - omega v)
      const C r0v = sloppy.apply_norm2_dot(p, v, r0).dot;  // v = M p
      if (std::abs(r0v) == 0) {
        result.breakdown = "<r0, M p> is zero";
        break;
      }
      alpha = rho / r0v;
      caxpby(layout, -alpha, v, C(1), r);  // s = r - alpha v, in r
      const NormDot t_s = sloppy.apply_norm2_dot(r, t, r);  // t = M s, ||t||^2, <s, t>
      omega = t_s.norm2 == 0 ? C(0) : std::conj(t_s.dot) / t_s.norm2;  // <t, s> / ||t||^2
      // x_s += alpha p + omega s, r = s - omega t, with ||r||^2 and <r0, r>
      const NormDot r_r0 = sloppy.global_sum(update_solution_and_residual(layout, alpha, p, omega, t, r, x_s, r0));
      const reliable::Step step = updates.after_iteration(r_r0.norm2);  // may replace r by the recomputed residual
      if (updates.done()) break;
      if (step == reliable::Step::Restarted) start();
      rho_next = step == reliable::Step::Iterated ? r_r0.dot : sloppy.dot(r0, r);
    }
  }
  updates.finish();
  return result;
}

}  // namespace dslash
