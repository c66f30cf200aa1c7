// The solver layer: BLAS-1 on packed buffers against scalar loops and the fields' own inner
// product; the even-odd Wilson operator against the same formulas built from the reference Dslash;
// the solutions of CGNR and BiCGStab of the full-lattice system checked with the reference Wilson
// matrix; the solve driver that runs them for `dslash solve`.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "dslash/lattice/gamma.hpp"
#include "kernels/reference_dslash.hpp"
#include "kernel_variant.hpp"
#include "layout_move_check.hpp"
#include "singular_solve_check.hpp"
#include "solvers/bicgstab.hpp"
#include "solvers/blas.hpp"
#include "solvers/block_bicgstab.hpp"
#include "solvers/block_cg.hpp"
#include "solvers/cg.hpp"
#include "solvers/device_sums.hpp"
#include "solvers/rhs_blas.hpp"
#include "solvers/solve_driver.hpp"
#include "solvers/wilson_operator.hpp"
#include "test_support.hpp"

namespace dslash {
namespace {

using test::empty_fields;
using test::gaussian;
using test::gaussians;
using test::kSmallLattice;
// Every extent a multiple of 4, so the vnode lanes can fold y, z and t.
const Geometry kFoldable({8, 4, 4, 8});

GaugeField<double> random_gauge(const Geometry& g, std::uint64_t seed) {
  GaugeField<double> u(g);
  fill_random_su3(u, seed);
  return u;
}

// The configurations the operator is tested with: scalar naive, and the SIMD families in both
// layouts; the last with compressed links, whose kernels have no epilogue (M_ee_hat's last pass
// stays a BLAS one).
std::vector<DslashConfig> configs() {
  const SimdIsa isa = best_isa();
  const int lanes = simd_lanes(isa, sizeof(double));
  return {{.kernel = KernelFamily::Naive},
          {.kernel = KernelFamily::Mrhs, .dispatch = Dispatch::Team, .isa = isa, .nrhs = lanes},
          {.kernel = KernelFamily::Vnode, .dispatch = Dispatch::MDRange, .isa = isa, .layout = test::left_layout_if_built()},
          {.kernel = KernelFamily::Vnode, .isa = isa, .compress = build::kLinks12 ? 12 : 18}};
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

  // The fused passes: the same updates, and the norm of what they wrote.
  double expect_norm = 0;
  for (std::size_t i = 0; i < n; ++i) {
    expect[i] = 0.25 * x.data()[i] - 2 * expect[i];
    expect_norm += expect[i] * expect[i];
  }
  EXPECT_EQ(axpby_norm2(0.25, x, -2.0, y), expect_norm);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(y.data()[i], expect[i]) << "axpby_norm2 at " << i;

  // x += a p, then p = z + b p, with z = y.
  const auto p = k.allocate_spinors("p");
  std::vector<double> expect_x(x.data(), x.data() + n), expect_p(n);
  for (std::size_t i = 0; i < n; ++i) {
    p.data()[i] = static_cast<double>(static_cast<int>(i % 7) - 3);
    expect_x[i] += 0.5 * p.data()[i];
    expect_p[i] = y.data()[i] - 1.5 * p.data()[i];
  }
  axpy_xpay(0.5, p, x, y, -1.5);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(x.data()[i], expect_x[i]) << "axpy_xpay's x at " << i;
    ASSERT_EQ(p.data()[i], expect_p[i]) << "axpy_xpay's p at " << i;
  }

  const auto short_view = View<double, 1>("short", n - 1);
  EXPECT_THROW(axpy(1.0, x, short_view), std::invalid_argument);
}

// A coefficient read from sums the solver keeps in memory (DeviceRatio, DeviceSums): on the host it
// is read before the pass, which is then the pass with the quotient given; a zero denominator reads
// as zero; a sum left in memory is the one returned.
TEST(Blas, CoefficientsReadFromSumsAreTheQuotient) {
  const View<float, 1> x("x", 1003), y("y", 1003), y2("y2", 1003);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x.data()[i] = std::sin(0.3f * static_cast<float>(i));
    y.data()[i] = y2.data()[i] = std::cos(0.7f * static_cast<float>(i));
  }
  DeviceSums<HostSpace> sums(3);
  sums.set(0, 2.0);
  sums.set(1, 3.0);
  const DeviceRatio<float> minus_two_thirds{-1.0f, sums.on_device(0), sums.on_device(1)};
  EXPECT_EQ(blas_detail::value(minus_two_thirds), -static_cast<float>(2.0 / 3.0));
  axpby_norm2(minus_two_thirds, x, 1.0f, y, sums.into(2));
  const double expect = axpby_norm2(-static_cast<float>(2.0 / 3.0), x, 1.0f, y2);
  EXPECT_EQ(sums.read(2), expect);
  EXPECT_EQ(sums.read_without_wait(0), 2.0);
  for (std::size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y.data()[i], y2.data()[i]) << i;
  sums.set(1, 0.0);
  xpay(x, minus_two_thirds, y);  // y = x + 0 y
  for (std::size_t i = 0; i < y.size(); ++i) ASSERT_EQ(y.data()[i], x.data()[i]) << i;
  EXPECT_THROW(sums.read(3), std::out_of_range);
  EXPECT_THROW(sums.read_without_wait(-1), std::out_of_range);
}

// A pass's groups (on a GPU 16 bytes of reals an index, n/K apart) cover every element once,
// also where K does not divide n, and read the missing ones as zero without writing them.
TEST(Blas, GroupsCoverEveryElementOnce) {
  constexpr int K = 3;
  for (const index_t n : {index_t{1}, index_t{9}, index_t{10}, index_t{11}}) {
    std::vector<double> seen(static_cast<std::size_t>(n), 0.0), values(static_cast<std::size_t>(n));
    for (index_t e = 0; e < n; ++e) values[static_cast<std::size_t>(e)] = static_cast<double>(e + 1);
    double* seen_p = seen.data();
    const double* values_p = values.data();
    blas_detail::for_each_group<double, HostSpace, K>("test_groups", n, [=](const blas_detail::Strided<K>& g) {
      double v[K];
      g.load(values_p, v);
      for (int j = 0; j < K; ++j) v[j] += 1;  // a missing element reads 0 and would store 1
      g.store(seen_p, v);
    });
    for (index_t e = 0; e < n; ++e) ASSERT_EQ(seen[static_cast<std::size_t>(e)], static_cast<double>(e + 2)) << "n = " << n << ", element " << e;
    double sum = 0;
    blas_detail::reduce_groups<double, HostSpace, K>("test_group_sum", n, [=](const blas_detail::Strided<K>& g, double& acc) {
      double v[K];
      g.load(values_p, v);
      for (const double x : v) acc += x;
    }, sum);
    EXPECT_EQ(sum, static_cast<double>(n * (n + 1) / 2)) << "n = " << n;
  }
}

// PackedComplex's chunk arithmetic visits the same complex numbers as the layouts' own index
// arithmetic (kernel_layout.hpp), each once, with the imaginary part where the layout puts it: in
// every layout, the GPU's pairs included.
TEST(Blas, PackedComplexVisitsEveryComplexNumberOnce) {
  const KernelLayout l{.lanes = 4, .blocks = 3};
  constexpr index_t kSites = 5;
  const std::vector<KernelLayout::Strides> layouts = {l.spinor_strides(false, kSites), l.spinor_strides(true, kSites),
                                                      l.spinor_strides(false, kSites, true)};
  for (const KernelLayout::Strides& strides : layouts) {
    const PackedComplex c{kSites, l.blocks, l.lanes, strides};
    std::vector<index_t> by_layout, by_chunks;
    for (index_t s = 0; s < kSites; ++s)
      for (index_t b = 0; b < l.blocks; ++b)
        for (int k = 0; k < 12; ++k)
          for (int lane = 0; lane < l.lanes; ++lane) {
            const index_t re = strides.index(s, b, 2 * k, lane, l.lanes);
            ASSERT_EQ(strides.index(s, b, 2 * k + 1, lane, l.lanes), re + c.imag_offset());
            by_layout.push_back(re);
          }
    for (index_t i = 0; i < c.count(); ++i) by_chunks.push_back(c.real_index(i));
    std::sort(by_layout.begin(), by_layout.end());
    std::sort(by_chunks.begin(), by_chunks.end());
    EXPECT_EQ(by_chunks, by_layout) << "strides " << strides.site << "/" << strides.block << "/" << strides.component << (strides.pairs ? " pairs" : "");
  }
}

// The CPU's runs of complex numbers (blas_detail::ComplexRuns) cover the same real parts as
// real_index, each once, with the imaginary parts chunk further, wherever a chunk holds a multiple
// of 8: LayoutRight with 8 and 16 lanes, and LayoutLeft, whose chunks of 8 x 3 x 67 complex
// numbers end in a run shorter than 64. Pairs and 4 lanes are left to the general path.
TEST(Blas, ComplexRunsVisitEveryComplexNumberOnce) {
  struct Case {
    int lanes;
    index_t sites;
    bool left, pairs, usable;
  };
  for (const Case& k : {Case{8, 5, false, false, true}, Case{16, 5, false, false, true}, Case{8, 67, true, false, true},
                        Case{4, 5, false, false, false}, Case{8, 5, false, true, false}}) {
    const KernelLayout l{.lanes = k.lanes, .blocks = 3};
    const KernelLayout::Strides strides = l.spinor_strides(k.left, k.sites, k.pairs);
    const PackedComplex c{k.sites, l.blocks, l.lanes, strides};
    const blas_detail::ComplexRuns runs(c);
    ASSERT_EQ(runs.usable(), k.usable) << "lanes " << k.lanes << (k.left ? " left" : "") << (k.pairs ? " pairs" : "");
    if (!k.usable) continue;
    ASSERT_EQ(runs.chunk, c.imag_offset());
    std::vector<index_t> by_runs, by_chunks;
    for (index_t r = 0; r < runs.count; ++r) {
      index_t re, n;
      runs.bounds(r, re, n);
      ASSERT_EQ(n % 8, 0);
      ASSERT_LE(n, blas_detail::ComplexRuns::kRun);
      for (index_t j = 0; j < n; ++j) by_runs.push_back(re + j);
    }
    for (index_t i = 0; i < c.count(); ++i) by_chunks.push_back(c.real_index(i));
    std::sort(by_runs.begin(), by_runs.end());
    std::sort(by_chunks.begin(), by_chunks.end());
    EXPECT_EQ(by_runs, by_chunks) << "lanes " << k.lanes << (k.left ? " left" : "");
  }
}

