// The solver layer: BLAS-1 on packed buffers against scalar loops and the fields' own inner
// product; the even-odd Wilson operator against the same formulas built from the reference Dslash;
// the solutions of CGNR and BiCGStab of the full-lattice system checked with the reference Wilson matrix.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <iostream>
#include <vector>

#include "kernels/reference_dslash.hpp"
#include "solvers/bicgstab.hpp"
#include "solvers/blas.hpp"
#include "solvers/cg.hpp"
#include "solvers/wilson_operator.hpp"
#include "test_support.hpp"

namespace dslash {
namespace {

using test::kSmallLattice;
// Every extent a multiple of 4, so the vnode lanes can fold y, z and t.
const Geometry kFoldable({8, 4, 4, 8});

SpinorField<double> gaussian(const Geometry& g, Subset subset, std::uint64_t seed) {
  SpinorField<double> full(g, Subset::Full), f(g, subset);
  fill_gaussian(full, seed);
  copy_sites(full, f);
  return f;
}

GaugeField<double> random_gauge(const Geometry& g, std::uint64_t seed) {
  GaugeField<double> u(g);
  fill_random_su3(u, seed);
  return u;
}

// The configurations the operator is tested with: scalar naive, and the SIMD families in both layouts.
std::vector<DslashConfig> configs() {
  const SimdIsa isa = best_isa();
  const int lanes = simd_lanes(isa, sizeof(double));
  return {{.kernel = KernelFamily::Naive},
          {.kernel = KernelFamily::Mrhs, .dispatch = Dispatch::Team, .isa = isa, .nrhs = lanes},
          {.kernel = KernelFamily::Vnode, .dispatch = Dispatch::MDRange, .isa = isa, .layout = SpinorLayout::Left}};
}

std::vector<SpinorField<double>> gaussians(const Geometry& g, Subset subset, int n, std::uint64_t seed) {
  std::vector<SpinorField<double>> v;
  for (int r = 0; r < n; ++r) v.push_back(gaussian(g, subset, seed + static_cast<std::uint64_t>(r)));
  return v;
}

std::vector<SpinorField<double>> empty_fields(const Geometry& g, Subset subset, int n) {
  std::vector<SpinorField<double>> v;
  for (int r = 0; r < n; ++r) v.emplace_back(g, subset);
  return v;
}

// M_ee_hat x = (4+m) x - D_{e<-o} D_{o<-e} x / (4 (4+m)), from the reference Dslash.
SpinorField<double> reference_schur(const GaugeField<double>& u, const SpinorField<double>& x, double mass, bool dagger) {
  const double a = 4 + mass;
  SpinorField<double> odd(u.geometry(), Subset::Odd), out(u.geometry(), Subset::Even);
  dslash_reference(u, x, odd, dagger);
  dslash_reference(u, odd, out, dagger);
  for (site_t i = 0; i < out.sites(); ++i)
    for (int s = 0; s < 4; ++s)
      for (int c = 0; c < 3; ++c) out(i, s, c) = a * x(i, s, c) - out(i, s, c) / (4 * a);
  return out;
}

// ---------------------------------------------------------------- BLAS

TEST(Blas, RealOperationsMatchScalarLoops) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 1);
  const DslashKernel<double> k(u, {});
  const auto x = k.allocate_spinors("x"), y = k.allocate_spinors("y");
  const std::size_t n = x.size();
  // Multiples of 1/4 in a small range: every product and sum below is exact.
  for (std::size_t i = 0; i < n; ++i) {
    x.data()[i] = static_cast<double>(static_cast<int>(i % 17) - 8) * 0.25;
    y.data()[i] = static_cast<double>(static_cast<int>(i % 13) - 6) * 0.5;
  }
  double xx = 0, xy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    xx += x.data()[i] * x.data()[i];
    xy += x.data()[i] * y.data()[i];
  }
  EXPECT_EQ(norm2(x), xx);
  EXPECT_EQ(re_dot(x, y), xy);

  std::vector<double> expect(y.data(), y.data() + n);
  axpy(0.5, x, y);
  for (std::size_t i = 0; i < n; ++i) expect[i] += 0.5 * x.data()[i];
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(y.data()[i], expect[i]) << "axpy at " << i;
  xpay(x, -1.5, y);
  for (std::size_t i = 0; i < n; ++i) expect[i] = x.data()[i] - 1.5 * expect[i];
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(y.data()[i], expect[i]) << "xpay at " << i;

  const auto short_view = View<double, 1>("short", n - 1);
  EXPECT_THROW(axpy(1.0, x, short_view), std::invalid_argument);
}

