// dslash: the mini-app's one binary. Subcommands generate and inspect files and apply the operator.
// Every failure prints one line on stderr and exits with status 2. Under mpirun (a build with MPI)
// the same holds per run: rank 0 prints an error that every rank shares; an error that only one
// rank meets aborts the job, so no rank waits forever.
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <string>

#include "bench/machine.hpp"
#include "cli/commands.hpp"
#if defined(DSLASH_HAVE_MPI)
#include "mpi/mpi_session.hpp"
#endif

namespace {

#if defined(DSLASH_HAVE_MPI)
bool asks_for_mpi(int argc, char** argv) {
  if (dslash::mpi::launched_by_mpirun()) return true;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--mpi") == 0 || std::strncmp(argv[i], "--mpi=", 6) == 0) return true;
  return false;
}
#endif

// dslash --version: what was built (version, git revision, compiler, backends, instruction sets)
// and which of those instruction sets this CPU runs.
std::string version_text() {
  using namespace dslash;
  const auto isa_list = [](const std::vector<SimdIsa>& isas) {
    std::string text;
    for (SimdIsa s : isas) text += (text.empty() ? "" : ", ") + std::string(to_string(s));
    return text;
  };
  const auto yes_no = [](bool on) { return on ? "yes" : "no"; };
#if defined(DSLASH_HAVE_CUDA)
  const bool cuda = true;
#else
  const bool cuda = false;
#endif
#if defined(DSLASH_HAVE_MPI)
  const bool mpi = true;
#else
  const bool mpi = false;
#endif
  return std::string("dslash ") + DSLASH_VERSION + " (git " + bench::git_revision() + ")\n" +  //
         "compiler: " + bench::compiler_description() + "\n" +                                 //
         "backends: OpenMP yes (" + std::to_string(_OPENMP) + "), CUDA " + yes_no(cuda) + ", MPI " + yes_no(mpi) + "\n" +
         "instruction sets compiled: " + isa_list(compiled_isas()) + "\n" +  //
         "instruction sets this CPU runs: " + isa_list(runnable_isas()) + "\n" +  //
         "kernels built for: links of " + (build::kLinks12 && build::kLinks8 ? "18, 12 and 8" : build::kLinks12 ? "18 and 12" : build::kLinks8 ? "18 and 8" : "18") +
         " reals; CPU layouts " + (build::kCpuLeftLayout ? "right and left" : "right") + "; CPU xpay epilogue " + yes_no(build::kCpuXpay);
}

// CLI11 says "A subcommand is required" both for no command and for an unknown one: name the
// unknown one and the commands there are. Empty when the first argument is a command or an option.
std::string command_problem(const CLI::App& app, int argc, char** argv) {
  std::string names;
  const auto commands = app.get_subcommands([](const CLI::App*) { return true; });
  for (std::size_t i = 0; i < commands.size(); ++i)
    names += (i == 0 ? "" : i + 1 == commands.size() ? " or " : ", ") + commands[i]->get_name();
  if (argc < 2) return "a command is required: " + names;
  const std::string first = argv[1];
  if (first.starts_with("-")) return {};
  for (const CLI::App* c : commands)
    if (c->check_name(first)) return {};
  return "unknown command '" + first + "': choose " + names;
}

}  // namespace

int main(int argc, char** argv) {
#if defined(DSLASH_HAVE_CUDA)
  // CUDA loads a kernel at its first launch by default (lazy loading), which a solve's first call
  // of each Dslash kernel pays for. Loaded when the context is made instead, so
  // that timed regions time the work; a user's own CUDA_MODULE_LOADING wins.
  setenv("CUDA_MODULE_LOADING", "EAGER", 0);
#endif
  dslash::bench::record_command_line(argc, argv);  // the reports say how they were made
  int rank = 0;
#if defined(DSLASH_HAVE_MPI)
  std::optional<dslash::mpi::Session> session;
  if (asks_for_mpi(argc, argv)) {
    session.emplace(argc, argv);
    rank = session->rank();
  }
#endif
  CLI::App app{"dslash: a Wilson-Dslash performance-portability mini-app"};
  app.name("dslash");
  app.require_subcommand(1);
  app.set_version_flag("--version", version_text, "print the version, git revision, backends and instruction sets, and exit");
  dslash::cli::add_gauge_command(app);
  dslash::cli::add_spinor_command(app);
  dslash::cli::add_info_command(app);
  dslash::cli::add_apply_command(app);
  int exit_code = 0;
  dslash::cli::add_bench_command(app, exit_code);
  dslash::cli::add_solve_command(app, exit_code);
  if (const std::string why = command_problem(app, argc, argv); !why.empty()) {
    if (rank == 0) std::fprintf(stderr, "dslash: %s (try '--help')\n", why.c_str());
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return rank == 0 ? app.exit(e) : 0;
  } catch (const CLI::CallForAllHelp& e) {
    return rank == 0 ? app.exit(e) : 0;
  } catch (const CLI::CallForVersion& e) {
    return rank == 0 ? app.exit(e) : 0;
  } catch (const CLI::ParseError& e) {  // the same arguments, so the same verdict, on every rank
    if (rank == 0) std::fprintf(stderr, "dslash: %s (try '--help')\n", e.what());
    return 2;
#if defined(DSLASH_HAVE_MPI)
  } catch (const dslash::mpi::CollectiveError& e) {
    if (rank == 0) std::fprintf(stderr, "dslash: error: %s\n", e.what());
    return 2;
#endif
  } catch (const std::invalid_argument& e) {  // input validation: deterministic, so every rank's
    if (rank == 0) std::fprintf(stderr, "dslash: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
#if defined(DSLASH_HAVE_MPI)
    if (session && session->size() > 1) {
      std::fprintf(stderr, "dslash: error on rank %d: %s\n", rank, e.what());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
#endif
    std::fprintf(stderr, "dslash: error: %s\n", e.what());
    return 2;
  }
  return exit_code;
}
