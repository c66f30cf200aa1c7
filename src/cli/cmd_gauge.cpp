// dslash gauge --lattice 8x8x8x16 (--random [--seed N] | --unit) --out U.nersc [--two-row] [--single]
#include <cstdio>

#include "cli/commands.hpp"
#include "dslash/lattice/field_ops.hpp"
#include "io/nersc.hpp"

namespace dslash::cli {

void add_gauge_command(CLI::App& app) {
  struct Options {
    Coord dims{};
    bool random = false, unit = false, two_row = false, single = false;
    std::uint64_t seed = 1;
    std::string out;
  };
  auto opt = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("gauge", "write a random SU(3) or unit gauge configuration as a NERSC file");
  add_lattice_option(*cmd, opt->dims)->required();
  auto* random = cmd->add_flag("--random", opt->random, "random SU(3) links");
  auto* unit = cmd->add_flag("--unit", opt->unit, "unit links (free field)");
  random->excludes(unit);
  add_seed_option(*cmd, opt->seed, "random seed")->needs(random);
  cmd->add_option("--out", opt->out, "output NERSC file")->required();
  cmd->add_flag("--two-row", opt->two_row, "store two rows per link (DATATYPE 4D_SU3_GAUGE)");
  cmd->add_flag("--single", opt->single, "store IEEE32BIG instead of IEEE64BIG");
  cmd->callback([opt] {
    if (!opt->random && !opt->unit) throw std::invalid_argument("gauge: choose --random or --unit");
    check_files({}, {{"--out", opt->out}});
    GaugeField<double> u{Geometry(opt->dims)};
    if (opt->unit) fill_unit(u);
    else fill_random_su3(u, opt->seed);
    io::write_nersc(opt->out, u, {.two_row = opt->two_row, .single = opt->single});
    std::printf("wrote %s: %s, plaquette %.12f, link trace %.12f\n", opt->out.c_str(), u.geometry().to_string().c_str(),
                plaquette(u), link_trace(u));
  });
}

}  // namespace dslash::cli
