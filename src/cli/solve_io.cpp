// What `dslash solve` reads (the gauge field, the right-hand sides) and writes (the report on
// stdout, --json, x to --out): the solve driver's fields and figures in the command's words.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "bench/machine.hpp"
#include "bench/report.hpp"
#include "cli/solve_options.hpp"
#include "dslash/lattice/field_ops.hpp"
#include "io/nersc.hpp"
#include "io/npy.hpp"

namespace dslash::cli {

namespace {

std::string rhs_text(int n) { return std::to_string(n) + (n == 1 ? " right-hand side" : " right-hand sides"); }

}  // namespace

void check_links(const SolveOptions& o, const GaugeField<double>& u) {
  if (o.prec != SolvePrecision::Single) check_compressible(u, o.k.compress);
  if (o.prec != SolvePrecision::Double)
    check_compressible(convert_precision<float>(u), o.sloppy_compress(), o.compress_sloppy != 0 ? "--compress-sloppy" : "--compress");
}

GaugeField<double> gauge_field(const SolveOptions& o) {
  if (!o.random) return io::read_nersc<double>(o.gauge);
  GaugeField<double> r{Geometry(o.dims)};
  fill_random_su3(r, o.seed);
  return r;
}

void check_point_source(const SolveOptions& o, const Geometry& g) {
  if (!o.point_source) return;
  const Coord& x = *o.point_source;
  for (std::size_t mu = 0; mu < 4; ++mu)
    if (x[mu] >= g.extent(static_cast<int>(mu)))
      throw std::invalid_argument("--point-source " + std::to_string(x[0]) + "." + std::to_string(x[1]) + "." + std::to_string(x[2]) + "." +
                                  std::to_string(x[3]) + ": outside the lattice " + g.to_string());
}

std::vector<SpinorField<double>> sources(const SolveOptions& o, const Geometry& g, bool& batched) {
  std::vector<SpinorField<double>> b;
  if (!o.in.empty()) {
    b = io::read_spinors_npy<double>(o.in, g, &batched);
    if (o.nrhs != 0 && o.nrhs != static_cast<int>(b.size()))
      throw std::invalid_argument("solve: --nrhs " + std::to_string(o.nrhs) + " but " + o.in + " holds " + std::to_string(b.size()) + " spinor(s)");
    // --prec single and mixed iterate on b in single precision.
    if (o.prec != SolvePrecision::Double)
      if (const auto bad = io::first_unrepresentable_element<float>(b, batched))
        throw std::invalid_argument(o.in + ": " + *bad + " (--prec " + to_string(o.prec) + ")");
    // Every residual is relative to ||b||, and every norm a sum of squares in double. A zero source
    // is solved at once (x = 0).
    for (std::size_t r = 0; r < b.size(); ++r)
      if (!std::isfinite(norm2(b[r])))
        throw std::invalid_argument("solve: spinor " + std::to_string(r) + " of " + o.in + ": ||b||^2 overflows double; scale it down (x scales with it)");
    return b;
  }
  if (o.point_source) {
    const Coord& x = *o.point_source;
    check_point_source(o, g);
    batched = true;
    for (int r = 0; r < 12; ++r) {
      SpinorField<double>& f = b.emplace_back(g, Subset::Full, "b");
      fill_zero(f);
      f(g.site(x), r / 3, r % 3) = 1;
    }
    return b;
  }
  const int n = o.nrhs == 0 ? 1 : o.nrhs;
  batched = n > 1;
  for (int r = 0; r < n; ++r) fill_gaussian(b.emplace_back(g, Subset::Full, "b"), o.seed + static_cast<std::uint64_t>(r));
  return b;
}

bool report_solve(const SolveOptions& o, const SolveInputs& in, const SolveOutcome& out, const std::string& where, bool distributed) {
  const Geometry& g = in.u->geometry();
  const int n = static_cast<int>(in.b.size());
  const int per_solve = out.solves.empty() ? 1 : out.solves.front().count;
  const bool converged = out.converged();
  const SolveTotals t = solve_totals(out, g);
  const ReferenceCheck reference = check_with_reference(*in.u, in.b, out.x, o.mass, o.tol, o.prec == SolvePrecision::Single);
  const double worst = reference.worst;
  const DslashConfig& cfg = out.config;

  const std::string links = o.sloppy_compress() != o.k.compress
                                ? std::to_string(o.k.compress) + " / " + std::to_string(o.sloppy_compress()) + (o.sloppy_half ? " (half)" : " (single)")
                                : std::to_string(o.k.compress);
  std::printf("solve: %s, %s%s precision, kernel %s (%s, %s, %s, links %s reals), %s, m = %g, tol %.1e, %s%s\n", to_string(o.solver), to_string(o.prec),
              o.sloppy_half ? " (double-half)" : "", to_string(o.kernel), to_string(o.backend), to_string(cfg.dispatch), to_string(cfg.isa), links.c_str(), where.c_str(), o.mass, o.tol,
              rhs_text(n).c_str(), per_solve > 1 ? " in one solve" : "");
  std::printf("%s: %d iterations, %d reliable updates, %.4f s (%.4f s of it setup: allocating the solver's vectors), %.4f ms per iteration\n",
              converged ? "converged" : "NOT converged", t.iterations, t.reliable_updates, t.time_s, t.setup_s, 1e3 * t.per_iteration_s());
  std::printf("dslash: %lld applications (%lld %s, %lld double), %.4f s, %.2f GFLOP/s; the solve takes %.2fx its Dslash time, "
              "%.2fx without its setup\n",
              static_cast<long long>(t.in_single + t.in_double), static_cast<long long>(t.in_single), o.sloppy_half ? "half" : "single",
              static_cast<long long>(t.in_double), t.dslash_s,
              t.dslash_gflops(), t.over_dslash(), t.over_dslash_without_setup());
  if (out.halo)
    std::printf("halo: %s, %lld of the %lld hops (the solve's, the even-odd source's and the solution's) read it in place from the neighbours' inputs\n", out.halo->transport.c_str(),
                static_cast<long long>(out.halo->read_in_place), static_cast<long long>(out.halo->hops));
  std::printf("solver: %.2f GFLOP/s of Dslash over the whole solve\n", t.gflops());
  std::printf("true residual ||b - M x|| / ||b|| = %.3e (reference operator, double, full lattice%s)\n", worst, n > 1 ? ", worst right-hand side" : "");
  // Each right-hand side: its iterations, its true residual, and its share of its solver call's time.
  nlohmann::json per_rhs = nlohmann::json::array();
  int fewest = 0, most = 0;
  for (const SolveRecord& s : out.solves)
    for (std::size_t k = 0; k < s.rhs.size(); ++k) {
      const int r = s.first + static_cast<int>(k), iterations = s.rhs[k].iterations;
      fewest = per_rhs.empty() ? iterations : std::min(fewest, iterations);
      most = std::max(most, iterations);
      const double scale = k < s.rhs_scale.size() ? s.rhs_scale[k] : s.scale;
      per_rhs.push_back({{"rhs", r}, {"iterations", iterations}, {"converged", s.rhs[k].converged}, {"stop", to_string(s.rhs[k].stop)},
                         {"residual", s.rhs[k].relative_residual * scale}, {"true_residual", reference.residuals.at(static_cast<std::size_t>(r))},
                         {"time_s", s.time_s / s.count}});
    }
  if (n > 1)
    std::printf("per right-hand side: %d to %d iterations, %.4f s each (%s)\n", fewest, most, t.time_s / n,
                per_solve > 1 ? "the block's time over its right-hand sides" : "one solve each");
  nlohmann::json profile;
  if (o.profile) {
    const double time_s = t.time_s, launches = out.launch_seconds;
    std::printf("profile: the solve's %.4f s by launch%s (each launch waits for its end, so the solve is slower than without --profile)\n", time_s,
                distributed ? " on rank 0" : "");
    std::printf("  %-44s %14s %12s %7s   %s\n", "launch", "calls", "total", "share", "ms a call: min / mean / max");
    for (const LaunchTime& e : out.launches) {
      std::printf("  %-44s %8lld calls %10.4f s %6.1f%%   %.3f / %.3f / %.3f\n", e.label.c_str(), static_cast<long long>(e.calls), e.seconds,
                  100 * e.seconds / time_s, 1e3 * e.min_s, 1e3 * e.seconds / static_cast<double>(e.calls), 1e3 * e.max_s);
      profile["launches"].push_back({{"label", e.label}, {"calls", e.calls}, {"seconds", e.seconds}, {"min_seconds", e.min_s}, {"max_seconds", e.max_s}});
    }
    std::printf("  %-44s %25.4f s %6.1f%%\n", "outside launches (copies, MPI, host)", time_s - launches, 100 * (time_s - launches) / time_s);
    profile["outside_launches_s"] = time_s - launches;
  }

  if (!o.json.empty()) {
    nlohmann::json solves = nlohmann::json::array();
    for (const SolveRecord& s : out.solves) {
      nlohmann::json history = nlohmann::json::array(), reliable = nlohmann::json::array();
      for (double h : s.result.history) history.push_back(h * s.scale);
      for (const TrueResidual& u : s.result.reliable_updates) reliable.push_back({{"iteration", u.iteration}, {"residual", u.relative * s.scale}});
      solves.push_back({{"first_rhs", s.first}, {"rhs", s.count}, {"converged", s.result.converged}, {"iterations", s.result.iterations},
                        {"time_s", s.time_s}, {"setup_s", s.result.setup_seconds}, {"residual", s.result.relative_residual * s.scale},
                        {"stop", to_string(s.result.stop)}, {"breakdown", s.result.breakdown},
                        {"history", history}, {"reliable_updates", reliable}, {"dslash_applications", s.precise_dslash + s.sloppy_dslash}});
    }
    nlohmann::json config = {
        {"lattice", g.extents()}, {"gauge", o.random ? "random, seed " + std::to_string(o.seed) : o.gauge},
        {"source", !o.in.empty() ? o.in : o.point_source ? "point" : o.source + ", seed " + std::to_string(o.seed)},
        {"point_source", o.point_source ? nlohmann::json(*o.point_source) : nlohmann::json(nullptr)},
        {"nrhs", n}, {"mass", o.mass}, {"solver", to_string(o.solver)}, {"prec", to_string(o.prec)}, {"tol", o.tol}, {"maxiter", o.maxiter},
        {"reliable_delta", o.reliable_delta}, {"kernel", to_string(o.kernel)}, {"dispatch", to_string(cfg.dispatch)},
        {"simd", to_string(cfg.isa)}, {"layout", to_string(cfg.layout)},
        {"compress", o.k.compress}, {"compress_sloppy", o.sloppy_compress()}, {"sloppy", o.prec != SolvePrecision::Mixed ? "none" : o.sloppy_half ? "half" : "single"}, {"rhs_per_solve", per_solve}, {"threads", omp_get_max_threads()},
        {"grid", o.mpi.grid.empty() ? "1.1.1.1" : o.mpi.grid}, {"ranks", mpi_world_size()},
        {"halo_transport", out.halo ? out.halo->transport : "none"},
        {"backend", to_string(o.backend)}, {"git", bench::git_revision()}, {"compiler", bench::compiler_description()}, {"flags", bench::build_flags()},
        {"host", bench::host_name()}, {"date", bench::now_iso8601()}};
    const SolveRecord* unconverged = out.first_unconverged();
    const Stop stop = unconverged ? unconverged->result.stop : Stop::Converged;  // the first unconverged solve's
    bench::write_json(o.json, {{"config", config}, {"converged", converged}, {"stop", to_string(stop)}, {"iterations", t.iterations},
                               {"reliable_updates", t.reliable_updates},
                               {"time_s", t.time_s}, {"time_per_iteration_s", t.per_iteration_s()},
                               {"dslash_applications", {{"double", t.in_double}, {"single", t.in_single}}}, {"dslash_gflops", t.gflops()},
                               {"dslash_s", t.dslash_s}, {"solve_over_dslash", t.over_dslash()}, {"setup_s", t.setup_s},
                               {"solve_over_dslash_without_setup", t.over_dslash_without_setup()}, {"true_residual", worst},
                               {"reference_confirms", reference.confirms},
                               {"true_residuals", reference.residuals}, {"time_per_rhs_s", t.time_s / n}, {"per_rhs", per_rhs},
                               {"solves", solves}, {"profile", profile},
                               {"halo_hops_read_in_place", out.halo ? out.halo->read_in_place : 0}});
  }
  if (const SolveRecord* unconverged = out.first_unconverged()) {
    const SolveRecord& s = *unconverged;
    const std::string why = s.result.stop == Stop::IterationLimit ? "the iteration limit" : to_string(s.result.stop) + (": " + s.result.breakdown);
    // The first right-hand side of the call that did not converge (a block's: its own figures).
    std::size_t k = 0;
    while (k + 1 < s.rhs.size() && s.rhs[k].converged) ++k;
    const SolverResult& one = s.rhs.empty() ? s.result : s.rhs[k];
    const double scale = k < s.rhs_scale.size() ? s.rhs_scale[k] : s.scale;
    std::fprintf(stderr, "dslash: solve did not converge: right-hand side %d stopped after %d iterations at residual %.3e > --tol %.1e (%s)%s\n",
                 s.first + static_cast<int>(k), one.iterations, one.relative_residual * scale, o.tol, why.c_str(), o.out.empty() ? "" : "; x not written");
    return false;
  }
  if (!reference.confirms) {
    std::fprintf(stderr, "dslash: the solver converged, but the reference operator finds ||b - M x|| / ||b|| = %.3e, over 100x --tol %.1e: "
                         "the solver's operator is not M%s\n", worst, o.tol, o.out.empty() ? "" : "; x not written");
    return false;
  }
  if (!o.out.empty()) {
    io::write_spinors_npy(o.out, out.x, o.prec == SolvePrecision::Single ? io::NpyDtype::Complex64 : io::NpyDtype::Complex128, in.batched);
    std::printf("wrote %s: %s\n", o.out.c_str(), rhs_text(n).c_str());
  }
  return true;
}

}  // namespace dslash::cli