// A site's first real plus SpinorSlots::offsets, the site's arithmetic done once, gives every real
// where index() does, in every layout; a folded one through a map of sites to slots.
TEST(Blas, SpinorSlotsOffsetsFindEachRealFromTheFirst) {
  const KernelLayout l{.lanes = 4, .blocks = 2};
  constexpr index_t kSites = 3;
  const std::vector<index_t> slot_of_site = {5, 0, 11, 2, 7, 1, 9, 3, 10, 4, 6, 8};  // 3 outer sites x 4 lanes
  for (const KernelLayout::Strides& strides : {l.spinor_strides(false, kSites), l.spinor_strides(true, kSites), l.spinor_strides(false, kSites, true)})
    for (const bool folded : {false, true}) {
      const SpinorSlots slots{l.lanes, folded, strides, slot_of_site.data()};
      const index_t sites = folded ? kSites * l.lanes : kSites;
      const int rhs = folded ? l.blocks : l.blocks * l.lanes;
      for (index_t i = 0; i < sites; ++i)
        for (int r = 0; r < rhs; ++r)
          for (int c = 0; c < 24; ++c)
            ASSERT_EQ(slots.index(i, r, 0) + slots.offsets()[c], slots.index(i, r, c)) << "site " << i << " rhs " << r << " real " << c;
    }
}

// For every tested configuration: a kernel whose input is even, one whose output is even (it
// unpacks a result in the same packed layout), two sets of Gaussian even fields x and y (one per
// right-hand side), and the two packed in that layout.
template <class Check>
void for_each_packed_pair(const Check& check) {
  const GaugeField<double> u = random_gauge(kFoldable, 2);
  for (DslashConfig c : configs()) {
    c.out = Subset::Odd;  // input: even fields
    const DslashKernel<double> k(u, c);
    const DslashKernel<double> even_out(u, LocalHopping<double, HostSpace>::with(c, Subset::Even, false));
    const auto x = gaussians(kFoldable, Subset::Even, c.nrhs, 10), y = gaussians(kFoldable, Subset::Even, c.nrhs, 50);
    const auto px = k.allocate_spinors("x"), py = k.allocate_spinors("y");
    k.pack(x, px);
    k.pack(y, py);
    check(c, k, even_out, x, y, px, py);
  }
}

// Every complex number of the fields unpacked from `packed` equals expect(r, site, spin, colour)
// (right-hand side r) to 1e-14; returns the fields.
template <class Expect>
std::vector<SpinorField<double>> expect_unpacked(const DslashKernel<double>& even_out, const DslashKernel<double>::spinor_view& packed,
                                                 const Expect& expect, const std::string& what) {
  std::vector<SpinorField<double>> got;
  even_out.unpack(packed, got);
  for (std::size_t r = 0; r < got.size(); ++r)
    for (site_t i = 0; i < got[r].sites(); ++i)
      for (int sp = 0; sp < 4; ++sp)
        for (int col = 0; col < 3; ++col) {
          const std::complex<double> e = expect(r, i, sp, col);
          EXPECT_LT(std::abs(got[r](i, sp, col) - e), 1e-14 * (1 + std::abs(e))) << what << ", rhs " << r << ", site " << i;
          if (::testing::Test::HasFailure()) return got;
        }
  return got;
}

