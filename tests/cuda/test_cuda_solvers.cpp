// The solvers on the GPU (vectors in device memory, BLAS and reductions as GPU kernels): each
// solution checked on the host with the scalar reference Wilson matrix in double on the full
// lattice, as tests/test_solvers.cpp does on the CPU. Without a usable GPU every test reports itself
// skipped with the reason.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <complex>
#include <ostream>
#include <string>
#include <vector>

#include "gpu_test.hpp"
#include "layout_move_check.hpp"
#include "singular_solve_check.hpp"
#include "dslash/core/backend/cuda/space.hpp"
#include "dslash/lattice/field_ops.hpp"
#include "kernels/reference_dslash.hpp"
#include "solvers/bicgstab.hpp"
#include "solvers/cg.hpp"
#include "solvers/hop_clock.hpp"
#include "solvers/solve_driver.hpp"
#include "test_support.hpp"

namespace dslash {
namespace {

constexpr double kMass = 0.1;

struct GpuSolve {
  KernelFamily kernel;
  bool bicgstab;
  const char* prec;  // "double", "single" or "mixed"
  int sloppy_compress = 18;  // reals per link of the sloppy operator (mixed: --compress-sloppy)
};

std::string name_of(const GpuSolve& v) {
  return std::string(to_string(v.kernel)) + (v.bicgstab ? "_bicgstab_" : "_cgnr_") + v.prec +
         (v.sloppy_compress != 18 ? "_sloppy" + std::to_string(v.sloppy_compress) : "");
}
// ctest lists a failing variant by name, not as "16-byte object <...>".
void PrintTo(const GpuSolve& v, std::ostream* os) { *os << name_of(v); }

// M x = b through the even sites on the GPU; returns ||b - M x|| / ||b|| from the reference operator.
template <class Real, class Sloppy>
double solve_on_gpu(const GaugeField<double>& u, const SpinorField<double>& b, const GpuSolve& v, double tolerance, SolverResult& result) {
  const Geometry& g = u.geometry();
  const DslashConfig config{.kernel = v.kernel, .dispatch = Dispatch::Range};
  const EvenOddWilson<Real, CudaSpace> op(convert_precision<Real>(u), kMass, config);
  DslashConfig sloppy_config = config;
  sloppy_config.compress = v.sloppy_compress;
  const EvenOddWilson<Sloppy, CudaSpace> sloppy(convert_precision<Sloppy>(u), kMass, sloppy_config);
  std::vector<SpinorField<Real>> even, odd;
  const SpinorField<Real> b_real = convert_precision<Real>(b);
  copy_sites(b_real, even.emplace_back(g, Subset::Even));
  copy_sites(b_real, odd.emplace_back(g, Subset::Odd));
  const auto be = op.allocate("b_e"), bo = op.allocate("b_o"), b_hat = op.allocate("b_hat"), xe = op.allocate("x_e"), xo = op.allocate("x_o");
  op.pack(even, be);
  op.pack(odd, bo);
  op.prepare_source(be, bo, b_hat);
  deep_copy(xe, Real(0));
  // The even system's tolerance that gives the full one's (the odd rows are solved exactly).
  const double scale = std::sqrt(op.norm2(b_hat) / (op.norm2(be) + op.norm2(bo)));
  const SolverParams params{.tolerance = tolerance / scale, .max_iterations = 2000};
  result = v.bicgstab ? bicgstab(op, sloppy, b_hat, xe, params) : cgnr(op, sloppy, b_hat, xe, params);
  op.reconstruct(xe, bo, xo);
  op.unpack(xe, even);
  op.unpack(xo, odd);
  SpinorField<double> x(g, Subset::Full), x_odd(g, Subset::Full), mx(g, Subset::Full);
  copy_sites(convert_precision<double>(even[0]), x);
  copy_sites(convert_precision<double>(odd[0]), x_odd);
  axpy(std::complex<double>(1), x_odd, x);
  wilson_matrix_reference(u, x, mx, kMass);
  axpy(std::complex<double>(-1), b, mx);
  return std::sqrt(norm2(mx) / norm2(b));
}

class CudaSolvers : public GpuTest<::testing::TestWithParam<GpuSolve>> {};

// Double and mixed reach a double-precision tolerance, checked with the reference operator; single
// reaches what single precision can (1e-5) and stops at its floor below that.
TEST_P(CudaSolvers, SolutionMeetsTheToleranceWithTheReferenceOperator) {
  const GpuSolve v = GetParam();
  const Geometry g({8, 8, 8, 8});
  GaugeField<double> u(g);
  fill_random_su3(u, 23);
  SpinorField<double> b(g, Subset::Full);
  fill_gaussian(b, 41);
  SolverResult result;
  const std::string prec = v.prec;
  const double tolerance = prec == "single" ? 1e-5 : 1e-10;
  const double residual = prec == "double" ? solve_on_gpu<double, double>(u, b, v, tolerance, result)
                          : prec == "single" ? solve_on_gpu<float, float>(u, b, v, tolerance, result)
                                             : solve_on_gpu<double, float>(u, b, v, tolerance, result);
  EXPECT_TRUE(result.converged) << result.breakdown;
  // Single precision's own residual is computed in single: allow its rounding on top.
  EXPECT_LT(residual, prec == "single" ? 2 * tolerance : 1.01 * tolerance);
  if (prec == "mixed") {
    EXPECT_GE(result.reliable_updates.size(), 3u);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Gpu, CudaSolvers,
    ::testing::Values(GpuSolve{KernelFamily::Naive, false, "double"}, GpuSolve{KernelFamily::Naive, false, "single"},
                      GpuSolve{KernelFamily::Naive, false, "mixed"}, GpuSolve{KernelFamily::Naive, true, "mixed"},
                      GpuSolve{KernelFamily::Vnode, false, "mixed"}, GpuSolve{KernelFamily::Vnode, true, "double"},
                      // 12-real sloppy links: the kernels' epilogue built for them (kernels/dslash_body.hpp)
                      GpuSolve{KernelFamily::Naive, false, "mixed", 12}, GpuSolve{KernelFamily::Vnode, false, "mixed", 12},
                      GpuSolve{KernelFamily::Vnode, true, "mixed", 12}),
    [](const auto& param_info) { return name_of(param_info.param); });

// Block solves of 5 right-hand sides (mrhs, not a whole number of vectors of lanes), one of them
// zero, with each method in double and mixed: each right-hand side's sums and coefficients stay on
// the GPU. Every x meets its tolerance with the reference operator and matches the CPU's block
// solve of the same sources (both within tol ||b||: 1000 tol bounds their difference, as
// tests/test_solvers.cpp argues); the zero source is solved at once.
TEST(CudaBlockSolve, EveryRightHandSideMeetsItsToleranceAndMatchesTheCpu) {
  const std::string why = cuda::unavailable_reason();
  if (!why.empty()) GTEST_SKIP() << why;
  const Geometry g({8, 8, 8, 8});
  GaugeField<double> u(g);
  fill_random_su3(u, 43);
  const int n = 5;
  std::vector<SpinorField<double>> b;
  for (int r = 0; r < n; ++r) fill_gaussian(b.emplace_back(g, Subset::Full), 60 + r);
  fill_zero(b[3]);
  constexpr double kTolerance = 1e-10;
  for (const SolveMethod method : {SolveMethod::Cgnr, SolveMethod::BiCGStab})
    for (const SolvePrecision precision : {SolvePrecision::Double, SolvePrecision::Mixed}) {
      const std::string what = std::string(method == SolveMethod::Cgnr ? "cgnr" : "bicgstab") + (precision == SolvePrecision::Mixed ? " mixed" : " double");
      SolveConfig c{.method = method, .precision = precision, .backend = SolveBackend::Cuda, .mass = kMass, .tolerance = kTolerance,
                    .max_iterations = 2000, .kernel = {.kernel = KernelFamily::Mrhs, .dispatch = Dispatch::Range, .nrhs = n}};
      const SolveOutcome gpu = solve_wilson(c, u, b);
      c.backend = SolveBackend::Cpu;
      c.kernel.isa = best_isa();
      const SolveOutcome cpu = solve_wilson(c, u, b);
      ASSERT_EQ(gpu.solves.size(), 1u) << what;
      ASSERT_EQ(gpu.solves[0].rhs.size(), static_cast<std::size_t>(n)) << what;
      EXPECT_TRUE(gpu.converged()) << what << ": " << gpu.solves[0].result.breakdown;
      const ReferenceCheck check = check_with_reference(u, b, gpu.x, kMass, kTolerance, false);
      for (std::size_t k = 0; k < static_cast<std::size_t>(n); ++k) {
        EXPECT_TRUE(gpu.solves[0].rhs[k].converged) << what << " rhs " << k;
        EXPECT_LE(check.residuals[k], kTolerance) << what << " rhs " << k;
        if (k == 3) continue;
        EXPECT_GT(gpu.solves[0].rhs[k].iterations, 0) << what << " rhs " << k;
        EXPECT_LT(relative_difference(gpu.x[k], cpu.x[k]), 1000 * kTolerance) << what << " rhs " << k;
      }
      EXPECT_EQ(norm2(gpu.x[3]), 0.0) << what;
      EXPECT_EQ(gpu.solves[0].rhs[3].iterations, 0) << what;
    }
}

// A double-half solve on the GPU (--sloppy half: the iterated operator in half precision storage),
// CG and BiCGStab, naive and vnode, and an mrhs block: x confirmed at the double tolerance by the
// reference, in at most 1.3x double-single's iterations.
TEST(CudaDoubleHalf, MeetsTheDoubleToleranceInFewMoreIterations) {
  const std::string why = cuda::unavailable_reason();
  if (!why.empty()) GTEST_SKIP() << why;
  const Geometry g({8, 8, 8, 8});
  GaugeField<double> u(g);
  fill_random_su3(u, 44);
  std::vector<SpinorField<double>> b;
  for (int r = 0; r < 3; ++r) fill_gaussian(b.emplace_back(g, Subset::Full), 70 + r);
  const DslashConfig kernels[] = {{.kernel = KernelFamily::Naive}, {.kernel = KernelFamily::Vnode}, {.kernel = KernelFamily::Mrhs, .nrhs = 3}};
  for (const SolveMethod method : {SolveMethod::Cgnr, SolveMethod::BiCGStab})
    for (const DslashConfig& kernel : kernels) {
      SolveConfig single{.method = method, .precision = SolvePrecision::Mixed, .backend = SolveBackend::Cuda, .mass = kMass, .tolerance = 1e-10,
                         .max_iterations = 2000, .kernel = kernel};
      SolveConfig half = single;
      half.sloppy_half = true;
      const SolveOutcome s = solve_wilson(single, u, b), h = solve_wilson(half, u, b);
      const std::string what = std::string(method == SolveMethod::Cgnr ? "cgnr " : "bicgstab ") + to_string(kernel.kernel);
      EXPECT_TRUE(h.converged()) << what;
      EXPECT_TRUE(check_with_reference(u, b, h.x, kMass, 1e-10, false).confirms) << what;
      EXPECT_LE(solve_totals(h, g).iterations, 1.3 * solve_totals(s, g).iterations) << what;
    }
}

// A singular M (tests/singular_solve_check.hpp): the sums the passes read stay on the GPU; the host
// finds the breakdown at its first wait, and x is still zero.
class CudaCgnr : public GpuTest<> {};

TEST_F(CudaCgnr, ReportsASingularOperatorAndLeavesXUntouched) {
  test::expect_singular_operator_reported<CudaSpace>(Geometry({8, 8, 8, 8}), {.kernel = KernelFamily::Vnode, .dispatch = Dispatch::Range});
}

class CudaOperator : public GpuTest<> {};

// apply_norm2_dot writes what apply() writes and returns its ||out||^2, <w, out> and <w2, out>, on
// every family: from the kernel's epilogue (vnode, mrhs) or, for naive's kernel, which fuses the
// xpay but not the inner products, from a dot pass after it.
TEST_F(CudaOperator, FusedApplyReturnsItsOutputsSums) {
  const Geometry g({8, 8, 8, 8});
  GaugeField<double> u(g);
  fill_random_su3(u, 29);
  for (const KernelFamily family : {KernelFamily::Naive, KernelFamily::Vnode, KernelFamily::Mrhs}) {
    DslashConfig config{.kernel = family, .dispatch = Dispatch::Range};
    if (family == KernelFamily::Mrhs) config.nrhs = simd_lanes(SimdIsa::Simt, sizeof(double));
    const EvenOddWilson<double, CudaSpace> op(u, kMass, config);
    std::vector<SpinorField<double>> xs, ws, w2s;
    for (int r = 0; r < config.nrhs; ++r) {
      fill_gaussian(xs.emplace_back(g, Subset::Even), 50 + r);
      fill_gaussian(ws.emplace_back(g, Subset::Even), 70 + r);
      fill_gaussian(w2s.emplace_back(g, Subset::Even), 90 + r);
    }
    const auto x = op.allocate("x"), w = op.allocate("w"), w2 = op.allocate("w2"), expect = op.allocate("expect"), got = op.allocate("got");
    op.pack(xs, x);
    op.pack(ws, w);
    op.pack(w2s, w2);
    for (const bool dagger : {false, true}) {
      op.apply(x, expect, dagger);
      const NormDot sums = op.apply_norm2_dot(x, got, w, dagger);
      const auto e = create_mirror_view(expect), o = create_mirror_view(got);
      deep_copy(e, expect);
      deep_copy(o, got);
      const double n2 = op.norm2(expect), scale = 1e-15 * std::sqrt(n2);
      for (std::size_t i = 0; i < o.size(); ++i) ASSERT_NEAR(o.data()[i], e.data()[i], scale) << to_string(family) << " at " << i;
      EXPECT_NEAR(sums.norm2, n2, 1e-13 * n2) << to_string(family);
      const std::complex<double> wy = op.dot(w, expect);
      EXPECT_LT(std::abs(sums.dot - wy), 1e-13 * std::abs(wy)) << to_string(family) << ": " << sums.dot << " vs " << wy;
      const NormDot both = op.apply_norm2_dot(x, got, w, w2, dagger);
      deep_copy(o, got);
      for (std::size_t i = 0; i < o.size(); ++i) ASSERT_NEAR(o.data()[i], e.data()[i], scale) << to_string(family) << " (two) at " << i;
      EXPECT_NEAR(both.norm2, n2, 1e-13 * n2) << to_string(family);
      EXPECT_LT(std::abs(both.dot - wy), 1e-13 * std::abs(wy)) << to_string(family) << ": " << both.dot << " vs " << wy;
      const std::complex<double> w2y = op.dot(w2, expect);
      EXPECT_LT(std::abs(both.dot2 - w2y), 1e-13 * std::abs(w2y)) << to_string(family) << ": " << both.dot2 << " vs " << w2y;
    }
  }
}

// Work for a hop clock: a big operator on unit links and a small one (8^4, random links), naive
// range double, each with an input of ones and an output.
struct BigAndSmall {
  static DslashConfig naive() { return {.kernel = KernelFamily::Naive, .dispatch = Dispatch::Range}; }
  static GaugeField<double> unit_links(const Geometry& g) {
    GaugeField<double> u(g);
    fill_unit(u);
    return u;
  }
  static GaugeField<double> random_links(const Geometry& g, int seed) {
    GaugeField<double> u(g);
    fill_random_su3(u, seed);
    return u;
  }
  explicit BigAndSmall(const Geometry& big_geometry)
      : big(unit_links(big_geometry), kMass, naive()), small(random_links(Geometry({8, 8, 8, 8}), 37), kMass, naive()), bx(big.allocate("bx")),
        by(big.allocate("by")), sx(small.allocate("sx")), sy(small.allocate("sy")) {
    deep_copy(bx, 1.0);
    deep_copy(sx, 1.0);
    Cuda::fence();
  }
  EvenOddWilson<double, CudaSpace> big, small;
  EvenOddWilson<double, CudaSpace>::vector_type bx, by, sx, sy;
};

// A hop's clock (solvers/hop_clock.hpp) holds the hop's own time, not the GPU work queued ahead of
// it, which a launch returns before: the big operator queues its hops, and the small one's clock,
// read after its own two, must not see them. On one stream the clocks never overlap: together they
// hold no more than the host's time around both.
TEST_F(CudaOperator, HopClockTimesTheHopsNotTheWorkQueuedAheadOfThem) {
  const BigAndSmall ops(Geometry({16, 16, 16, 64}));
  const auto& [big, small, bx, by, sx, sy] = ops;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 10; ++i) big.apply(bx, by);
  small.apply(sx, sy);
  const double small_hops = small.dslash_seconds();  // waits for its last hop, and so for everything
  const double host = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double big_hops = big.dslash_seconds();
  EXPECT_EQ(big.dslash_count(), 20);
  EXPECT_EQ(small.dslash_count(), 2);
  EXPECT_GT(small_hops, 0);
  EXPECT_LT(small_hops, 0.25 * big_hops) << "the small operator's clock held the big one's queued hops";
  EXPECT_LE(big_hops + small_hops, host);
}

// The clock waits for each of its pairs, not only the last: hops under two streams, the first still
// running when the second has ended, add up with no error from an unfinished event, and the pair
// around a big operator's hops holds at least their own time. (Waiting for the last pair alone,
// the first pair's end would not have happened yet when read.)
TEST_F(CudaOperator, HopClockWaitsForTheHopsOfEveryStream) {
  const BigAndSmall ops(Geometry({32, 32, 32, 32}));
  const auto& [big, small, bx, by, sx, sy] = ops;
  HopClock<CudaSpace> clock;
  cuda::Stream slow, quick;
  {
    cuda::StreamScope on(slow.get());
    clock.start();
    for (int i = 0; i < 5; ++i) big.apply(bx, by);
    clock.stop();
  }
  {
    cuda::StreamScope on(quick.get());
    clock.start();
    small.apply(sx, sy);
    clock.stop();
  }
  double both = 0;
  ASSERT_NO_THROW(both = clock.seconds());
  EXPECT_GE(both, big.dslash_seconds());
  EXPECT_EQ(big.dslash_count(), 10);
}

// convert(), add_and_zero() and convert_difference() between the double and single operators' device buffers: vnode (4
// lanes in double, 8 in single on the GPU), mrhs (8 right-hand sides: one block of each width) and
// naive (one layout), exactly as on the CPU.
TEST_F(CudaOperator, ConvertAndAddAndZeroMoveBuffersBetweenPrecisions) {
  const Geometry g({8, 8, 8, 8});
  GaugeField<double> u(g);
  fill_random_su3(u, 31);
  for (const KernelFamily family : {KernelFamily::Naive, KernelFamily::Vnode, KernelFamily::Mrhs}) {
    SCOPED_TRACE(to_string(family));
    DslashConfig config{.kernel = family, .dispatch = Dispatch::Range};
    if (family == KernelFamily::Mrhs) config.nrhs = simd_lanes(SimdIsa::Simt, sizeof(float));
    const EvenOddWilson<double, CudaSpace> op_d(u, kMass, config);
    const EvenOddWilson<float, CudaSpace> op_f(convert_precision<float>(u), kMass, config);
    test::expect_convert_between_precisions(op_d, op_f, 80);
    test::expect_add_and_zero(op_d, op_f, 90);
    test::expect_convert_difference(op_d, op_f, 100);
  }
}

}  // namespace
}  // namespace dslash
