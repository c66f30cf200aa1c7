#pragma once
// CGNR's definition (solvers/cg.hpp), instantiated per memory space by solvers/instantiate.hpp.
#include "solvers/cg.hpp"

#include <utility>

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
    typename EvenOddWilson<Sloppy, Space>::vector_type s, p;
    enum : int { kGammaA, kGammaB, kMp, kR };  // gamma = ||M^dagger r||^2 of this step and the next, alternating
    DeviceSums<Space> sums;
    timed_setup<Space>(result, [&] {
      s = sloppy.allocate("cg_s_q");
      p = sloppy.allocate("cg_p");
      sums = DeviceSums<Space>(4);
    });
    // q = M p is spent on r before s = M^dagger r is made, and s on p before the next q: one buffer.
    const auto& q = s;
    // Each norm comes from the pass that writes its vector, and x_s += alpha p waits for the pass
    // that updates p (blas.hpp): besides its four hops an iteration makes 8 passes over the vectors,
    // and the hops' epilogues read 2 more (14 passes where a kernel cannot fuse M's last one, 18
    // unfused; docs/DESIGN.md, "The kernels", the epilogue).
    // The sums stay where the passes run (solvers/device_sums.hpp): alpha = gamma / ||M p||^2 and
    // beta = gamma_next / gamma are read by the passes that use them, and the host waits once an
    // iteration, for ||r||^2, which decides the stop and the reliable updates.
    int gamma = kGammaA, gamma_next = kGammaB;
    sloppy.apply_norm2(r, s, true, sums, gamma);  // s = M^dagger r, the normal equations' residual
    deep_copy(p, s);
    while (updates.may_iterate()) {
      sloppy.apply_norm2(p, q, false, sums, kMp);  // q = M p
      const DeviceRatio<Sloppy> alpha{1, sums.on_device(gamma), sums.on_device(kMp)};
      sloppy.axpby_norm2(DeviceRatio<Sloppy>{-1, alpha.num, alpha.den}, q, Sloppy(1), r, sums, kR);  // r -= alpha q
      const double rr = sums.read(kR);  // the iteration's one wait; the other sums are in by then
      // Only for a singular M: r != 0 with M^dagger r = 0, or p != 0 with M p = 0 (alpha then read
      // as zero, and r is unchanged).
      if (const double g = sums.read_without_wait(gamma), mp = sums.read_without_wait(kMp); g == 0 || mp == 0) {
        result.breakdown = g == 0 ? "M^dagger r is zero" : "M p is zero";
        break;
      }
      // An update folds this step's share of x_s, alpha p, into x with x_s (and may replace r by the
      // recomputed residual); else the next direction's pass adds it.
      const reliable::Step step = updates.after_iteration(rr, {alpha, &p});
      const bool x_deferred = step == reliable::Step::Iterated;
      if (updates.done()) {
        if (x_deferred) axpy(alpha, p, x_s);
        break;
      }
      sloppy.apply_norm2(r, s, true, sums, gamma_next);
      const auto next_direction = [&](auto beta) {
        if (x_deferred) axpy_xpay(alpha, p, x_s, s, beta);  // x_s += alpha p, p = s + beta p
        else xpay(s, beta, p);
      };
      if (step == reliable::Step::Restarted) next_direction(Sloppy(0));
      else next_direction(DeviceRatio<Sloppy>{1, sums.on_device(gamma_next), sums.on_device(gamma)});
      std::swap(gamma, gamma_next);
    }
  }
  updates.finish();
  return result;
}

}  // namespace dslash
