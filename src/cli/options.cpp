#include <stdexcept>

#if defined(DSLASH_HAVE_MPI)
#include <mpi.h>
#endif

#include "cli/commands.hpp"

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

void add_kernel_options(CLI::App& cmd, KernelOptions& o) {
  cmd.add_option("--dispatch", o.dispatch, "dispatch policy")->check(CLI::IsMember({"range", "team", "mdrange"}))->capture_default_str();
  cmd.add_option("--simd", o.simd, "instruction set: scalar, sse2, avx2, avx512, emulated512 or auto")->capture_default_str();
  cmd.add_option("--prec", o.prec, "arithmetic precision")->check(CLI::IsMember({"double", "single"}))->capture_default_str();
  cmd.add_option("--tile", o.tile, "MDRange tile over (x/2, y, z, t), e.g. 4.4.4.4 (0 = whole extent)");
  cmd.add_option("--team-size", o.team_size, "threads per team for --dispatch team")->check(CLI::PositiveNumber);
  cmd.add_option("--layout", o.layout, "spinor storage: right (site-major) or left (component-major)")
      ->check(CLI::IsMember({"right", "left"}))->capture_default_str();
  cmd.add_flag("--dagger", o.dagger, "apply D^dagger instead of D");
  cmd.add_option("--parity", o.parity, "output sites: even (D_eo), odd (D_oe) or full")
      ->check(CLI::IsMember({"even", "odd", "full"}))->capture_default_str();
}

void add_mpi_options(CLI::App& cmd, MpiOptions& o) {
  cmd.add_option("--mpi", o.grid, "MPI process grid a.b.c.d, x first (Grid's convention); run under mpirun -np a*b*c*d")
      ->type_name("a.b.c.d");
  cmd.add_option("--comms-overlap", o.overlap, "compute the interior while the halos travel")
      ->check(CLI::IsMember({"on", "off"}))->capture_default_str();
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

DslashConfig KernelOptions::config(KernelFamily kernel, int nrhs) const {
  DslashConfig cfg;
  cfg.kernel = kernel;
  cfg.dispatch = parse_dispatch(dispatch);
  cfg.isa = parse_simd(simd);
  cfg.out = parity == "full" ? Subset::Full : parity == "even" ? Subset::Even : Subset::Odd;
  cfg.dagger = dagger;
  cfg.layout = parse_layout(layout);
  cfg.nrhs = nrhs;
  if (!tile.empty()) {
    if (cfg.dispatch != Dispatch::MDRange) throw std::invalid_argument("--tile applies to --dispatch mdrange only");
    cfg.tile = parse_tile(tile);
  }
  if (team_size > 0) {
    if (cfg.dispatch != Dispatch::Team) throw std::invalid_argument("--team-size applies to --dispatch team only");
    cfg.team_size = team_size;
  }
  return cfg;
}

}  // namespace dslash::cli