// The packed inner product is the fields' own, in every layout (interleaved, SIMD lanes, component-major).
TEST(Blas, ComplexDotIsTheFieldsInnerProduct) {
  for_each_packed_pair([](const DslashConfig& c, const DslashKernel<double>& k, const DslashKernel<double>&, const auto& a, const auto& b,
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
  for_each_packed_pair([&](const DslashConfig&, const DslashKernel<double>& k, const DslashKernel<double>& even_out, const auto& x, const auto& y,
                           const auto& px, const auto& py) {
    caxpby(packed_complex(k), a, px, b, py);
    expect_unpacked(
        even_out, py, [&](std::size_t r, site_t i, int sp, int col) { return a * x[r](i, sp, col) + b * y[r](i, sp, col); }, k.label());
  });
}

// The fused complex passes of BiCGStab are the same operations on the fields: z = a x + b y + c z,
// y = a x + b y with ||y||^2, <w, y> and <w2, y> of the result (w = x, as for <s, t>, included),
// <w, y> and <w2, y> alone, and its last pass (the solution, the residual, the next direction and
// the residual's norm).
TEST(Blas, FusedComplexPassesAreTheFieldsOwn) {
  const std::complex<double> a(0.75, -1.5), b(-0.25, 2.0), c(1.25, 0.5);
  for_each_packed_pair([&](const DslashConfig& cfg, const DslashKernel<double>& k, const DslashKernel<double>& even_out, const auto& x, const auto& y,
                           const auto& px, const auto& py) {
    const PackedComplex layout = packed_complex(k);
    const auto pz = k.allocate_spinors("z"), pw = k.allocate_spinors("w");
    const auto z = gaussians(kFoldable, Subset::Even, cfg.nrhs, 90);
    k.pack(z, pz);
    deep_copy(pw, py);  // y before the update

    caxpbypcz(layout, a, px, b, py, c, pz);
    expect_unpacked(
        even_out, pz, [&](std::size_t r, site_t i, int sp, int col) { return a * x[r](i, sp, col) + b * y[r](i, sp, col) + c * z[r](i, sp, col); },
        k.label() + " caxpbypcz");

    k.pack(z, pz);  // z before the update
    const auto w2 = gaussians(kFoldable, Subset::Even, cfg.nrhs, 92);
    const auto pw2 = k.allocate_spinors("w2");
    k.pack(w2, pw2);
    for (const bool w_is_x : {false, true}) {
      deep_copy(py, pw);
      const auto& w_packed = w_is_x ? px : pz;
      const NormDot sums = caxpby_norm2_dot(layout, a, px, b, py, w_packed, pw2);
      const auto got = expect_unpacked(
          even_out, py, [&](std::size_t r, site_t i, int sp, int col) { return a * x[r](i, sp, col) + b * y[r](i, sp, col); },
          k.label() + " caxpby_norm2_dot");
      std::complex<double> expect_dot = 0, expect_dot2 = 0;
      double expect_norm = 0;
      for (std::size_t r = 0; r < got.size(); ++r) {
        expect_norm += norm2(got[r]);
        expect_dot += inner_product(w_is_x ? x[r] : z[r], got[r]);
        expect_dot2 += inner_product(w2[r], got[r]);
      }
      EXPECT_NEAR(sums.norm2, expect_norm, 1e-12 * expect_norm) << k.label();
      EXPECT_LT(std::abs(sums.dot - expect_dot), 1e-12 * std::abs(expect_dot)) << k.label() << (w_is_x ? ", w = x" : "");
      EXPECT_LT(std::abs(sums.dot2 - expect_dot2), 1e-12 * std::abs(expect_dot2)) << k.label() << " caxpby_norm2_dot's second";
      const auto [dot, dot2] = dslash::dot2(layout, w_packed, pw2, py);
      EXPECT_LT(std::abs(dot - expect_dot), 1e-12 * std::abs(expect_dot)) << k.label() << " dot2's first";
      EXPECT_LT(std::abs(dot2 - expect_dot2), 1e-12 * std::abs(expect_dot2)) << k.label() << " dot2's second";
    }

    // BiCGStab's last pass, with p = x, t = y, v = w2, r = z (holding s) and the solution s:
    // s += a x + c z, z -= c y, q = z + b (x - c w2), with ||z||^2 of the new z.
    deep_copy(py, pw);
    k.pack(z, pz);
    const auto solution = gaussians(kFoldable, Subset::Even, cfg.nrhs, 91);
    const auto ps = k.allocate_spinors("s"), pq = k.allocate_spinors("q");
    k.pack(solution, ps);
    const double rr = bicgstab_update(layout, a, px, c, py, pw2, b, pz, ps, pq);
    expect_unpacked(
        even_out, ps,
        [&](std::size_t r, site_t i, int sp, int col) { return solution[r](i, sp, col) + a * x[r](i, sp, col) + c * z[r](i, sp, col); },
        k.label() + " bicgstab_update's solution");
    const auto got = expect_unpacked(
        even_out, pz, [&](std::size_t r, site_t i, int sp, int col) { return z[r](i, sp, col) - c * y[r](i, sp, col); },
        k.label() + " bicgstab_update's residual");
    expect_unpacked(
        even_out, pq,
        [&](std::size_t r, site_t i, int sp, int col) {
          return z[r](i, sp, col) - c * y[r](i, sp, col) + b * (x[r](i, sp, col) - c * w2[r](i, sp, col));
        },
        k.label() + " bicgstab_update's direction");
    double expect_norm = 0;
    for (const auto& field : got) expect_norm += norm2(field);
    EXPECT_NEAR(rr, expect_norm, 1e-12 * expect_norm) << k.label() << " bicgstab_update";
    EXPECT_THROW(bicgstab_update(layout, a, px, c, py, pw2, b, pz, ps, px), std::invalid_argument) << "the direction in place";
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

// The operator in half precision storage on one process (solvers/half_hopping.hpp): both hops of
// M_ee_hat back to back on half codes (apply_pair), counted as two, against the reference within
// what two half hops allow (kernels/dslash_kernel.hpp, half_precision_bound): the first hop's error,
// carried through the second (|D| <= 16), and the second's own, over 4a; plus single's rounding.
TEST(EvenOddWilson, HalfPrecisionPairsMatchTheReferenceWithinTheirBound) {
  const DslashConfig cfg{.kernel = KernelFamily::Vnode, .isa = best_isa()};
  if (!half_built(cfg.kernel, cfg.isa)) GTEST_SKIP() << "half precision kernels are not built for " << to_string(cfg.isa);
  constexpr double kMass = -0.5, a = 4 + kMass;
  const GaugeField<double> u = convert_precision<double>(convert_precision<float>(random_gauge(kFoldable, 9)));
  DslashConfig half_cfg = cfg;
  half_cfg.half = true;
  const EvenOddWilson<float> single(convert_precision<float>(u), kMass, cfg), half(convert_precision<float>(u), kMass, half_cfg);
  EXPECT_TRUE(half.hopping().applies_pairs());
  EXPECT_FALSE(single.hopping().applies_pairs());
  const SpinorField<double> x = convert_precision<double>(convert_precision<float>(gaussian(kFoldable, Subset::Even, 11)));
  const auto px = single.allocate("x"), y = single.allocate("y"), z = single.allocate("z"), out = half.allocate("out");
  single.pack({convert_precision<float>(x)}, px);
  for (bool dagger : {false, true}) {
    single.hopping().apply(Subset::Odd, dagger, px, y);  // the norms the bound takes
    single.hopping().apply(Subset::Even, dagger, y, z);
    const double nx = std::sqrt(single.norm2(px)), ny = std::sqrt(single.norm2(y)), nz = std::sqrt(single.norm2(z));
    const double first = half_precision_bound(18, nx / ny) * ny, second = half_precision_bound(18, (ny + first) / nz) * (nz + 16 * first);
    const std::int64_t hops = half.dslash_count();
    half.apply(px, out, dagger);
    EXPECT_EQ(half.dslash_count() - hops, 2) << "dagger " << dagger;
    std::vector<SpinorField<float>> got;
    got.emplace_back(kFoldable, Subset::Even);
    half.unpack(out, got);
    const SpinorField<double> expected = reference_schur(u, x, kMass, dagger);
    double error2 = 0;  // |M x - expected|, in the norm the bound is in
    for (index_t k = 0; k < expected.sites() * 12; ++k) error2 += std::norm(std::complex<double>(got[0].data()[k]) - expected.data()[k]);
    const double error = std::sqrt(error2);
    EXPECT_LE(error, (16 * first + second) / (4 * a) + 1e-5 * std::sqrt(norm2(expected))) << "dagger " << dagger;
    // Against the same hops one at a time, the odd vector decoded and encoded again between them:
    // apart only by that encoding (kHalfSpinorError of |y|, through the second hop) and each
    // output's own.
    half.hopping().apply(Subset::Odd, dagger, px, y);
    half.hopping().apply(Subset::Even, dagger, y, z);
    axpby(static_cast<float>(a), px, static_cast<float>(-1 / (4 * a)), z);
    double apart2 = 0;
    for (std::size_t k = 0; k < z.size(); ++k) apart2 += (static_cast<double>(z(k)) - out(k)) * (static_cast<double>(z(k)) - out(k));
    EXPECT_LE(std::sqrt(apart2), (16 * ny + 2 * nz) * kHalfSpinorError / (4 * a) + 1e-6 * std::sqrt(norm2(expected))) << "dagger " << dagger;
    EXPECT_GT(error, 1e-6 * std::sqrt(norm2(expected))) << "dagger " << dagger << ": half precision's rounding is not there";
  }
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

// apply_norm2 and apply_norm2_dot write what apply() writes and return its norm and inner products.
TEST(EvenOddWilson, FusedAppliesReturnTheirOutputsSums) {
  const GaugeField<double> u = random_gauge(kFoldable, 6);
  for (const DslashConfig& config : configs()) {
    const EvenOddWilson<double> op(u, 0.1, config);
    const auto x = op.allocate("x"), w = op.allocate("w"), w2 = op.allocate("w2"), expect = op.allocate("expect"), got = op.allocate("got");
    op.pack(gaussians(kFoldable, Subset::Even, config.nrhs, 20), x);
    op.pack(gaussians(kFoldable, Subset::Even, config.nrhs, 60), w);
    op.pack(gaussians(kFoldable, Subset::Even, config.nrhs, 61), w2);
    for (const bool dagger : {false, true}) {
      op.apply(x, expect, dagger);
      const double n2 = op.apply_norm2(x, got, dagger);
      // The same arithmetic, but a fused multiply-add may round differently: 1e-15 of the output's norm.
      const double scale = 1e-15 * std::sqrt(n2);
      for (std::size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got.data()[i], expect.data()[i], scale) << "apply_norm2 at " << i;
      EXPECT_NEAR(n2, op.norm2(expect), 1e-13 * n2);
      const NormDot sums = op.apply_norm2_dot(x, got, w, dagger);
      for (std::size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got.data()[i], expect.data()[i], scale) << "apply_norm2_dot at " << i;
      EXPECT_NEAR(sums.norm2, n2, 1e-13 * n2);
      const std::complex<double> wy = op.dot(w, expect);
      EXPECT_LT(std::abs(sums.dot - wy), 1e-13 * std::abs(wy)) << sums.dot << " vs " << wy;
      EXPECT_EQ(sums.dot2, sums.dot) << "without a second vector, its inner product is the first's";
      const NormDot both = op.apply_norm2_dot(x, got, w, w2, dagger);
      for (std::size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got.data()[i], expect.data()[i], scale) << "apply_norm2_dot (two) at " << i;
      EXPECT_NEAR(both.norm2, n2, 1e-13 * n2);
      EXPECT_LT(std::abs(both.dot - wy), 1e-13 * std::abs(wy)) << both.dot << " vs " << wy;
      const std::complex<double> w2y = op.dot(w2, expect);
      EXPECT_LT(std::abs(both.dot2 - w2y), 1e-13 * std::abs(w2y)) << both.dot2 << " vs " << w2y;
    }
  }
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

// Runs check(op_double, op_single) for each family's configuration on a random gauge field (mrhs
// with a multiple of both SIMD widths of right-hand sides).
template <class Check>
void for_each_precision_pair(std::uint64_t gauge_seed, const Check& check) {
  constexpr double kMass = 0.1;
  const GaugeField<double> u = random_gauge(kFoldable, gauge_seed);
  for (DslashConfig config : configs()) {
    if (config.kernel == KernelFamily::Mrhs) config.nrhs = simd_lanes(config.isa, sizeof(float));
    SCOPED_TRACE(to_string(config.kernel));
    check(EvenOddWilson<double>(u, kMass, config), EvenOddWilson<float>(convert_precision<float>(u), kMass, config));
  }
}

// convert(), add_and_zero() and convert_difference() move even buffers between precisions and their
// layouts (the SIMD lane counts differ) on the buffers' own memory space: exactly, but for the
// order of a norm's terms (tests/layout_move_check.hpp).
TEST(EvenOddWilson, ConvertMovesBuffersBetweenPrecisions) {
  for_each_precision_pair(12, [](const auto& op_d, const auto& op_f) { test::expect_convert_between_precisions(op_d, op_f, 40); });
}

TEST(EvenOddWilson, AddAndZeroFoldsAnIncrementIntoAVector) {
  for_each_precision_pair(13, [](const auto& op_d, const auto& op_f) { test::expect_add_and_zero(op_d, op_f, 50); });
}

TEST(EvenOddWilson, ConvertDifferenceTakesAResidualToSinglePrecisionWithItsNorm) {
  for_each_precision_pair(14, [](const auto& op_d, const auto& op_f) { test::expect_convert_difference(op_d, op_f, 60); });
}

TEST(EvenOddWilson, RefusesANonPositiveDiagonal) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 1);
  EXPECT_THROW(EvenOddWilson<double>(u, -4.0, {}), std::invalid_argument);
}

// ---------------------------------------------------------------- CGNR

// Solves M x = b on the full lattice through the even system with the double operator `op` (the
// solver may iterate on another).
using Solver = std::function<SolverResult(const EvenOddWilson<double>&, const EvenOddWilson<double>::vector_type&,
                                           const EvenOddWilson<double>::vector_type&, const SolverParams&)>;

const Solver cg_double = [](const auto& op, const auto& b, const auto& x, const SolverParams& p) { return cgnr(op, b, x, p); };
const Solver bicgstab_double = [](const auto& op, const auto& b, const auto& x, const SolverParams& p) { return bicgstab(op, b, x, p); };

// Mixed precision: the solver iterates on the same operator in single precision (its own float gauge
// field and kernels) and keeps x and the true residual in double.
enum class Method { Cgnr, Bicgstab };
Solver mixed(Method method, const GaugeField<double>& u, double mass, const DslashConfig& config) {
  return [method, &u, mass, config](const EvenOddWilson<double>& op, const EvenOddWilson<double>::vector_type& b,
                                    const EvenOddWilson<double>::vector_type& x, const SolverParams& params) {
    const EvenOddWilson<float> sloppy(convert_precision<float>(u), mass, config);
    return method == Method::Cgnr ? cgnr(op, sloppy, b, x, params) : bicgstab(op, sloppy, b, x, params);
  };
}

// What a full-lattice solve gives: the solver's result, x, and ||b - M x|| / ||b|| from the reference
// Wilson matrix.
struct FullSolve {
  SolverResult result;
  SpinorField<double> x;
  double residual;
};

FullSolve solve_full(const GaugeField<double>& u, const SpinorField<double>& b, double mass, const DslashConfig& config,
                     const Solver& solver = cg_double, double tolerance = 1e-10, double reliable_delta = SolverParams{}.reliable_delta) {
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
  FullSolve out{solver(op, b_hat, xe, {.tolerance = tolerance, .max_iterations = 1000, .reliable_delta = reliable_delta}), SpinorField<double>(g, Subset::Full), 0};
  op.reconstruct(xe, bo, xo);
  op.unpack(xe, even);
  op.unpack(xo, odd);

  SpinorField<double> mx(g, Subset::Full), x_odd_full(g, Subset::Full);
  copy_sites(even[0], out.x);
  copy_sites(odd[0], x_odd_full);
  axpy(std::complex<double>(1), x_odd_full, out.x);
  wilson_matrix_reference(u, out.x, mx, mass);
  axpy(std::complex<double>(-1), b, mx);
  out.residual = std::sqrt(norm2(mx) / norm2(b));
  return out;
}

// Converged to `tolerance` on the even system (its true residual), and the full lattice to 10x it
// (the even system's ||b_hat|| is not the full ||b||).
void expect_solved(const FullSolve& s, const char* what, double tolerance = 1e-10) {
  std::cout << what << ": " << s.result.iterations << " iterations, " << s.result.reliable_updates.size()
            << " reliable updates, even-system residual " << s.result.relative_residual << ", full-lattice residual " << s.residual << "\n";
  EXPECT_TRUE(s.result.converged) << what << ": " << s.result.breakdown;
  EXPECT_LE(s.result.relative_residual, tolerance) << what;
  EXPECT_LE(s.residual, 10 * tolerance) << what;
}

TEST(Cgnr, SolvesTheFullSystemOnARandomGauge) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 8);
  const FullSolve s = solve_full(u, gaussian(kSmallLattice, Subset::Full, 60), 0.1, {});
  expect_solved(s, "random SU(3), m = 0.1, naive");
  EXPECT_EQ(s.result.history.size(), static_cast<std::size_t>(s.result.iterations) + 1);
  // CGLS's residual never grows.
  for (std::size_t i = 1; i < s.result.history.size(); ++i) EXPECT_LE(s.result.history[i], s.result.history[i - 1] * (1 + 1e-12));
}

TEST(Cgnr, SolvesWithTheVnodeKernel) {
  const GaugeField<double> u = random_gauge(kFoldable, 9);
  expect_solved(solve_full(u, gaussian(kFoldable, Subset::Full, 61), 0.1, configs()[2]), "random SU(3), m = 0.1, vnode");
}

// Unit gauge, a point source at the origin (spin 0, colour 0), m = 0.1.
void expect_free_field_point_source_solved(const Solver& solver, const char* what) {
  GaugeField<double> u(kSmallLattice);
  fill_unit(u);
  SpinorField<double> b(kSmallLattice, Subset::Full);
  fill_zero(b);
  b(0, 0, 0) = 1;
  expect_solved(solve_full(u, b, 0.1, {}, solver), what);
}

TEST(Cgnr, SolvesAFreeFieldPointSource) { expect_free_field_point_source_solved(cg_double, "free field, point source, m = 0.1"); }

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

TEST(Cgnr, ReportsNonConvergence) { expect_reports_non_convergence(cg_double, 3); }

// A singular M (tests/singular_solve_check.hpp).
TEST(Cgnr, ReportsASingularOperatorAndLeavesXUntouched) { test::expect_singular_operator_reported<HostSpace>(kSmallLattice, {}); }

// From x = 0 the first residual is b itself: CGNR then makes four hops an iteration (M p and
// M^dagger r; the last iteration stops before M^dagger r) and two a reliable update, none at the
// start. From any other x it starts from b - M x: from half the solution it converges again, and
// from the solution itself it stops at once, after that one residual (two hops).
TEST(Cgnr, StartsFromZeroWithoutHopsAndFromAGuessAtItsResidual) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 8);
  const EvenOddWilson<double> op(u, 0.1, {});
  const auto b = op.allocate("b"), x = op.allocate("x"), half = op.allocate("half");
  op.pack(gaussians(kSmallLattice, Subset::Even, 1, 70), b);
  deep_copy(x, 0.0);
  const SolverParams params{.tolerance = 1e-10, .max_iterations = 1000};
  const SolverResult cold = cgnr(op, b, x, params);
  ASSERT_TRUE(cold.converged);
  EXPECT_EQ(op.dslash_count(), 4 * cold.iterations + 2 * static_cast<std::int64_t>(cold.reliable_updates.size()));
  EXPECT_GT(cold.setup_seconds, 0) << "the solver's allocations are timed as its setup";

  std::int64_t before = op.dslash_count();
  const SolverResult solved = cgnr(op, b, x, params);
  EXPECT_TRUE(solved.converged);
  EXPECT_EQ(solved.iterations, 0);
  EXPECT_EQ(op.dslash_count() - before, 2);
  EXPECT_NEAR(solved.relative_residual, cold.relative_residual, 1e-6 * cold.relative_residual);

  deep_copy(half, 0.0);
  axpy(0.5, x, half);
  const auto r = op.allocate("r");
  const double start = std::sqrt(op.residual(b, half, r) / op.norm2(b));
  before = op.dslash_count();
  const SolverResult warm = cgnr(op, b, half, params);
  EXPECT_TRUE(warm.converged);
  EXPECT_LE(warm.relative_residual, 1e-10);
  EXPECT_NEAR(warm.history.front(), start, 1e-12) << "the first residual is b - M x, not b";
  EXPECT_EQ(op.dslash_count() - before - 2, 4 * warm.iterations + 2 * static_cast<std::int64_t>(warm.reliable_updates.size()));
}

TEST(Cgnr, ZeroSourceGivesZero) { expect_zero_source_gives_zero(cg_double); }

// `dslash solve` trusts a converged solve only where the reference operator's residual agrees: a
// solve to 1e-10 whose x leaves 1e-1 (a kernel that dropped its halo's hops) is refused, rounding is not.
TEST(SolverResult, TheReferenceResidualConfirmsAConvergedSolveOrNot) {
  EXPECT_TRUE(reference_confirms(9.8e-11, 1e-10, false));
  EXPECT_TRUE(reference_confirms(3e-9, 1e-10, false));  // a double solve's true residual a little past its iterated one
  EXPECT_FALSE(reference_confirms(1.1e-1, 1e-10, false));
  EXPECT_FALSE(reference_confirms(2e-8, 1e-10, false));
  EXPECT_TRUE(reference_confirms(5e-5, 1e-6, true));  // single precision: its rounding
  EXPECT_FALSE(reference_confirms(5e-2, 1e-6, true));
  EXPECT_FALSE(reference_confirms(std::nan(""), 1e-10, false));
}

// With one operator for both precisions (a double or single solve) the solver iterates on x and r
// themselves; with two operators it keeps an increment and a residual of its own and folds them in
// at each update, as a mixed solve does. Of one precision the two are the same method: the same
// iterations and updates, and each x meets the tolerance.
TEST(ReliableUpdates, OneOperatorIteratesOnXAndRThemselves) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 8);
  const EvenOddWilson<double> op(u, 0.1, {}), twin(u, 0.1, {});
  const auto b = op.allocate("b"), x_one = op.allocate("x_one"), x_two = op.allocate("x_two"), r = op.allocate("r");
  op.pack(gaussians(kSmallLattice, Subset::Even, 1, 72), b);
  const SolverParams params{.tolerance = 1e-10, .max_iterations = 1000};
  for (const bool use_bicgstab : {false, true}) {
    SCOPED_TRACE(use_bicgstab ? "bicgstab" : "cgnr");
    deep_copy(x_one, 0.0);
    deep_copy(x_two, 0.0);
    const SolverResult one = use_bicgstab ? bicgstab(op, op, b, x_one, params) : cgnr(op, op, b, x_one, params);
    const SolverResult two = use_bicgstab ? bicgstab(op, twin, b, x_two, params) : cgnr(op, twin, b, x_two, params);
    ASSERT_TRUE(one.converged) << one.breakdown;
    ASSERT_TRUE(two.converged) << two.breakdown;
    EXPECT_EQ(one.iterations, two.iterations);
    EXPECT_EQ(one.reliable_updates.size(), two.reliable_updates.size());
    EXPECT_GE(one.reliable_updates.size(), 1u);
    EXPECT_LE(std::sqrt(op.residual(b, x_one, r) / op.norm2(b)), params.tolerance);
    EXPECT_LE(std::sqrt(op.residual(b, x_two, r) / op.norm2(b)), params.tolerance);
  }
}

