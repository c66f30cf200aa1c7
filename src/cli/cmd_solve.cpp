// dslash solve (--gauge U.nersc | --random --lattice L [--seed N]) (--in b.npy | --source point|random [--nrhs N])
//              --mass m [--out x.npy] [--solver cg|bicgstab] [--prec double|single|mixed] [--tol 1e-10] [--maxiter N]
//              [--kernel naive|mrhs|vnode] [--dispatch ...] [--simd ...] [--compress 18|12|8] [--compress-sloppy 18|12|8]
//              [--threads N] [--print-every N] [--json FILE]
//              [--backend cpu|cuda] [--mpi a.b.c.d [--comms-overlap on|off|chunks|thread] [--gpu-per-rank]] [--profile]
//
// Solves the Wilson system M x = b (CONVENTIONS.md) through the even sites (solvers/), reports the
// iterations, reliable updates, time, the Dslash rate inside the solver and the residual recomputed
// with the scalar reference operator in double on the full lattice. Exit 1 when a solve does not
// converge (x is then not written; the JSON is). Under mpirun (--mpi), rank 0 reads or makes the
// gauge field and the sources and scatters them, every rank solves on its block with the
// halo-exchanging operator (mpi::HaloHopping), and rank 0 gathers x, checks it and reports.
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <type_traits>

#include "bench/machine.hpp"
#include "bench/report.hpp"
#include "cli/commands.hpp"
#include "dslash/lattice/field_ops.hpp"
#include "io/nersc.hpp"
#include "io/npy.hpp"
#include "kernels/dslash_kernel.hpp"
#include "kernels/reference_dslash.hpp"
#include "solvers/bicgstab.hpp"
#include "solvers/cg.hpp"
#if defined(DSLASH_HAVE_CUDA)
#include "dslash/core/backend/cuda/space.hpp"
#endif
#if defined(DSLASH_HAVE_MPI)
#include "mpi/distributed_fields.hpp"
#include "mpi/halo_hopping.hpp"
#include "mpi/mpi_session.hpp"
#if defined(DSLASH_HAVE_CUDA)
#include "mpi/gpu_ranks.hpp"
#endif
#endif

namespace dslash::mpi {
class ProcessGrid;  // a null pointer to one is a single-process solve, in every build
}

