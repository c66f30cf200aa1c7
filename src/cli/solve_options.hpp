#pragma once
// The options of `dslash solve`, shared by the command (cmd_solve.cpp), its run under mpirun
// (cmd_solve_mpi.cpp) and what it reads and writes (solve_io.cpp). The solve itself is the
// driver's (solvers/solve_driver.hpp).
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "solvers/solve_driver.hpp"

namespace dslash::cli {

// The names --solver and --prec take, which the report and the JSON print.
const char* to_string(SolveMethod m);     // cg, bicgstab
const char* to_string(SolvePrecision p);  // double, single, mixed

struct SolveOptions {
  std::string gauge, in, out, json, source;
  SolveMethod solver = SolveMethod::Cgnr;
  SolvePrecision prec = SolvePrecision::Double;
  KernelFamily kernel = KernelFamily::Naive;
  Backend backend = Backend::Cpu;
  Coord dims{};
  std::optional<Coord> point_source;  // --point-source x.y.z.t: the 12 spin-colour sources at that site
  bool random = false;
  std::uint64_t seed = 1;
  double mass = 0, tol = 1e-10, reliable_delta = SolverParams{}.reliable_delta;
  int maxiter = 1000, nrhs = 0, threads = 0;
  int compress_sloppy = 0;  // --prec mixed (refused otherwise): the reals per link of the single-precision operator (0: as --compress)
  bool sloppy_half = false;  // --sloppy half (--prec mixed only): that operator in half precision storage
  int print_every = -1;  // -1: not given (10 on a terminal, else none)
  bool profile = false;
  KernelOptions k;
  MpiOptions mpi;
  int sloppy_compress() const { return compress_sloppy != 0 ? compress_sloppy : k.compress; }
  int per_solve(int rhs) const { return kernel == KernelFamily::Mrhs ? rhs : 1; }  // right-hand sides per solver call
};

// The fields of a solve on the whole lattice (under MPI on rank 0 only, which reports; elsewhere empty).
struct SolveInputs {
  std::optional<GaugeField<double>> u;
  std::vector<SpinorField<double>> b;
  bool batched = false;  // b in the 7-D .npy form (--in's shape, or several made): x is written in it too
};

// The gauge field of --gauge or --random.
GaugeField<double> gauge_field(const SolveOptions& o);
// The right-hand sides: from --in, the 12 of --point-source (source 3 spin + colour: 1 at that
// site, spin and colour; std::invalid_argument for a site outside g), or --source random (Gaussian,
// seed + r, as `dslash spinor`).
std::vector<SpinorField<double>> sources(const SolveOptions& o, const Geometry& g, bool& batched);
// --point-source's site inside g, or std::invalid_argument naming both (nothing to check without it).
void check_point_source(const SolveOptions& o, const Geometry& g);

// The links each operator stores, compressed as asked, in its precision, checked before the
// operators are made so that a refusal names the option that asked for it (the kernels, which
// check again, know only the number; under MPI rank 0 checks the whole field first).
void check_links(const SolveOptions& o, const GaugeField<double>& u);

// The driver's configuration: per_solve right-hand sides in each solver call, and the residual on
// stderr every print_every iterations (0: never).
SolveConfig solve_config(const SolveOptions& o, int per_solve, int print_every);

// Under mpirun (a build with MPI): rank 0 makes u and b and scatters them, every rank solves its
// block over the halo-exchanging operator, and x comes back whole to rank 0. where: the process grid.
SolveOutcome solve_distributed(const SolveOptions& o, int print_every, SolveInputs& in, std::string& where);

// On the process that holds the inputs: the report on stdout, --json, and x to --out where the
// solves converged and the reference operator confirms them. False otherwise, with why on stderr.
bool report_solve(const SolveOptions& o, const SolveInputs& in, const SolveOutcome& out, const std::string& where, bool distributed);

}  // namespace dslash::cli
