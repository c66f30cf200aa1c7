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
    typename EvenOddWilson<Sloppy, Space>::vector_type s, p, q;
    timed_setup<Space>(result, [&] {
      s = sloppy.allocate("cg_s");
      p = sloppy.allocate("cg_p");
      q = sloppy.allocate("cg_q");
    });
    // Each norm comes from the pass that writes its vector, and x_s += alpha p waits for the pass
    // that updates p (blas.hpp): besides its four hops an iteration makes 8 passes over the vectors,
    // and the hops' epilogues read 2 more (14 passes where a kernel cannot fuse M's last one, 18
    // unfused; DESIGN.md, "The epilogue in the kernel").
    double gamma = sloppy.apply_norm2(r, s, true);  // s = M^dagger r, the normal equations' residual
    deep_copy(p, s);
    while (updates.may_iterate()) {
      if (gamma == 0) {  // only for a singular M: r != 0 with M^dagger r = 0
        result.breakdown = "M^dagger r is zero";
        break;
      }
      const auto a = static_cast<Sloppy>(gamma / sloppy.apply_norm2(p, q));  // q = M p
      const double rr = sloppy.global_sum(axpby_norm2(-a, q, Sloppy(1), r));  // r -= alpha q
      // An update folds x_s into x now, so it needs this step's share first.
      const bool x_deferred = !updates.update_due(rr);
      if (!x_deferred) axpy(a, p, x_s);
      const reliable::Step step = updates.after_iteration(rr);  // may replace r by the recomputed residual
      if (updates.done()) {
        if (x_deferred) axpy(a, p, x_s);
        break;
      }
      const double gamma_next = sloppy.apply_norm2(r, s, true);
      const auto beta = static_cast<Sloppy>(step == reliable::Step::Restarted ? 0 : gamma_next / gamma);
      if (x_deferred) axpy_xpay(a, p, x_s, s, beta);  // x_s += alpha p, p = s + beta p
      else xpay(s, beta, p);
      gamma = gamma_next;
    }
  }
  updates.finish();
  return result;
}

}  // namespace dslash
