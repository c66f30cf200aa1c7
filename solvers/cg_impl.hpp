#pragma once
// CGNR's definition (solvers/cg.hpp), instantiated per memory space by solvers/instantiate.hpp.
#include "solvers/cg.hpp"

#include "solvers/reliable_update.hpp"

namespace dslash {

template <class Real, class Sloppy, class Space>
SolverResult cgnr(const EvenOddWilson<Real, Space>& op, const EvenOddWilson<Sloppy, Space>& sloppy, const typename EvenOddWilson<Real, Space>::vector_type& b,
                  const typename EvenOddWilson<Real, Space>::vector_type& x, const SolverParams& params) {
  SolverResult result;
  reliable::Updater<Real, Sloppy, Space> updates("cgnr", op, sloppy, b, x, params, result);
  if (!updates.done()) {
    const auto& r = updates.r_sloppy();
    const auto& x_s = updates.x_sloppy();
    const auto s = sloppy.allocate("cg_s"), p = sloppy.allocate("cg_p"), q = sloppy.allocate("cg_q");
    // Each norm comes from the pass that writes its vector (blas.hpp): an iteration makes 15 passes
    // over the vectors besides its four hops, not 18.
    double gamma = sloppy.apply_norm2(r, s, true);  // s = M^dagger r, the normal equations' residual
    deep_copy(p, s);
    while (updates.may_iterate()) {
      if (gamma == 0) {  // only for a singular M: r != 0 with M^dagger r = 0
        result.breakdown = "M^dagger r is zero";
        break;
      }
      const double alpha = gamma / sloppy.apply_norm2(p, q);  // q = M p
      // x_s += alpha p, r -= alpha q
      const double rr = sloppy.global_sum(axpy_axpy_norm2(static_cast<Sloppy>(alpha), p, x_s, static_cast<Sloppy>(-alpha), q, r));
      const reliable::Step step = updates.after_iteration(rr);  // may replace r by the recomputed residual
      if (updates.done()) break;
      const double gamma_next = sloppy.apply_norm2(r, s, true);
      xpay(s, static_cast<Sloppy>(step == reliable::Step::Restarted ? 0 : gamma_next / gamma), p);
      gamma = gamma_next;
    }
  }
  updates.finish();
  return result;
}

}  // namespace dslash
