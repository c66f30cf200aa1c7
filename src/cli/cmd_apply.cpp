// dslash apply --gauge U.nersc --in psi.npy --out chi.npy [--kernel reference|naive|mrhs|vnode]
//              [--dispatch range|team|mdrange] [--tile a.b.c.d] [--simd ...] [--prec double|single]
//              [--nrhs N] [--parity even|odd|full] [--dagger]
#include <cstdio>

#include "cli/commands.hpp"
#include "dslash/lattice/field_ops.hpp"
#include "io/nersc.hpp"
#include "io/npy.hpp"
#include "kernels/dslash_kernel.hpp"
#include "kernels/reference_dslash.hpp"

namespace dslash::cli {

namespace {

struct ApplyOptions {
  std::string gauge, in, out, kernel = "reference";
  int nrhs = 0;  // 0: as many as the input file holds
  KernelOptions k;
};

// The operator on every input spinor with a fast kernel in precision Real.
template <class Real>
std::vector<SpinorField<double>> apply_kernel(const ApplyOptions& o, const GaugeField<double>& u_double,
                                              const std::vector<SpinorField<double>>& in_full) {
  const GaugeField<Real> u = convert_precision<Real>(u_double);
  const KernelFamily family = parse_kernel(o.kernel);
  const int per_call = family == KernelFamily::Mrhs ? static_cast<int>(in_full.size()) : 1;
  const DslashKernel<Real> d(u, o.k.config(family, per_call));
  std::vector<SpinorField<double>> out;
  for (std::size_t first = 0; first < in_full.size(); first += static_cast<std::size_t>(per_call)) {
    std::vector<SpinorField<Real>> batch;
    for (int r = 0; r < per_call; ++r)
      copy_sites(convert_precision<Real>(in_full[first + static_cast<std::size_t>(r)]), batch.emplace_back(u.geometry(), d.in_subset()));
    for (const SpinorField<Real>& chi : d.apply(batch)) out.push_back(convert_precision<double>(chi));
  }
  return out;
}

}  // namespace

void add_apply_command(CLI::App& app) {
  auto opt = std::make_shared<ApplyOptions>();
  opt->k.parity = "full";
  auto* cmd = app.add_subcommand("apply", "apply D (or D^dagger) to the spinors of a .npy file");
  cmd->add_option("--gauge", opt->gauge, "NERSC gauge file")->required()->check(CLI::ExistingFile);
  cmd->add_option("--in", opt->in, "input .npy spinor(s)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--out", opt->out, "output .npy spinor(s), full lattice")->required();
  cmd->add_option("--kernel", opt->kernel, "kernel")->check(CLI::IsMember({"reference", "naive", "mrhs", "vnode"}))->capture_default_str();
  cmd->add_option("--nrhs", opt->nrhs, "right-hand sides in the input (default: as many as it holds)")->check(CLI::PositiveNumber);
  add_kernel_options(*cmd, opt->k);
  cmd->callback([opt] {
    const bool reference = opt->kernel == "reference";
    if (reference && opt->k.prec != "double")
      throw std::invalid_argument("apply: the reference kernel computes in double precision only; use --prec double");
    const GaugeField<double> u = io::read_nersc<double>(opt->gauge);
    const Geometry& geom = u.geometry();
    const std::vector<SpinorField<double>> in = io::read_spinors_npy<double>(opt->in, geom);
    if (opt->nrhs != 0 && opt->nrhs != static_cast<int>(in.size()))
      throw std::invalid_argument("apply: --nrhs " + std::to_string(opt->nrhs) + " but " + opt->in + " holds " +
                                  std::to_string(in.size()) + " spinor(s)");
    std::vector<SpinorField<double>> out;
    if (reference) {
      const DslashConfig cfg = opt->k.config(KernelFamily::Naive, 1);  // validates the shared flags
      for (const SpinorField<double>& psi_full : in) {
        SpinorField<double> psi(geom, neighbour_subset(cfg.out), "apply_in");
        copy_sites(psi_full, psi);
        dslash_reference(u, psi, out.emplace_back(geom, cfg.out, "apply_out"), cfg.dagger);
      }
    } else {
      out = opt->k.prec == "single" ? apply_kernel<float>(*opt, u, in) : apply_kernel<double>(*opt, u, in);
    }
    io::write_spinors_npy(opt->out, out, opt->k.prec == "single" ? io::NpyDtype::Complex64 : io::NpyDtype::Complex128,
                          in.size() > 1);
    std::printf("wrote %s: %s%s (%s) on %zu spinor(s), %s sites, lattice %s\n", opt->out.c_str(), "D",
                opt->k.dagger ? "^dagger" : "", opt->kernel.c_str(), in.size(), opt->k.parity.c_str(), geom.to_string().c_str());
  });
}

}  // namespace dslash::cli
