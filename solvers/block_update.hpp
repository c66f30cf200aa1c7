#pragma once
// What block CGNR and block BiCGStab share (solvers/block_cg.hpp, solvers/block_bicgstab.hpp):
// reliable::Updater's bookkeeping per right-hand side. Each right-hand side has its own ||b||, its
// own tolerance, stop, stall and divergence tests; x and the true residual are in Real, the
// iterations in Sloppy on an increment x_s and an iterated residual r_s (x and r themselves with one
// operator). A reliable update is due when one right-hand side's iterated residual has fallen by
// reliable_delta since its last (or met its tolerance), and is then made for the whole block: one
// operator call recomputes every residual at the cost of one. The stall test counts a right-hand
// side's own due updates only; each restarts its direction alone where its recomputed residual has
// drifted from its iterated one.
//
// The flags the passes read stay on the device beside the sums (solvers/rhs_blas.hpp): kIterating,
// 1 for a right-hand side still iterating (a frozen one's coefficients read as 0, so its x and r
// stop changing), and kRestart, 1 for one whose direction starts afresh. The host sets them when
// they change (a convergence, an update), right after the iteration's one wait.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "solvers/block_result.hpp"
#include "solvers/reliable_update.hpp"
#include "solvers/rhs_blas.hpp"

namespace dslash::block {

// One right-hand side's bookkeeping.
struct RhsState {
  double b_norm = 0;
  double relative = 0, max_since_update = 0, best = 0, lowest = 0;
  double iterated = 0;  // this iteration's iterated residual
  int stalled = 0;
  bool active = false, due = false, restart = false;
};

template <class Real, class Sloppy, class Space>
class Updater {
 public:
  using vector_type = typename EvenOddWilson<Real, Space>::vector_type;
  using sloppy_vector = typename EvenOddWilson<Sloppy, Space>::vector_type;
  using Limits = reliable::Updater<Real, Sloppy, Space>;  // the same stall, drift and divergence rules as the single solvers
  // The sets of sums() kept here; a solver's own follow from kSets.
  static constexpr int kIterating = 0, kRestart = 1, kTrue = 2, kSets = 3;

  // Checks the parameters, allocates r (and r_s, x_s with two operators), and starts: zero sources
  // are solved (x_r = 0), a source holding NaN or Inf cannot be; r_s = b - M x, and every right-hand
  // side that already meets its tolerance is done. sums() has kSets + solver_sets sets.
  Updater(const char* solver, const EvenOddWilson<Real, Space>& op, const EvenOddWilson<Sloppy, Space>& sloppy, const vector_type& b,
          const vector_type& x, const SolverParams& params, BlockSolverResult& out, int solver_sets)
      : solver_(solver), op_(op), sloppy_(sloppy), b_(b), x_(x), params_(params), out_(out), n_(op.config().nrhs) {
    check_solver_params(solver, params);
    if (!params.rhs_tolerance.empty() && params.rhs_tolerance.size() != static_cast<std::size_t>(n_))
      throw std::invalid_argument(std::string(solver) + ": " + std::to_string(params.rhs_tolerance.size()) + " tolerances for " + std::to_string(n_) +
                                  " right-hand sides");
    for (double t : params.rhs_tolerance)
      if (!(t > 0)) throw std::invalid_argument(std::string(solver) + ": tolerance must be positive");
    if constexpr (std::is_same_v<Real, Sloppy>) one_operator_ = &op == &sloppy;
    out_.rhs.resize(static_cast<std::size_t>(n_));
    st_.resize(static_cast<std::size_t>(n_));
    SolverResult setup;
    timed_setup<Space>(setup, [&] {
      hi_ = op.rhs_passes();
      lo_ = sloppy.rhs_passes();
      sums_ = RhsSums<Space>(kSets + solver_sets, std::max(hi_.slots(), lo_.slots()));
      r_ = op.allocate(std::string(solver) + "_r");
      if (!one_operator_) {
        r_own_ = sloppy.allocate(std::string(solver) + "_r_sloppy");
        x_own_ = sloppy.allocate(std::string(solver) + "_x_sloppy");  // zero, as every View starts
      }
    });
    out_.setup_seconds += setup.setup_seconds;
    r_s_ = &r_own_;
    x_s_ = &x_own_;
    if constexpr (std::is_same_v<Real, Sloppy>) {
      if (one_operator_) {
        r_s_ = &r_;
        x_s_ = &x;
      }
    }

    hi_.norm2(b, sums_, kTrue);
    bb_ = sums_.read(kTrue);
    bb_.resize(static_cast<std::size_t>(n_));
    std::vector<double> keep(static_cast<std::size_t>(n_));
    for (std::size_t k = 0; k < st_.size(); ++k) {
      st_[k].b_norm = std::sqrt(bb_[k]);
      keep[k] = bb_[k] != 0 ? 1 : 0;
    }
    sums_.set(kTrue, keep);
    hi_.axpby({0}, x, {1, sums_.on_device(kTrue)}, x);  // x_r = 0 where b_r = 0
    std::vector<double> rel;
    if (op.norm2(x) == 0) {
      if (one_operator_) deep_copy(r_, b);
      else convert(op, b, sloppy, *r_s_);
      rel.assign(static_cast<std::size_t>(n_), 1.0);
      last_true_ = rel;
      recomputed_ = true;
    } else {
      rel = recompute();
    }
    for (std::size_t k = 0; k < st_.size(); ++k) {
      RhsState& h = st_[k];
      if (bb_[k] == 0) {
        out_.rhs[k] = zero_source_result();
        continue;
      }
      h.relative = h.max_since_update = h.best = h.lowest = rel[k];
      out_.rhs[k].history.push_back(rel[k]);
      h.active = true;
      if (!std::isfinite(h.b_norm)) freeze(k, std::isnan(h.b_norm) ? "||b|| is nan: the source holds a NaN" : "||b|| is inf: the source holds an Inf, or entries too large to square in double");
      else if (!std::isfinite(rel[k])) freeze(k, "the starting residual b - M x is not finite");
      else if (rel[k] <= tolerance(k)) h.active = false;  // already solved
    }
    if (params.max_iterations == 0)
      for (RhsState& h : st_) h.active = false;  // the iteration limit
    out_.history.push_back(largest(rel));
    publish_flags();
  }

