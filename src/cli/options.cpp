#include <omp.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

#include "cli/commands.hpp"
#include "dslash/core/execution_space.hpp"
#include "io/atomic_file.hpp"
#if defined(DSLASH_HAVE_MPI)
#include "mpi/mpi_session.hpp"
#endif

namespace dslash::cli {

CLI::Option* add_lattice_option(CLI::App& cmd, Coord& dims, const std::string& default_text) {
  auto* opt = cmd.add_option_function<std::string>(
      "--lattice",
      [&dims](const std::string& text) {
        const Coord d = parse_extents(text);
        Geometry{d};  // validate now: even, positive, representable
        dims = d;
      },
      "global lattice size, x first: 16x16x16x32 (or 16.16.16.32)");
  if (!default_text.empty()) opt->default_str(default_text);
  opt->type_name("LxLxLxL");
  return opt;
}

std::uint64_t parse_whole_number(const std::string& option, const std::string& text, std::uint64_t min, std::uint64_t max,
                                 const std::string& alternative) {
  const auto refuse = [&](const char* reason) {
    return std::invalid_argument(option + " " + text + ": " + reason + "; expected a whole number from " + std::to_string(min) + " to " +
                                 std::to_string(max) + alternative);
  };
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits) {
    const bool negative = text.size() > 1 && text[0] == '-' && text.find_first_not_of("0123456789", 1) == std::string::npos;
    throw refuse(negative ? "negative" : "not a whole number");
  }
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc::result_out_of_range || v > max) throw refuse("too large");
  if (v < min) throw refuse("too small");
  return v;
}

CLI::Option* add_int_option(CLI::App& cmd, const std::string& name, int& value, int min, int max, const std::string& help) {
  auto* opt = cmd.add_option_function<std::string>(
      name,
      [&value, name, min, max](const std::string& text) {
        value = static_cast<int>(parse_whole_number(name, text, static_cast<std::uint64_t>(min), static_cast<std::uint64_t>(max)));
      },
      help);
  opt->type_name("N");
  return opt;
}

CLI::Option* add_real_option(CLI::App& cmd, const std::string& name, double& value, const std::string& help) {
  auto* opt = cmd.add_option_function<std::string>(
      name,
      [&value, name](const std::string& text) {
        double v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
          throw std::invalid_argument(name + " " + text + ": not a finite number");
        value = v;
      },
      help);
  opt->type_name("X");
  return opt;
}

CLI::Option* add_seed_option(CLI::App& cmd, std::uint64_t& seed, const std::string& help) {
  auto* opt = cmd.add_option_function<std::string>(
      "--seed", [&seed](const std::string& text) { seed = parse_whole_number("--seed", text, 0, std::numeric_limits<std::uint64_t>::max()); },
      help);
  opt->type_name("N")->default_str(std::to_string(seed));
  return opt;
}

void check_files(const std::vector<FileOption>& inputs, const std::vector<FileOption>& outputs) {
  const auto check = [&] {
    for (const auto& [option, path] : outputs) {
      if (path.empty()) continue;
      try {
        io::check_writable(path);
      } catch (const std::runtime_error& e) {
        throw std::invalid_argument(option + ": " + e.what());
      }
    }
    // An output written over an input, or over another output, would lose one of them.
    for (auto out = outputs.begin(); out != outputs.end(); ++out) {
      const auto refuse_if_same = [&](const FileOption& other) {
        if (!out->path.empty() && !other.path.empty() && io::same_file(out->path, other.path))
          throw std::invalid_argument(out->option + ": '" + out->path + "' is the same file as " + other.option + " '" + other.path + "'");
      };
      for (const FileOption& in : inputs) refuse_if_same(in);
      // Two outputs may share a character device (--out /dev/null --json /dev/null): both are discarded, neither replaced.
      if (io::is_character_device(out->path)) continue;
      for (auto earlier = outputs.begin(); earlier != out; ++earlier) refuse_if_same(*earlier);
    }
  };
#if defined(DSLASH_HAVE_MPI)
  if (mpi_world_size() > 1) {
    mpi::collectively([&] { if (mpi_world_rank() == 0) check(); });
    return;
  }
#endif
  check();
}

void reject_given(const CLI::App& cmd, std::initializer_list<const char*> options, const std::string& why) {
  for (const char* name : options)
    if (cmd.count(name) > 0) throw std::invalid_argument(std::string(name) + " does not apply " + why);
}

void reject_simd_for_naive(std::optional<KernelFamily> kernel, std::optional<SimdIsa> simd) {
  if (kernel == KernelFamily::Naive && simd && *simd != SimdIsa::Scalar)
    throw std::invalid_argument("--simd " + std::string(to_string(*simd)) + " does not apply to --kernel naive, which runs scalar");
}

