#pragma once
// Block BiCGStab's definition (solvers/block_bicgstab.hpp), instantiated per memory space by solvers/instantiate.hpp.
#include "solvers/block_bicgstab.hpp"

#include <utility>

#include "solvers/block_update.hpp"

namespace dslash {

namespace block_bicgstab_detail {

// A right-hand side's complex coefficient on the device: sets (set, set + 1) of the values.
struct Complex {
  double re = 0, im = 0;
};
DSLASH_INLINE_FUNCTION Complex get(const RhsValues& v, int set, int k) { return {v(set, k), v(set + 1, k)}; }
DSLASH_INLINE_FUNCTION void put(const RhsValues& v, int set, int k, Complex c) {
  v.put(set, k, c.re);
  v.put(set + 1, k, c.im);
}
DSLASH_INLINE_FUNCTION Complex mul(Complex a, Complex b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
// a / b, 0 for b = 0 (the coefficient of a broken-down right-hand side, which the host then stops);
// scaled by |b.re| + |b.im| so that a tiny b does not underflow its |b|^2.
DSLASH_INLINE_FUNCTION Complex div(Complex a, Complex b) {
  const double s = (b.re < 0 ? -b.re : b.re) + (b.im < 0 ? -b.im : b.im);
  if (s == 0) return {};
  const double br = b.re / s, bi = b.im / s, ar = a.re / s, ai = a.im / s, d = br * br + bi * bi;
  return {(ar * br + ai * bi) / d, (ai * br - ar * bi) / d};
}

}  // namespace block_bicgstab_detail

template <class Real, class Sloppy, class Space>
BlockSolverResult block_bicgstab(const EvenOddWilson<Real, Space>& op, const EvenOddWilson<Sloppy, Space>& sloppy,
                                 const typename EvenOddWilson<Real, Space>::vector_type& b, const typename EvenOddWilson<Real, Space>::vector_type& x,
                                 const SolverParams& params) {
  using Updater = block::Updater<Real, Sloppy, Space>;
  using block_bicgstab_detail::Complex;
  using block_bicgstab_detail::div;
  using block_bicgstab_detail::get;
  using block_bicgstab_detail::mul;
  using block_bicgstab_detail::put;
  // A complex value takes two sets (re, im); rho of this direction and of the next alternate. kT:
  // ||t||^2, <s, t> and <r0, t>.
  enum : int { kRhoA = Updater::kSets, kRhoB = kRhoA + 2, kR0v = kRhoB + 2, kAlpha = kR0v + 2, kT = kAlpha + 2, kOmega = kT + 5, kBeta = kOmega + 2,
               kR = kBeta + 2, kEnd };
  constexpr int kIterating = Updater::kIterating, kRestart = Updater::kRestart;
  BlockSolverResult out;
  Updater u("block bicgstab", op, sloppy, b, x, params, out, kEnd - Updater::kSets);
  if (u.any_active()) {
    const RhsPasses<Space>& lo = u.passes();
    const RhsSums<Space>& sums = u.sums();
    const RhsValues val = sums.values();
    const auto& r = u.r_sloppy();  // also s = r - alpha v within an iteration
    const auto& x_s = u.x_sloppy();
    typename EvenOddWilson<Sloppy, Space>::vector_type r0, p, v, t, p_next;
    SolverResult setup;
    timed_setup<Space>(setup, [&] {
      r0 = sloppy.allocate("block_bicgstab_r0");
      p = sloppy.allocate("block_bicgstab_p");
      v = sloppy.allocate("block_bicgstab_v");
      t = sloppy.allocate("block_bicgstab_t");
      p_next = sloppy.allocate("block_bicgstab_p_next");
    });
    out.setup_seconds += setup.setup_seconds;
    int rho = kRhoA, rho_next = kRhoB;
    // The direction from the residual r, at the start and after an update, as bicgstab's: where
    // restarting, the shadow residual r0 = r and p = r; elsewhere p = r + beta (p - omega v) with
    // beta = (rho_new / rho) (alpha / omega) of this iteration's p, v, alpha and omega. rho_new = <r0, r>.
    const auto redirect = [&] {
      Sloppy* r0p = r0.data();
      Sloppy* pp = p.data();
      const Sloppy* rp = r.data();
      const Sloppy* vp = v.data();
      const int old = rho, now = rho_next;
      lo.template each<2>("block_bicgstab_rho", DSLASH_LAMBDA(index_t re, index_t im, int k, double* acc) {
        if (val(kRestart, k) != 0) {
          r0p[re] = rp[re];
          r0p[im] = rp[im];
        }
        blas_detail::add_dot(rp[re], rp[im], r0p[re], r0p[im], acc[0], acc[1]);
      }, &sums, now, DSLASH_LAMBDA(int k) {
        Complex beta;
        if (val(kIterating, k) != 0 && val(kRestart, k) == 0) beta = mul(div(get(val, now, k), get(val, old, k)), div(get(val, kAlpha, k), get(val, kOmega, k)));
        put(val, kBeta, k, beta);
      });
      lo.template each<0>("block_bicgstab_direction", DSLASH_LAMBDA(index_t re, index_t im, int k, double*) {
        Sloppy p_re = rp[re], p_im = rp[im];
        if (val(kRestart, k) == 0) {
          const Sloppy w_re = static_cast<Sloppy>(val(kOmega, k)), w_im = static_cast<Sloppy>(val(kOmega + 1, k));
          const Sloppy b_re = static_cast<Sloppy>(val(kBeta, k)), b_im = static_cast<Sloppy>(val(kBeta + 1, k));
          p_re = pp[re];
          p_im = pp[im];
          blas_detail::caxpby_value(-w_re, -w_im, Sloppy(1), Sloppy(0), vp[re], vp[im], p_re, p_im);     // p - omega v
          blas_detail::caxpby_value(Sloppy(1), Sloppy(0), b_re, b_im, rp[re], rp[im], p_re, p_im);      // r + beta (p - omega v)
        }
        pp[re] = p_re;
        pp[im] = p_im;
      });
      std::swap(rho, rho_next);
    };
    u.restart_all();
    redirect();
    // Every coefficient is made on the device by the pass that takes the last of its sums; the host
    // waits once an iteration, for ||r||^2 (the stop and the updates).
    while (true) {
      sloppy.apply(p, v);  // v = M p
      const Sloppy* pp = p.data();
      const Sloppy* vp = v.data();
      const Sloppy* tp = t.data();
      const Sloppy* r0p = r0.data();
      Sloppy* rp = r.data();
      Sloppy* xp = x_s.data();
      Sloppy* qp = p_next.data();
      const int rh = rho, rn = rho_next;
      lo.template each<2>("block_bicgstab_r0v", DSLASH_LAMBDA(index_t re, index_t im, int, double* acc) {
        blas_detail::add_dot(vp[re], vp[im], r0p[re], r0p[im], acc[0], acc[1]);  // <r0, v>
      }, &sums, kR0v, DSLASH_LAMBDA(int k) {  // alpha = rho / <r0, v>
        put(val, kAlpha, k, val(kIterating, k) != 0 ? div(get(val, rh, k), get(val, kR0v, k)) : Complex{});
      });
      lo.template each<0>("block_bicgstab_s", DSLASH_LAMBDA(index_t re, index_t im, int k, double*) {  // s = r - alpha v, in r
        const Sloppy a_re = static_cast<Sloppy>(val(kAlpha, k)), a_im = static_cast<Sloppy>(val(kAlpha + 1, k));
        blas_detail::caxpby_value(-a_re, -a_im, Sloppy(1), Sloppy(0), vp[re], vp[im], rp[re], rp[im]);
      });
      sloppy.apply(r, t);  // t = M s
      lo.template each<5>("block_bicgstab_t", DSLASH_LAMBDA(index_t re, index_t im, int, double* acc) {
        blas_detail::add_norm2_dot(tp[re], tp[im], rp[re], rp[im], acc[0], acc[1], acc[2]);  // ||t||^2, <s, t>
        blas_detail::add_dot(tp[re], tp[im], r0p[re], r0p[im], acc[3], acc[4]);               // <r0, t>
      }, &sums, kT, DSLASH_LAMBDA(int k) {
        // omega = <t, s> / ||t||^2; alpha made <r0, s> zero, so the next rho = <r0, s - omega t> is
        // -omega <r0, t>; beta = (rho_next / rho) (alpha / omega).
        const double tt = val(kT, k);
        Complex omega;
        if (val(kIterating, k) != 0 && tt != 0) omega = {val(kT + 1, k) / tt, -val(kT + 2, k) / tt};
        const Complex next = mul(Complex{-omega.re, -omega.im}, get(val, kT + 3, k));
        put(val, kOmega, k, omega);
        put(val, rn, k, next);
        put(val, kBeta, k, mul(div(next, get(val, rh, k)), div(get(val, kAlpha, k), omega)));
      });
      // x_s += alpha p + omega s, r = s - omega t, p_next = r + beta (p - omega v), ||r||^2
      lo.template each<1>("block_bicgstab_update", DSLASH_LAMBDA(index_t re, index_t im, int k, double* acc) {
        const auto c = [&](int set) { return static_cast<Sloppy>(val(set, k)); };
        Sloppy x_re = xp[re], x_im = xp[im], r_re = rp[re], r_im = rp[im], q_re = pp[re], q_im = pp[im];
        blas_detail::bicgstab_update_value(c(kAlpha), c(kAlpha + 1), c(kOmega), c(kOmega + 1), c(kBeta), c(kBeta + 1), tp[re], tp[im], vp[re], vp[im], x_re,
                                           x_im, r_re, r_im, q_re, q_im);
        xp[re] = x_re;
        xp[im] = x_im;
        rp[re] = r_re;
        rp[im] = r_im;
        qp[re] = q_re;
        qp[im] = q_im;
        acc[0] += static_cast<double>(r_re) * r_re + static_cast<double>(r_im) * r_im;
      }, &sums, kR);
      const std::vector<double> rr = sums.read(kR);
      const auto zero = [&](int set) {  // a complex value that is zero, per right-hand side
        const std::vector<double> re = sums.read_without_wait(set), im = sums.read_without_wait(set + 1);
        std::vector<bool> z(re.size());
        for (std::size_t k = 0; k < z.size(); ++k) z[k] = re[k] == 0 && im[k] == 0;
        return z;
      };
      const std::vector<bool> no_rho = zero(rh), no_r0v = zero(kR0v);
      for (std::size_t k = 0; k < static_cast<std::size_t>(u.rhs()); ++k)
        if (u.active(k) && (no_rho[k] || no_r0v[k])) u.freeze(k, no_rho[k] ? "rho or omega is zero" : "<r0, M p> is zero");
      const bool updated = u.after_iteration(rr);
      const std::vector<bool> no_omega = zero(kOmega);
      for (std::size_t k = 0; k < static_cast<std::size_t>(u.rhs()); ++k)
        if (u.active(k) && no_omega[k]) u.freeze(k, "rho or omega is zero");
      if (!u.any_active()) break;
      if (updated) {
        redirect();
      } else {
        std::swap(p, p_next);
        std::swap(rho, rho_next);
      }
    }
  }
  u.finish();
  return out;
}

}  // namespace dslash