// ---------------------------------------------------------------- BiCGStab

TEST(Bicgstab, SolvesTheFullSystemOnARandomGauge) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 8);
  const FullSolve s = solve_full(u, gaussian(kSmallLattice, Subset::Full, 60), 0.1, {}, bicgstab_double);
  expect_solved(s, "BiCGStab, random SU(3), m = 0.1, naive");
  EXPECT_EQ(s.result.history.size(), static_cast<std::size_t>(s.result.iterations) + 1);
  EXPECT_TRUE(s.result.breakdown.empty()) << s.result.breakdown;
}

TEST(Bicgstab, SolvesWithTheVnodeKernel) {
  const GaugeField<double> u = random_gauge(kFoldable, 9);
  expect_solved(solve_full(u, gaussian(kFoldable, Subset::Full, 61), 0.1, configs()[2], bicgstab_double),
                "BiCGStab, random SU(3), m = 0.1, vnode");
}

TEST(Bicgstab, SolvesAFreeFieldPointSource) {
  expect_free_field_point_source_solved(bicgstab_double, "BiCGStab, free field, point source, m = 0.1");
}

// The same system as CGNR's: BiCGStab works on M_ee_hat itself and needs fewer iterations.
TEST(Bicgstab, NeedsFewerIterationsThanCgnr) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 8);
  const FullSolve cg = solve_full(u, gaussian(kSmallLattice, Subset::Full, 60), 0.1, {}, cg_double);
  const FullSolve bi = solve_full(u, gaussian(kSmallLattice, Subset::Full, 60), 0.1, {}, bicgstab_double);
  ASSERT_TRUE(cg.result.converged && bi.result.converged);
  EXPECT_LT(bi.result.iterations, cg.result.iterations);
}

TEST(Bicgstab, ReportsNonConvergenceAndZeroSources) {
  expect_reports_non_convergence(bicgstab_double, 2);
  expect_zero_source_gives_zero(bicgstab_double);
}

// ---------------------------------------------------------------- precision and reliable updates

// Single precision alone cannot meet a double-precision tolerance: its true residual, recomputed at
// every reliable update, stops at its rounding floor, and the solve stops there and says so instead
// of running to the iteration limit.
TEST(SinglePrecision, StopsAtItsRoundingFloor) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 8);
  const EvenOddWilson<float> single(convert_precision<float>(u), 0.1, {});
  const auto b = single.allocate("b"), x = single.allocate("x");
  single.pack({convert_precision<float>(gaussian(kSmallLattice, Subset::Even, 70))}, b);
  for (Method method : {Method::Cgnr, Method::Bicgstab}) {
    deep_copy(x, 0.0f);
    const SolverParams params{.tolerance = 1e-10, .max_iterations = 1000};
    const SolverResult r = method == Method::Cgnr ? cgnr(single, b, x, params) : bicgstab(single, b, x, params);
    EXPECT_FALSE(r.converged);
    EXPECT_GT(r.relative_residual, 1e-9) << "single precision alone reached " << r.relative_residual;
    EXPECT_LT(r.relative_residual, 1e-5);
    EXPECT_LT(r.iterations, 1000);
    EXPECT_NE(r.breakdown.find("stopped decreasing"), std::string::npos) << r.breakdown;
  }
}

// Mixed precision meets double-precision tolerances below single precision's floor, checked with the
// reference Wilson matrix in double; it gets there by reliable updates (each one a true residual
// recomputed in double, which fall towards the tolerance), in about the iterations of pure double.
void expect_mixed_solves(Method method, const Geometry& g, const DslashConfig& config, double tolerance, const char* what) {
  const GaugeField<double> u = random_gauge(g, 8);
  const SpinorField<double> b = gaussian(g, Subset::Full, 60);
  const FullSolve m = solve_full(u, b, 0.1, config, mixed(method, u, 0.1, config), tolerance);
  expect_solved(m, what, tolerance);
  ASSERT_FALSE(m.result.reliable_updates.empty());
  EXPECT_GE(m.result.reliable_updates.size(), 3u) << "delta = " << SolverParams{}.reliable_delta << " from 1 to " << tolerance;
  EXPECT_LE(m.result.reliable_updates.back().relative, tolerance);
  EXPECT_EQ(m.result.reliable_updates.back().iteration, m.result.iterations);
  EXPECT_LT(m.result.reliable_updates.back().relative, m.result.reliable_updates.front().relative);
  const FullSolve d = solve_full(u, b, 0.1, config, method == Method::Cgnr ? cg_double : bicgstab_double, tolerance);
  std::cout << "  pure double: " << d.result.iterations << " iterations\n";
  EXPECT_LE(m.result.iterations, d.result.iterations * 3 / 2 + 2) << "the sloppy iterations keep their Krylov space across updates";
  // The two answers agree to the tolerance (the system is well conditioned at m = 0.1).
  EXPECT_LT(relative_difference(m.x, d.x), 100 * tolerance);
}

TEST(MixedCgnr, MeetsDoublePrecisionTolerances) {
  expect_mixed_solves(Method::Cgnr, kSmallLattice, {}, 1e-10, "mixed CGNR, tol 1e-10, naive");
  expect_mixed_solves(Method::Cgnr, kSmallLattice, {}, 1e-12, "mixed CGNR, tol 1e-12, naive");
}

TEST(MixedBicgstab, MeetsDoublePrecisionTolerances) {
  expect_mixed_solves(Method::Bicgstab, kSmallLattice, {}, 1e-10, "mixed BiCGStab, tol 1e-10, naive");
  expect_mixed_solves(Method::Bicgstab, kSmallLattice, {}, 1e-12, "mixed BiCGStab, tol 1e-12, naive");
}

// The two precisions' SIMD layouts differ (vnode folds 16 float or 8 double lanes on AVX-512), so
// updates pass between them through the layouts' slots (convert()).
TEST(MixedCgnr, SolvesWithTheVnodeKernel) {
  expect_mixed_solves(Method::Cgnr, kFoldable, configs()[2], 1e-10, "mixed CGNR, vnode");
}

// The default delta (0.01) updates less often than QUDA's customary 0.1 and keeps the iterations:
// the updates fold the sloppy increment into x without restarting the Krylov space. (Here 5 updates
// against 7-8: on so small a system the residual falls by 10x within single iterations; at 16^4
// and 32^4, 5 against 10.)
TEST(MixedSolvers, DefaultReliableDeltaUpdatesLessOftenAtTheSameIterations) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 8);
  const SpinorField<double> b = gaussian(kSmallLattice, Subset::Full, 60);
  for (const Method method : {Method::Cgnr, Method::Bicgstab}) {
    const FullSolve tenth = solve_full(u, b, 0.1, {}, mixed(method, u, 0.1, {}), 1e-10, 0.1);
    const FullSolve hundredth = solve_full(u, b, 0.1, {}, mixed(method, u, 0.1, {}), 1e-10);
    expect_solved(tenth, "delta 0.1");
    expect_solved(hundredth, "default delta");
    EXPECT_EQ(SolverParams{}.reliable_delta, 0.01);
    EXPECT_LE(hundredth.result.iterations, tenth.result.iterations + 2);
    EXPECT_LT(hundredth.result.reliable_updates.size(), tenth.result.reliable_updates.size());
  }
}