// For every tested configuration: a kernel whose input is even, two sets of Gaussian even fields x
// and y (one per right-hand side), and the two packed in its layout.
template <class Check>
void for_each_packed_pair(const Check& check) {
  const GaugeField<double> u = random_gauge(kFoldable, 2);
  for (DslashConfig c : configs()) {
    c.out = Subset::Odd;  // input: even fields
    const DslashKernel<double> k(u, c);
    const auto x = gaussians(kFoldable, Subset::Even, c.nrhs, 10), y = gaussians(kFoldable, Subset::Even, c.nrhs, 50);
    const auto px = k.allocate_spinors("x"), py = k.allocate_spinors("y");
    k.pack(x, px);
    k.pack(y, py);
    check(u, c, k, x, y, px, py);
  }
}

// The packed inner product is the fields' own, in every layout (interleaved, SIMD lanes, component-major).
TEST(Blas, ComplexDotIsTheFieldsInnerProduct) {
  for_each_packed_pair([](const GaugeField<double>&, const DslashConfig& c, const DslashKernel<double>& k, const auto& a, const auto& b,
                          const auto& pa, const auto& pb) {
    std::complex<double> expect = 0;
    double expect_norm = 0;
    for (int r = 0; r < c.nrhs; ++r) {
      expect += inner_product(a[static_cast<std::size_t>(r)], b[static_cast<std::size_t>(r)]);
      expect_norm += norm2(a[static_cast<std::size_t>(r)]);
    }
    const std::complex<double> got = dot(packed_complex(k), pa, pb);
    EXPECT_LT(std::abs(got - expect), 1e-12 * std::abs(expect)) << k.label() << ": " << got << " vs " << expect;
    EXPECT_NEAR(norm2(pa), expect_norm, 1e-12 * expect_norm) << k.label();
    EXPECT_NEAR(dot(packed_complex(k), pa, pa).real(), expect_norm, 1e-12 * expect_norm) << k.label();
  });
}

// Complex y = a x + b y on the packed buffers is the same on the fields, site by site, in every layout.
TEST(Blas, ComplexAxpbyIsTheFieldsOwn) {
  const std::complex<double> a(0.75, -1.5), b(-0.25, 2.0);
  for_each_packed_pair([&](const GaugeField<double>& u, const DslashConfig& c, const DslashKernel<double>& k, const auto& x, const auto& y,
                           const auto& px, const auto& py) {
    caxpby(packed_complex(k), a, px, b, py);
    std::vector<SpinorField<double>> got;
    const DslashKernel<double> unpacker(u, [&] {
      DslashConfig e = c;
      e.out = Subset::Even;  // output: even fields, the same packed layout
      return e;
    }());
    unpacker.unpack(py, got);
    for (int r = 0; r < c.nrhs; ++r)
      for (site_t i = 0; i < got[0].sites(); ++i)
        for (int sp = 0; sp < 4; ++sp)
          for (int col = 0; col < 3; ++col) {
            const std::size_t rr = static_cast<std::size_t>(r);
            const std::complex<double> expect = a * x[rr](i, sp, col) + b * y[rr](i, sp, col);
            ASSERT_LT(std::abs(got[rr](i, sp, col) - expect), 1e-14 * (1 + std::abs(expect))) << k.label() << " site " << i;
          }
  });
}

