// dslash apply --gauge U.nersc --in psi.npy --out chi.npy [--dagger] [--parity even|odd|full]
//              [--kernel reference] [--prec double|single]
#include <cstdio>

#include "cli/commands.hpp"
#include "dslash/lattice/field_ops.hpp"
#include "io/nersc.hpp"
#include "io/npy.hpp"
#include "kernels/reference_dslash.hpp"

namespace dslash::cli {

void add_apply_command(CLI::App& app) {
  struct Options {
    std::string gauge, in, out, parity = "full", kernel = "reference", prec = "double";
    bool dagger = false;
  };
  auto opt = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("apply", "apply D (or D^dagger) to the spinors of a .npy file");
  cmd->add_option("--gauge", opt->gauge, "NERSC gauge file")->required()->check(CLI::ExistingFile);
  cmd->add_option("--in", opt->in, "input .npy spinor(s)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--out", opt->out, "output .npy spinor(s), full lattice")->required();
  cmd->add_flag("--dagger", opt->dagger, "apply D^dagger instead of D");
  cmd->add_option("--parity", opt->parity, "output sites: even (D_eo), odd (D_oe) or full")
      ->check(CLI::IsMember({"even", "odd", "full"}))->capture_default_str();
  cmd->add_option("--kernel", opt->kernel, "kernel")->check(CLI::IsMember({"reference"}))->capture_default_str();
  cmd->add_option("--prec", opt->prec, "arithmetic precision")->check(CLI::IsMember({"double", "single"}))->capture_default_str();
  cmd->callback([opt] {
    if (opt->kernel == "reference" && opt->prec != "double")
      throw std::invalid_argument("apply: the reference kernel computes in double precision only; use --prec double");
    const GaugeField<double> u = io::read_nersc<double>(opt->gauge);
    const Geometry& geom = u.geometry();
    const std::vector<SpinorField<double>> in = io::read_spinors_npy<double>(opt->in, geom);

    const Subset out_subset = opt->parity == "full" ? Subset::Full : opt->parity == "even" ? Subset::Even : Subset::Odd;
    const Subset in_subset = out_subset == Subset::Full ? Subset::Full : out_subset == Subset::Even ? Subset::Odd : Subset::Even;
    std::vector<SpinorField<double>> out;
    for (const SpinorField<double>& psi_full : in) {
      SpinorField<double> psi(geom, in_subset, "apply_in");
      copy_sites(psi_full, psi);
      dslash_reference(u, psi, out.emplace_back(geom, out_subset, "apply_out"), opt->dagger);
    }
    io::write_spinors_npy(opt->out, out, io::NpyDtype::Complex128, in.size() > 1);
    std::printf("wrote %s: %s%s on %zu spinor(s), %s sites, lattice %s\n", opt->out.c_str(), "D",
                opt->dagger ? "^dagger" : "", in.size(), opt->parity.c_str(), geom.to_string().c_str());
  });
}

}  // namespace dslash::cli