TEST(MixedCgnr, SolvesWithCompressedLinks) {
  expect_mixed_solves(Method::Cgnr, kFoldable, configs()[3], 1e-10, "mixed CGNR, vnode, 12 reals a link");
}

// QUDA's usual mixed solve: whole links in the double operator, compressed ones in the single one
// (`dslash solve --compress-sloppy`). The reliable updates in double keep the answer at the double
// tolerance; the sloppy links' rebuild rounding costs at most a few iterations.
TEST(MixedSolvers, MeetTheToleranceWithCompressedSloppyLinks) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 8);
  const SpinorField<double> b = gaussian(kSmallLattice, Subset::Full, 60);
  for (const Method method : {Method::Cgnr, Method::Bicgstab}) {
    const FullSolve whole = solve_full(u, b, 0.1, {}, mixed(method, u, 0.1, {}), 1e-10);
    for (const int reals : test::built_compressions()) {
      const FullSolve s = solve_full(u, b, 0.1, {}, mixed(method, u, 0.1, {.compress = reals}), 1e-10);
      const std::string what = std::string(method == Method::Cgnr ? "CGNR" : "BiCGStab") + ", sloppy links of " + std::to_string(reals) + " reals";
      expect_solved(s, what.c_str());
      EXPECT_LE(s.result.iterations, whole.result.iterations + 3) << what;
      EXPECT_LT(relative_difference(s.x, whole.x), 1e-8) << what;
    }
  }
}

TEST(MixedBicgstab, SolvesWithTheVnodeKernel) {
  expect_mixed_solves(Method::Bicgstab, kFoldable, configs()[2], 1e-10, "mixed BiCGStab, vnode");
}

// ---------------------------------------------------------------- against independent results

// The free Wilson matrix is diagonal in momentum: on a plane wave e^{ipn} u (periodic lattice,
// p_mu = 2 pi k_mu / L_mu), D = sum_mu [(1 - g_mu) e^{ip_mu} + (1 + g_mu) e^{-ip_mu}], so
// M(p) = m + sum_mu (1 - cos p_mu) + i sum_mu g_mu sin p_mu. The solution for a point source at the
// origin with spin s0 is x(n) = (1/V) sum_p e^{ipn} M(p)^{-1} e_{s0}, in the source's colour.
SpinorField<double> free_field_inverse(const Geometry& g, double mass, int s0, int c0) {
  using C = std::complex<double>;
  using Spin = std::array<C, 4>;
  const Coord L = g.extents();
  SpinorField<double> x(g, Subset::Full);
  fill_zero(x);
  for (site_t k = 0; k < g.volume(); ++k) {
    const Coord kc = g.coords(k);
    // M(p) as a 4x4 spin matrix, solved for e_{s0} by Gaussian elimination with pivoting.
    std::array<std::array<C, 4>, 4> m{};
    Spin rhs{};
    rhs[static_cast<std::size_t>(s0)] = 1;
    std::array<double, 4> p{};
    for (std::size_t mu = 0; mu < 4; ++mu) p[mu] = 2 * M_PI * kc[mu] / L[mu];
    for (std::size_t a = 0; a < 4; ++a) {
      m[a][a] = mass;
      for (std::size_t mu = 0; mu < 4; ++mu) {
        m[a][a] += 1 - std::cos(p[mu]);
        for (std::size_t c = 0; c < 4; ++c) m[a][c] += test::i * std::sin(p[mu]) * test::kDeGrandRossi[mu][a][c];
      }
    }
    for (std::size_t col = 0; col < 4; ++col) {
      std::size_t piv = col;
      for (std::size_t r = col + 1; r < 4; ++r)
        if (std::abs(m[r][col]) > std::abs(m[piv][col])) piv = r;
      std::swap(m[col], m[piv]);
      std::swap(rhs[col], rhs[piv]);
      for (std::size_t r = 0; r < 4; ++r) {
        if (r == col) continue;
        const C f = m[r][col] / m[col][col];
        for (std::size_t c = col; c < 4; ++c) m[r][c] -= f * m[col][c];
        rhs[r] -= f * rhs[col];
      }
    }
    for (std::size_t a = 0; a < 4; ++a) rhs[a] /= m[a][a];
    for (site_t n = 0; n < g.volume(); ++n) {
      const Coord nc = g.coords(n);
      double phase = 0;
      for (std::size_t mu = 0; mu < 4; ++mu) phase += p[mu] * nc[mu];
      const C e = std::polar(1.0 / static_cast<double>(g.volume()), phase);
      for (int a = 0; a < 4; ++a) x(n, a, c0) += e * rhs[static_cast<std::size_t>(a)];
    }
  }
  return x;
}

TEST(FreeField, PointSourceSolutionIsTheMomentumSpaceInverse) {
  constexpr double kMass = 0.1;
  GaugeField<double> u(kSmallLattice);
  fill_unit(u);
  SpinorField<double> b(kSmallLattice, Subset::Full);
  fill_zero(b);
  constexpr int kSpin = 2, kColour = 1;
  b(0, kSpin, kColour) = 1;
  const SpinorField<double> expect = free_field_inverse(kSmallLattice, kMass, kSpin, kColour);
  const std::vector<std::pair<const char*, Solver>> solvers = {{"CGNR double", cg_double},
                                                               {"BiCGStab double", bicgstab_double},
                                                               {"CGNR mixed", mixed(Method::Cgnr, u, kMass, {})},
                                                               {"BiCGStab mixed", mixed(Method::Bicgstab, u, kMass, {})}};
  for (const auto& [what, solver] : solvers) {
    const FullSolve s = solve_full(u, b, kMass, {}, solver);
    EXPECT_TRUE(s.result.converged) << what;
    // The free Wilson matrix's condition number at m = 0.1 is about (8 + m) / m = 81.
    EXPECT_LT(relative_difference(s.x, expect), 1e-8) << what;
  }
}

// M^dagger = g5 M g5 (the g5-hermiticity CGNR's normal equations rest on), for the even-odd operator's
// dagger kernels on random vectors, and for the reference Wilson matrix.
SpinorField<double> gamma5(const SpinorField<double>& x) {
  SpinorField<double> y(x.geometry(), x.subset());
  for (site_t i = 0; i < x.sites(); ++i)
    for (int s = 0; s < 4; ++s)
      for (int c = 0; c < 3; ++c) y(i, s, c) = static_cast<double>(kGamma5Diagonal[static_cast<std::size_t>(s)]) * x(i, s, c);
  return y;
}

TEST(EvenOddWilson, DaggerIsGamma5Hermitian) {
  constexpr double kMass = -0.3;
  const GaugeField<double> u = random_gauge(kFoldable, 11);
  for (const DslashConfig& c : configs()) {
    const EvenOddWilson<double> op(u, kMass, c);
    const auto x = gaussians(kFoldable, Subset::Even, c.nrhs, 200);
    std::vector<SpinorField<double>> g5x;
    for (const auto& f : x) g5x.push_back(gamma5(f));
    const auto px = op.allocate("x"), pg = op.allocate("g5x"), dagger = op.allocate("dagger"), plain = op.allocate("plain");
    op.pack(x, px);
    op.pack(g5x, pg);
    op.apply(px, dagger, true);
    op.apply(pg, plain);
    auto a = empty_fields(kFoldable, Subset::Even, c.nrhs), b = empty_fields(kFoldable, Subset::Even, c.nrhs);
    op.unpack(dagger, a);
    op.unpack(plain, b);
    for (std::size_t r = 0; r < a.size(); ++r) EXPECT_LT(relative_difference(a[r], gamma5(b[r])), 1e-13) << to_string(c.kernel);
  }
  // The full-lattice reference: M^dagger = (4 + m) - D^dagger / 2 against g5 M g5.
  const SpinorField<double> x = gaussian(kFoldable, Subset::Full, 300);
  SpinorField<double> mg(kFoldable, Subset::Full), d(kFoldable, Subset::Full);
  wilson_matrix_reference(u, gamma5(x), mg, kMass);
  dslash_reference(u, x, d, true);
  SpinorField<double> m_dagger(kFoldable, Subset::Full);
  for (site_t i = 0; i < x.sites(); ++i)
    for (int s = 0; s < 4; ++s)
      for (int c = 0; c < 3; ++c) m_dagger(i, s, c) = (4 + kMass) * x(i, s, c) - 0.5 * d(i, s, c);
  EXPECT_LT(relative_difference(m_dagger, gamma5(mg)), 1e-13);
}

// CGNR on the full, unpreconditioned M (written here on fields with the reference Wilson matrix and
// its dagger) finds the same x as the even-odd solve.
SpinorField<double> unpreconditioned_cgnr(const GaugeField<double>& u, const SpinorField<double>& b, double mass, double tolerance) {
  const Geometry& g = u.geometry();
  const auto m_dagger = [&](const SpinorField<double>& in, SpinorField<double>& out) {
    dslash_reference(u, in, out, true);
    for (site_t i = 0; i < in.sites(); ++i)
      for (int s = 0; s < 4; ++s)
        for (int c = 0; c < 3; ++c) out(i, s, c) = (4 + mass) * in(i, s, c) - 0.5 * out(i, s, c);
  };
  SpinorField<double> x(g, Subset::Full), r(g, Subset::Full), s(g, Subset::Full), p(g, Subset::Full), q(g, Subset::Full);
  fill_zero(x);
  copy_sites(b, r);
  m_dagger(r, s);
  copy_sites(s, p);
  double gamma = norm2(s);
  const double b_norm2 = norm2(b);
  for (int k = 0; k < 5000 && norm2(r) > tolerance * tolerance * b_norm2; ++k) {
    wilson_matrix_reference(u, p, q, mass);
    const double alpha = gamma / norm2(q);
    axpy(std::complex<double>(alpha), p, x);
    axpy(std::complex<double>(-alpha), q, r);
    m_dagger(r, s);
    const double gamma_next = norm2(s);
    for (site_t i = 0; i < p.sites(); ++i)
      for (int sp = 0; sp < 4; ++sp)
        for (int c = 0; c < 3; ++c) p(i, sp, c) = s(i, sp, c) + (gamma_next / gamma) * p(i, sp, c);
    gamma = gamma_next;
  }
  return x;
}

TEST(EvenOddWilson, EvenOddSolveEqualsTheUnpreconditionedSolve) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 12);
  const SpinorField<double> b = gaussian(kSmallLattice, Subset::Full, 80);
  const SpinorField<double> full = unpreconditioned_cgnr(u, b, 0.1, 1e-11);
  for (const auto& [what, solver] : std::vector<std::pair<const char*, Solver>>{{"CGNR", cg_double}, {"BiCGStab", bicgstab_double}}) {
    const FullSolve s = solve_full(u, b, 0.1, {}, solver, 1e-11);
    EXPECT_TRUE(s.result.converged) << what;
    EXPECT_LT(relative_difference(s.x, full), 1e-9) << what;
  }
}

