// `dslash solve` under mpirun (only in a build with MPI): rank 0 makes u and b (collectively: an
// error there stops every rank with its message) and scatters them, every rank runs the solve
// driver on its block with the halo-exchanging hopping term (mpi::HaloHopping), and x comes back
// whole to rank 0 (u and b too stay whole there; elsewhere they and x are empty).
#include <mpi.h>

#include "cli/solve_options.hpp"
#include "dslash/lattice/field_ops.hpp"
#include "mpi/distributed_fields.hpp"
#include "mpi/halo_hopping.hpp"
#include "mpi/mpi_session.hpp"
#include "mpi/process_grid.hpp"
#if defined(DSLASH_HAVE_CUDA)
#include "mpi/gpu_ranks.hpp"
#endif

namespace dslash::cli {

namespace {

// The solve's hopping terms over the ranks of `grid`, with the halo options of the command line.
class HaloHoppings final : public HoppingFactory {
 public:
  HaloHoppings(const mpi::ProcessGrid& grid, const MpiOptions& o) : grid_(grid), o_(o) {}
  std::shared_ptr<const HoppingTerm<double, HostSpace>> make(const GaugeField<double>& u, const DslashConfig& c, HostSpace) const override {
    return halo<double, HostSpace>(u, c);
  }
  std::shared_ptr<const HoppingTerm<float, HostSpace>> make(const GaugeField<float>& u, const DslashConfig& c, HostSpace) const override {
    return halo<float, HostSpace>(u, c);
  }
#if defined(DSLASH_HAVE_CUDA)
  std::shared_ptr<const HoppingTerm<double, CudaSpace>> make(const GaugeField<double>& u, const DslashConfig& c, CudaSpace) const override {
    return halo<double, CudaSpace>(u, c);
  }
  std::shared_ptr<const HoppingTerm<float, CudaSpace>> make(const GaugeField<float>& u, const DslashConfig& c, CudaSpace) const override {
    return halo<float, CudaSpace>(u, c);
  }
#endif

 private:
  template <class R, class Space>
  std::shared_ptr<const HoppingTerm<R, Space>> halo(const GaugeField<R>& u, const DslashConfig& c) const {
    return std::make_shared<const mpi::HaloHopping<R, Space>>(grid_, u, c, o_.progress, o_.halo);
  }
  const mpi::ProcessGrid& grid_;
  const MpiOptions& o_;
};

}  // namespace

SolveOutcome solve_distributed(const SolveOptions& o, int print_every, SolveInputs& in, std::string& where) {
#if defined(DSLASH_HAVE_CUDA)
  if (o.backend == Backend::Cuda) mpi::bind_gpu(MPI_COMM_WORLD, o.mpi.gpu_per_rank);
#endif
  const bool root = mpi_world_rank() == 0;
  mpi::collectively([&] {
    if (!root) return;
    in.u.emplace(gauge_field(o));
    check_links(o, *in.u);  // here, so that a link no rank could store fails every rank with one message
    in.b = sources(o, in.u->geometry(), in.batched);
  });
  const Coord lattice = mpi::broadcast(in.u ? in.u->geometry().extents() : Coord{});
  int n = static_cast<int>(in.b.size());
  MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  const mpi::ProcessGrid grid(mpi::parse_grid(o.mpi.grid), lattice);
  const GaugeField<double> u_local = mpi::scatter(grid, in.u ? &*in.u : nullptr);
  std::vector<SpinorField<double>> b_local;
  for (int r = 0; r < n; ++r) b_local.push_back(mpi::scatter(grid, root ? &in.b[static_cast<std::size_t>(r)] : nullptr, Subset::Full));
  const HaloHoppings hoppings(grid, o.mpi);
  SolveConfig config = solve_config(o, o.per_solve(n), root ? print_every : 0);
  config.hopping = &hoppings;
  SolveOutcome out = solve_wilson(config, u_local, b_local);
  std::vector<SpinorField<double>> x;
  for (const SpinorField<double>& x_local : out.x)
    if (auto whole = mpi::gather(grid, x_local)) x.push_back(std::move(*whole));
  out.x = std::move(x);
  where = grid.describe();
  return out;
}

}  // namespace dslash::cli
