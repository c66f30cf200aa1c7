// dslash solve (--gauge U.nersc | --random --lattice L [--seed N]) (--in b.npy | --point-source x.y.z.t | --source random [--nrhs N])
//              --mass m [--out x.npy] [--solver cg|bicgstab] [--prec double|single|mixed] [--tol 1e-10] [--maxiter N]
//              [--kernel naive|mrhs|vnode] [--dispatch ...] [--simd ...] [--compress 18|12|8] [--compress-sloppy 18|12|8]
//              [--threads N] [--print-every N] [--json FILE]
//              [--backend cpu|cuda] [--mpi a.b.c.d [--comms-overlap on|off|chunks|thread] [--gpu-per-rank]] [--profile]
//
// Solves the Wilson system M x = b (CONVENTIONS.md) through the even sites (the solve driver,
// solvers/solve_driver.hpp), reports the iterations, reliable updates, time, the Dslash rate inside
// the solver and the residual recomputed with the scalar reference operator in double on the full
// lattice. Exit 1 when a solve does not converge (x is then not written; the JSON is). Under mpirun
// (--mpi), rank 0 reads or makes the gauge field and the sources and scatters them, every rank
// solves on its block with the halo-exchanging operator (mpi::HaloHopping), and rank 0 gathers x,
// checks it and reports (cmd_solve_mpi.cpp). This file reads the options and runs the solve; what
// it reads and writes is solve_io.cpp's.
#include <omp.h>
#include <unistd.h>

#include <cstdio>

#include "cli/solve_options.hpp"