// A singular system: the free field at m = 0 has the zero mode p = 0 (M(0) = m), which a point
// source excites: no x solves it, and the solve ends unconverged, at the limit or on a stalled residual.
TEST(Cgnr, ReportsASingularSystem) {
  GaugeField<double> u(kSmallLattice);
  fill_unit(u);
  SpinorField<double> b(kSmallLattice, Subset::Full);
  fill_zero(b);
  b(0, 0, 0) = 1;
  for (const auto& [what, solver] : std::vector<std::pair<const char*, Solver>>{{"CGNR", cg_double}, {"BiCGStab", bicgstab_double}}) {
    const FullSolve s = solve_full(u, b, 0.0, {}, solver);
    EXPECT_FALSE(s.result.converged) << what;
    EXPECT_GT(s.result.relative_residual, 1e-6) << what;
  }
}

// ---------------------------------------------------------------- residuals that are NaN, Inf or growing

enum class Precision { Double, Single, Mixed };

// Solves M_ee_hat x = b (b: even sites) from x = 0 to `tolerance`, in double, single or mixed precision.
SolverResult solve_even(Method method, Precision precision, const GaugeField<double>& u, double mass, const SpinorField<double>& b_even,
                        int max_iterations, double tolerance = 1e-10) {
  const SolverParams params{.tolerance = tolerance, .max_iterations = max_iterations};
  const auto run = [&](const auto& op, const auto& sloppy, const auto& b, const auto& x) {
    return method == Method::Cgnr ? cgnr(op, sloppy, b, x, params) : bicgstab(op, sloppy, b, x, params);
  };
  if (precision == Precision::Single) {
    const EvenOddWilson<float> op(convert_precision<float>(u), mass, {});
    const auto b = op.allocate("b"), x = op.allocate("x");
    op.pack({convert_precision<float>(b_even)}, b);
    deep_copy(x, 0.0f);
    return run(op, op, b, x);
  }
  const EvenOddWilson<double> op(u, mass, {});
  const auto b = op.allocate("b"), x = op.allocate("x");
  op.pack({b_even}, b);
  deep_copy(x, 0.0);
  if (precision == Precision::Double) return run(op, op, b, x);
  const EvenOddWilson<float> sloppy(convert_precision<float>(u), mass, {});
  return run(op, sloppy, b, x);
}

const char* describe(Method method, Precision precision) {
  static const char* names[2][3] = {{"CGNR double", "CGNR single", "CGNR mixed"}, {"BiCGStab double", "BiCGStab single", "BiCGStab mixed"}};
  return names[method == Method::Cgnr ? 0 : 1][static_cast<int>(precision)];
}

// The result of a solve stopped early: not converged, stopped as `stop` within `iterations`, and its
// reason names `cause`.
void expect_stopped(const SolverResult& r, Stop stop, int iterations, const std::string& cause, const char* what) {
  EXPECT_FALSE(r.converged) << what;
  EXPECT_EQ(to_string(r.stop), std::string(to_string(stop))) << what << ": " << r.breakdown;
  EXPECT_LE(r.iterations, iterations) << what << ": " << r.breakdown;
  EXPECT_NE(r.breakdown.find(cause), std::string::npos) << what << ": " << r.breakdown;
}

// A diagonal 4 + m of 1e300 makes CGNR's ||M^dagger r||^2 overflow double: the residual is NaN after
// the first iteration, and the solve ends there, blaming the operator, not at the iteration limit.
// (BiCGStab takes no such norm before it converges: M_ee_hat is 1e300 times the identity to rounding.)
TEST(NonFiniteResidual, EndsTheSolveAtOnceAndNamesTheOperator) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 8);
  expect_stopped(solve_even(Method::Cgnr, Precision::Double, u, 1e300, gaussian(kSmallLattice, Subset::Even, 70), 1000), Stop::Breakdown, 1,
                 "the operator: its diagonal 4 + m = 1e+300", describe(Method::Cgnr, Precision::Double));
}

// A source of 1e38 everywhere fits single precision, M b does not: single and mixed solves end at
// once, blaming single precision's range.
TEST(NonFiniteResidual, EndsTheSolveAtOnceAndNamesThePrecision) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 8);
  SpinorField<double> b(kSmallLattice, Subset::Even);
  fill_zero(b);
  for (site_t i = 0; i < b.sites(); ++i)
    for (int s = 0; s < 4; ++s)
      for (int c = 0; c < 3; ++c) b(i, s, c) = 1e38;
  for (Method method : {Method::Cgnr, Method::Bicgstab})
    for (Precision precision : {Precision::Single, Precision::Mixed})
      expect_stopped(solve_even(method, precision, u, 0.1, b, 1000), Stop::Breakdown, 1, "single precision's range", describe(method, precision));
}

// A source holding a NaN: nothing to iterate on.
TEST(NonFiniteResidual, ASourceWithANanStopsTheSolveBeforeItsFirstIteration) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 8);
  SpinorField<double> b = gaussian(kSmallLattice, Subset::Even, 70);
  b(3, 1, 2) = std::nan("");
  for (Method method : {Method::Cgnr, Method::Bicgstab})
    for (Precision precision : {Precision::Double, Precision::Single, Precision::Mixed})
      expect_stopped(solve_even(method, precision, u, 0.1, b, 1000), Stop::Breakdown, 0, "the source holds a NaN", describe(method, precision));
}

// The free field at m = -2 is singular (the doublers with one momentum component pi): on 4^4
// BiCGStab's residual grows without bound, and the solve ends once it is kDivergence times its
// lowest, not at the limit.
TEST(GrowingResidual, EndsTheSolveAsDiverged) {
  const Geometry g({4, 4, 4, 4});
  GaugeField<double> u(g);
  fill_unit(u);
  for (Precision precision : {Precision::Double, Precision::Single, Precision::Mixed}) {
    const SolverResult r = solve_even(Method::Bicgstab, precision, u, -2.0, gaussian(g, Subset::Even, 70), 3000);
    expect_stopped(r, Stop::Diverged, 1500, "singular or too ill-conditioned for bicgstab", describe(Method::Bicgstab, precision));
    EXPECT_GT(r.history.back(), 1e6 * *std::min_element(r.history.begin(), r.history.end())) << describe(Method::Bicgstab, precision);
  }
}

// A double-precision solve asked for less than double's rounding allows stalls there, and says that
// (no sloppy precision is involved).
TEST(DoublePrecision, StopsAtItsRoundingFloorAndSaysSo) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 8);
  for (Method method : {Method::Cgnr, Method::Bicgstab}) {
    const SolverResult r = solve_even(method, Precision::Double, u, 0.1, gaussian(kSmallLattice, Subset::Even, 70), 1000, 1e-18);
    expect_stopped(r, Stop::Breakdown, 999, "stopped decreasing: double precision's rounding floor", describe(method, Precision::Double));
    EXPECT_EQ(r.breakdown.find("sloppy"), std::string::npos) << r.breakdown;
  }
}

// The diagonal 4 + m is a Real in every pass: past single precision's range the operator is refused.
TEST(EvenOddWilson, RefusesADiagonalPastItsPrecision) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 1);
  EXPECT_THROW(EvenOddWilson<float>(convert_precision<float>(u), 1e300, {}), std::invalid_argument);
  EXPECT_NO_THROW(EvenOddWilson<double>(u, 1e300, {}));
}

// ---------------------------------------------------------------- the solve driver

SolveConfig driver_config(SolveMethod method, SolvePrecision precision, DslashConfig kernel = {}) {
  return {.method = method, .precision = precision, .mass = 0.1, .tolerance = 1e-10, .kernel = kernel};
}

// Every right-hand side solved, one solver call each, and x confirmed by the reference operator;
// the totals are the calls' sums.
TEST(SolveDriver, SolvesEveryRightHandSideAndTheReferenceConfirmsIt) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 8);
  const std::vector<SpinorField<double>> b = gaussians(kSmallLattice, Subset::Full, 2, 60);
  const SolveOutcome out = solve_wilson(driver_config(SolveMethod::Cgnr, SolvePrecision::Double), u, b);
  ASSERT_EQ(out.solves.size(), 2u);
  ASSERT_EQ(out.x.size(), 2u);
  EXPECT_TRUE(out.converged());
  EXPECT_EQ(out.first_unconverged(), nullptr);
  EXPECT_FALSE(out.halo) << "one process's kernels have no halo";
  EXPECT_TRUE(out.launches.empty()) << "profiled without being asked";
  const ReferenceCheck check = check_with_reference(u, b, out.x, 0.1, 1e-10, false);
  ASSERT_EQ(check.residuals.size(), 2u);
  EXPECT_TRUE(check.confirms) << check.worst;
  EXPECT_LE(check.worst, 10e-10);
  EXPECT_EQ(check.worst, std::max(check.residuals[0], check.residuals[1]));
  const SolveTotals t = solve_totals(out, kSmallLattice);
  EXPECT_EQ(t.iterations, out.solves[0].result.iterations + out.solves[1].result.iterations);
  EXPECT_EQ(t.in_single, 0);
  EXPECT_EQ(t.in_double, out.solves[0].precise_dslash + out.solves[1].precise_dslash);
  EXPECT_DOUBLE_EQ(t.flops, 1320.0 * static_cast<double>(kSmallLattice.half_volume()) * static_cast<double>(t.in_double));
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(out.solves[static_cast<std::size_t>(r)].first, r);
    EXPECT_EQ(out.solves[static_cast<std::size_t>(r)].count, 1);
    EXPECT_EQ(out.solves[static_cast<std::size_t>(r)].sloppy_dslash, 0) << "one precision: one operator";
  }
}

// Mixed precision with every right-hand side in one call (mrhs, as many as single's SIMD lanes, at
// least 2): the iterations' applications are single's, and x still meets the double tolerance.
TEST(SolveDriver, MixedPrecisionSolvesSeveralRightHandSidesInOneCall) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 8);
  const int n = std::max(2, simd_lanes(best_isa(), sizeof(float)));
  const std::vector<SpinorField<double>> b = gaussians(kSmallLattice, Subset::Full, n, 61);
  const DslashConfig mrhs{.kernel = KernelFamily::Mrhs, .isa = best_isa(), .nrhs = n};
  const SolveOutcome out = solve_wilson(driver_config(SolveMethod::BiCGStab, SolvePrecision::Mixed, mrhs), u, b);
  ASSERT_EQ(out.solves.size(), 1u);
  EXPECT_EQ(out.solves[0].count, n);
  ASSERT_EQ(out.x.size(), static_cast<std::size_t>(n));
  EXPECT_TRUE(out.converged()) << out.solves[0].result.breakdown;
  EXPECT_EQ(out.config.kernel, KernelFamily::Mrhs);
  EXPECT_TRUE(check_with_reference(u, b, out.x, 0.1, 1e-10, false).confirms);
  const SolveTotals t = solve_totals(out, kSmallLattice);
  EXPECT_GT(t.in_single, 0);
  EXPECT_EQ(t.in_single, out.solves[0].sloppy_dslash);
}