void check_launch_shape(std::optional<Dispatch> dispatch, bool tile, bool team_size) {
  if (tile && dispatch && *dispatch != Dispatch::MDRange) throw std::invalid_argument("--tile applies to --dispatch mdrange");
  if (team_size && dispatch && *dispatch != Dispatch::Team) throw std::invalid_argument("--team-size applies to --dispatch team");
}

std::array<index_t, 4> parse_tile(const std::string& text) {
  const Coord t = [&] {
    try {
      return parse_extents(text);
    } catch (const std::invalid_argument&) {
      throw std::invalid_argument("--tile '" + text + "': expected four sizes a.b.c.d (0 = whole extent)");
    }
  }();
  std::array<index_t, 4> tile{};
  for (std::size_t mu = 0; mu < 4; ++mu) {
    if (t[mu] < 0) throw std::invalid_argument("--tile '" + text + "': sizes must be >= 0");
    tile[mu] = t[mu];
  }
  return tile;
}

CLI::Option* add_compress_option(CLI::App& cmd, int& compress) {
  return cmd.add_option("--compress", compress, "gauge compression: reals stored per link, 18 (none), 12 (two rows) or 8 (QUDA's reconstruct-8)")
      ->check(CLI::IsMember({18, 12, 8}))
      ->capture_default_str();
}

namespace {

// (to_string(v), v) for each of `values`: the names the kernels' own parsers take.
template <class V, class E>
std::vector<std::pair<std::string, V>> named(std::initializer_list<E> values) {
  std::vector<std::pair<std::string, V>> choices;
  for (E v : values) choices.emplace_back(to_string(v), V(v));
  return choices;
}

}  // namespace

CLI::Option* add_kernel_option(CLI::App& cmd, KernelFamily& kernel, const std::string& help) {
  return add_choice_option(cmd, "--kernel", kernel, named<KernelFamily>({KernelFamily::Naive, KernelFamily::Mrhs, KernelFamily::Vnode}), help);
}

CLI::Option* add_kernel_option(CLI::App& cmd, std::optional<KernelFamily>& kernel, const std::string& extra, const std::string& help) {
  auto choices = named<std::optional<KernelFamily>>({KernelFamily::Naive, KernelFamily::Mrhs, KernelFamily::Vnode});
  choices.emplace(extra == "reference" ? choices.begin() : choices.end(), extra, std::nullopt);
  return add_choice_option(cmd, "--kernel", kernel, std::move(choices), help);
}

CLI::Option* add_dispatch_option(CLI::App& cmd, std::optional<Dispatch>& dispatch, bool all, const std::string& help) {
  auto choices = named<std::optional<Dispatch>>({Dispatch::Range, Dispatch::Team, Dispatch::MDRange});
  if (all) choices.emplace_back("all", std::nullopt);
  return add_choice_option(cmd, "--dispatch", dispatch, std::move(choices), help);
}

CLI::Option* add_simd_option(CLI::App& cmd, std::optional<SimdIsa>& simd, const std::string& help) {
  return cmd
      .add_option_function<std::string>(
              "--simd",
          [&simd](const std::string& text) {
            simd.reset();
            for (SimdIsa s : {SimdIsa::Scalar, SimdIsa::Sse2, SimdIsa::Avx2, SimdIsa::Avx512, SimdIsa::Neon, SimdIsa::Emulated512})
              if (text == to_string(s)) simd = s;
            if (!simd && text != "auto") (void)parse_simd(text);  // throws: names the sets this build has
          },
          help)
      ->default_str("auto");
}

SimdIsa simd_isa(std::optional<SimdIsa> simd) { return simd ? parse_simd(to_string(*simd)) : best_isa(); }

CLI::Option* add_parity_option(CLI::App& cmd, Subset& parity, const std::string& help) {
  return add_choice_option(cmd, "--parity", parity, named<Subset>({Subset::Even, Subset::Odd, Subset::Full}), help);
}

CLI::Option* add_layout_option(CLI::App& cmd, SpinorLayout& layout) {
  return add_choice_option(cmd, "--layout", layout, named<SpinorLayout>({SpinorLayout::Right, SpinorLayout::Left}),
                           "spinor storage: right (site-major) or left (component-major)");
}

const char* to_string(Precision p) { return p == Precision::Single ? "single" : p == Precision::Half ? "half" : "double"; }
const char* to_string(Backend b) { return b == Backend::Cuda ? "cuda" : "cpu"; }

CLI::Option* add_precision_option(CLI::App& cmd, Precision& prec, const std::string& help) {
  // The order of the choices is the order CLI11's message lists them in.
  if (prec == Precision::Single)
    return add_choice_option(cmd, "--prec", prec, {{"single", Precision::Single}, {"double", Precision::Double}, {"half", Precision::Half}}, help);
  return add_choice_option(cmd, "--prec", prec, {{"double", Precision::Double}, {"single", Precision::Single}, {"half", Precision::Half}}, help);
}

