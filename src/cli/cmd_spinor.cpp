// dslash spinor --lattice 8x8x8x16 [--seed N] [--nrhs N] [--single] --out psi.npy
#include <cstdio>

#include "cli/commands.hpp"
#include "dslash/lattice/field_ops.hpp"
#include "io/npy.hpp"

namespace dslash::cli {

void add_spinor_command(CLI::App& app) {
  struct Options {
    Coord dims{};
    std::uint64_t seed = 1;
    int nrhs = 1;
    bool single = false;
    std::string out;
  };
  auto opt = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("spinor", "write Gaussian random spinors as a .npy file");
  add_lattice_option(*cmd, opt->dims)->required();
  add_seed_option(*cmd, opt->seed, "random seed (right-hand side n uses seed + n)");
  add_int_option(*cmd, "--nrhs", opt->nrhs, 1, kMaxRhs, "number of right-hand sides (> 1 writes shape (N, L3, L2, L1, L0, 4, 3))");
  cmd->add_flag("--single", opt->single, "write complex64 instead of complex128");
  cmd->add_option("--out", opt->out, "output .npy file")->required();
  cmd->callback([opt] {
    const Geometry geom(opt->dims);
    check_memory_fits(SpinorField<double>::bytes_for(geom, Subset::Full) * static_cast<std::uint64_t>(opt->nrhs + 1),
                      std::to_string(opt->nrhs) + " spinors on " + geom.to_string());
    check_files({}, {{"--out", opt->out}});
    std::vector<SpinorField<double>> psi;
    for (int n = 0; n < opt->nrhs; ++n) fill_gaussian(psi.emplace_back(geom, Subset::Full), opt->seed + static_cast<std::uint64_t>(n));
    io::write_spinors_npy(opt->out, psi, opt->single ? io::NpyDtype::Complex64 : io::NpyDtype::Complex128, opt->nrhs > 1);
    std::printf("wrote %s: %d spinor(s) on %s\n", opt->out.c_str(), opt->nrhs, geom.to_string().c_str());
  });
}

}  // namespace dslash::cli
