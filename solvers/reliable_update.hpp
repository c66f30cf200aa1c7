#pragma once
// Reliable updates (QUDA's; Sleijpen and van der Vorst), the part CGNR and BiCGStab share. A solve
// keeps x and the true residual r = b - M x in the precise precision (Real), and iterates in the
// sloppy one (Sloppy) on an increment x_s from the last update and an iterated residual r_s. When
// ||r_s|| has fallen by `reliable_delta` since the last update (or reached the tolerance), it updates:
// x += x_s, x_s = 0, r = b - M x recomputed in Real, r_s = r. The solver keeps its search directions
// across an update, since the new r_s differs from the old only by the sloppy precision's rounding,
// unless the recomputed residual is over kDrift times the iterated one: the recurrence has drifted
// from the truth (at the sloppy precision's floor), and the solver restarts from the new residual.
// So the answer meets a Real tolerance that Sloppy alone cannot reach, and with Sloppy = Real the
// same code is a plain solver whose stopping rule is the true residual, not the recurrence's. With
// one operator for both (a double or single solve) the solver iterates on x and r themselves: no
// increment to fold in and no copy of r at an update.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

#include "solvers/solver_result.hpp"
#include "solvers/wilson_operator.hpp"

namespace dslash::reliable {

// What an iteration ended in: the sloppy recurrence goes on, goes on from the recomputed residual
// with its directions, or starts afresh from it.
enum class Step { Iterated, Updated, Restarted };

// A share of x_s that the solver has not added yet, c p: an update folds it into x with x_s (CG's
// alpha p, which it otherwise adds in its next direction's pass).
template <class Sloppy, class Vector>
struct Pending {
  DeviceRatio<Sloppy> c;
  const Vector* p = nullptr;
};

template <class Real, class Sloppy, class Space>
class Updater {
 public:
  using vector_type = typename EvenOddWilson<Real, Space>::vector_type;
  using sloppy_vector = typename EvenOddWilson<Sloppy, Space>::vector_type;
  // A true residual that has not fallen below kProgress times the best one over kStalledUpdates
  // updates in a row: the sloppy precision's rounding floor; the solve stops there.
  static constexpr int kStalledUpdates = 3;
  static constexpr double kProgress = 0.5;
  static constexpr double kDrift = 2;
  // A residual this many times its lowest so far has diverged: BiCGStab's rises by a few orders on a
  // hard system before it falls, but not by six; CGNR's never rises in exact arithmetic.
  static constexpr double kDivergence = 1e6;

  // Checks the parameters; r_s = b - M x, x_s = 0 (x_s is x itself with one operator). done() when
  // that already meets the tolerance (or b = 0, and x = 0). From x = 0, the usual start, r = b: one
  // norm pass instead of two hops.
  Updater(const char* solver, const EvenOddWilson<Real, Space>& op, const EvenOddWilson<Sloppy, Space>& sloppy, const vector_type& b,
          const vector_type& x, const SolverParams& params, SolverResult& result)
      : solver_(solver), op_(op), sloppy_(sloppy), b_(b), x_(x), params_(params), result_(result), b_norm_(std::sqrt(op.norm2(b))),
        one_operator_(same_object(op, sloppy)), trivial_(solve_trivially(solver, params, b_norm_, x)) {
    if (trivial_) {
      result_ = *trivial_;
      return;
    }
    timed_setup<Space>(result_, [&] {
      r_ = op.allocate(std::string(solver) + "_r");
      if (!one_operator_) {
        r_sloppy_ = sloppy.allocate(std::string(solver) + "_r_sloppy");
        x_sloppy_ = sloppy.allocate(std::string(solver) + "_x_sloppy");  // zero, as every View starts
      }
    });
    if constexpr (kMaySharePrecision) {
      if (one_operator_) {  // the same buffers
        r_sloppy_ = r_;
        x_sloppy_ = x;
      }
    }
    if (!std::isfinite(b_norm_)) {  // nothing to iterate on: every relative residual would be NaN
      result_.breakdown = std::isnan(b_norm_) ? "||b|| is nan: the source holds a NaN"
                                              : "||b|| is inf: the source holds an Inf, or entries too large to square in double";
      relative_ = b_norm_;
      recomputed_ = true;  // nothing to fold in, and nothing to recompute from
      result_.history.push_back(relative_);
      return;
    }
    if (op.norm2(x) == 0) start_from_b();
    else recompute();
    result_.history.push_back(relative_);
    best_ = lowest_ = relative_;
    check_growth(0);
  }

