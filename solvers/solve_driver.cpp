// The solve driver (solvers/solve_driver.hpp): one template, solve_all<Real, Sloppy, Space>, and the
// one function that picks its instantiation from the precision and the backend.
#include "solvers/solve_driver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>
#include <type_traits>

#include "dslash/core/profiling.hpp"
#include "dslash/lattice/field_ops.hpp"
#include "kernels/cache_policy.hpp"
#include "kernels/reference_dslash.hpp"
#include "solvers/bicgstab.hpp"
#include "solvers/block_bicgstab.hpp"
#include "solvers/block_cg.hpp"
#include "solvers/cg.hpp"
#include "solvers/half_hopping.hpp"

namespace dslash {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Every launch inside the solver calls (Dslash kernels, BLAS, conversions), by label. The rest of a
// solve's time is outside launches: copies, MPI waits, the host's own work.
class LaunchProfile {
 public:
  void start() {
    set_kernel_hook([this](std::string_view label, double seconds) {
      const std::lock_guard<std::mutex> lock(mutex_);  // a progress thread may launch too
      LaunchTime& e = entries_[std::string(label)];
      e.min_s = e.calls == 0 ? seconds : std::min(e.min_s, seconds);
      e.max_s = std::max(e.max_s, seconds);
      ++e.calls;
      e.seconds += seconds;
    });
  }
  void stop() { set_kernel_hook(nullptr); }
  // Into the outcome: by time, longest first, and their sum.
  void report(SolveOutcome& out) const {
    for (const auto& [label, e] : entries_) {
      out.launches.push_back(e);
      out.launches.back().label = label;
      out.launch_seconds += e.seconds;
    }
    std::sort(out.launches.begin(), out.launches.end(), [](const LaunchTime& a, const LaunchTime& b) { return a.seconds > b.seconds; });
  }