// ---------------------------------------------------------------- the even-odd operator

TEST(EvenOddWilson, SchurComplementMatchesTheReference) {
  constexpr double kMass = 0.1;
  const GaugeField<double> u = random_gauge(kFoldable, 3);
  for (const DslashConfig& c : configs()) {
    const EvenOddWilson<double> op(u, kMass, c);
    const auto x = gaussians(kFoldable, Subset::Even, c.nrhs, 100);
    const auto px = op.allocate("x"), py = op.allocate("y");
    op.pack(x, px);
    for (bool dagger : {false, true}) {
      op.apply(px, py, dagger);
      auto y = empty_fields(kFoldable, Subset::Even, c.nrhs);
      op.unpack(py, y);
      for (std::size_t r = 0; r < y.size(); ++r)
        EXPECT_LT(relative_difference(y[r], reference_schur(u, x[r], kMass, dagger)), 1e-12)
            << to_string(c.kernel) << " dagger " << dagger << " rhs " << r;
    }
  }
}

TEST(EvenOddWilson, SinglePrecisionMatchesTheReference) {
  constexpr double kMass = 0.25;
  const GaugeField<double> u = convert_precision<double>(convert_precision<float>(random_gauge(kSmallLattice, 4)));
  const EvenOddWilson<float> op(convert_precision<float>(u), kMass, {});
  const SpinorField<double> x = convert_precision<double>(convert_precision<float>(gaussian(kSmallLattice, Subset::Even, 7)));
  const auto px = op.allocate("x"), py = op.allocate("y");
  op.pack({convert_precision<float>(x)}, px);
  op.apply(px, py);
  std::vector<SpinorField<float>> y;
  y.emplace_back(kSmallLattice, Subset::Even);
  op.unpack(py, y);
  EXPECT_LT(relative_difference(y[0], reference_schur(u, x, kMass, false)), 1e-5);
}

// <x, M y> = <M^dagger x, y>: the dagger kernels give the adjoint (g5 D g5 = D^dagger).
TEST(EvenOddWilson, DaggerIsTheAdjoint) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 5);
  const EvenOddWilson<double> op(u, 0.1, {});
  const auto x = op.allocate("x"), y = op.allocate("y"), mx = op.allocate("mx"), my = op.allocate("my");
  op.pack(gaussians(kSmallLattice, Subset::Even, 1, 20), x);
  op.pack(gaussians(kSmallLattice, Subset::Even, 1, 30), y);
  op.apply(y, my);
  op.apply(x, mx, true);
  const PackedComplex c = op.complex_layout();
  const std::complex<double> lhs = dot(c, x, my), rhs = dot(c, mx, y);
  EXPECT_LT(std::abs(lhs - rhs), 1e-12 * std::abs(lhs)) << lhs << " vs " << rhs;
  // And M is not hermitian, so the test can tell the two apart.
  op.apply(x, mx);
  EXPECT_GT(std::abs(dot(c, mx, y) - lhs), 1e-6 * std::abs(lhs));
}

