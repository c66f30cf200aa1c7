#pragma once
// Block CGNR's definition (solvers/block_cg.hpp), instantiated per memory space by solvers/instantiate.hpp.
#include "solvers/block_cg.hpp"

#include <utility>

#include "solvers/block_update.hpp"

namespace dslash {

template <class Real, class Sloppy, class Space>
BlockSolverResult block_cgnr(const EvenOddWilson<Real, Space>& op, const EvenOddWilson<Sloppy, Space>& sloppy,
                             const typename EvenOddWilson<Real, Space>::vector_type& b, const typename EvenOddWilson<Real, Space>::vector_type& x,
                             const SolverParams& params) {
  using Updater = block::Updater<Real, Sloppy, Space>;
  // gamma = ||M^dagger r||^2 of this step and the next, alternating; alpha and beta are made from the
  // sums on the device, by the pass that takes the last of their sums.
  enum : int { kGammaA = Updater::kSets, kGammaB, kMp, kR, kAlpha, kBeta, kEnd };
  constexpr int kIterating = Updater::kIterating, kRestart = Updater::kRestart;
  BlockSolverResult out;
  Updater u("block cgnr", op, sloppy, b, x, params, out, kEnd - Updater::kSets);
  if (u.any_active()) {
    const RhsPasses<Space>& lo = u.passes();
    const RhsSums<Space>& sums = u.sums();
    const RhsValues v = sums.values();
    const auto& r = u.r_sloppy();
    const auto& x_s = u.x_sloppy();
    typename EvenOddWilson<Sloppy, Space>::vector_type s, p;
    SolverResult setup;
    timed_setup<Space>(setup, [&] {
      s = sloppy.allocate("block_cg_s_q");
      p = sloppy.allocate("block_cg_p");
    });
    // q = M p is spent on r before s = M^dagger r is made, and s on p before the next q: one buffer.
    const auto& q = s;
    out.setup_seconds += setup.setup_seconds;
    int gamma = kGammaA, gamma_next = kGammaB;
    sloppy.apply(r, s, true);  // s = M^dagger r
    lo.norm2(s, sums, gamma);
    deep_copy(p, s);
    // The host waits once an iteration, for ||r||^2 (the stop and the updates); the other sums are
    // in by then.
    while (true) {
      sloppy.apply(p, q);  // q = M p
      const int g = gamma;
      lo.norm2(q, sums, kMp, DSLASH_LAMBDA(int k) {  // alpha = gamma / ||M p||^2 where iterating, else 0
        const double mp = v(kMp, k);
        v.put(kAlpha, k, v(kIterating, k) != 0 && mp != 0 ? v(g, k) / mp : 0.0);
      });
      const Sloppy* pp = p.data();
      const Sloppy* qp = q.data();
      Sloppy* xp = x_s.data();
      Sloppy* rp = r.data();
      lo.template each<1>("block_cg_update", DSLASH_LAMBDA(index_t re, index_t im, int k, double* acc) {  // x_s += alpha p, r -= alpha q
        const Sloppy a = static_cast<Sloppy>(v(kAlpha, k));
        xp[re] += a * pp[re];
        xp[im] += a * pp[im];
        const Sloppy r_re = rp[re] - a * qp[re], r_im = rp[im] - a * qp[im];
        rp[re] = r_re;
        rp[im] = r_im;
        acc[0] += static_cast<double>(r_re) * r_re + static_cast<double>(r_im) * r_im;
      }, &sums, kR);
      const std::vector<double> rr = sums.read(kR);
      // Only for a singular M: r != 0 with M^dagger r = 0, or p != 0 with M p = 0 (alpha was 0).
      const std::vector<double> gs = sums.read_without_wait(gamma), mp = sums.read_without_wait(kMp);
      for (std::size_t k = 0; k < static_cast<std::size_t>(u.rhs()); ++k)
        if (u.active(k) && (gs[k] == 0 || mp[k] == 0)) u.freeze(k, gs[k] == 0 ? "M^dagger r is zero" : "M p is zero");
      u.after_iteration(rr);
      if (!u.any_active()) break;
      sloppy.apply(r, s, true);
      const int g_old = gamma, g_new = gamma_next;
      lo.norm2(s, sums, g_new, DSLASH_LAMBDA(int k) {  // beta = gamma_next / gamma, 0 where frozen or restarting
        const double old = v(g_old, k);
        v.put(kBeta, k, v(kIterating, k) != 0 && v(kRestart, k) == 0 && old != 0 ? v(g_new, k) / old : 0.0);
      });
      lo.axpby({1}, s, {1, sums.on_device(kBeta)}, p);  // p = s + beta p
      std::swap(gamma, gamma_next);
    }
  }
  u.finish();
  return out;
}

}  // namespace dslash