 private:
  std::mutex mutex_;
  std::map<std::string, LaunchTime> entries_;
};

// The even-odd operator in precision R: on this process's kernels, or on the factory's hopping term.
template <class R, class Space>
EvenOddWilson<R, Space> make_operator(const SolveConfig& c, const GaugeField<double>& u, const DslashConfig& request) {
  const DslashConfig cfg = with_host_cache_policy<R, Space>(request, u.geometry());  // u: this process's block
  if (c.hopping) {
    if constexpr (std::is_same_v<R, float>)
      if (cfg.half) {  // the half kernels inside the single precision term's halo
        DslashConfig single = cfg;
        single.half = false;
        const GaugeField<float> u_single = convert_precision<float>(u);
        return EvenOddWilson<R, Space>(std::make_shared<const HalfHopping<Space>>(u_single, cfg, c.hopping->make(u_single, single, Space{})), c.mass);
      }
    return EvenOddWilson<R, Space>(c.hopping->make(convert_precision<R>(u), cfg, Space{}), c.mass);
  }
  return EvenOddWilson<R, Space>(convert_precision<R>(u), c.mass, cfg);
}

// The halo's use by an operator whose hopping term spans processes: nothing for one on its own kernels.
template <class R, class Space>
void add_halo_use(const EvenOddWilson<R, Space>& op, std::optional<HaloUse>& use) {
  const char* transport = op.hopping().transport();
  if (!transport) return;
  if (!use) use = HaloUse{.transport = transport};
  use->read_in_place += op.hopping().calls_read_in_place();
  use->hops += op.dslash_count();
}

// Every solve in precision Real, iterating in Sloppy (Real = Sloppy: one precision; double and
// float: mixed precision with reliable updates), with the vectors and kernels in Space.
template <class Real, class Sloppy, class Space>
SolveOutcome solve_all(const SolveConfig& c, const GaugeField<double>& u, const std::vector<SpinorField<double>>& b) {
  const Geometry& g = u.geometry();
  const int per_solve = c.kernel.nrhs;
  const EvenOddWilson<Real, Space> op = make_operator<Real, Space>(c, u, c.kernel);
  std::optional<EvenOddWilson<Sloppy, Space>> own_sloppy;
  if constexpr (!std::is_same_v<Real, Sloppy>) {
    DslashConfig sloppy_cfg = c.kernel;
    sloppy_cfg.compress = c.sloppy_compress != 0 ? c.sloppy_compress : c.kernel.compress;
    sloppy_cfg.half = c.sloppy_half;
    own_sloppy.emplace(make_operator<Sloppy, Space>(c, u, sloppy_cfg));
  }
  const EvenOddWilson<Sloppy, Space>& sloppy = [&]() -> const EvenOddWilson<Sloppy, Space>& {
    if constexpr (std::is_same_v<Real, Sloppy>) return op;
    else return *own_sloppy;
  }();

  SolveOutcome out;
  out.precision = c.precision;
  out.config = op.config();
  std::optional<LaunchProfile> profile;
  if (c.profile) profile.emplace();
  const int solves = static_cast<int>(b.size()) / per_solve;
  const bool block = op.config().kernel == KernelFamily::Mrhs;
  const auto be = op.allocate("b_e"), bo = op.allocate("b_o"), b_hat = op.allocate("b_hat"), xe = op.allocate("x_e");
  const auto& xo = be;  // b_e is spent on b_hat before the solve; x_o is made after it
  for (int first = 0; first < static_cast<int>(b.size()); first += per_solve) {
    {  // the sources' halves, let go once packed: a propagator's are gigabytes
      std::vector<SpinorField<Real>> even, odd;
      for (int r = first; r < first + per_solve; ++r) {
        const SpinorField<Real> full = convert_precision<Real>(b[static_cast<std::size_t>(r)]);
        copy_sites(full, even.emplace_back(g, Subset::Even));
        copy_sites(full, odd.emplace_back(g, Subset::Odd));
      }
      op.pack(even, be);
      op.pack(odd, bo);
    }
    op.prepare_source(be, bo, b_hat);
    SolveRecord rec{.first = first, .count = per_solve, .result = {}, .rhs = {}, .time_s = 0, .scale = 1, .rhs_scale = {}};
    // The odd rows are solved exactly, so ||b - M x|| = ||b_hat - M_ee_hat x_e||: the even system's
    // tolerance is the full one's times ||b|| / ||b_hat||.
    // A zero source's scale is 1: its x is 0, exactly.
    const auto scale = [](double hat, double full) { return full == 0 ? 1.0 : std::sqrt(hat / full); };
    rec.scale = scale(op.norm2(b_hat), op.norm2(be) + op.norm2(bo));
    SolverParams params{.tolerance = c.tolerance / rec.scale, .max_iterations = c.max_iterations, .reliable_delta = c.reliable_delta};
    const std::vector<double> hat2 = op.rhs_norm2(b_hat), even2 = op.rhs_norm2(be), odd2 = op.rhs_norm2(bo);
    for (int r = 0; r < per_solve; ++r) {
      const auto k = static_cast<std::size_t>(r);
      rec.rhs_scale.push_back(scale(hat2[k], even2[k] + odd2[k]));
      if (block) params.rhs_tolerance.push_back(c.tolerance / rec.rhs_scale.back());
    }
    if (c.on_iteration)
      params.progress = [&c, solve = first / per_solve, solves, scale = rec.scale](int iteration, double relative, bool update) {
        c.on_iteration(SolveProgress{.solve = solve, .solves = solves, .iteration = iteration, .residual = relative * scale, .reliable_update = update});
      };
    deep_copy(xe, Real(0));
    const std::int64_t precise0 = op.dslash_count(), sloppy0 = sloppy.dslash_count();
    // Both operators' Dslash time (one operator when Real = Sloppy).
    const auto dslash_seconds = [&] {
      if constexpr (std::is_same_v<Real, Sloppy>) return op.dslash_seconds();
      else return op.dslash_seconds() + sloppy.dslash_seconds();
    };
    const double seconds0 = dslash_seconds();
    if (profile) profile->start();
    const auto t0 = Clock::now();
    if (block) {
      const BlockSolverResult together =
          c.method == SolveMethod::Cgnr ? block_cgnr(op, sloppy, b_hat, xe, params) : block_bicgstab(op, sloppy, b_hat, xe, params);
      rec.result = together.summary();
      rec.rhs = together.rhs;
    } else {
      rec.result = c.method == SolveMethod::Cgnr ? cgnr(op, sloppy, b_hat, xe, params) : bicgstab(op, sloppy, b_hat, xe, params);
      rec.rhs = {rec.result};
    }
    rec.time_s = seconds_since(t0);
    if (profile) profile->stop();
    rec.precise_dslash = op.dslash_count() - precise0;
    if constexpr (!std::is_same_v<Real, Sloppy>) rec.sloppy_dslash = sloppy.dslash_count() - sloppy0;
    rec.dslash_s = dslash_seconds() - seconds0;
    if (c.on_solve_end) c.on_solve_end(first / per_solve);
    op.reconstruct(xe, bo, xo);
    std::vector<SpinorField<Real>> even, odd;
    for (int r = 0; r < per_solve; ++r) {
      even.emplace_back(g, Subset::Even);
      odd.emplace_back(g, Subset::Odd);
    }
    op.unpack(xe, even);
    op.unpack(xo, odd);
    for (int r = 0; r < per_solve; ++r) {
      SpinorField<double>& x = out.x.emplace_back(g, Subset::Full, "x");
      SpinorField<double> x_odd(g, Subset::Full);
      copy_sites(convert_precision<double>(even[static_cast<std::size_t>(r)]), x);
      copy_sites(convert_precision<double>(odd[static_cast<std::size_t>(r)]), x_odd);
      axpy(std::complex<double>(1), x_odd, x);
    }
    out.solves.push_back(std::move(rec));
  }
  add_halo_use(op, out.halo);
  if constexpr (!std::is_same_v<Real, Sloppy>) add_halo_use(sloppy, out.halo);
  if (profile) profile->report(out);
  return out;
}

}  // namespace

