// The solvers over MPI ranks (mpi::HaloHopping), under mpirun as ctest runs them:
//   mpirun -np 4 test_mpi_solvers --grid=2.1.1.2
// Each rank solves on its block; the gathered x must solve the global full-lattice system to the
// tolerance, checked with the reference Wilson matrix in double, and agree with one process's solve.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>

#include "dslash/lattice/field_ops.hpp"
#include "kernels/reference_dslash.hpp"
#include "mpi/distributed_fields.hpp"
#include "mpi/halo_hopping.hpp"
#include "mpi_test_main.hpp"  // tests/mpi
#include "solvers/bicgstab.hpp"
#include "solvers/cg.hpp"
#include "solvers/half_hopping.hpp"

namespace dslash::mpi {
namespace {

Coord g_grid{1, 1, 1, 1};
constexpr double kMass = -0.2, kTolerance = 1e-10;

// Local extents every folding takes (16 lanes need multiples of 4); the global lattice is the grid of them.
Geometry global_geometry() {
  const Coord local{4, 4, 8, 4};
  Coord g{};
  for (std::size_t mu = 0; mu < 4; ++mu) g[mu] = local[mu] * g_grid[mu];
  return Geometry(g);
}

// ||b - M x|| / ||b|| with M = (4 + m) - D/2 from the reference Dslash, on the full lattice.
double reference_residual(const GaugeField<double>& u, const SpinorField<double>& b, const SpinorField<double>& x) {
  SpinorField<double> dx(u.geometry(), Subset::Full);
  dslash_reference(u, x, dx, false);
  double r2 = 0, b2 = 0;
  for (site_t i = 0; i < x.sites(); ++i)
    for (int s = 0; s < 4; ++s)
      for (int c = 0; c < 3; ++c) {
        r2 += std::norm(b(i, s, c) - ((4 + kMass) * x(i, s, c) - 0.5 * dx(i, s, c)));
        b2 += std::norm(b(i, s, c));
      }
  return std::sqrt(r2 / b2);
}

struct Case {
  const char* name;
  KernelFamily kernel;
  bool mixed, bicgstab;
  bool half = false;  // the iterated operator in half precision storage (a double-half solve)
};

class MpiSolve : public ::testing::TestWithParam<Case> {};

// The even-odd solve, decomposed (grid) or on one process (nullptr): x on the full lattice (on
// rank 0 when decomposed) and the solver's result.
struct Solved {
  std::optional<SpinorField<double>> x;
  SolverResult result;
  // Decomposed: the halo's transport, and both operators' hops and those of them that read their
  // halo in place from the neighbours' inputs.
  std::string transport;
  std::int64_t hops = 0, read_in_place = 0;
};

Solved solve(const ProcessGrid* grid, const GaugeField<double>& u_global, const SpinorField<double>& b_global, const Case& c,
             HaloOptions halo = {}) {
  const Geometry& global = u_global.geometry();
  DslashConfig config{.kernel = c.kernel, .dispatch = Dispatch::Range, .isa = c.kernel == KernelFamily::Naive ? SimdIsa::Scalar : best_isa()};
  const auto local_field = [&](const SpinorField<double>& f, Subset s) {
    SpinorField<double> part(global, s);
    copy_sites(f, part);
    return grid ? scatter(*grid, grid->rank() == 0 ? &part : nullptr, s) : part;
  };
  const GaugeField<double> u = grid ? scatter(*grid, grid->rank() == 0 ? &u_global : nullptr) : u_global;
  const GaugeField<float> u_single = convert_precision<float>(u);
  std::shared_ptr<const HaloHopping<double>> halo_op;
  std::shared_ptr<const HaloHopping<float>> halo_sloppy;
  if (grid) {
    halo_op = std::make_shared<const HaloHopping<double>>(*grid, u, config, Progress::Chunks, halo);
    halo_sloppy = std::make_shared<const HaloHopping<float>>(*grid, u_single, config, Progress::Chunks, halo);
  }
  DslashConfig sloppy_config = config;
  sloppy_config.half = c.half;
  const auto op = grid ? EvenOddWilson<double>(halo_op, kMass) : EvenOddWilson<double>(u, kMass, config);
  const auto sloppy = !grid  ? EvenOddWilson<float>(u_single, kMass, sloppy_config)
                      : c.half ? EvenOddWilson<float>(std::make_shared<const HalfHopping<HostSpace>>(u_single, sloppy_config, halo_sloppy), kMass)
                               : EvenOddWilson<float>(halo_sloppy, kMass);
  std::vector<SpinorField<double>> even{local_field(b_global, Subset::Even)}, odd{local_field(b_global, Subset::Odd)};
  const auto be = op.allocate("b_e"), bo = op.allocate("b_o"), b_hat = op.allocate("b_hat"), xe = op.allocate("x_e"), xo = op.allocate("x_o");
  op.pack(even, be);
  op.pack(odd, bo);
  op.prepare_source(be, bo, b_hat);
  deep_copy(xe, 0.0);
  const SolverParams params{.tolerance = kTolerance, .max_iterations = 2000};
  Solved out;
  if (c.mixed) out.result = c.bicgstab ? bicgstab(op, sloppy, b_hat, xe, params) : cgnr(op, sloppy, b_hat, xe, params);
  else out.result = c.bicgstab ? bicgstab(op, b_hat, xe, params) : cgnr(op, b_hat, xe, params);
  op.reconstruct(xe, bo, xo);
  if (grid) {
    out.transport = halo_op->transport();
    out.hops = op.dslash_count() + (c.half ? 0 : sloppy.dslash_count());  // half: its hops send their faces
    out.read_in_place = halo_op->calls_read_in_place() + halo_sloppy->calls_read_in_place();
  }
  op.unpack(xe, even);
  op.unpack(xo, odd);
  const auto whole = [&](const SpinorField<double>& local) { return grid ? gather(*grid, local) : std::optional<SpinorField<double>>(local); };
  const std::optional<SpinorField<double>> x_even = whole(even[0]), x_odd = whole(odd[0]);
  if (x_even) {
    SpinorField<double> x(global, Subset::Full), odd_part(global, Subset::Full);
    copy_sites(*x_even, x);
    copy_sites(*x_odd, odd_part);
    axpy(std::complex<double>(1), odd_part, x);
    out.x = std::move(x);
  }
  return out;
}

TEST_P(MpiSolve, MeetsTheToleranceAndAgreesWithOneProcess) {
  const Case c = GetParam();
  const Geometry global = global_geometry();
  const ProcessGrid grid(g_grid, global.extents());
  GaugeField<double> u(global);
  fill_random_su3(u, 21);
  SpinorField<double> b(global, Subset::Full);
  fill_gaussian(b, 22);
  if (c.half && !half_built(c.kernel, best_isa())) GTEST_SKIP() << "half precision kernels are not built for " << to_string(best_isa());
  const Solved decomposed = solve(&grid, u, b, c);
  EXPECT_TRUE(decomposed.result.converged) << c.name << " on " << grid.describe() << ": " << decomposed.result.breakdown;
  if (grid.rank() == 0) {
    ASSERT_TRUE(decomposed.x.has_value());
    const Solved alone = solve(nullptr, u, b, c);
    const double residual = reference_residual(u, b, *decomposed.x);
    EXPECT_LE(residual, kTolerance) << c.name << " on " << grid.describe();
    // The ranks' sums round in another order than one process's: the same answer to the
    // tolerance, in about as many iterations.
    EXPECT_LT(relative_difference(*decomposed.x, *alone.x), 100 * kTolerance) << c.name;
    EXPECT_LE(std::abs(decomposed.result.iterations - alone.result.iterations), 2)
        << c.name << ": " << decomposed.result.iterations << " iterations over " << grid.size() << " ranks, " << alone.result.iterations << " on one";
    std::cout << c.name << " on " << grid.describe() << ": " << decomposed.result.iterations << " iterations (one process: " << alone.result.iterations
              << "), residual " << residual << "\n";
  }
}

// CPU ranks of one node, with --cpu-halo inputs, read their halo in place from the neighbours'
// inputs: every hop of a solve, its setup's included, since every vector is allocated through its
// operator; the solve then takes the same iterations to the same bits as with the messages through
// the shared window, a solve's default.
TEST_P(MpiSolve, ReadsEveryHopsHaloInPlaceToTheMessagesBits) {
  const Case c = GetParam();
  const Geometry global = global_geometry();
  const ProcessGrid grid(g_grid, global.extents());
  if (grid.size() == 1) GTEST_SKIP() << "one rank: no halo";
  if (c.half) GTEST_SKIP() << "the half kernels' hops send their faces as messages";
  GaugeField<double> u(global);
  fill_random_su3(u, 23);
  SpinorField<double> b(global, Subset::Full);
  fill_gaussian(b, 24);
  const Solved in_place = solve(&grid, u, b, c, HaloOptions{.cpu_halo = CpuHalo::Inputs});
  const Solved messages = solve(&grid, u, b, c);
  EXPECT_EQ(in_place.transport, "inputs") << c.name;
  EXPECT_EQ(messages.transport, "shared") << c.name << ": not a solve's default on one node";
  EXPECT_GT(in_place.hops, 0) << c.name;
  EXPECT_EQ(in_place.read_in_place, in_place.hops) << c.name << " on " << grid.describe();
  EXPECT_EQ(messages.read_in_place, 0) << c.name;
  EXPECT_EQ(in_place.result.iterations, messages.result.iterations) << c.name;
  EXPECT_EQ(in_place.hops, messages.hops) << c.name;
  if (grid.rank() == 0) {
    ASSERT_TRUE(in_place.x.has_value() && messages.x.has_value());
    EXPECT_EQ(relative_difference(*in_place.x, *messages.x), 0.0) << c.name << " on " << grid.describe() << ": not the messages' bits";
  }
}

INSTANTIATE_TEST_SUITE_P(Solvers, MpiSolve,
                         ::testing::Values(Case{"naive_cgnr_double", KernelFamily::Naive, false, false},
                                           Case{"naive_bicgstab_mixed", KernelFamily::Naive, true, true},
                                           Case{"vnode_cgnr_mixed", KernelFamily::Vnode, true, false},
                                           Case{"vnode_cgnr_double_half", KernelFamily::Vnode, true, false, true},
                                           Case{"vnode_bicgstab_double", KernelFamily::Vnode, false, true}),
                         [](const auto& test) { return std::string(test.param.name); });

}  // namespace
}  // namespace dslash::mpi

int main(int argc, char** argv) { return dslash::test::run_mpi_tests(argc, argv, dslash::mpi::g_grid); }
