// dslash apply --gauge U.nersc --in psi.npy --out chi.npy [--kernel reference|naive|mrhs|vnode]
//              [--dispatch range|team|mdrange] [--tile a.b.c.d] [--simd ...] [--prec double|single]
//              [--nrhs N] [--parity even|odd|full] [--dagger] [--compress 18|12|8] [--mpi a.b.c.d --comms-overlap on|off]
#include <cstdio>

#include "cli/commands.hpp"
#include "dslash/lattice/field_ops.hpp"
#include "io/nersc.hpp"
#include "io/npy.hpp"
#include "kernels/dslash_kernel.hpp"
#include "kernels/reference_dslash.hpp"
#if defined(DSLASH_HAVE_MPI)
#include "mpi/distributed_fields.hpp"
#include "mpi/halo_dslash.hpp"
#include "mpi/mpi_session.hpp"
#if defined(DSLASH_HAVE_CUDA)
#include "mpi/gpu_ranks.hpp"
#endif
#endif

namespace dslash::cli {

namespace {

struct ApplyOptions {
  std::string gauge, in, out;
  std::optional<KernelFamily> kernel;  // nullopt: the reference
  int nrhs = 0;  // 0: as many as the input file holds
  bool batched = false;  // the input has the 7-D shape (N, L3, L2, L1, L0, 4, 3), so the output too
  Backend backend = Backend::Cpu;
  KernelOptions k;
  MpiOptions mpi;
};

// The operator on every input spinor, `per_call` at a time (mrhs takes them all in one call). Op is
// a DslashKernel, or a HaloDslash on this rank's block under MPI.
template <class Real, class Op>
std::vector<SpinorField<double>> apply_each(Op& op, int per_call, const std::vector<SpinorField<double>>& in_full) {
  std::vector<SpinorField<double>> out;
  for (std::size_t first = 0; first < in_full.size(); first += static_cast<std::size_t>(per_call)) {
    std::vector<SpinorField<Real>> batch;
    for (int r = 0; r < per_call; ++r) {
      const SpinorField<double>& psi = in_full[first + static_cast<std::size_t>(r)];
      copy_sites(convert_precision<Real>(psi), batch.emplace_back(psi.geometry(), op.in_subset()));
    }
    for (const SpinorField<Real>& chi : op.apply(batch)) out.push_back(convert_precision<double>(chi));
  }
  return out;
}

int spinors_per_call(const ApplyOptions& o, std::size_t spinors) {
  return o.kernel == KernelFamily::Mrhs ? static_cast<int>(spinors) : 1;
}

// The operator on every input spinor with a fast kernel in precision Real, its fields in Space
// (HostSpace: the CPU; CudaSpace: the GPU).
template <class Real, class Space>
std::vector<SpinorField<double>> apply_kernel(const ApplyOptions& o, const GaugeField<double>& u_double,
                                              const std::vector<SpinorField<double>>& in_full) {
  const int per_call = spinors_per_call(o, in_full.size());
  const DslashKernel<Real, Space> d(convert_precision<Real>(u_double),
                                    with_host_cache_policy<Real, Space>(o.k.config(o.kernel.value(), per_call), u_double.geometry()));
  return apply_each<Real>(d, per_call, in_full);
}

// The spinors, read in double, that --prec single takes to single precision: every value must fit.
// (A link past its range fails the NERSC reader's plaquette check.)
void check_single_precision_fits(const ApplyOptions& o, const std::vector<SpinorField<double>>& in) {
  if (o.k.prec == Precision::Double) return;
  if (const auto bad = io::first_unrepresentable_element<float>(in, o.batched))
    throw std::invalid_argument(o.in + ": " + *bad + " (--prec " + to_string(o.k.prec) + ")");
}

void write_result(const ApplyOptions& o, const std::vector<SpinorField<double>>& out, std::size_t spinors, const std::string& where) {
  // Finite inputs near the precision's largest value make an Inf: refused, not written.
  if (const auto bad = io::first_unrepresentable_element<double>(out, o.batched))
    throw std::invalid_argument("apply: D psi's " + *bad + ": the input's values are too large for " + to_string(o.k.prec) + " precision; " + o.out +
                                " not written");
  io::write_spinors_npy(o.out, out, o.k.prec == Precision::Double ? io::NpyDtype::Complex128 : io::NpyDtype::Complex64, o.batched);
  std::printf("wrote %s: %s%s (%s) on %zu spinor(s), %s sites, %s\n", o.out.c_str(), "D", o.k.dagger ? "^dagger" : "",
              o.kernel ? to_string(*o.kernel) : "reference", spinors, to_string(o.k.parity), where.c_str());
}

#if defined(DSLASH_HAVE_MPI)
// Under mpirun: rank 0 reads both files (with every single-process check) and scatters them; each
// rank applies the operator to its block with halo exchange (Space: on the CPU or on its GPU); rank
// 0 gathers and writes.
template <class Real, class Space>
void apply_distributed(ApplyOptions& o) {
#if defined(DSLASH_HAVE_CUDA)
  if constexpr (!Space::host_accessible) mpi::bind_gpu(MPI_COMM_WORLD, o.mpi.gpu_per_rank);
#endif
  if (!o.kernel) throw std::invalid_argument("apply: the reference kernel runs in one process; pick naive, mrhs or vnode for --mpi");
  check_files({{"--gauge", o.gauge}, {"--in", o.in}}, {{"--out", o.out}});
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::optional<GaugeField<double>> u_global;
  std::vector<SpinorField<double>> in_global;
  mpi::collectively([&] {
    if (rank != 0) return;
    u_global.emplace(io::read_nersc<double>(o.gauge));
    // Here, so that a link no rank's kernel could store fails every rank with one message.
    check_compressible(convert_precision<Real>(*u_global), o.k.compress);
    in_global = io::read_spinors_npy<double>(o.in, u_global->geometry(), &o.batched);
    check_single_precision_fits(o, in_global);
    if (o.nrhs != 0 && o.nrhs != static_cast<int>(in_global.size()))
      throw std::invalid_argument("apply: --nrhs " + std::to_string(o.nrhs) + " but " + o.in + " holds " + std::to_string(in_global.size()) +
                                  " spinor(s)");
  });
  const Coord lattice = mpi::broadcast(u_global ? u_global->geometry().extents() : Coord{});
  int spinors = static_cast<int>(in_global.size());
  MPI_Bcast(&spinors, 1, MPI_INT, 0, MPI_COMM_WORLD);

  const mpi::ProcessGrid grid(mpi::parse_grid(o.mpi.grid), lattice);
  const GaugeField<double> u = mpi::scatter(grid, u_global ? &*u_global : nullptr);
  std::vector<SpinorField<double>> in;
  for (int r = 0; r < spinors; ++r) in.push_back(mpi::scatter(grid, rank == 0 ? &in_global[static_cast<std::size_t>(r)] : nullptr, Subset::Full));
  const int per_call = spinors_per_call(o, in.size());
  mpi::HaloDslash<Real, Space> d(grid, convert_precision<Real>(u), with_host_cache_policy<Real, Space>(o.k.config(o.kernel.value(), per_call), grid.local()),
                                 o.mpi.halo);
  struct Overlapped {  // HaloDslash with the progress strategy bound, as apply_each calls it
    mpi::HaloDslash<Real, Space>& d;
    mpi::Progress progress;
    Subset in_subset() const { return d.in_subset(); }
    std::vector<SpinorField<Real>> apply(const std::vector<SpinorField<Real>>& v) { return d.apply(v, progress); }
  } op{d, o.mpi.progress};
  const std::vector<SpinorField<double>> out_local = apply_each<Real>(op, per_call, in);
  std::vector<SpinorField<double>> out;
  for (const SpinorField<double>& chi : out_local)
    if (auto g = mpi::gather(grid, chi)) out.push_back(std::move(*g));
  mpi::collectively([&] { if (rank == 0) write_result(o, out, out.size(), grid.describe()); });
}
#endif

}  // namespace

void add_apply_command(CLI::App& app) {
  auto opt = std::make_shared<ApplyOptions>();
  opt->k.parity = Subset::Full;
  auto* cmd = app.add_subcommand("apply", "apply D (or D^dagger) to the spinors of a .npy file");
  cmd->add_option("--gauge", opt->gauge, "NERSC gauge file")->required()->check(CLI::ExistingFile);
  cmd->add_option("--in", opt->in, "input .npy spinor(s)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--out", opt->out, "output .npy spinor(s), full lattice")->required();
  add_kernel_option(*cmd, opt->kernel, "reference", "kernel");
  add_int_option(*cmd, "--nrhs", opt->nrhs, 1, kMaxRhs, "right-hand sides in the input (default: as many as it holds)");
  add_kernel_options(*cmd, opt->k);
  add_mpi_options(*cmd, opt->mpi);
  add_backend_option(*cmd, opt->backend);
  cmd->callback([opt, cmd] {
    if (!opt->kernel)
      reject_given(*cmd, {"--dispatch", "--tile", "--team-size", "--simd", "--layout", "--compress", "--backend"},
                   "to --kernel reference, which has no launch options (they are for naive, mrhs and vnode)");
    if (opt->backend == Backend::Cuda) require_cuda(*cmd, {"--simd", "--layout"}, opt->mpi.distributed());
    opt->mpi.check_backend(opt->backend);
    reject_simd_for_naive(opt->kernel, opt->k.simd);
    reject_half_under_mpi(opt->k.prec, opt->mpi.distributed());
    if (opt->mpi.distributed()) {
#if defined(DSLASH_HAVE_MPI)
      with_precision_and_backend(opt->k.prec, opt->backend, [&]<class Real, class Space>() { apply_distributed<Real, Space>(*opt); });
#endif
      return;
    }
    const bool reference = !opt->kernel;
    if (reference && opt->k.prec != Precision::Double)
      throw std::invalid_argument("apply: the reference kernel computes in double precision only; use --prec double");
    check_files({{"--gauge", opt->gauge}, {"--in", opt->in}}, {{"--out", opt->out}});
    const GaugeField<double> u = io::read_nersc<double>(opt->gauge);
    const Geometry& geom = u.geometry();
    const std::vector<SpinorField<double>> in = io::read_spinors_npy<double>(opt->in, geom, &opt->batched);
    check_single_precision_fits(*opt, in);
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
      out = with_precision_and_backend(opt->k.prec, opt->backend,
                                       [&]<class Real, class Space>() { return apply_kernel<Real, Space>(*opt, u, in); });
    }
    write_result(*opt, out, in.size(), "lattice " + geom.to_string());
  });
}

}  // namespace dslash::cli