void reject_half_under_mpi(Precision prec, bool distributed) {
  if (prec == Precision::Half && distributed) throw std::invalid_argument("--prec half runs in one process; over MPI ranks half precision is a solve's (solve --prec mixed --sloppy half)");
}

CLI::Option* add_tile_option(CLI::App& cmd, KernelOptions& o, bool tune, const std::string& help) {
  return cmd.add_option_function<std::string>(
      "--tile",
      [&o, tune](const std::string& text) {
        o.tune_tile = tune && text == "auto";
        if (o.tune_tile) o.tile.reset();
        else o.tile = parse_tile(text);
      },
      help);
}

CLI::Option* add_team_size_option(CLI::App& cmd, KernelOptions& o, bool tune, const std::string& help) {
  if (!tune) return add_int_option(cmd, "--team-size", o.team_size, 1, TeamPolicy<>::team_size_max(), help);
  return cmd
      .add_option_function<std::string>(
          "--team-size",
          [&o](const std::string& text) {
            o.tune_team_size = text == "auto";
            o.team_size = o.tune_team_size ? 0 : static_cast<int>(parse_whole_number("--team-size", text, 1, TeamPolicy<>::team_size_max(), ", or auto"));
          },
          help)
      ->type_name("N|auto");
}

void add_launch_options(CLI::App& cmd, KernelOptions& o) {
  add_dispatch_option(cmd, o.dispatch, false, "dispatch policy");
  add_simd_option(cmd, o.simd, "instruction set: scalar, sse2, avx2, avx512, emulated512 or auto");
  add_tile_option(cmd, o, false, "MDRange tile over (x/2, y, z, t), e.g. 4.4.4.4 (0 = whole extent)");
  add_team_size_option(cmd, o, false, "threads per team for --dispatch team (default: one warp on a GPU, 1 on a CPU)");
  add_layout_option(cmd, o.layout);
}

void add_kernel_options(CLI::App& cmd, KernelOptions& o) {
  add_launch_options(cmd, o);
  add_precision_option(cmd, o.prec, "arithmetic precision");
  cmd.add_flag("--dagger", o.dagger, "apply D^dagger instead of D");
  add_compress_option(cmd, o.compress);
  add_parity_option(cmd, o.parity, "output sites: even (D_eo), odd (D_oe) or full");
}

void add_mpi_options(CLI::App& cmd, MpiOptions& o) {
  auto* grid = cmd.add_option("--mpi", o.grid, "MPI process grid a.b.c.d, x first (Grid's convention); run under mpirun -np a*b*c*d")
                   ->type_name("a.b.c.d");
  add_choice_option(cmd, "--comms-overlap", o.progress,
                    {{"on", mpi::Progress::Chunks}, {"off", mpi::Progress::None}, {"chunks", mpi::Progress::Chunks}, {"thread", mpi::Progress::Thread}},
                    "compute the interior while the halos travel (with --mpi): chunks (MPI_Testall between slabs of the interior; on), "
                    "thread (the master thread tests while the others compute), or off")
      ->needs(grid);
  cmd.add_flag("--gpu-per-rank", o.gpu_per_rank,
               "with --mpi --backend cuda: every rank its own GPU (an error where a node has fewer GPUs than ranks); default: ranks share them")
      ->needs(grid);
  add_choice_option(cmd, "--gpu-halo", o.halo.gpu_halo, named<mpi::GpuHalo>({mpi::GpuHalo::Auto, mpi::GpuHalo::Peer, mpi::GpuHalo::Staged}),
                    "with --mpi --backend cuda: halos GPU to GPU through CUDA IPC (peer: ranks of one node), through pinned host buffers and "
                    "MPI (staged), or peer where every neighbour's GPU can be reached (auto)")
      ->needs(grid);
  add_choice_option(cmd, "--cpu-halo", o.halo.cpu_halo,
                    named<mpi::CpuHalo>({mpi::CpuHalo::Auto, mpi::CpuHalo::Mpi, mpi::CpuHalo::Shared, mpi::CpuHalo::Inputs}),
                    "with --mpi on CPU ranks: each kernel reads its halo straight from the neighbours' inputs (inputs: MPI-3 "
                    "shared-memory windows, ranks of one node; nothing is sent), faces written into the neighbours' memory (shared), "
                    "sent as MPI messages (mpi), or where every neighbour is on the node inputs (bench) or shared (solve), else mpi (auto)")
      ->needs(grid);
  add_choice_option(cmd, "--halo-complete", o.halo.complete, named<mpi::HaloComplete>({mpi::HaloComplete::Auto, mpi::HaloComplete::Faces}),
                    "with --mpi on CPU ranks: add the halo's hops in the interior kernel where the halo is in before it (auto: the shared "
                    "halo, or --comms-overlap off), or always with separate face kernels after it (faces)")
      ->needs(grid);
}

