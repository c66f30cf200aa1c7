#pragma once
// Block CGNR's definition (solvers/block_cg.hpp), instantiated per memory space by solvers/instantiate.hpp.
#include "solvers/block_cg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>

#include "solvers/reliable_update.hpp"
#include "solvers/rhs_blas.hpp"

namespace dslash {

namespace block_cg_detail {

// One right-hand side's reliable-update bookkeeping (reliable::Updater's, per right-hand side).
struct RhsState {
  double b_norm = 0;
  double relative = 0, max_since_update = 0, best = 0, lowest = 0;
  double iterated = 0;  // this iteration's iterated residual
  int stalled = 0;
  bool active = false, due = false, restart = false;
};

inline std::string text(const char* format, double value, int iteration) {
  char line[200];
  std::snprintf(line, sizeof line, format, value, iteration);
  return line;
}

}  // namespace block_cg_detail

template <class Real, class Sloppy, class Space>
BlockSolverResult block_cgnr(const EvenOddWilson<Real, Space>& op, const EvenOddWilson<Sloppy, Space>& sloppy,
                             const typename EvenOddWilson<Real, Space>::vector_type& b, const typename EvenOddWilson<Real, Space>::vector_type& x,
                             const SolverParams& params) {
  using block_cg_detail::RhsState;
  using Limits = reliable::Updater<Real, Sloppy, Space>;  // the same stall, drift and divergence rules as cgnr
  using sloppy_vector = typename EvenOddWilson<Sloppy, Space>::vector_type;
  check_solver_params("block cgnr", params);
  const int n = op.config().nrhs;
  if (!params.rhs_tolerance.empty() && params.rhs_tolerance.size() != static_cast<std::size_t>(n))
    throw std::invalid_argument("block cgnr: " + std::to_string(params.rhs_tolerance.size()) + " tolerances for " + std::to_string(n) + " right-hand sides");
  for (double t : params.rhs_tolerance)
    if (!(t > 0)) throw std::invalid_argument("block cgnr: tolerance must be positive");
  const auto tolerance = [&](std::size_t k) { return params.rhs_tolerance.empty() ? params.tolerance : params.rhs_tolerance[k]; };
  BlockSolverResult out;
  out.rhs.resize(static_cast<std::size_t>(n));
  std::vector<RhsState> st(static_cast<std::size_t>(n));
  const RhsPasses<Space> hi(RhsLayout{op.complex_layout(), op.slots().folded});
  const auto per_rhs = [n](const std::vector<double>& v) { return std::vector<double>(v.begin(), v.begin() + n); };

  bool one_operator = false;
  if constexpr (std::is_same_v<Real, Sloppy>) one_operator = &op == &sloppy;
  SolverResult setup;
  typename EvenOddWilson<Real, Space>::vector_type r;
  sloppy_vector r_own, x_own, s, p, q;
  RhsPasses<Space> lo;
  timed_setup<Space>(setup, [&] {
    r = op.allocate("block_cg_r");
    if (!one_operator) {
      r_own = sloppy.allocate("block_cg_r_sloppy");
      x_own = sloppy.allocate("block_cg_x_sloppy");  // zero, as every View starts
    }
    s = sloppy.allocate("block_cg_s");
    p = sloppy.allocate("block_cg_p");
    q = sloppy.allocate("block_cg_q");
    lo = RhsPasses<Space>(RhsLayout{sloppy.complex_layout(), sloppy.slots().folded});
  });
  out.setup_seconds = setup.setup_seconds;
  // The iterated residual and the increment: r and x themselves with one operator.
  const sloppy_vector* r_s = &r_own;
  const sloppy_vector* x_s = &x_own;
  if constexpr (std::is_same_v<Real, Sloppy>) {
    if (one_operator) {
      r_s = &r;
      x_s = &x;
    }
  }

  // x += x_s, x_s = 0, r = b - M x in Real (and r_s = r): every right-hand side's true ||r|| / ||b||.
  const auto recompute = [&] {
    if (!one_operator) add_and_zero(sloppy, *x_s, op, x);
    op.apply(x, r);
    const std::vector<double> rr = per_rhs(op.global_sums(hi.axpby({1}, b, {-1}, r, true)));
    if (!one_operator) convert(op, r, sloppy, *r_s);
    std::vector<double> rel(static_cast<std::size_t>(n));
    for (std::size_t k = 0; k < rel.size(); ++k) rel[k] = st[k].b_norm > 0 ? std::sqrt(rr[k]) / st[k].b_norm : 0;
    return rel;
  };
  const auto freeze = [&](std::size_t k, std::string why, Stop stop = Stop::Breakdown) {
    st[k].active = false;
    out.rhs[k].breakdown = std::move(why);
    out.rhs[k].stop = stop;
  };

  // The start: zero sources are solved (x_r = 0), a source holding NaN or Inf cannot be.
  const std::vector<double> bb = per_rhs(op.global_sums(hi.norm2(b)));
  std::vector<double> keep(static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < st.size(); ++k) {
    st[k].b_norm = std::sqrt(bb[k]);
    keep[k] = bb[k] != 0 ? 1 : 0;
  }
  hi.axpby({0}, x, hi.upload(0, keep), x);  // x_r = 0 where b_r = 0
  bool recomputed = true;
  std::vector<double> rel;
  if (op.norm2(x) == 0) {
    if (one_operator) deep_copy(r, b);
    else convert(op, b, sloppy, *r_s);
    rel.assign(static_cast<std::size_t>(n), 1.0);
  } else {
    rel = recompute();
  }
  for (std::size_t k = 0; k < st.size(); ++k) {
    RhsState& h = st[k];
    if (bb[k] == 0) {
      out.rhs[k] = zero_source_result();
      continue;
    }
    h.relative = h.max_since_update = h.best = h.lowest = rel[k];
    out.rhs[k].history.push_back(rel[k]);
    h.active = true;
    if (!std::isfinite(h.b_norm)) freeze(k, std::isnan(h.b_norm) ? "||b|| is nan: the source holds a NaN" : "||b|| is inf: the source holds an Inf, or entries too large to square in double");
    else if (!std::isfinite(rel[k])) freeze(k, "the starting residual b - M x is not finite");
    else if (rel[k] <= tolerance(k)) h.active = false;  // already solved
  }
  const auto any_active = [&] { return std::any_of(st.begin(), st.end(), [](const RhsState& h) { return h.active; }); };
  const auto largest = [&](const std::vector<double>& v) {
    double m = 0;
    for (std::size_t k = 0; k < st.size(); ++k)
      if (bb[k] != 0 && !(v[k] <= m)) m = v[k];
    return m;
  };
  out.history.push_back(largest(rel));

  if (any_active()) {
    sloppy.apply(*r_s, s, true);  // s = M^dagger r
    std::vector<double> gamma = per_rhs(sloppy.global_sums(lo.norm2(s)));
    deep_copy(p, s);
    std::vector<double> alpha(static_cast<std::size_t>(n)), beta(static_cast<std::size_t>(n));
    while (any_active()) {
      sloppy.apply(p, q);  // q = M p
      const std::vector<double> mp = per_rhs(sloppy.global_sums(lo.norm2(q)));
      for (std::size_t k = 0; k < st.size(); ++k) {
        alpha[k] = 0;
        if (!st[k].active) continue;
        if (gamma[k] == 0 || mp[k] == 0) freeze(k, gamma[k] == 0 ? "M^dagger r is zero" : "M p is zero");
        else alpha[k] = gamma[k] / mp[k];
      }
      const RhsCoefficient a = lo.upload(0, alpha);
      lo.axpby(a, p, {1}, *x_s);  // x_s += alpha p
      const std::vector<double> rr = per_rhs(sloppy.global_sums(lo.axpby({-a.scale, a.values}, q, {1}, *r_s, true)));  // r -= alpha q
      ++out.iterations;
      bool update = false;
      for (std::size_t k = 0; k < st.size(); ++k) {
        RhsState& h = st[k];
        h.due = false;
        if (!h.active) continue;
        ++out.rhs[k].iterations;
        h.iterated = std::sqrt(rr[k]) / h.b_norm;
        out.rhs[k].history.push_back(h.iterated);
        h.max_since_update = std::max(h.max_since_update, h.iterated);
        h.due = h.iterated <= tolerance(k) || h.iterated < params.reliable_delta * h.max_since_update;
        update = update || h.due;
      }
      double worst = 0;
      if (update) {
        rel = recompute();
        recomputed = true;
        out.reliable_updates.push_back({out.iterations, largest(rel)});
      } else {
        recomputed = false;
      }
      for (std::size_t k = 0; k < st.size(); ++k) {
        RhsState& h = st[k];
        h.restart = false;
        if (!h.active) continue;
        SolverResult& res = out.rhs[k];
        if (update) {
          h.relative = rel[k];
          h.max_since_update = rel[k];
          res.reliable_updates.push_back({res.iterations, rel[k]});
          h.restart = rel[k] > Limits::kDrift * h.iterated;
          if (h.due) {  // its own update: the stall test's
            h.stalled = rel[k] < Limits::kProgress * h.best ? 0 : h.stalled + 1;
            h.best = std::min(h.best, rel[k]);
          }
          if (rel[k] <= tolerance(k)) {
            h.active = false;  // converged: frozen
            continue;
          }
          if (h.stalled >= Limits::kStalledUpdates) {
            freeze(k, std::string("the true residual stopped decreasing: the rounding floor of the ") + (std::is_same_v<Sloppy, float> ? "single" : "double") +
                          "-precision iterations");
            continue;
          }
        } else {
          h.relative = h.iterated;
        }
        if (!std::isfinite(h.relative)) {
          freeze(k, block_cg_detail::text("the residual is %g at iteration %d", h.relative, res.iterations));
        } else if (h.relative > Limits::kDivergence * h.lowest) {
          freeze(k, block_cg_detail::text("the residual rose %.0e times over its lowest by iteration %d: M is singular or too ill-conditioned", Limits::kDivergence,
                                          res.iterations),
                 Stop::Diverged);
        } else if (res.iterations >= params.max_iterations) {
          st[k].active = false;  // the iteration limit (the result's default stop)
        }
        h.lowest = std::min(h.lowest, h.relative);
        if (h.active) worst = std::max(worst, h.relative);
      }
      out.history.push_back(worst);
      if (params.progress) params.progress(out.iterations, worst, update);
      if (!any_active()) break;
      sloppy.apply(*r_s, s, true);
      const std::vector<double> gamma_next = per_rhs(sloppy.global_sums(lo.norm2(s)));
      for (std::size_t k = 0; k < st.size(); ++k) beta[k] = st[k].active && !st[k].restart && gamma[k] != 0 ? gamma_next[k] / gamma[k] : 0;
      lo.axpby({1}, s, lo.upload(1, beta), p);  // p = s + beta p
      gamma = gamma_next;
    }
  }
  // Every x_s folded in, and each right-hand side's verdict from its true residual.
  if (!recomputed) rel = recompute();
  for (std::size_t k = 0; k < st.size(); ++k) {
    SolverResult& res = out.rhs[k];
    if (bb[k] == 0) continue;
    res.relative_residual = std::isfinite(st[k].b_norm) ? rel[k] : st[k].b_norm;
    res.converged = res.relative_residual <= tolerance(k);
    if (res.converged) res.stop = Stop::Converged;
    res.setup_seconds = out.setup_seconds / n;
  }
  return out;
}

}  // namespace dslash