// For any full-lattice x with b = M x: prepare_source(b) = M_ee_hat x_e and reconstruct(x_e, b_o) = x_o.
TEST(EvenOddWilson, PrepareAndReconstructInvertTheBlocks) {
  constexpr double kMass = 0.1;
  const GaugeField<double> u = random_gauge(kSmallLattice, 6);
  const EvenOddWilson<double> op(u, kMass, {});
  const SpinorField<double> x = gaussian(kSmallLattice, Subset::Full, 40);
  SpinorField<double> b(kSmallLattice, Subset::Full);
  wilson_matrix_reference(u, x, b, kMass);
  std::vector<SpinorField<double>> parts = empty_fields(kSmallLattice, Subset::Even, 1);
  parts.emplace_back(kSmallLattice, Subset::Odd);
  const auto pxe = op.allocate("x_e"), pbe = op.allocate("b_e"), pbo = op.allocate("b_o"), out = op.allocate("out"), mx = op.allocate("mx");
  const auto pack_part = [&](const SpinorField<double>& f, std::size_t which, const EvenOddWilson<double>::vector_type& p) {
    copy_sites(f, parts[which]);
    op.pack({parts[which]}, p);
  };
  pack_part(x, 0, pxe);
  pack_part(b, 0, pbe);
  pack_part(b, 1, pbo);

  op.prepare_source(pbe, pbo, out);
  op.apply(pxe, mx);
  std::vector<SpinorField<double>> got = empty_fields(kSmallLattice, Subset::Even, 1), want = empty_fields(kSmallLattice, Subset::Even, 1);
  op.unpack(out, got);
  op.unpack(mx, want);
  EXPECT_LT(relative_difference(got[0], want[0]), 1e-12);

  op.reconstruct(pxe, pbo, out);
  std::vector<SpinorField<double>> x_odd = empty_fields(kSmallLattice, Subset::Odd, 1);
  op.unpack(out, x_odd);
  copy_sites(x, parts[1]);
  EXPECT_LT(relative_difference(x_odd[0], parts[1]), 1e-12);
}

TEST(EvenOddWilson, RefusesANonPositiveDiagonal) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 1);
  EXPECT_THROW(EvenOddWilson<double>(u, -4.0, {}), std::invalid_argument);
}

// ---------------------------------------------------------------- CGNR

// Solves M x = b on the full lattice through the even system; returns ||b - M x|| / ||b|| from the
// reference Wilson matrix.
using Solver = std::function<SolverResult(const EvenOddWilson<double>&, const EvenOddWilson<double>::vector_type&,
                                           const EvenOddWilson<double>::vector_type&, const SolverParams&)>;

double solve_full(const GaugeField<double>& u, const SpinorField<double>& b, double mass, const DslashConfig& config,
                  SolverResult& result, const Solver& solver = cgnr<double>) {
  const Geometry& g = u.geometry();
  const EvenOddWilson<double> op(u, mass, config);
  std::vector<SpinorField<double>> even = empty_fields(g, Subset::Even, 1), odd = empty_fields(g, Subset::Odd, 1);
  copy_sites(b, even[0]);
  copy_sites(b, odd[0]);
  const auto be = op.allocate("b_e"), bo = op.allocate("b_o"), b_hat = op.allocate("b_hat"), xe = op.allocate("x_e"), xo = op.allocate("x_o");
  op.pack(even, be);
  op.pack(odd, bo);
  op.prepare_source(be, bo, b_hat);
  deep_copy(xe, 0.0);
  result = solver(op, b_hat, xe, {.tolerance = 1e-10, .max_iterations = 1000});
  op.reconstruct(xe, bo, xo);
  op.unpack(xe, even);
  op.unpack(xo, odd);

  SpinorField<double> x(g, Subset::Full), mx(g, Subset::Full);
  copy_sites(even[0], x);
  SpinorField<double> x_odd_full(g, Subset::Full);
  copy_sites(odd[0], x_odd_full);
  axpy(std::complex<double>(1), x_odd_full, x);
  wilson_matrix_reference(u, x, mx, mass);
  axpy(std::complex<double>(-1), b, mx);
  return std::sqrt(norm2(mx) / norm2(b));
}

void expect_solved(const SolverResult& result, double full_residual, const char* what) {
  std::cout << what << ": " << result.iterations << " iterations, even-system residual " << result.relative_residual
            << ", full-lattice residual " << full_residual << "\n";
  EXPECT_TRUE(result.converged) << what;
  EXPECT_LE(result.history.back(), 1e-10);
  EXPECT_LE(result.relative_residual, 1e-9) << what;
  EXPECT_LE(full_residual, 1e-9) << what;
}