  // The passes over the sloppy buffers, and the per right-hand side values they share.
  const RhsPasses<Space>& passes() const { return lo_; }
  const RhsSums<Space>& sums() const { return sums_; }
  const sloppy_vector& r_sloppy() const { return *r_s_; }
  const sloppy_vector& x_sloppy() const { return *x_s_; }
  int rhs() const { return n_; }
  bool active(std::size_t k) const { return st_[k].active; }
  bool any_active() const { return std::any_of(st_.begin(), st_.end(), [](const RhsState& h) { return h.active; }); }
  // Whether right-hand side k's direction starts afresh after this iteration's update.
  bool restarted(std::size_t k) const { return st_[k].restart; }

  // Right-hand side k can go no further: frozen from the next pass on, saying why.
  void freeze(std::size_t k, std::string why, Stop stop = Stop::Breakdown) {
    st_[k].active = false;
    out_.rhs[k].breakdown = std::move(why);
    out_.rhs[k].stop = stop;
    publish_flags();
  }

  // Every right-hand side still iterating starts its direction afresh (a solver's start).
  void restart_all() {
    for (RhsState& h : st_) h.restart = h.active;
    publish_flags();
  }

  // After each block iteration, with each right-hand side's iterated ||r_s||^2 (the iteration's
  // wait): counts it, makes the block's update when one is due, and stops each right-hand side that
  // has converged, stalled, diverged or reached the iteration limit. Returns whether it updated:
  // every r_s is then the recomputed residual, and restarted() says whose direction has drifted.
  bool after_iteration(const std::vector<double>& rr) {
    ++out_.iterations;
    bool update = false;
    for (std::size_t k = 0; k < st_.size(); ++k) {
      RhsState& h = st_[k];
      h.due = false;
      h.restart = false;
      if (!h.active) continue;
      ++out_.rhs[k].iterations;
      h.iterated = std::sqrt(rr[k]) / h.b_norm;
      out_.rhs[k].history.push_back(h.iterated);
      h.max_since_update = std::max(h.max_since_update, h.iterated);
      h.due = h.iterated <= tolerance(k) || h.iterated < params_.reliable_delta * h.max_since_update;
      update = update || h.due;
    }
    std::vector<double> rel;
    if (update) {
      rel = recompute();
      out_.reliable_updates.push_back({out_.iterations, largest(rel)});
    } else {
      recomputed_ = false;
    }
    double worst = 0;
    for (std::size_t k = 0; k < st_.size(); ++k) {
      RhsState& h = st_[k];
      if (!h.active) continue;
      SolverResult& res = out_.rhs[k];
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
          stop(k, std::string("the true residual stopped decreasing: the rounding floor of the ") + (std::is_same_v<Sloppy, float> ? "single" : "double") +
                      "-precision iterations");
          continue;
        }
      } else {
        h.relative = h.iterated;
      }
      if (!std::isfinite(h.relative)) {
        stop(k, text("the residual is %g at iteration %d", h.relative, res.iterations));
      } else if (h.relative > Limits::kDivergence * h.lowest) {
        stop(k, text("the residual rose %.0e times over its lowest by iteration %d: M is singular or too ill-conditioned for " + std::string(solver_),
                     Limits::kDivergence, res.iterations),
             Stop::Diverged);
      } else if (res.iterations >= params_.max_iterations) {
        h.active = false;  // the iteration limit (the result's default stop)
      }
      h.lowest = std::min(h.lowest, h.relative);
      if (h.active) worst = std::max(worst, h.relative);
    }
    out_.history.push_back(worst);
    if (params_.progress) params_.progress(out_.iterations, worst, update);
    publish_flags();
    return update;
  }

  // Every x_s folded in, and each right-hand side's verdict from its true residual.
  void finish() {
    const std::vector<double> rel = recomputed_ ? last_true_ : recompute();
    for (std::size_t k = 0; k < st_.size(); ++k) {
      SolverResult& res = out_.rhs[k];
      if (bb_[k] == 0) continue;
      res.relative_residual = std::isfinite(st_[k].b_norm) ? rel[k] : st_[k].b_norm;
      res.converged = res.relative_residual <= tolerance(k);
      if (res.converged) res.stop = Stop::Converged;
      res.setup_seconds = out_.setup_seconds / n_;
    }
  }

 private:
  double tolerance(std::size_t k) const { return params_.rhs_tolerance.empty() ? params_.tolerance : params_.rhs_tolerance[k]; }

  // The largest of v over the right-hand sides with a source (NaN where any is).
  double largest(const std::vector<double>& v) const {
    double m = 0;
    for (std::size_t k = 0; k < st_.size(); ++k)
      if (bb_[k] != 0 && !(v[k] <= m)) m = v[k];
    return m;
  }

  // freeze() without publishing: after_iteration publishes once at its end.
  void stop(std::size_t k, std::string why, Stop how = Stop::Breakdown) {
    st_[k].active = false;
    out_.rhs[k].breakdown = std::move(why);
    out_.rhs[k].stop = how;
  }

  static std::string text(const std::string& format, double value, int iteration) {
    char line[320];
    std::snprintf(line, sizeof line, format.c_str(), value, iteration);
    return line;
  }

  // x += x_s, x_s = 0, r = b - M x in Real (and r_s = r): every right-hand side's true ||r|| / ||b||.
  std::vector<double> recompute() {
    if (!one_operator_) add_and_zero(sloppy_, *x_s_, op_, x_);
    op_.apply(x_, r_);
    hi_.axpby({1}, b_, {-1}, r_, &sums_, kTrue);
    const std::vector<double> rr = sums_.read(kTrue);
    if (!one_operator_) convert(op_, r_, sloppy_, *r_s_);
    last_true_.assign(static_cast<std::size_t>(n_), 0.0);
    for (std::size_t k = 0; k < last_true_.size(); ++k) last_true_[k] = st_[k].b_norm > 0 ? std::sqrt(rr[k]) / st_[k].b_norm : 0;
    recomputed_ = true;
    return last_true_;
  }

  // The flags onto the device where they have changed.
  void publish_flags() {
    std::vector<double> iterating(static_cast<std::size_t>(n_)), restart(static_cast<std::size_t>(n_));
    for (std::size_t k = 0; k < st_.size(); ++k) {
      iterating[k] = st_[k].active ? 1 : 0;
      restart[k] = st_[k].active && st_[k].restart ? 1 : 0;
    }
    if (iterating != iterating_) sums_.set(kIterating, iterating_ = iterating);
    if (restart != restart_) sums_.set(kRestart, restart_ = restart);
  }

  const char* solver_;
  const EvenOddWilson<Real, Space>& op_;
  const EvenOddWilson<Sloppy, Space>& sloppy_;
  const vector_type& b_;
  const vector_type& x_;
  const SolverParams& params_;
  BlockSolverResult& out_;
  int n_;
  bool one_operator_ = false;
  RhsPasses<Space> hi_, lo_;
  RhsSums<Space> sums_;
  vector_type r_;
  sloppy_vector r_own_, x_own_;
  const sloppy_vector* r_s_ = nullptr;
  const sloppy_vector* x_s_ = nullptr;
  std::vector<RhsState> st_;
  std::vector<double> bb_, last_true_;
  std::vector<double> iterating_, restart_;  // as on the device (empty: not set yet, all zero there)
  bool recomputed_ = false;  // last_true_ is the true residual of x, and x_s is folded in
};

}  // namespace dslash::block