  bool done() const { return trivial_ || relative_ <= params_.tolerance || !result_.breakdown.empty(); }
  bool may_iterate() const { return !done() && result_.iterations < params_.max_iterations; }
  const sloppy_vector& r_sloppy() const { return r_sloppy_; }
  const sloppy_vector& x_sloppy() const { return x_sloppy_; }

  // After each iteration, with ||r_s||^2: counts it, updates when due (folding `pending` in with
  // x_s: Iterated is then the one answer that leaves it to the solver), records the history, and
  // reports progress.
  Step after_iteration(double r_sloppy_norm2, const Pending<Sloppy, sloppy_vector>& pending = {}) {
    const bool update = update_due(r_sloppy_norm2);
    ++result_.iterations;
    const double rel = std::sqrt(r_sloppy_norm2) / b_norm_;
    result_.history.push_back(rel);
    max_since_update_ = std::max(max_since_update_, rel);
    if (update) {
      recompute(pending);
      result_.reliable_updates.push_back({result_.iterations, relative_});
      // A healthy update finds about reliable_delta times the last one; at the floor the true
      // residual only wanders around it.
      stalled_ = relative_ < kProgress * best_ ? 0 : stalled_ + 1;
      best_ = std::min(best_, relative_);
      if (stalled_ >= kStalledUpdates && relative_ > params_.tolerance) result_.breakdown = stall_reason();
    } else {
      relative_ = rel;
      recomputed_ = false;
    }
    if (result_.breakdown.empty()) check_growth(result_.iterations);
    if (params_.progress) params_.progress(result_.iterations, update ? relative_ : rel, update);
    if (!update) return Step::Iterated;
    return relative_ > kDrift * rel ? Step::Restarted : Step::Updated;
  }

  // x += x_s and the final true residual: the result's verdict.
  void finish() {
    if (trivial_) return;
    if (!recomputed_) recompute();  // folds x_s in
    result_.relative_residual = relative_;
    result_.converged = relative_ <= params_.tolerance;
    if (result_.converged) result_.stop = Stop::Converged;
    else if (!result_.breakdown.empty() && result_.stop != Stop::Diverged) result_.stop = Stop::Breakdown;
  }

 private:
  static constexpr const char* kRealName = std::is_same_v<Real, float> ? "single" : "double";
  static constexpr const char* kSloppyName = std::is_same_v<Sloppy, float> ? "single" : "double";

  // Ends the solve on a residual (relative_, after `iteration`) that is NaN or Inf, or kDivergence
  // times its lowest so far, saying why.
  void check_growth(int iteration) {
    const char* non_finite = std::isnan(relative_) ? "nan" : "inf";
    if (!std::isfinite(relative_) && iteration == 0) {
      result_.breakdown = text("the starting residual b - M x is %s: x, or M applied to it, is not finite in %s", non_finite, kRealName);
    } else if (!std::isfinite(relative_)) {
      result_.breakdown = text("the residual is %s at iteration %d: ", non_finite, iteration) + overflow_cause();
    } else if (relative_ > kDivergence * lowest_) {
      result_.stop = Stop::Diverged;
      result_.breakdown = text("the residual rose over %.0e times its lowest by iteration %d: M is singular or too ill-conditioned for %s", kDivergence,
                               iteration, solver_);
    }
    lowest_ = std::min(lowest_, relative_);
  }