TEST(Cgnr, SolvesTheFullSystemOnARandomGauge) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 8);
  SolverResult result;
  const double residual = solve_full(u, gaussian(kSmallLattice, Subset::Full, 60), 0.1, {}, result);
  expect_solved(result, residual, "random SU(3), m = 0.1, naive");
  EXPECT_EQ(result.history.size(), static_cast<std::size_t>(result.iterations) + 1);
  // CGLS's residual never grows.
  for (std::size_t i = 1; i < result.history.size(); ++i) EXPECT_LE(result.history[i], result.history[i - 1] * (1 + 1e-12));
}

TEST(Cgnr, SolvesWithTheVnodeKernel) {
  const GaugeField<double> u = random_gauge(kFoldable, 9);
  SolverResult result;
  const double residual = solve_full(u, gaussian(kFoldable, Subset::Full, 61), 0.1, configs()[2], result);
  expect_solved(result, residual, "random SU(3), m = 0.1, vnode");
}

// Unit gauge, a point source at the origin (spin 0, colour 0), m = 0.1.
void expect_free_field_point_source_solved(const Solver& solver, const char* what) {
  GaugeField<double> u(kSmallLattice);
  fill_unit(u);
  SpinorField<double> b(kSmallLattice, Subset::Full);
  fill_zero(b);
  b(0, 0, 0) = 1;
  SolverResult result;
  const double residual = solve_full(u, b, 0.1, {}, result, solver);
  expect_solved(result, residual, what);
}

TEST(Cgnr, SolvesAFreeFieldPointSource) { expect_free_field_point_source_solved(cgnr<double>, "free field, point source, m = 0.1"); }

// A solve stopped at `limit` iterations, short of its tolerance, says so in its result.
void expect_reports_non_convergence(const Solver& solver, int limit) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 8);
  const EvenOddWilson<double> op(u, 0.1, {});
  const auto b = op.allocate("b"), x = op.allocate("x");
  op.pack(gaussians(kSmallLattice, Subset::Even, 1, 70), b);
  deep_copy(x, 0.0);
  const SolverResult result = solver(op, b, x, {.tolerance = 1e-10, .max_iterations = limit});
  EXPECT_FALSE(result.converged);
  EXPECT_EQ(result.iterations, limit);
  EXPECT_EQ(result.history.size(), static_cast<std::size_t>(limit) + 1);
  EXPECT_GT(result.relative_residual, 1e-10);
  EXPECT_LT(result.relative_residual, 1.0);
}

// A zero source: x = 0 at once, whatever x held.
void expect_zero_source_gives_zero(const Solver& solver) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 8);
  const EvenOddWilson<double> op(u, 0.1, {});
  const auto b = op.allocate("b"), x = op.allocate("x");
  deep_copy(b, 0.0);
  deep_copy(x, 1.0);
  const SolverResult result = solver(op, b, x, {});
  EXPECT_TRUE(result.converged);
  EXPECT_EQ(result.iterations, 0);
  EXPECT_EQ(norm2(x), 0.0);
}

TEST(Cgnr, ReportsNonConvergence) { expect_reports_non_convergence(cgnr<double>, 3); }

TEST(Cgnr, ZeroSourceGivesZero) { expect_zero_source_gives_zero(cgnr<double>); }

// ---------------------------------------------------------------- BiCGStab

TEST(Bicgstab, SolvesTheFullSystemOnARandomGauge) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 8);
  SolverResult result;
  const double residual = solve_full(u, gaussian(kSmallLattice, Subset::Full, 60), 0.1, {}, result, bicgstab);
  expect_solved(result, residual, "BiCGStab, random SU(3), m = 0.1, naive");
  EXPECT_EQ(result.history.size(), static_cast<std::size_t>(result.iterations) + 1);
  EXPECT_TRUE(result.breakdown.empty()) << result.breakdown;
}