// A double-half solve (SolveConfig::sloppy_half, solve --sloppy half): the iterated operator in half
// precision storage (solvers/half_hopping.hpp), x still confirmed at the double tolerance by the
// reference, for CG and BiCGStab, one source at a time (naive, vnode) and in a block (mrhs), in at
// most 1.3x the iterations of double-single (issue 76's bound).
TEST(SolveDriver, DoubleHalfMeetsTheDoubleToleranceInFewMoreIterations) {
  const GaugeField<double> u = random_gauge(kFoldable, 8);
  const std::vector<SpinorField<double>> b = gaussians(kFoldable, Subset::Full, 2, 62);
  const DslashConfig kernels[] = {{}, {.kernel = KernelFamily::Vnode, .isa = best_isa()}, {.kernel = KernelFamily::Mrhs, .isa = best_isa(), .nrhs = 2}};
  for (const SolveMethod method : {SolveMethod::Cgnr, SolveMethod::BiCGStab})
    for (const DslashConfig& kernel : kernels) {
      if (!half_built(kernel.kernel, kernel.isa)) continue;
      SolveConfig single = driver_config(method, SolvePrecision::Mixed, kernel), half = single;
      half.sloppy_half = true;
      const SolveOutcome s = solve_wilson(single, u, b), h = solve_wilson(half, u, b);
      const std::string what = std::string(method == SolveMethod::Cgnr ? "CG " : "BiCGStab ") + to_string(kernel.kernel);
      EXPECT_TRUE(h.converged()) << what;
      const ReferenceCheck check = check_with_reference(u, b, h.x, 0.1, 1e-10, false);
      EXPECT_TRUE(check.confirms) << what << ": " << check.worst;
      EXPECT_GT(solve_totals(h, kFoldable).in_single, 0) << what;
      EXPECT_LE(solve_totals(h, kFoldable).iterations, 1.3 * solve_totals(s, kFoldable).iterations) << what;
    }
}

// The progress hooks see every iteration of every call, numbered, and each call's end; the last
// residual reported is the call's last, in units of the full source.
TEST(SolveDriver, ReportsProgressPerIterationAndTheEndOfEachCall) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 8);
  const std::vector<SpinorField<double>> b = gaussians(kSmallLattice, Subset::Full, 2, 62);
  SolveConfig config = driver_config(SolveMethod::Cgnr, SolvePrecision::Double);
  std::vector<SolveProgress> seen;
  std::vector<int> ended;
  config.on_iteration = [&](const SolveProgress& p) { seen.push_back(p); };
  config.on_solve_end = [&](int solve) { ended.push_back(solve); };
  const SolveOutcome out = solve_wilson(config, u, b);
  EXPECT_EQ(ended, (std::vector<int>{0, 1}));
  ASSERT_EQ(seen.size(), static_cast<std::size_t>(out.solves[0].result.iterations + out.solves[1].result.iterations));
  EXPECT_EQ(seen.front().solve, 0);
  EXPECT_EQ(seen.front().iteration, 1);
  EXPECT_EQ(seen.back().solve, 1);
  EXPECT_EQ(seen.back().solves, 2);
  EXPECT_EQ(seen.back().iteration, out.solves[1].result.iterations);
  // In units of the full source (the solver's own are the even system's); a reliable update's is recomputed.
  const double last = out.solves[1].result.history.back() * out.solves[1].scale;
  EXPECT_NEAR(seen.back().residual, last, 1e-6 * last);
}

// A solve that runs out of iterations says which call and why, and the profile times its launches.
TEST(SolveDriver, ReportsTheFirstUnconvergedCallAndProfilesLaunches) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 8);
  SolveConfig config = driver_config(SolveMethod::Cgnr, SolvePrecision::Double);
  config.max_iterations = 2;
  config.profile = true;
  const SolveOutcome out = solve_wilson(config, u, gaussians(kSmallLattice, Subset::Full, 1, 63));
  EXPECT_FALSE(out.converged());
  ASSERT_NE(out.first_unconverged(), nullptr);
  EXPECT_EQ(out.first_unconverged()->result.stop, Stop::IterationLimit);
  ASSERT_FALSE(out.launches.empty());
  double sum = 0;
  for (std::size_t i = 0; i < out.launches.size(); ++i) {
    sum += out.launches[i].seconds;
    EXPECT_GT(out.launches[i].calls, 0) << out.launches[i].label;
    if (i > 0) {
      EXPECT_LE(out.launches[i].seconds, out.launches[i - 1].seconds) << "longest first";
    }
  }
  EXPECT_NEAR(out.launch_seconds, sum, 1e-12);
}

// The hopping terms come from a given factory, once per operator (two in a mixed solve), and the
// solution is the one of the operators' own kernels.
TEST(SolveDriver, TakesItsHoppingTermsFromAFactory) {
  struct Local final : HoppingFactory {
    mutable int made = 0;
    std::shared_ptr<const HoppingTerm<double, HostSpace>> make(const GaugeField<double>& u, const DslashConfig& c, HostSpace) const override {
      ++made;
      return std::make_shared<const LocalHopping<double, HostSpace>>(u, c);
    }
    std::shared_ptr<const HoppingTerm<float, HostSpace>> make(const GaugeField<float>& u, const DslashConfig& c, HostSpace) const override {
      ++made;
      return std::make_shared<const LocalHopping<float, HostSpace>>(u, c);
    }
#if defined(DSLASH_HAVE_CUDA)
    std::shared_ptr<const HoppingTerm<double, CudaSpace>> make(const GaugeField<double>&, const DslashConfig&, CudaSpace) const override { return nullptr; }
    std::shared_ptr<const HoppingTerm<float, CudaSpace>> make(const GaugeField<float>&, const DslashConfig&, CudaSpace) const override { return nullptr; }
#endif
  };
  const GaugeField<double> u = random_gauge(kSmallLattice, 8);
  const std::vector<SpinorField<double>> b = gaussians(kSmallLattice, Subset::Full, 1, 64);
  const Local factory;
  SolveConfig config = driver_config(SolveMethod::Cgnr, SolvePrecision::Mixed);
  const SolveOutcome own = solve_wilson(config, u, b);
  config.hopping = &factory;
  const SolveOutcome made = solve_wilson(config, u, b);
  EXPECT_EQ(factory.made, 2);
  EXPECT_EQ(made.solves[0].result.iterations, own.solves[0].result.iterations);
  EXPECT_EQ(relative_difference(made.x[0], own.x[0]), 0.0);
}

// ---------------------------------------------------------------- block solves (many right-hand sides)

const Geometry kBlockLattice({4, 4, 4, 4});
constexpr double kBlockTolerance = 1e-10;

// The per right-hand side passes against scalar loops over each right-hand side's reals: 7 of them,
// padded to the lanes, every one with its own coefficients and sums, and the coefficients made from
// the sums on the device by the pass that takes them.
TEST(RhsBlas, EachRightHandSideHasItsOwnCoefficientsAndSums) {
  const GaugeField<double> u = random_gauge(kBlockLattice, 3);
  const int n = 7;
  const EvenOddWilson<double> op(u, 0.1, {.kernel = KernelFamily::Mrhs, .isa = best_isa(), .nrhs = n});
  const RhsPasses<HostSpace> passes = op.rhs_passes();
  const RhsSums<HostSpace> sums(5, passes.slots());
  const auto x = op.allocate("x"), y = op.allocate("y");
  op.pack(gaussians(kBlockLattice, Subset::Even, n, 80), x);
  op.pack(gaussians(kBlockLattice, Subset::Even, n, 90), y);
  std::vector<SpinorField<double>> xs(static_cast<std::size_t>(n), SpinorField<double>(kBlockLattice, Subset::Even)), ys = xs;
  op.unpack(x, xs);
  op.unpack(y, ys);
  std::vector<double> a(static_cast<std::size_t>(n)), b(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    a[static_cast<std::size_t>(r)] = 0.5 * r - 1;
    b[static_cast<std::size_t>(r)] = 2.0 - 0.25 * r;
  }
  sums.set(0, a);
  sums.set(1, b);
  const RhsValues v = sums.values();
  passes.norm2(x, sums, 2, [=](int r) { v.put(4, r, v(2, r) * 3); });
  passes.axpby({1, sums.on_device(0)}, x, {1, sums.on_device(1)}, y, &sums, 3);
  const std::vector<double> xx = sums.read(2), yy = sums.read(3), made = sums.read(4);
  std::vector<SpinorField<double>> after = ys;
  op.unpack(y, after);
  for (int r = 0; r < n; ++r) {
    const auto k = static_cast<std::size_t>(r);
    SpinorField<double> expect(kBlockLattice, Subset::Even);
    fill_zero(expect);
    axpy(std::complex<double>(b[k]), ys[k], expect);
    axpy(std::complex<double>(a[k]), xs[k], expect);
    EXPECT_NEAR(xx[k], norm2(xs[k]), 1e-12 * norm2(xs[k])) << "rhs " << r;
    EXPECT_EQ(made[k], 3 * xx[k]) << "rhs " << r;
    EXPECT_NEAR(yy[k], norm2(expect), 1e-12 * norm2(expect)) << "rhs " << r;
    EXPECT_LT(relative_difference(after[k], expect), 1e-15) << "rhs " << r;
  }
  for (std::size_t k = static_cast<std::size_t>(n); k < yy.size(); ++k) EXPECT_EQ(yy[k], 0.0) << "padding slot " << k;
  // The same norms through the operator, for the driver's per-source scales.
  const std::vector<double> again = op.rhs_norm2(x);
  ASSERT_EQ(again.size(), static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < again.size(); ++k) EXPECT_EQ(again[k], xx[k]);
}

const char* name(SolveMethod m) { return m == SolveMethod::Cgnr ? "cgnr" : "bicgstab"; }
// Iterations that a source from zero takes at least on these fields, to 1e-10: BiCGStab about half CGNR's.
int from_zero(SolveMethod m) { return m == SolveMethod::Cgnr ? 10 : 5; }

// A block solve by method, on the operators given (one precision when they are the same object).
template <class Sloppy>
BlockSolverResult block_solve(SolveMethod m, const EvenOddWilson<double>& op, const EvenOddWilson<Sloppy>& sloppy, const EvenOddWilson<double>::vector_type& b,
                              const EvenOddWilson<double>::vector_type& x, const SolverParams& params) {
  return m == SolveMethod::Cgnr ? block_cgnr(op, sloppy, b, x, params) : block_bicgstab(op, sloppy, b, x, params);
}

// Each right-hand side's x from one solve of its own (naive kernel, the same method), to compare a
// block with.
std::vector<SpinorField<double>> one_by_one(const GaugeField<double>& u, const std::vector<SpinorField<double>>& b, SolveMethod method,
                                            SolvePrecision precision) {
  const SolveOutcome out = solve_wilson(driver_config(method, precision), u, b);
  EXPECT_TRUE(out.converged());
  return out.x;
}