SolveOutcome solve_wilson(const SolveConfig& c, const GaugeField<double>& u, const std::vector<SpinorField<double>>& b) {
  if (c.kernel.nrhs < 1 || b.size() % static_cast<std::size_t>(c.kernel.nrhs) != 0)
    throw std::invalid_argument("solve: " + std::to_string(b.size()) + " right-hand sides do not split into solves of " + std::to_string(c.kernel.nrhs));
  const auto in_space = [&]<class Space>(Space) {
    if (c.precision == SolvePrecision::Double) return solve_all<double, double, Space>(c, u, b);
    if (c.precision == SolvePrecision::Single) return solve_all<float, float, Space>(c, u, b);
    return solve_all<double, float, Space>(c, u, b);
  };
  if (c.backend == SolveBackend::Cuda) {
#if defined(DSLASH_HAVE_CUDA)
    return in_space(CudaSpace{});
#else
    throw std::invalid_argument("solve: this build has no CUDA backend");
#endif
  }
  return in_space(HostSpace{});
}

bool SolveOutcome::converged() const { return first_unconverged() == nullptr; }

const SolveRecord* SolveOutcome::first_unconverged() const {
  const auto it = std::find_if(solves.begin(), solves.end(), [](const SolveRecord& r) { return !r.result.converged; });
  return it == solves.end() ? nullptr : &*it;
}

SolveTotals solve_totals(const SolveOutcome& outcome, const Geometry& lattice) {
  SolveTotals t;
  std::int64_t precise = 0, sloppy = 0;
  for (const SolveRecord& s : outcome.solves) {
    t.iterations += s.result.iterations;
    t.setup_s += s.result.setup_seconds;
    t.reliable_updates += static_cast<int>(s.result.reliable_updates.size());
    t.time_s += s.time_s;
    precise += s.precise_dslash;
    sloppy += s.sloppy_dslash;
    t.flops += 1320.0 * static_cast<double>(lattice.half_volume()) * s.count * static_cast<double>(s.precise_dslash + s.sloppy_dslash);
    t.dslash_s += s.dslash_s;
  }
  // The precise operator's applications are single only in a single-precision solve.
  const bool single = outcome.precision == SolvePrecision::Single;
  t.in_double = single ? 0 : precise;
  t.in_single = single ? precise : sloppy;
  return t;
}

ReferenceCheck check_with_reference(const GaugeField<double>& u, const std::vector<SpinorField<double>>& b, const std::vector<SpinorField<double>>& x,
                                    double mass, double tolerance, bool single_precision) {
  ReferenceCheck check;
  for (std::size_t r = 0; r < b.size(); ++r) {
    SpinorField<double> mx(u.geometry(), Subset::Full);
    wilson_matrix_reference(u, x[r], mx, mass);
    axpy(std::complex<double>(-1), b[r], mx);
    const double b_norm2 = norm2(b[r]);
    check.residuals.push_back(std::sqrt(norm2(mx) / (b_norm2 != 0 ? b_norm2 : 1)));  // a zero source: ||M x||, 0 for its x = 0
    if (!(check.residuals.back() <= check.worst)) check.worst = check.residuals.back();  // a NaN too: never a residual of 0 for an x that is NaN
  }
  check.confirms = reference_confirms(check.worst, tolerance, single_precision);
  return check;
}

}  // namespace dslash
