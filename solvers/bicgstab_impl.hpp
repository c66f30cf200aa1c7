#pragma once
// BiCGStab's definition (solvers/bicgstab.hpp), instantiated per memory space by solvers/instantiate.hpp.
#include "solvers/bicgstab.hpp"

#include <utility>

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
    typename EvenOddWilson<Sloppy, Space>::vector_type r0, p, v, t, p_next;
    timed_setup<Space>(result, [&] {
      r0 = sloppy.allocate("bicgstab_r0");
      p = sloppy.allocate("bicgstab_p");
      v = sloppy.allocate("bicgstab_v");
      t = sloppy.allocate("bicgstab_t");
      p_next = sloppy.allocate("bicgstab_p_next");
    });
    C rho;
    const auto start = [&] {  // from the residual r: the shadow residual r0 = r, and p = r
      deep_copy(r0, r);
      deep_copy(p, r);
      rho = sloppy.dot(r0, r);
    };
    start();
    // Every inner product comes from the pass that writes one of its vectors, and the next direction
    // from the pass that updates x and r (blas.hpp, bicgstab_update): besides its four hops an
    // iteration makes 15 passes over the vectors, 4 of them in the hops' epilogues, where the
    // textbook order makes 32 (QUDA's fused passes: 17).
    while (updates.may_iterate()) {
      if (std::abs(rho) == 0) {
        result.breakdown = "rho or omega is zero";
        break;
      }
      const C r0v = sloppy.apply_norm2_dot(p, v, r0).dot;  // v = M p
      if (std::abs(r0v) == 0) {
        result.breakdown = "<r0, M p> is zero";
        break;
      }
      const C alpha = rho / r0v;
      caxpby(layout, -alpha, v, C(1), r);  // s = r - alpha v, in r
      const NormDot t_sums = sloppy.apply_norm2_dot(r, t, r, r0);  // t = M s, ||t||^2, <s, t>, <r0, t>
      const C omega = t_sums.norm2 == 0 ? C(0) : std::conj(t_sums.dot) / t_sums.norm2;  // <t, s> / ||t||^2
      // alpha makes <r0, s> = rho - alpha <r0, v> zero, so the next rho = <r0, s - omega t> is
      // -omega <r0, t>: known before the pass that makes r, which can then make the next p as well.
      const C rho_next = -omega * t_sums.dot2;
      const C beta = std::abs(omega) == 0 ? C(0) : rho_next / rho * (alpha / omega);
      // x_s += alpha p + omega s, r = s - omega t, p_next = r + beta (p - omega v), and ||r||^2
      const double rr = sloppy.global_sum(bicgstab_update(layout, alpha, p, omega, t, v, beta, r, x_s, p_next));
      const reliable::Step step = updates.after_iteration(rr);  // may replace r by the recomputed residual
      if (updates.done()) break;
      if (std::abs(omega) == 0) {
        result.breakdown = "rho or omega is zero";
        break;
      }
      if (step == reliable::Step::Iterated) {
        std::swap(p, p_next);
        rho = rho_next;
      } else if (step == reliable::Step::Updated) {
        // r is now the recomputed residual: the direction from it, with its own rho, as the textbook
        // order would make it (p and v are those of this iteration still).
        const C rho_true = sloppy.dot(r0, r);
        const C beta_true = rho_true / rho * (alpha / omega);
        caxpbypcz(layout, C(1), r, -beta_true * omega, v, beta_true, p);  // p = r + beta (p - omega v)
        rho = rho_true;
      } else {
        start();
      }
    }
  }
  updates.finish();
  return result;
}

}  // namespace dslash