namespace dslash::cli {

const char* to_string(SolveMethod m) { return m == SolveMethod::Cgnr ? "cg" : "bicgstab"; }
const char* to_string(SolvePrecision p) {
  return p == SolvePrecision::Double ? "double" : p == SolvePrecision::Single ? "single" : "mixed";
}

SolveConfig solve_config(const SolveOptions& o, int per_solve, int print_every) {
  SolveConfig c{.method = o.solver,
                .precision = o.prec,
                .backend = o.backend == Backend::Cuda ? SolveBackend::Cuda : SolveBackend::Cpu,
                .mass = o.mass,
                .tolerance = o.tol,
                .max_iterations = o.maxiter,
                .reliable_delta = o.reliable_delta,
                .kernel = o.k.config(o.kernel, per_solve),
                .sloppy_compress = o.sloppy_compress(),
                .sloppy_half = o.sloppy_half,
                .profile = o.profile};
  if (print_every <= 0) return c;
  // On a terminal one line, rewritten in place; else a line every print_every iterations.
  const bool terminal = isatty(fileno(stderr)) != 0;
  c.on_iteration = [print_every, terminal](const SolveProgress& p) {
    if (p.iteration % print_every != 0) return;
    const char* update = p.reliable_update ? " (reliable update)" : "";
    if (terminal) std::fprintf(stderr, "\rsolve %d/%d: iteration %d, residual %.3e%s   ", p.solve + 1, p.solves, p.iteration, p.residual, update);
    else std::fprintf(stderr, "solve %d/%d: iteration %d, residual %.3e%s\n", p.solve + 1, p.solves, p.iteration, p.residual, update);
  };
  if (terminal) c.on_solve_end = [](int) { std::fprintf(stderr, "\n"); };
  return c;
}

void add_solve_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<SolveOptions>();
  auto* cmd = app.add_subcommand("solve", "solve the Wilson system M x = b (even-odd CGNR or BiCGStab, double, single or mixed precision)");
  auto* gauge = cmd->add_option("--gauge", o->gauge, "NERSC gauge file")->check(CLI::ExistingFile);
  auto* random = cmd->add_flag("--random", o->random, "a random SU(3) gauge field instead (with --lattice and --seed, as `dslash gauge`)");
  gauge->excludes(random);
  add_lattice_option(*cmd, o->dims)->needs(random);
  auto* in = cmd->add_option("--in", o->in, "source b: .npy spinor(s), full lattice")->check(CLI::ExistingFile);
  auto* source = cmd->add_option("--source", o->source, "no --in: Gaussian sources (seed + r) [default]")->check(CLI::IsMember({"random"}))->excludes(in);
  auto* point = cmd->add_option_function<std::string>(
                       "--point-source",
                       [o](const std::string& text) {
                         const Coord x = [&] {
                           try {
                             return parse_extents(text);
                           } catch (const std::invalid_argument&) {
                             throw std::invalid_argument("--point-source '" + text + "': expected a site x.y.z.t, x first");
                           }
                         }();
                         for (int c : x)
                           if (c < 0) throw std::invalid_argument("--point-source '" + text + "': coordinates must be >= 0");
                         o->point_source = x;
                       },
                       "the 12 spin-colour point sources at site x.y.z.t (x first, as --lattice; source 3 spin + colour), solved into one "
                       "propagator of shape (12, L3, L2, L1, L0, 4, 3)")
                   ->type_name("x.y.z.t")
                   ->excludes(in)
                   ->excludes(source);
  add_seed_option(*cmd, o->seed, "random seed of --random and --source random");
  add_int_option(*cmd, "--nrhs", o->nrhs, 1, kMaxRhs, "right-hand sides (default: as many as --in holds, else 1); --kernel mrhs solves them in one block")
      ->excludes(point);
  cmd->add_option("--out", o->out, "write the solution(s) x here (.npy, full lattice)");
  add_real_option(*cmd, "--mass", o->mass, "bare mass m: M = (4 + m) - D/2")->required();
  add_choice_option(*cmd, "--solver", o->solver, {{"cg", SolveMethod::Cgnr}, {"bicgstab", SolveMethod::BiCGStab}},
                    "CG on the normal equations, or BiCGStab");
  add_choice_option(*cmd, "--prec", o->prec,
                    {{"double", SolvePrecision::Double}, {"single", SolvePrecision::Single}, {"mixed", SolvePrecision::Mixed}},
                    "precision: mixed iterates in single and keeps x and the true residual in double");
  add_real_option(*cmd, "--tol", o->tol, "stop when ||b - M x|| / ||b|| <= tol")->default_str("1e-10");
  add_int_option(*cmd, "--maxiter", o->maxiter, 1, 100000000, "iteration limit per solve")->default_str(std::to_string(o->maxiter));
  add_real_option(*cmd, "--reliable-delta", o->reliable_delta,
                  "recompute the true residual in the precise precision when the iterated one has fallen by this factor, in (0, 1)")
      ->default_str("0.01");
  add_kernel_option(*cmd, o->kernel, "Dslash kernel");
  add_launch_options(*cmd, o->k);
  add_compress_option(*cmd, o->k.compress);
  cmd->add_option("--compress-sloppy", o->compress_sloppy,
                  "--prec mixed: the reals per link of the single-precision operator (QUDA's --recon-sloppy) [default: as --compress]")
      ->check(CLI::IsMember({18, 12, 8}));
  add_choice_option(*cmd, "--sloppy", o->sloppy_half, {{"single", false}, {"half", true}},
                    "--prec mixed: the iterated operator's storage, single or half (16-bit, single's arithmetic: a double-half solve)");
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
    if (o->backend == Backend::Cuda) require_cuda(*cmd, {"--simd", "--threads", "--schedule"}, distributed);
    o->mpi.check_backend(o->backend);
    if (o->gauge.empty() && !o->random) throw std::invalid_argument("solve: give the gauge field: --gauge U.nersc, or --random with --lattice");
    if (o->random && cmd->count("--lattice") == 0) throw std::invalid_argument("solve: --random needs --lattice");
    if (o->in.empty() && o->source.empty() && !o->point_source) o->source = "random";
    if (o->random) check_point_source(*o, Geometry(o->dims));  // before any work; a --gauge file's lattice is checked once read
    if (!o->random && o->source != "random") reject_given(*cmd, {"--seed"}, "without --random or --source random");
    reject_simd_for_naive(o->kernel, o->k.simd);
    if (!(4 + o->mass > 0)) throw std::invalid_argument("--mass " + cmd->get_option("--mass")->as<std::string>() + ": 4 + m must be positive (the Wilson matrix's diagonal)");
    if (o->compress_sloppy != 0 && o->prec != SolvePrecision::Mixed) throw std::invalid_argument("--compress-sloppy applies to --prec mixed");
    if (cmd->count("--sloppy") != 0 && o->prec != SolvePrecision::Mixed) throw std::invalid_argument("--sloppy applies to --prec mixed");
    if (!(o->tol > 0)) throw std::invalid_argument("--tol must be positive");
    if (!(o->reliable_delta > 0 && o->reliable_delta < 1)) throw std::invalid_argument("--reliable-delta must be in (0, 1)");
    if (o->threads > 0) {
      omp_set_num_threads(o->threads);
      warn_if_oversubscribed(o->threads);
    }
    if (o->backend == Backend::Cpu && o->k.team_size > 0) warn_if_team_oversubscribes(o->k.team_size, omp_get_max_threads());
    check_files({{"--gauge", o->gauge}, {"--in", o->in}}, {{"--out", o->out}, {"--json", o->json}});

    const int print_every = o->print_every >= 0 ? o->print_every : (isatty(fileno(stderr)) ? 10 : 0);
    SolveInputs inputs;
    SolveOutcome out;
    std::string where;
    if (distributed) {
#if defined(DSLASH_HAVE_MPI)
      out = solve_distributed(*o, print_every, inputs, where);
#endif
    } else {
      inputs.u.emplace(gauge_field(*o));
      check_links(*o, *inputs.u);
      inputs.b = sources(*o, inputs.u->geometry(), inputs.batched);
      out = solve_wilson(solve_config(*o, o->per_solve(static_cast<int>(inputs.b.size())), print_every), *inputs.u, inputs.b);
      where = "lattice " + inputs.u->geometry().to_string();
    }
    // Every rank has the same verdict (the solvers' sums are global); rank 0 alone reports.
    if (!out.converged()) exit_code = 1;
    if (inputs.u && !report_solve(*o, inputs, out, where, distributed)) exit_code = 1;
  });
}

}  // namespace dslash::cli
