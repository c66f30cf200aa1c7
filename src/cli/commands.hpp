#pragma once
// Each subcommand of the `dslash` binary registers itself on the app; its callback does the work
// and throws std::exception with a one-line message on any failure.
#include <CLI/CLI.hpp>

#include "dslash/lattice/geometry.hpp"
#include "kernels/kernel_options.hpp"

namespace dslash::cli {

void add_gauge_command(CLI::App& app);
void add_spinor_command(CLI::App& app);
void add_info_command(CLI::App& app);
void add_apply_command(CLI::App& app);
void add_bench_command(CLI::App& app, int& exit_code);  // sets exit_code to 1 when --check fails

// A --lattice option: "16x16x16x32" or "16.16.16.32", validated (even, positive) while parsing.
CLI::Option* add_lattice_option(CLI::App& cmd, Coord& dims, const std::string& default_text = "");

// "4.4.4.4" (or "4x4x4x4") -> an MDRange tile.
std::array<index_t, 4> parse_tile(const std::string& text);

// The options every kernel launch takes (apply and bench share them).
struct KernelOptions {
  std::string dispatch = "range", simd = "auto", prec = "double", parity = "even", layout = "right", tile;
  int team_size = 0;  // 0: not given
  bool dagger = false;
  // Throws std::invalid_argument for an inconsistent combination (e.g. --tile without mdrange).
  DslashConfig config(KernelFamily kernel, int nrhs) const;
};
void add_kernel_options(CLI::App& cmd, KernelOptions& options);

// --mpi a.b.c.d and --comms-overlap on|off: a domain-decomposed run under mpirun.
struct MpiOptions {
  std::string grid, overlap = "on";
  // True for a run over MPI ranks. Throws std::invalid_argument when --mpi is given to a build
  // without MPI, or when mpirun started several ranks but --mpi is missing.
  bool distributed() const;
  bool overlapped() const { return overlap == "on"; }
};
void add_mpi_options(CLI::App& cmd, MpiOptions& options);
int mpi_world_size();  // 1 unless MPI is initialised

}  // namespace dslash::cli
