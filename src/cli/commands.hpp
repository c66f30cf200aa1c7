#pragma once
// Each subcommand of the `dslash` binary registers itself on the app; its callback does the work
// and throws std::exception with a one-line message on any failure.
#include <CLI/CLI.hpp>

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dslash/core/memory_space.hpp"
#include "dslash/lattice/geometry.hpp"
#include "kernels/kernel_options.hpp"
#include "mpi/halo_options.hpp"
#if defined(DSLASH_HAVE_CUDA)
#include "dslash/core/backend/cuda/space.hpp"
#endif

namespace dslash::cli {

void add_gauge_command(CLI::App& app);
void add_spinor_command(CLI::App& app);
void add_info_command(CLI::App& app);
void add_apply_command(CLI::App& app);
void add_bench_command(CLI::App& app, int& exit_code);  // sets exit_code to 1 when --check fails
void add_solve_command(CLI::App& app, int& exit_code);  // sets exit_code to 1 when a solve does not converge

// A --lattice option: "16x16x16x32" or "16.16.16.32", validated (even, positive) while parsing.
CLI::Option* add_lattice_option(CLI::App& cmd, Coord& dims, const std::string& default_text = "");

// A whole number given as `option` on the command line, read strictly ("12", not "-1", "+12", "1e3"
// or "12abc") and checked against [min, max]; std::invalid_argument says what is wrong in words:
// "--nrhs 0: too small; expected a whole number from 1 to 4096" (`alternative` adds ", or auto").
std::uint64_t parse_whole_number(const std::string& option, const std::string& text, std::uint64_t min, std::uint64_t max,
                                 const std::string& alternative = "");
// An int option in [min, max] (min >= 0), read with parse_whole_number.
CLI::Option* add_int_option(CLI::App& cmd, const std::string& name, int& value, int min, int max, const std::string& help);
// A real-number option, read strictly: the whole text, finite ("1e-10" and "-0.5", not "1e-10x",
// "nan" or "inf"); std::invalid_argument names the option.
CLI::Option* add_real_option(CLI::App& cmd, const std::string& name, double& value, const std::string& help);
// --seed: any unsigned 64-bit number; "-1" and numbers past 2^64 - 1 are refused, not wrapped.
CLI::Option* add_seed_option(CLI::App& cmd, std::uint64_t& seed, const std::string& help);
constexpr int kMaxRhs = 4096;  // right-hand sides per file or run

// A file a command reads or writes, and the option that names it; an empty path: not given.
struct FileOption {
  std::string option, path;
};
// Fails now (std::invalid_argument naming the option) when an output cannot be written (a
// directory, a missing directory, no permission, a socket), or is the same file as one of the
// inputs or another output (the same device and inode, however named). Every command calls it
// before it computes, not after. Under MPI, rank 0 reads and writes the files, so rank 0 checks,
// and its verdict is every rank's.
void check_files(const std::vector<FileOption>& inputs, const std::vector<FileOption>& outputs);

// Throws std::invalid_argument "<option> does not apply <why>" for the first of `options` given on
// `cmd`'s command line: a run never silently ignores an option.
void reject_given(const CLI::App& cmd, std::initializer_list<const char*> options, const std::string& why);
// naive runs scalar whatever --simd says: any --simd but scalar or auto (nullopt) is refused for it.
void reject_simd_for_naive(std::optional<KernelFamily> kernel, std::optional<SimdIsa> simd);

// --tile shapes mdrange launches and --team-size team launches: either given with another --dispatch
// is refused (one message for every command). dispatch "all" (bench) runs the variants they shape.
void check_launch_shape(std::optional<Dispatch> dispatch, bool tile, bool team_size);

// "4.4.4.4" (or "4x4x4x4") -> an MDRange tile.
std::array<index_t, 4> parse_tile(const std::string& text);

// --compress 18|12|8: the reals a kernel stores per link (DslashConfig::compress); anything else is
// refused while parsing.
CLI::Option* add_compress_option(CLI::App& cmd, int& compress);

// An option whose value is one of `choices`, checked by CLI11 as the command line is read (a bad
// value is its one line, "--backend: gpu not in {cpu,cuda}", the names in this order) and stored
// as the value it names; the default shown is the first name of `value`'s value.
template <class V>
CLI::Option* add_choice_option(CLI::App& cmd, const std::string& name, V& value, std::vector<std::pair<std::string, V>> choices,
                               const std::string& help) {
  std::vector<std::string> names;
  std::string current;
  for (const auto& [text, v] : choices) {
    names.push_back(text);
    if (v == value && current.empty()) current = text;
  }
  return cmd
      .add_option_function<std::string>(
          name,
          [&value, choices](const std::string& text) {
            for (const auto& [t, v] : choices)
              if (t == text) value = v;
          },
          help)
      ->check(CLI::IsMember(names))
      ->default_str(current);
}

// --kernel naive|mrhs|vnode. Where a command takes one more word, nullopt stands for it: apply's
// reference (listed first) or bench's all (listed last).
CLI::Option* add_kernel_option(CLI::App& cmd, KernelFamily& kernel, const std::string& help);
CLI::Option* add_kernel_option(CLI::App& cmd, std::optional<KernelFamily>& kernel, const std::string& extra, const std::string& help);

// The launch options, one adder each, for the commands that list them in their own order.
// --dispatch range|team|mdrange, and `all` (nullopt) where a command runs every dispatch.
CLI::Option* add_dispatch_option(CLI::App& cmd, std::optional<Dispatch>& dispatch, bool all, const std::string& help);
// --simd: an instruction set's name (parse_simd's message for any other), or auto (nullopt).
CLI::Option* add_simd_option(CLI::App& cmd, std::optional<SimdIsa>& simd, const std::string& help);
// The set to run: --simd's if this build has it and this CPU runs it (parse_simd's message if not;
// checked at the run, after the options' own checks), else the best this CPU runs.
SimdIsa simd_isa(std::optional<SimdIsa> simd);
CLI::Option* add_parity_option(CLI::App& cmd, Subset& parity, const std::string& help);  // --parity even|odd|full
CLI::Option* add_layout_option(CLI::App& cmd, SpinorLayout& layout);                      // --layout right|left

// --prec single|double|half and --backend cpu|cuda, parsed as the command line is read. Half:
// 16-bit storage with single's arithmetic (DslashConfig::half; the kernels' Real is float).
enum class Precision { Single, Double, Half };
enum class Backend { Cpu, Cuda };
const char* to_string(Precision p);  // single, double, half
const char* to_string(Backend b);    // cpu, cuda
CLI::Option* add_precision_option(CLI::App& cmd, Precision& prec, const std::string& help);
// --prec half with --mpi: std::invalid_argument (over ranks half precision is a solve's sloppy operator).
void reject_half_under_mpi(Precision prec, bool distributed);
// --backend cpu|cuda: where the kernels run (the CPU by default).
CLI::Option* add_backend_option(CLI::App& cmd, Backend& backend);

// f.template operator()<Real, Space>() for the run's precision and backend: every command's one
// dispatch to its kernels' template arguments. --backend cuda reaches here only in a build with CUDA
// (require_cuda).
template <class F>
decltype(auto) with_precision_and_backend(Precision prec, Backend backend, F&& f) {
#if defined(DSLASH_HAVE_CUDA)
  if (backend == Backend::Cuda)
    return prec != Precision::Double ? f.template operator()<float, CudaSpace>() : f.template operator()<double, CudaSpace>();
#endif
  (void)backend;
  return prec != Precision::Double ? f.template operator()<float, HostSpace>() : f.template operator()<double, HostSpace>();
}

// The options every kernel launch takes (apply and bench share them; solve takes the launch part),
// typed as the command line is read.
struct KernelOptions {
  std::optional<Dispatch> dispatch = Dispatch::Range;  // nullopt: every dispatch (bench's --dispatch all)
  std::optional<SimdIsa> simd{};                       // nullopt: auto, the best this CPU runs
  Subset parity = Subset::Even;
  SpinorLayout layout = SpinorLayout::Right;
  std::optional<std::array<index_t, 4>> tile{};  // --tile a.b.c.d; nullopt: not given
  Precision prec = Precision::Double;
  int team_size = 0;  // 0: not given
  bool tune_tile = false, tune_team_size = false;  // bench's --tile auto, --team-size auto
  int compress = 18;
  bool dagger = false;
  // Throws std::invalid_argument for an inconsistent combination (e.g. --tile without mdrange).
  DslashConfig config(KernelFamily kernel, int nrhs) const;
};
void add_kernel_options(CLI::App& cmd, KernelOptions& options);
// --tile a.b.c.d and --team-size N into o; with `tune` (bench) also auto (o.tune_tile, o.tune_team_size).
CLI::Option* add_tile_option(CLI::App& cmd, KernelOptions& o, bool tune, const std::string& help);
CLI::Option* add_team_size_option(CLI::App& cmd, KernelOptions& o, bool tune, const std::string& help);
// Only how a kernel is launched: --dispatch, --simd, --tile, --team-size, --layout.
void add_launch_options(CLI::App& cmd, KernelOptions& options);

// --mpi a.b.c.d and the halo's options (only with --mpi): a domain-decomposed run under mpirun.
struct MpiOptions {
  std::string grid;
  mpi::Progress progress = mpi::Progress::Chunks;  // --comms-overlap
  bool gpu_per_rank = false;  // --gpu-per-rank: with --backend cuda, refuse to share a GPU between ranks
  // --gpu-halo, --cpu-halo, --halo-complete; bench's --halo-messages and --halo-chunks (add_bench_command)
  mpi::HaloOptions halo;
  // True for a run over MPI ranks. Throws std::invalid_argument when --mpi is given to a build
  // without MPI, or when mpirun started several ranks but --mpi is missing.
  bool distributed() const;
  // The GPU ranks' flags (--gpu-per-rank, --gpu-halo) with another backend, or the CPU ranks' ones
  // (--cpu-halo, --halo-complete) with the GPU's: std::invalid_argument.
  void check_backend(Backend backend) const;
};
void add_mpi_options(CLI::App& cmd, MpiOptions& options);
int mpi_world_size();  // 1 unless MPI is initialised
int mpi_world_rank();  // 0 unless MPI is initialised

// --schedule static|dynamic: how the CPU's threads share a kernel's sites (dslash/core/execution_space.hpp),
// set as the command line is read, before any parallel work.
CLI::Option* add_schedule_option(CLI::App& cmd);

// A warning on stderr (rank 0) when `threads` OpenMP threads are more than this process's cores.
void warn_if_oversubscribed(int threads);
// A warning on stderr (rank 0) when a CPU team of `team_size` threads is larger than the `threads`
// that run it: the team's threads then take turns on the cores and spin at its barriers.
void warn_if_team_oversubscribes(int team_size, int threads);

// For --backend cuda: throws std::invalid_argument when this dslash was built without CUDA, when no
// GPU is usable, or when one of the CPU-only `options` was given on `cmd`'s command line.
// distributed: under --mpi the ranks check their GPUs together (mpi::bind_gpu) instead.
void require_cuda(const CLI::App& cmd, std::initializer_list<const char*> cpu_only_options, bool distributed = false);

}  // namespace dslash::cli