TEST(Bicgstab, SolvesWithTheVnodeKernel) {
  const GaugeField<double> u = random_gauge(kFoldable, 9);
  SolverResult result;
  const double residual = solve_full(u, gaussian(kFoldable, Subset::Full, 61), 0.1, configs()[2], result, bicgstab);
  expect_solved(result, residual, "BiCGStab, random SU(3), m = 0.1, vnode");
}

TEST(Bicgstab, SolvesAFreeFieldPointSource) {
  expect_free_field_point_source_solved(bicgstab, "BiCGStab, free field, point source, m = 0.1");
}

// The same system as CGNR's: BiCGStab works on M_ee_hat itself and needs fewer iterations.
TEST(Bicgstab, NeedsFewerIterationsThanCgnr) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 8);
  SolverResult cg, bi;
  solve_full(u, gaussian(kSmallLattice, Subset::Full, 60), 0.1, {}, cg, cgnr<double>);
  solve_full(u, gaussian(kSmallLattice, Subset::Full, 60), 0.1, {}, bi, bicgstab);
  ASSERT_TRUE(cg.converged && bi.converged);
  EXPECT_LT(bi.iterations, cg.iterations);
}

TEST(Bicgstab, ReportsNonConvergenceAndZeroSources) {
  expect_reports_non_convergence(bicgstab, 2);
  expect_zero_source_gives_zero(bicgstab);
}

// ---------------------------------------------------------------- mixed precision

// mixed_cgnr with the same operator in single precision as the inner solver.
Solver mixed(const GaugeField<double>& u, double mass, const DslashConfig& config) {
  return [&u, mass, config](const EvenOddWilson<double>& op, const EvenOddWilson<double>::vector_type& b,
                            const EvenOddWilson<double>::vector_type& x, const SolverParams& params) {
    const EvenOddWilson<float> inner(convert_precision<float>(u), mass, config);
    return mixed_cgnr(op, inner, b, x, params);
  };
}

// Single precision alone stalls short of a double-precision tolerance; the mixed solver, whose
// residual is recomputed in double after every single-precision correction, meets it.
TEST(MixedCgnr, MeetsADoublePrecisionToleranceThatSingleAloneCannot) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 8);
  const EvenOddWilson<float> single(convert_precision<float>(u), 0.1, {});
  const auto b = single.allocate("b"), x = single.allocate("x");
  single.pack({convert_precision<float>(gaussian(kSmallLattice, Subset::Even, 70))}, b);
  deep_copy(x, 0.0f);
  // Its recurrence residual may pass 1e-10 while the true residual, recomputed, stays far above.
  const SolverResult alone = cgnr(single, b, x, {.tolerance = 1e-10, .max_iterations = 300});
  EXPECT_GT(alone.relative_residual, 1e-9) << "single precision alone reached " << alone.relative_residual;

  SolverResult result;
  const double residual = solve_full(u, gaussian(kSmallLattice, Subset::Full, 60), 0.1, {}, result, mixed(u, 0.1, {}));
  expect_solved(result, residual, "mixed precision, random SU(3), m = 0.1, naive");
  EXPECT_GE(result.history.size(), 3u) << "one single-precision correction cannot reach 1e-10";
  for (std::size_t i = 1; i < result.history.size(); ++i) EXPECT_LT(result.history[i], result.history[i - 1]);
}

// The two precisions' SIMD layouts differ (vnode folds 16 float or 8 double lanes on AVX-512):
// corrections pass between them through the fields.
TEST(MixedCgnr, SolvesWithTheVnodeKernel) {
  const GaugeField<double> u = random_gauge(kFoldable, 9);
  SolverResult result;
  const double residual = solve_full(u, gaussian(kFoldable, Subset::Full, 61), 0.1, configs()[2], result, mixed(u, 0.1, configs()[2]));
  expect_solved(result, residual, "mixed precision, random SU(3), m = 0.1, vnode");
}

}  // namespace
}  // namespace dslash