  // Why an iterate went NaN or Inf from a finite b: ||M r||^2, about ((4 + m) ||b||)^2, past double's
  // range, from whichever factor is the larger; else past the iterating precision's range, which in
  // double only an unbounded step reaches.
  std::string overflow_cause() const {
    const double diagonal = 4 + op_.mass();
    if (diagonal * b_norm_ > std::sqrt(std::numeric_limits<double>::max())) {
      if (diagonal >= b_norm_) return text("the operator: its diagonal 4 + m = %.3g makes ||M r||^2 overflow double", diagonal);
      return text("the source: ||b|| = %.3g makes ||M r||^2 overflow double (scale it down: x scales with it)", b_norm_);
    }
    if constexpr (std::is_same_v<Sloppy, float>) return "the precision: the iterates outgrew single precision's range";
    else return text("the operator: the iterates outgrew double's range (M singular or too ill-conditioned for %s)", solver_);
  }

  // A stall's cause: the rounding floor of the one precision, or of the sloppy iterations in mixed.
  std::string stall_reason() const {
    if constexpr (std::is_same_v<Real, Sloppy>)
      return text("the true residual stopped decreasing: %s precision's rounding floor on this operator (a tolerance below it cannot be met)",
                  kRealName);
    else return text("the true residual stopped decreasing: the limit of the %s-precision iterations", kSloppyName);
  }

  template <class... Args>
  static std::string text(const char* format, Args... args) {
    char line[320];
    std::snprintf(line, sizeof line, format, args...);
    return line;
  }

  // Whether after_iteration(r_sloppy_norm2) updates.
  bool update_due(double r_sloppy_norm2) const {
    const double rel = std::sqrt(r_sloppy_norm2) / b_norm_;
    return rel <= params_.tolerance || rel < params_.reliable_delta * std::max(max_since_update_, rel);
  }

  static bool same_object(const EvenOddWilson<Real, Space>& op, const EvenOddWilson<Sloppy, Space>& sloppy) {
    if constexpr (kMaySharePrecision) return &op == &sloppy;
    else return false;
  }

  // r_s = b: the residual of x = 0.
  void start_from_b() {
    if (one_operator_) deep_copy(r_, b_);
    else convert(op_, b_, sloppy_, r_sloppy_);
    adopt_residual(1);
  }

  // r_s holds the true residual of x, whose ||r|| / ||b|| is `relative`, and x_s = 0.
  void adopt_residual(double relative) {
    relative_ = relative;
    max_since_update_ = relative_;
    recomputed_ = true;
  }

  // x += x_s + pending, x_s = 0 (one pass), r_s = b - M x from Real: with one operator x_s and r_s
  // are x and r themselves; with two, r is the scratch that M x goes to, and the pass that takes
  // ||b - M x|| writes r_s (one pass where a subtraction and a conversion were two).
  void recompute(const Pending<Sloppy, sloppy_vector>& pending = {}) {
    if constexpr (kMaySharePrecision) {
      if (one_operator_) {
        if (pending.p != nullptr) axpy(pending.c, *pending.p, x_);
        return adopt_residual(std::sqrt(op_.residual(b_, x_, r_)) / b_norm_);
      }
    }
    if (pending.p != nullptr) add_and_zero(sloppy_, x_sloppy_, pending.c, *pending.p, op_, x_);
    else add_and_zero(sloppy_, x_sloppy_, op_, x_);
    op_.apply(x_, r_);
    adopt_residual(std::sqrt(convert_difference(op_, b_, r_, sloppy_, r_sloppy_)) / b_norm_);
  }

  const char* solver_;
  const EvenOddWilson<Real, Space>& op_;
  const EvenOddWilson<Sloppy, Space>& sloppy_;
  const vector_type& b_;
  const vector_type& x_;
  const SolverParams& params_;
  SolverResult& result_;
  double b_norm_;
  // One operator for both precisions: x_s is x and r_s is r (the constructor's order: before trivial_).
  static constexpr bool kMaySharePrecision = std::is_same_v<Real, Sloppy>;
  bool one_operator_ = false;
  std::optional<SolverResult> trivial_;
  vector_type r_;  // r itself with one operator; with two, M x in an update
  sloppy_vector r_sloppy_, x_sloppy_;
  double relative_ = 0, max_since_update_ = 0, best_ = 0;  // relative_: the latest ||r|| / ||b||, true or iterated
  double lowest_ = 0;  // the lowest relative_ so far; best_: the lowest true one
  int stalled_ = 0;
  bool recomputed_ = false;  // relative_ is the true residual of x, and x_s is folded in
};

}  // namespace dslash::reliable