int mpi_world_size() {
#if defined(DSLASH_HAVE_MPI)
  int up = 0, size = 1;
  MPI_Initialized(&up);
  if (up) MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
#else
  return 1;
#endif
}

int mpi_world_rank() {
#if defined(DSLASH_HAVE_MPI)
  int up = 0, rank = 0;
  MPI_Initialized(&up);
  if (up) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
#else
  return 0;
#endif
}

CLI::Option* add_schedule_option(CLI::App& cmd) {
  return cmd
      .add_option_function<std::string>(
          "--schedule", [](const std::string& text) { OpenMP::set_schedule(text == "static" ? Schedule::Static : Schedule::Dynamic); },
          "CPU threads take the sites in chunks as they free up (dynamic), or in equal shares fixed in advance (static)")
      ->check(CLI::IsMember({"static", "dynamic"}))
      ->default_str("dynamic");
}

void warn_if_oversubscribed(int threads) {
  const int cores = omp_get_num_procs();
  if (threads > cores && mpi_world_rank() == 0)
    std::fprintf(stderr, "warning: --threads %d is more than the %d core(s) this process may use: threads will take turns on a core, "
                         "and the rates will mean little\n", threads, cores);
}

void warn_if_team_oversubscribes(int team_size, int threads) {
  // A team wider than the threads waits at its barriers for threads that take turns on the cores.
  if (team_size > threads && mpi_world_rank() == 0)
    std::fprintf(stderr, "warning: --team-size %d is more than the %d OpenMP thread(s): a team's threads will take turns on the cores "
                         "and wait at its barriers, and the team launches will run many times slower (try --team-size %d or less)\n",
                 team_size, threads, threads);
}

bool MpiOptions::distributed() const {
#if !defined(DSLASH_HAVE_MPI)
  if (!grid.empty())
    throw std::invalid_argument("--mpi: this dslash was built without MPI (install libopenmpi-dev openmpi-bin and reconfigure)");
#endif
  const int ranks = mpi_world_size();
  if (grid.empty() && ranks > 1)
    throw std::invalid_argument(std::to_string(ranks) + " MPI ranks were started: say how they split the lattice with --mpi a.b.c.d");
  return !grid.empty();
}

void MpiOptions::check_backend(Backend backend) const {
  if (backend == Backend::Cuda) {
    if (halo.cpu_halo != mpi::CpuHalo::Auto) throw std::invalid_argument("--cpu-halo applies to --backend cpu");
    if (halo.complete != mpi::HaloComplete::Auto) throw std::invalid_argument("--halo-complete applies to --backend cpu");
    return;
  }
  if (gpu_per_rank) throw std::invalid_argument("--gpu-per-rank applies to --backend cuda");
  if (halo.gpu_halo != mpi::GpuHalo::Auto) throw std::invalid_argument("--gpu-halo applies to --backend cuda");
}

DslashConfig KernelOptions::config(KernelFamily kernel, int nrhs) const {
  DslashConfig cfg;
  cfg.kernel = kernel;
  cfg.dispatch = dispatch.value();  // only bench, which builds its own, takes all
  cfg.isa = simd_isa(simd);
  cfg.out = parity;
  cfg.dagger = dagger;
  cfg.layout = layout;
  cfg.compress = compress;
  cfg.half = prec == Precision::Half;
  cfg.nrhs = nrhs;
  check_launch_shape(dispatch, tile.has_value(), team_size > 0);
  if (tile) cfg.tile = *tile;
  if (team_size > 0) cfg.team_size = team_size;
  return cfg;
}

CLI::Option* add_backend_option(CLI::App& cmd, Backend& backend) {
  return add_choice_option(cmd, "--backend", backend, {{"cpu", Backend::Cpu}, {"cuda", Backend::Cuda}},
                           "where the kernels run: cpu, or cuda (the GPU; a build with CUDA)");
}

void require_cuda(const CLI::App& cmd, std::initializer_list<const char*> cpu_only_options, bool distributed) {
#if defined(DSLASH_HAVE_CUDA)
  if (const std::string why = distributed ? std::string() : cuda::unavailable_reason(); !why.empty())
    throw std::invalid_argument("--backend cuda: " + why);
  reject_given(cmd, cpu_only_options,
               "to --backend cuda: the GPU's lanes are threads and it chooses its own layout (component-major, site fastest)");
#else
  (void)cmd;
  (void)cpu_only_options;
  (void)distributed;
  throw std::invalid_argument("--backend cuda: this dslash was built without CUDA (install the CUDA toolkit, put nvcc on the PATH and reconfigure)");
#endif
}

}  // namespace dslash::cli