// Every right-hand side of a block against the reference operator (its true residual within the
// tolerance) and against its own single solve: both residuals are within tol ||b||, so the two x
// differ by at most ||M^-1|| 2 tol ||b||; ||M^-1|| ||b|| / ||x|| is M's condition number on b, a few
// at m = 0.1 on these small random fields, so 1000 tol bounds the relative difference with room.
void expect_block_matches_single_solves(const GaugeField<double>& u, const std::vector<SpinorField<double>>& b, SolveMethod method,
                                        SolvePrecision precision, const SolveOutcome& block, const std::string& what) {
  const int n = static_cast<int>(b.size());
  ASSERT_EQ(block.solves.size(), 1u) << what;
  ASSERT_EQ(block.solves[0].rhs.size(), b.size()) << what;
  ASSERT_EQ(block.x.size(), b.size()) << what;
  EXPECT_TRUE(block.converged()) << what << ": " << block.solves[0].result.breakdown;
  const ReferenceCheck check = check_with_reference(u, b, block.x, 0.1, kBlockTolerance, false);
  const std::vector<SpinorField<double>> single = one_by_one(u, b, method, precision);
  for (int r = 0; r < n; ++r) {
    const auto k = static_cast<std::size_t>(r);
    EXPECT_TRUE(block.solves[0].rhs[k].converged) << what << " rhs " << r;
    EXPECT_LE(check.residuals[k], kBlockTolerance) << what << " rhs " << r;
    if (norm2(b[k]) == 0) continue;
    EXPECT_LT(relative_difference(block.x[k], single[k]), 1000 * kBlockTolerance) << what << " rhs " << r;
  }
}

// One, a prime number (no whole vector of lanes), and more than the lanes, in double and mixed, with
// each method.
TEST(BlockSolve, EveryRightHandSideMatchesItsOwnSolveAndTheReference) {
  const GaugeField<double> u = random_gauge(kBlockLattice, 12);
  const int lanes = simd_lanes(best_isa(), sizeof(float));  // single's: the mixed solve's iterations
  for (SolveMethod method : {SolveMethod::Cgnr, SolveMethod::BiCGStab})
    for (int n : {1, 7, lanes + 3}) {
      const std::vector<SpinorField<double>> b = gaussians(kBlockLattice, Subset::Full, n, 100);
      for (SolvePrecision precision : {SolvePrecision::Double, SolvePrecision::Mixed}) {
        const DslashConfig mrhs{.kernel = KernelFamily::Mrhs, .isa = best_isa(), .nrhs = n};
        const SolveOutcome out = solve_wilson(driver_config(method, precision, mrhs), u, b);
        const std::string what = std::string(name(method)) + ", " + std::to_string(n) + " rhs, " + (precision == SolvePrecision::Mixed ? "mixed" : "double");
        expect_block_matches_single_solves(u, b, method, precision, out, what);
        // Every Dslash of the block is one call over all its right-hand sides: as many as one solve's.
        const SolveTotals t = solve_totals(out, kBlockLattice);
        EXPECT_EQ(t.iterations, out.solves[0].result.iterations) << what;
        int most = 0;
        for (const SolverResult& r : out.solves[0].rhs) most = std::max(most, r.iterations);
        EXPECT_EQ(out.solves[0].result.iterations, most) << what;
      }
    }
}

// Each right-hand side of a block BiCGStab iterates as its own BiCGStab does, not as a CG: on the
// same sources and operator its iterations are those of its own single solve, within the few that
// the block's shared reliable updates may add or save.
TEST(BlockSolve, BicgstabIteratesAsEachSourcesOwnBicgstab) {
  const GaugeField<double> u = random_gauge(kBlockLattice, 12);
  const int n = 5;
  const std::vector<SpinorField<double>> b = gaussians(kBlockLattice, Subset::Full, n, 105);
  const DslashConfig mrhs{.kernel = KernelFamily::Mrhs, .isa = best_isa(), .nrhs = n};
  const SolveOutcome block = solve_wilson(driver_config(SolveMethod::BiCGStab, SolvePrecision::Double, mrhs), u, b);
  const SolveOutcome single = solve_wilson(driver_config(SolveMethod::BiCGStab, SolvePrecision::Double), u, b);
  const SolveOutcome cg = solve_wilson(driver_config(SolveMethod::Cgnr, SolvePrecision::Double), u, b);
  ASSERT_EQ(single.solves.size(), static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < static_cast<std::size_t>(n); ++k) {
    const int own = single.solves[k].result.iterations;
    EXPECT_NEAR(block.solves[0].rhs[k].iterations, own, 2) << "rhs " << k;
    EXPECT_LT(block.solves[0].rhs[k].iterations, cg.solves[k].result.iterations) << "rhs " << k;
  }
}

// A zero source in the block: x = 0 exactly, converged without an iteration; the others are solved.
TEST(BlockSolve, AZeroSourceIsSolvedAtOnce) {
  const GaugeField<double> u = random_gauge(kBlockLattice, 12);
  std::vector<SpinorField<double>> b = gaussians(kBlockLattice, Subset::Full, 5, 110);
  fill_zero(b[2]);
  for (SolveMethod method : {SolveMethod::Cgnr, SolveMethod::BiCGStab})
    for (SolvePrecision precision : {SolvePrecision::Double, SolvePrecision::Mixed}) {
      const DslashConfig mrhs{.kernel = KernelFamily::Mrhs, .isa = best_isa(), .nrhs = 5};
      const SolveOutcome out = solve_wilson(driver_config(method, precision, mrhs), u, b);
      const std::string what = std::string(name(method)) + ", a zero source";
      expect_block_matches_single_solves(u, b, method, precision, out, what);
      EXPECT_EQ(norm2(out.x[2]), 0.0) << what;
      EXPECT_EQ(out.solves[0].rhs[2].iterations, 0) << what;
      EXPECT_EQ(out.solves[0].rhs[2].stop, Stop::Converged) << what;
      EXPECT_GT(out.solves[0].rhs[0].iterations, from_zero(method)) << what;
    }
}

// A block started from x = its solution for some right-hand sides: those are solved at once (0
// iterations) and keep their x; the others are solved from zero.
TEST(BlockSolve, AnAlreadySolvedSourceTakesNoIteration) {
  const GaugeField<double> u = random_gauge(kBlockLattice, 12);
  const int n = 3;
  const EvenOddWilson<double> op(u, 0.1, {.kernel = KernelFamily::Mrhs, .isa = best_isa(), .nrhs = n});
  const auto b = op.allocate("b"), x = op.allocate("x");
  op.pack(gaussians(kBlockLattice, Subset::Even, n, 120), b);
  for (SolveMethod method : {SolveMethod::Cgnr, SolveMethod::BiCGStab}) {
    deep_copy(x, 0.0);
    const BlockSolverResult first = block_solve(method, op, op, b, x, {.tolerance = kBlockTolerance});
    ASSERT_TRUE(first.summary().converged) << name(method);
    std::vector<SpinorField<double>> solved(static_cast<std::size_t>(n), SpinorField<double>(kBlockLattice, Subset::Even));
    op.unpack(x, solved);
    std::vector<SpinorField<double>> start = empty_fields<double>(kBlockLattice, Subset::Even, n);  // (fields share data when copied)
    for (int k : {0, 2}) axpy(std::complex<double>(1), solved[static_cast<std::size_t>(k)], start[static_cast<std::size_t>(k)]);
    op.pack(start, x);
    const BlockSolverResult again = block_solve(method, op, op, b, x, {.tolerance = kBlockTolerance});
    ASSERT_TRUE(again.summary().converged) << name(method);
    EXPECT_EQ(again.rhs[0].iterations, 0) << name(method);
    EXPECT_EQ(again.rhs[2].iterations, 0) << name(method);
    EXPECT_GT(again.rhs[1].iterations, from_zero(method)) << name(method);
    std::vector<SpinorField<double>> after = solved;
    op.unpack(x, after);
    EXPECT_EQ(relative_difference(after[0], solved[0]), 0.0) << name(method) << ": a solved right-hand side is frozen";
    EXPECT_EQ(relative_difference(after[2], solved[2]), 0.0) << name(method) << ": a solved right-hand side is frozen";
    EXPECT_LT(relative_difference(after[1], solved[1]), 1000 * kBlockTolerance) << name(method);
  }
}

// A right-hand side started 1e-8 from its solution has 2 orders of residual to lose where the others,
// from zero, have 10: it stops after a fraction of their iterations, its x frozen from then on
// (its coefficients 0), and still matches its solution; in double and in mixed precision, with each
// method.
TEST(BlockSolve, ASourceThatConvergesEarlyStopsThere) {
  const GaugeField<double> u = random_gauge(kBlockLattice, 12);
  const int n = 4;
  const DslashConfig mrhs{.kernel = KernelFamily::Mrhs, .isa = best_isa(), .nrhs = n};
  const EvenOddWilson<double> op(u, 0.1, mrhs);
  const EvenOddWilson<float> sloppy(convert_precision<float>(u), 0.1, mrhs);
  const auto b = op.allocate("b"), x = op.allocate("x");
  op.pack(gaussians(kBlockLattice, Subset::Even, n, 140), b);
  ASSERT_TRUE(block_cgnr(op, b, x, {.tolerance = 1e-12}).summary().converged);
  std::vector<SpinorField<double>> solved(static_cast<std::size_t>(n), SpinorField<double>(kBlockLattice, Subset::Even));
  op.unpack(x, solved);
  for (SolveMethod method : {SolveMethod::Cgnr, SolveMethod::BiCGStab})
    for (bool mixed : {false, true}) {
      std::vector<SpinorField<double>> start = empty_fields<double>(kBlockLattice, Subset::Even, n);
      axpy(std::complex<double>(1 + 1e-8), solved[1], start[1]);
      op.pack(start, x);
      const SolverParams params{.tolerance = kBlockTolerance};
      const BlockSolverResult r = mixed ? block_solve(method, op, sloppy, b, x, params) : block_solve(method, op, op, b, x, params);
      const std::string what = std::string(name(method)) + (mixed ? ", mixed" : ", double");
      ASSERT_TRUE(r.summary().converged) << what << ": " << r.summary().breakdown;
      EXPECT_GT(r.rhs[1].iterations, 0) << what;
      for (int k : {0, 2, 3}) EXPECT_GT(r.rhs[static_cast<std::size_t>(k)].iterations, 3 * r.rhs[1].iterations) << what << " rhs " << k;
      EXPECT_EQ(r.iterations, std::max({r.rhs[0].iterations, r.rhs[2].iterations, r.rhs[3].iterations})) << what;
      std::vector<SpinorField<double>> after = solved;
      op.unpack(x, after);
      for (int k = 0; k < n; ++k) {
        const auto i = static_cast<std::size_t>(k);
        EXPECT_LE(r.rhs[i].relative_residual, kBlockTolerance) << what << " rhs " << k;
        EXPECT_LT(relative_difference(after[i], solved[i]), 1000 * kBlockTolerance) << what << " rhs " << k;
      }
    }
}

TEST(SolveDriver, RefusesSourcesThatDoNotSplitIntoItsCalls) {
  const GaugeField<double> u = random_gauge(kSmallLattice, 8);
  EXPECT_THROW(solve_wilson(driver_config(SolveMethod::Cgnr, SolvePrecision::Double, {.nrhs = 2}), u, gaussians(kSmallLattice, Subset::Full, 3, 65)),
               std::invalid_argument);
}

}  // namespace
}  // namespace dslash