namespace dslash::cli {

namespace {

struct SolveOptions {
  std::string gauge, in, out, json, source, solver = "cg", prec = "double", kernel = "naive", backend = "cpu";
  Coord dims{};
  bool random = false;
  std::uint64_t seed = 1;
  double mass = 0, tol = 1e-10, reliable_delta = SolverParams{}.reliable_delta;
  int maxiter = 1000, nrhs = 0, threads = 0;
  int compress_sloppy = 0;  // --prec mixed (refused otherwise): the reals per link of the single-precision operator (0: as --compress)
  int print_every = -1;  // -1: not given (10 on a terminal, else none)
  bool profile = false;
  KernelOptions k;
  MpiOptions mpi;
  int sloppy_compress() const { return compress_sloppy != 0 ? compress_sloppy : k.compress; }
};

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// One solver call: right-hand sides [first, first + count) together (mrhs), or one.
struct SolveRecord {
  int first = 0, count = 1;
  SolverResult result = {};
  double time_s = 0;
  double scale = 1;  // ||b_hat|| / ||b||: the even system's relative residuals in units of the full source's norm
  std::int64_t precise_dslash = 0, sloppy_dslash = 0;  // hopping applications in each operator
  double dslash_s = 0;  // the time inside them
};

// --profile: every launch inside the solver calls (Dslash kernels, BLAS, conversions), by label,
// timed to its end (core/profiling.hpp fences it). The rest of a solve's time is outside launches:
// copies, MPI waits, the host's own work.
class LaunchProfile {
 public:
  struct Entry {
    std::int64_t calls = 0;
    double seconds = 0;
    // The fastest and slowest call: a mean alone does not say whether every call is slow or a few
    // are (a core held up, a cold cache after the Dslash).
    double min_s = 0, max_s = 0;
  };
  void start() {
    set_kernel_hook([this](std::string_view label, double seconds) {
      const std::lock_guard<std::mutex> lock(mutex_);  // a progress thread may launch too
      Entry& e = entries_[std::string(label)];
      e.min_s = e.calls == 0 ? seconds : std::min(e.min_s, seconds);
      e.max_s = std::max(e.max_s, seconds);
      ++e.calls;
      e.seconds += seconds;
    });
  }
  void stop() { set_kernel_hook(nullptr); }
  // By time, longest first.
  std::vector<std::pair<std::string, Entry>> by_time() const {
    std::vector<std::pair<std::string, Entry>> v(entries_.begin(), entries_.end());
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second.seconds > b.second.seconds; });
    return v;
  }
  double total_seconds() const {
    double t = 0;
    for (const auto& [label, e] : entries_) t += e.seconds;
    return t;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, Entry> entries_;
};

// Under MPI: how the operators' halos travelled (HaloDslash::transport, the precise operator's), and
// how many of their hops (both operators', with the setup's) read the halo in place.
struct HaloUse {
  std::string transport;
  std::int64_t read_in_place = 0, hops = 0;
};

struct Outcome {
  std::vector<SolveRecord> solves;
  std::optional<HaloUse> halo;  // under MPI
  std::vector<SpinorField<double>> x;  // full lattice, one per right-hand side (under MPI: on rank 0)
  DslashConfig config;                 // what the operator's kernels run with (on the GPU: simt, left)
  std::string where;                   // "lattice 8x8x8x8", or the process grid
  std::shared_ptr<LaunchProfile> profile;  // with --profile: this process's launches
};

// A progress report per iteration on stderr: a line every `every` iterations, or on a terminal one
// line rewritten in place. Residuals in units of the full source (`scale`).
std::function<void(int, double, bool)> progress(int every, bool terminal, const std::string& what, double scale) {
  if (every <= 0) return {};
  return [every, terminal, what, scale](int iteration, double relative, bool update) {
    if (iteration % every != 0) return;
    if (terminal) std::fprintf(stderr, "\r%s: iteration %d, residual %.3e%s   ", what.c_str(), iteration, relative * scale, update ? " (reliable update)" : "");
    else std::fprintf(stderr, "%s: iteration %d, residual %.3e%s\n", what.c_str(), iteration, relative * scale, update ? " (reliable update)" : "");
  };
}

// The even-odd operator in precision R on this process's lattice: on its own kernels, or over the
// ranks of `grid`.
template <class R, class Space>
EvenOddWilson<R, Space> make_operator(const SolveOptions& o, const GaugeField<double>& u, const DslashConfig& request, const mpi::ProcessGrid* grid) {
  const DslashConfig cfg = with_host_cache_policy<R, Space>(request, u.geometry());
#if defined(DSLASH_HAVE_MPI)
  if (grid) {
    const auto hopping = std::make_shared<const mpi::HaloHopping<R, Space>>(*grid, convert_precision<R>(u), cfg, mpi::parse_progress(o.mpi.overlap),
                                                                            mpi::HaloOptions{.gpu_halo = mpi::parse_gpu_halo(o.mpi.gpu_halo),
                                                                                             .cpu_halo = mpi::parse_cpu_halo(o.mpi.cpu_halo),
                                                                                             .complete = mpi::parse_halo_complete(o.mpi.halo_complete)});
    return EvenOddWilson<R, Space>(hopping, o.mass);
  }
#endif
  (void)grid;
  return EvenOddWilson<R, Space>(convert_precision<R>(u), o.mass, cfg);
}

// The halo's use by an operator over MPI ranks: nothing for one on its own kernels.
template <class R, class Space>
void add_halo_use(const EvenOddWilson<R, Space>& op, std::optional<HaloUse>& use) {
#if defined(DSLASH_HAVE_MPI)
  if (const auto* halo = dynamic_cast<const mpi::HaloHopping<R, Space>*>(&op.hopping())) {
    if (!use) use = HaloUse{.transport = halo->transport()};
    use->read_in_place += halo->calls_read_in_place();
    use->hops += op.dslash_count();
  }
#endif
  (void)op, (void)use;
}

// Every solve in precision Real, iterating in Sloppy (Real = Sloppy: one precision; double and
// float: mixed precision with reliable updates), with the vectors and kernels in Space (HostSpace:
// the CPU; CudaSpace: the GPU, the fields crossing to the host only before and after each solve).
// u, b and the x returned are this process's block (the whole lattice without `grid`).
template <class Real, class Sloppy, class Space>
Outcome solve_all(const SolveOptions& o, const GaugeField<double>& u, const std::vector<SpinorField<double>>& b, int per_solve, int print_every,
                  const mpi::ProcessGrid* grid) {
  const Geometry& g = u.geometry();
  const DslashConfig cfg = o.k.config(parse_kernel(o.kernel), per_solve);
  const EvenOddWilson<Real, Space> op = make_operator<Real, Space>(o, u, cfg, grid);
  std::optional<EvenOddWilson<Sloppy, Space>> own_sloppy;
  if constexpr (!std::is_same_v<Real, Sloppy>) {
    DslashConfig sloppy_cfg = cfg;
    sloppy_cfg.compress = o.sloppy_compress();
    own_sloppy.emplace(make_operator<Sloppy, Space>(o, u, sloppy_cfg, grid));
  }
  const EvenOddWilson<Sloppy, Space>& sloppy = [&]() -> const EvenOddWilson<Sloppy, Space>& {
    if constexpr (std::is_same_v<Real, Sloppy>) return op;
    else return *own_sloppy;
  }();
  const bool terminal = isatty(fileno(stderr)) != 0;

  Outcome out;
  out.config = op.config();
  if (o.profile) out.profile = std::make_shared<LaunchProfile>();
  const auto be = op.allocate("b_e"), bo = op.allocate("b_o"), b_hat = op.allocate("b_hat"), xe = op.allocate("x_e"), xo = op.allocate("x_o");
  for (int first = 0; first < static_cast<int>(b.size()); first += per_solve) {
    std::vector<SpinorField<Real>> even, odd;
    for (int r = first; r < first + per_solve; ++r) {
      const SpinorField<Real> full = convert_precision<Real>(b[static_cast<std::size_t>(r)]);
      copy_sites(full, even.emplace_back(g, Subset::Even));
      copy_sites(full, odd.emplace_back(g, Subset::Odd));
    }
    op.pack(even, be);
    op.pack(odd, bo);
    op.prepare_source(be, bo, b_hat);
    SolveRecord rec{.first = first, .count = per_solve};
    // The odd rows are solved exactly, so ||b - M x|| = ||b_hat - M_ee_hat x_e||: the even system's
    // tolerance is the full one's times ||b|| / ||b_hat||.
    rec.scale = std::sqrt(op.norm2(b_hat) / (op.norm2(be) + op.norm2(bo)));
    const std::string what = "solve " + std::to_string(first / per_solve + 1) + "/" + std::to_string(b.size() / static_cast<std::size_t>(per_solve));
    SolverParams params{.tolerance = o.tol / rec.scale, .max_iterations = o.maxiter, .reliable_delta = o.reliable_delta};
    params.progress = progress(print_every, terminal, what, rec.scale);
    deep_copy(xe, Real(0));
    const std::int64_t precise0 = op.dslash_count(), sloppy0 = sloppy.dslash_count();
    // Both operators' Dslash time (one operator when Real = Sloppy).
    const auto dslash_seconds = [&] {
      if constexpr (std::is_same_v<Real, Sloppy>) return op.dslash_seconds();
      else return op.dslash_seconds() + sloppy.dslash_seconds();
    };
    const double seconds0 = dslash_seconds();
    if (out.profile) out.profile->start();
    const auto t0 = Clock::now();
    rec.result = o.solver == "cg" ? cgnr(op, sloppy, b_hat, xe, params) : bicgstab(op, sloppy, b_hat, xe, params);
    rec.time_s = seconds_since(t0);
    if (out.profile) out.profile->stop();
    rec.precise_dslash = op.dslash_count() - precise0;
    if constexpr (!std::is_same_v<Real, Sloppy>) rec.sloppy_dslash = sloppy.dslash_count() - sloppy0;
    rec.dslash_s = dslash_seconds() - seconds0;
    if (print_every > 0 && terminal) std::fprintf(stderr, "\n");
    op.reconstruct(xe, bo, xo);
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
  return out;
}

template <class Real, class Sloppy>
Outcome solve_on(const SolveOptions& o, const GaugeField<double>& u, const std::vector<SpinorField<double>>& b, int per_solve, int print_every,
                 const mpi::ProcessGrid* grid) {
#if defined(DSLASH_HAVE_CUDA)
  if (o.backend == "cuda") return solve_all<Real, Sloppy, CudaSpace>(o, u, b, per_solve, print_every, grid);
#endif
  return solve_all<Real, Sloppy, HostSpace>(o, u, b, per_solve, print_every, grid);
}

Outcome solve_in(const SolveOptions& o, const GaugeField<double>& u, const std::vector<SpinorField<double>>& b, int per_solve, int print_every,
                 const mpi::ProcessGrid* grid) {
  if (o.prec == "double") return solve_on<double, double>(o, u, b, per_solve, print_every, grid);
  if (o.prec == "single") return solve_on<float, float>(o, u, b, per_solve, print_every, grid);
  return solve_on<double, float>(o, u, b, per_solve, print_every, grid);
}

// The gauge field of --gauge or --random.
GaugeField<double> gauge_field(const SolveOptions& o) {
  if (!o.random) return io::read_nersc<double>(o.gauge);
  GaugeField<double> r{Geometry(o.dims)};
  fill_random_su3(r, o.seed);
  return r;
}

// The links each operator stores, compressed as asked, in its precision, checked before the
// operators are made so that a refusal names the option that asked for it (the kernels, which
// check again, know only the number; under MPI rank 0 checks the whole field first).
void check_links(const SolveOptions& o, const GaugeField<double>& u) {
  if (o.prec != "single") check_compressible(u, o.k.compress);
  if (o.prec != "double")
    check_compressible(convert_precision<float>(u), o.sloppy_compress(), o.compress_sloppy != 0 ? "--compress-sloppy" : "--compress");
}

#if defined(DSLASH_HAVE_MPI)
std::vector<SpinorField<double>> sources(const SolveOptions& o, const Geometry& g, bool& batched);

// Under mpirun: rank 0 makes u and b (collectively: an error there stops every rank with its
// message) and scatters them, every rank solves its block, and x comes back whole to rank 0 (u and
// b too stay whole there; elsewhere they and x are empty).
Outcome solve_distributed(const SolveOptions& o, std::optional<GaugeField<double>>& u, std::vector<SpinorField<double>>& b, bool& batched,
                          int print_every) {
#if defined(DSLASH_HAVE_CUDA)
  if (o.backend == "cuda") mpi::bind_gpu(MPI_COMM_WORLD, o.mpi.gpu_per_rank);
#endif
  const bool root = mpi_world_rank() == 0;
  mpi::collectively([&] {
    if (!root) return;
    u.emplace(gauge_field(o));
    check_links(o, *u);  // here, so that a link no rank could store fails every rank with one message
    b = sources(o, u->geometry(), batched);
  });
  const Coord lattice = mpi::broadcast(u ? u->geometry().extents() : Coord{});
  int n = static_cast<int>(b.size());
  MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  const mpi::ProcessGrid grid(mpi::parse_grid(o.mpi.grid), lattice);
  const GaugeField<double> u_local = mpi::scatter(grid, u ? &*u : nullptr);
  std::vector<SpinorField<double>> b_local;
  for (int r = 0; r < n; ++r) b_local.push_back(mpi::scatter(grid, root ? &b[static_cast<std::size_t>(r)] : nullptr, Subset::Full));
  Outcome out = solve_in(o, u_local, b_local, o.kernel == "mrhs" ? n : 1, root ? print_every : 0, &grid);
  std::vector<SpinorField<double>> x;
  for (const SpinorField<double>& x_local : out.x)
    if (auto whole = mpi::gather(grid, x_local)) x.push_back(std::move(*whole));
  out.x = std::move(x);
  out.where = grid.describe();
  return out;
}
#endif

// The right-hand sides: from --in, or --source point (right-hand side r: 1 at lattice site r / 12,
// spin-colour r % 12) or random (Gaussian, seed + r, as `dslash spinor`).
std::vector<SpinorField<double>> sources(const SolveOptions& o, const Geometry& g, bool& batched) {
  std::vector<SpinorField<double>> b;
  if (!o.in.empty()) {
    b = io::read_spinors_npy<double>(o.in, g, &batched);
    if (o.nrhs != 0 && o.nrhs != static_cast<int>(b.size()))
      throw std::invalid_argument("solve: --nrhs " + std::to_string(o.nrhs) + " but " + o.in + " holds " + std::to_string(b.size()) + " spinor(s)");
    // --prec single and mixed iterate on b in single precision.
    if (o.prec != "double")
      if (const auto bad = io::first_unrepresentable_element<float>(b, batched))
        throw std::invalid_argument(o.in + ": " + *bad + " (--prec " + o.prec + ")");
    for (std::size_t r = 0; r < b.size(); ++r) {
      const std::string spinor = "solve: spinor " + std::to_string(r) + " of " + o.in;
      const double b_norm2 = norm2(b[r]);
      if (b_norm2 == 0) throw std::invalid_argument(spinor + " is zero: M x = 0 needs no solver");
      // Every residual is relative to ||b||, and every norm a sum of squares in double.
      if (!std::isfinite(b_norm2)) throw std::invalid_argument(spinor + ": ||b||^2 overflows double; scale it down (x scales with it)");
    }
    return b;
  }
  const int n = o.nrhs == 0 ? 1 : o.nrhs;
  batched = n > 1;
  if (o.source == "point" && n > 12 * g.volume()) throw std::invalid_argument("solve: --nrhs " + std::to_string(n) + " point sources do not fit the lattice");
  for (int r = 0; r < n; ++r) {
    SpinorField<double>& f = b.emplace_back(g, Subset::Full, "b");
    if (o.source == "random") {
      fill_gaussian(f, o.seed + static_cast<std::uint64_t>(r));
    } else {
      fill_zero(f);
      f(r / 12, r % 12 / 3, r % 3) = 1;
    }
  }
  return b;
}

// ||b - M x|| / ||b|| with the scalar reference Wilson matrix in double on the full lattice.
double reference_residual(const GaugeField<double>& u, const SpinorField<double>& b, const SpinorField<double>& x, double mass) {
  SpinorField<double> mx(u.geometry(), Subset::Full);
  wilson_matrix_reference(u, x, mx, mass);
  axpy(std::complex<double>(-1), b, mx);
  return std::sqrt(norm2(mx) / norm2(b));
}

std::string rhs_text(int n) { return std::to_string(n) + (n == 1 ? " right-hand side" : " right-hand sides"); }

}  // namespace

void add_solve_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<SolveOptions>();
  auto* cmd = app.add_subcommand("solve", "solve the Wilson system M x = b (even-odd CGNR or BiCGStab, double, single or mixed precision)");
  auto* gauge = cmd->add_option("--gauge", o->gauge, "NERSC gauge file")->check(CLI::ExistingFile);
  auto* random = cmd->add_flag("--random", o->random, "a random SU(3) gauge field instead (with --lattice and --seed, as `dslash gauge`)");
  gauge->excludes(random);
  add_lattice_option(*cmd, o->dims)->needs(random);
  auto* in = cmd->add_option("--in", o->in, "source b: .npy spinor(s), full lattice")->check(CLI::ExistingFile);
  cmd->add_option("--source", o->source, "no --in: point sources (1 at site r/12, spin-colour r%12) or Gaussian ones (seed + r) [default: random]")
      ->check(CLI::IsMember({"point", "random"}))->excludes(in);
  add_seed_option(*cmd, o->seed, "random seed of --random and --source random");
  add_int_option(*cmd, "--nrhs", o->nrhs, 1, kMaxRhs, "right-hand sides (default: as many as --in holds, else 1); --kernel mrhs solves them in one");
  cmd->add_option("--out", o->out, "write the solution(s) x here (.npy, full lattice)");
  add_real_option(*cmd, "--mass", o->mass, "bare mass m: M = (4 + m) - D/2")->required();
  cmd->add_option("--solver", o->solver, "CG on the normal equations, or BiCGStab")->check(CLI::IsMember({"cg", "bicgstab"}))->capture_default_str();
  cmd->add_option("--prec", o->prec, "precision: mixed iterates in single and keeps x and the true residual in double")
      ->check(CLI::IsMember({"double", "single", "mixed"}))->capture_default_str();
  add_real_option(*cmd, "--tol", o->tol, "stop when ||b - M x|| / ||b|| <= tol")->default_str("1e-10");
  add_int_option(*cmd, "--maxiter", o->maxiter, 1, 100000000, "iteration limit per solve")->default_str(std::to_string(o->maxiter));
  add_real_option(*cmd, "--reliable-delta", o->reliable_delta,
                  "recompute the true residual in the precise precision when the iterated one has fallen by this factor, in (0, 1)")
      ->default_str("0.01");
  cmd->add_option("--kernel", o->kernel, "Dslash kernel")->check(CLI::IsMember({"naive", "mrhs", "vnode"}))->capture_default_str();
  add_launch_options(*cmd, o->k);
  add_compress_option(*cmd, o->k.compress);
  cmd->add_option("--compress-sloppy", o->compress_sloppy,
                  "--prec mixed: the reals per link of the single-precision operator (QUDA's --recon-sloppy) [default: as --compress]")
      ->check(CLI::IsMember({18, 12, 8}));
  add_int_option(*cmd, "--threads", o->threads, 1, 4096, "OpenMP threads (default: OMP_NUM_THREADS or all cores)");
  add_schedule_option(*cmd);
  add_int_option(*cmd, "--print-every", o->print_every, 0, 100000000,
                 "the residual every N iterations on stderr (on a terminal one line, rewritten); 0: never [default: 10 on a terminal, else 0]");
  cmd->add_option("--json", o->json, "write the figures, the residual history and the configuration to this JSON file");
  cmd->add_flag("--profile", o->profile,
                "time every launch inside the solver (Dslash, BLAS, conversions; each waits for its end) and print where the time went, by label");
  add_backend_option(*cmd, o->backend);
  add_mpi_options(*cmd, o->mpi);
  cmd->callback([o, cmd, &exit_code] {
    const bool distributed = o->mpi.distributed();
    if (o->backend == "cuda") require_cuda(*cmd, {"--simd", "--threads", "--schedule"}, distributed);
    o->mpi.check_backend(o->backend);
    if (o->gauge.empty() && !o->random) throw std::invalid_argument("solve: give the gauge field: --gauge U.nersc, or --random with --lattice");
    if (o->random && cmd->count("--lattice") == 0) throw std::invalid_argument("solve: --random needs --lattice");
    if (o->in.empty() && o->source.empty()) o->source = "random";
    if (!o->random && o->source != "random") reject_given(*cmd, {"--seed"}, "without --random or --source random");
    reject_simd_for_naive(o->kernel, o->k.simd);
    if (!(4 + o->mass > 0)) throw std::invalid_argument("--mass " + cmd->get_option("--mass")->as<std::string>() + ": 4 + m must be positive (the Wilson matrix's diagonal)");
    if (o->compress_sloppy != 0 && o->prec != "mixed") throw std::invalid_argument("--compress-sloppy applies to --prec mixed");
    if (!(o->tol > 0)) throw std::invalid_argument("--tol must be positive");
    if (!(o->reliable_delta > 0 && o->reliable_delta < 1)) throw std::invalid_argument("--reliable-delta must be in (0, 1)");
    if (o->threads > 0) {
      omp_set_num_threads(o->threads);
      warn_if_oversubscribed(o->threads);
    }
    if (o->backend == "cpu" && o->k.team_size > 0) warn_if_team_oversubscribes(o->k.team_size, omp_get_max_threads());
    check_files({{"--gauge", o->gauge}, {"--in", o->in}}, {{"--out", o->out}, {"--json", o->json}});

    const int print_every = o->print_every >= 0 ? o->print_every : (isatty(fileno(stderr)) ? 10 : 0);
    std::optional<GaugeField<double>> u;  // the whole lattice (under MPI on rank 0 only, which reports)
    std::vector<SpinorField<double>> b;
    bool batched = false;
    Outcome out;
    if (distributed) {
#if defined(DSLASH_HAVE_MPI)
      out = solve_distributed(*o, u, b, batched, print_every);
#endif
    } else {
      u.emplace(gauge_field(*o));
      check_links(*o, *u);
      b = sources(*o, u->geometry(), batched);
      out = solve_in(*o, *u, b, o->kernel == "mrhs" ? static_cast<int>(b.size()) : 1, print_every, nullptr);
      out.where = "lattice " + u->geometry().to_string();
    }
    // Every rank has the same verdict (the solvers' sums are global); rank 0 alone reports.
    const bool converged = std::all_of(out.solves.begin(), out.solves.end(), [](const SolveRecord& r) { return r.result.converged; });
    if (!converged) exit_code = 1;
    const auto unconverged = std::find_if(out.solves.begin(), out.solves.end(), [](const SolveRecord& r) { return !r.result.converged; });
    if (!u) return;
    const Geometry& g = u->geometry();
    const int n = static_cast<int>(b.size());
    const int per_solve = out.solves.empty() ? 1 : out.solves.front().count;

    // The figures over every solve.
    int iterations = 0, updates = 0;
    double time_s = 0, flops = 0, dslash_s = 0, setup_s = 0;
    std::int64_t precise_dslash = 0, sloppy_dslash = 0;
    for (const SolveRecord& s : out.solves) {
      iterations += s.result.iterations;
      setup_s += s.result.setup_seconds;
      updates += static_cast<int>(s.result.reliable_updates.size());
      time_s += s.time_s;
      precise_dslash += s.precise_dslash;
      sloppy_dslash += s.sloppy_dslash;
      flops += 1320.0 * static_cast<double>(g.half_volume()) * s.count * static_cast<double>(s.precise_dslash + s.sloppy_dslash);
      dslash_s += s.dslash_s;
    }
    std::vector<double> residuals;
    double worst = 0;
    for (int r = 0; r < n; ++r) {
      residuals.push_back(reference_residual(*u, b[static_cast<std::size_t>(r)], out.x[static_cast<std::size_t>(r)], o->mass));
      if (!(residuals.back() <= worst)) worst = residuals.back();  // a NaN too: never a residual of 0 for an x that is NaN
    }
    const bool confirmed = reference_confirms(worst, o->tol, o->prec == "single");
    const double per_iteration = iterations > 0 ? time_s / iterations : 0;
    const double gflops = time_s > 0 ? flops / time_s / 1e9 : 0.0, over_dslash = dslash_s > 0 ? time_s / dslash_s : 0.0;
    // The iterations alone: the solver's allocations are setup (QUDA's preamble), not linear algebra.
    const double over_dslash_iterating = dslash_s > 0 ? (time_s - setup_s) / dslash_s : 0.0;
    // The applications by precision: the precise operator's are single only in a single-precision solve.
    const std::int64_t in_double = o->prec == "single" ? 0 : precise_dslash, in_single = o->prec == "single" ? precise_dslash : sloppy_dslash;
    const DslashConfig& cfg = out.config;

    const std::string links = o->sloppy_compress() != o->k.compress
                                  ? std::to_string(o->k.compress) + " / " + std::to_string(o->sloppy_compress()) + " (single)"
                                  : std::to_string(o->k.compress);
    std::printf("solve: %s, %s precision, kernel %s (%s, %s, %s, links %s reals), %s, m = %g, tol %.1e, %s%s\n", o->solver.c_str(), o->prec.c_str(),
                o->kernel.c_str(), o->backend.c_str(), to_string(cfg.dispatch), to_string(cfg.isa), links.c_str(), out.where.c_str(), o->mass, o->tol,
                rhs_text(n).c_str(), per_solve > 1 ? " in one solve" : "");
    std::printf("%s: %d iterations, %d reliable updates, %.4f s (%.4f s of it setup: allocating the solver's vectors), %.4f ms per iteration\n",
                converged ? "converged" : "NOT converged", iterations, updates, time_s, setup_s, 1e3 * per_iteration);
    std::printf("dslash: %lld applications (%lld single, %lld double), %.4f s, %.2f GFLOP/s; the solve takes %.2fx its Dslash time, "
                "%.2fx without its setup\n",
                static_cast<long long>(in_single + in_double), static_cast<long long>(in_single), static_cast<long long>(in_double), dslash_s,
                dslash_s > 0 ? flops / dslash_s / 1e9 : 0.0, over_dslash, over_dslash_iterating);
    if (out.halo)
      std::printf("halo: %s, %lld of the %lld hops (the solve's, the even-odd source's and the solution's) read it in place from the neighbours' inputs\n", out.halo->transport.c_str(),
                  static_cast<long long>(out.halo->read_in_place), static_cast<long long>(out.halo->hops));
    std::printf("solver: %.2f GFLOP/s of Dslash over the whole solve\n", gflops);
    std::printf("true residual ||b - M x|| / ||b|| = %.3e (reference operator, double, full lattice%s)\n", worst, n > 1 ? ", worst right-hand side" : "");
    nlohmann::json profile;
    if (out.profile) {
      const double launches = out.profile->total_seconds();
      std::printf("profile: the solve's %.4f s by launch%s (each launch waits for its end, so the solve is slower than without --profile)\n", time_s,
                  distributed ? " on rank 0" : "");
      std::printf("  %-44s %14s %12s %7s   %s\n", "launch", "calls", "total", "share", "ms a call: min / mean / max");
      for (const auto& [label, e] : out.profile->by_time()) {
        std::printf("  %-44s %8lld calls %10.4f s %6.1f%%   %.3f / %.3f / %.3f\n", label.c_str(), static_cast<long long>(e.calls), e.seconds,
                    100 * e.seconds / time_s, 1e3 * e.min_s, 1e3 * e.seconds / static_cast<double>(e.calls), 1e3 * e.max_s);
        profile["launches"].push_back({{"label", label}, {"calls", e.calls}, {"seconds", e.seconds}, {"min_seconds", e.min_s}, {"max_seconds", e.max_s}});
      }
      std::printf("  %-44s %25.4f s %6.1f%%\n", "outside launches (copies, MPI, host)", time_s - launches, 100 * (time_s - launches) / time_s);
      profile["outside_launches_s"] = time_s - launches;
    }

    if (!o->json.empty()) {
      nlohmann::json solves = nlohmann::json::array();
      for (const SolveRecord& s : out.solves) {
        nlohmann::json history = nlohmann::json::array(), reliable = nlohmann::json::array();
        for (double h : s.result.history) history.push_back(h * s.scale);
        for (const TrueResidual& t : s.result.reliable_updates) reliable.push_back({{"iteration", t.iteration}, {"residual", t.relative * s.scale}});
        solves.push_back({{"first_rhs", s.first}, {"rhs", s.count}, {"converged", s.result.converged}, {"iterations", s.result.iterations},
                          {"time_s", s.time_s}, {"setup_s", s.result.setup_seconds}, {"residual", s.result.relative_residual * s.scale},
                          {"stop", to_string(s.result.stop)}, {"breakdown", s.result.breakdown},
                          {"history", history}, {"reliable_updates", reliable}, {"dslash_applications", s.precise_dslash + s.sloppy_dslash}});
      }
      nlohmann::json config = {
          {"lattice", g.extents()}, {"gauge", o->random ? "random, seed " + std::to_string(o->seed) : o->gauge},
          {"source", o->in.empty() ? o->source + (o->source == "random" ? ", seed " + std::to_string(o->seed) : "") : o->in},
          {"nrhs", n}, {"mass", o->mass}, {"solver", o->solver}, {"prec", o->prec}, {"tol", o->tol}, {"maxiter", o->maxiter},
          {"reliable_delta", o->reliable_delta}, {"kernel", o->kernel}, {"dispatch", to_string(cfg.dispatch)},
          {"simd", to_string(cfg.isa)}, {"layout", to_string(cfg.layout)},
          {"compress", o->k.compress}, {"compress_sloppy", o->sloppy_compress()}, {"rhs_per_solve", per_solve}, {"threads", omp_get_max_threads()},
          {"grid", o->mpi.grid.empty() ? "1.1.1.1" : o->mpi.grid}, {"ranks", mpi_world_size()},
          {"halo_transport", out.halo ? out.halo->transport : "none"},
          {"backend", o->backend}, {"git", bench::git_revision()}, {"compiler", bench::compiler_description()}, {"flags", bench::build_flags()},
          {"host", bench::host_name()}, {"date", bench::now_iso8601()}};
      const Stop stop = unconverged == out.solves.end() ? Stop::Converged : unconverged->result.stop;  // the first unconverged solve's
      bench::write_json(o->json, {{"config", config}, {"converged", converged}, {"stop", to_string(stop)}, {"iterations", iterations},
                                  {"reliable_updates", updates},
                                  {"time_s", time_s}, {"time_per_iteration_s", per_iteration},
                                  {"dslash_applications", {{"double", in_double}, {"single", in_single}}}, {"dslash_gflops", gflops},
                                  {"dslash_s", dslash_s}, {"solve_over_dslash", over_dslash}, {"setup_s", setup_s},
                                  {"solve_over_dslash_without_setup", over_dslash_iterating}, {"true_residual", worst},
                                  {"reference_confirms", confirmed},
                                  {"true_residuals", residuals}, {"solves", solves}, {"profile", profile},
                                  {"halo_hops_read_in_place", out.halo ? out.halo->read_in_place : 0}});
    }
    if (!converged) {
      const SolveRecord& s = *unconverged;
      const std::string why = s.result.stop == Stop::IterationLimit ? "the iteration limit" : to_string(s.result.stop) + (": " + s.result.breakdown);
      std::fprintf(stderr, "dslash: solve did not converge: right-hand side %d stopped after %d iterations at residual %.3e > --tol %.1e (%s)%s\n",
                   s.first, s.result.iterations, s.result.relative_residual * s.scale, o->tol, why.c_str(), o->out.empty() ? "" : "; x not written");
      exit_code = 1;
      return;
    }
    if (!confirmed) {
      std::fprintf(stderr, "dslash: the solver converged, but the reference operator finds ||b - M x|| / ||b|| = %.3e, over 100x --tol %.1e: "
                           "the solver's operator is not M%s\n", worst, o->tol, o->out.empty() ? "" : "; x not written");
      exit_code = 1;
      return;
    }
    if (!o->out.empty()) {
      io::write_spinors_npy(o->out, out.x, o->prec == "single" ? io::NpyDtype::Complex64 : io::NpyDtype::Complex128, batched);
      std::printf("wrote %s: %s\n", o->out.c_str(), rhs_text(n).c_str());
    }
  });
}

}  // namespace dslash::cli
