// Every GPU variant (family x dispatch x precision x gauge compression x parity x dagger) against the scalar reference,
// with the CPU's tolerances (1e-5 single, 1e-12 double, relative), on lattices whose extents are not
// powers of two and whose sites fill no whole block; the SIMT lane permutes lane by lane. The checks
// the CPU runs too (the reference, the default launch shapes, the xpay epilogue) are written once in
// tests/dslash_kernel_checks.hpp; the GPU's own (lane permutes, launch shapes it cannot take) are
// here. Without a usable GPU every test reports itself skipped with the reason.
#include <gtest/gtest.h>

#include <numeric>

#include "gpu_test.hpp"
#include "dslash/core/backend/cuda/space.hpp"
#include "dslash_kernel_checks.hpp"
#include "kernels/dslash_kernel.hpp"
#include "test_support.hpp"

namespace dslash {
namespace {

struct GpuVariant {
  KernelFamily kernel;
  Dispatch dispatch;
  bool single;
  int compress;  // reals stored per link: 18, 12 or 8
};
// "vnode cuda mdrange single": the test name's suffix (separator "_") and what a failing line prints (" ").
std::string describe(const GpuVariant& v, const char* separator) {
  return std::string(to_string(v.kernel)) + separator + "cuda" + separator + to_string(v.dispatch) + separator + (v.single ? "single" : "double") +
         (v.compress != 18 ? separator + std::string("r") + std::to_string(v.compress) : "");
}
void PrintTo(const GpuVariant& v, std::ostream* os) { *os << describe(v, " "); }

// naive and mrhs take any even extents; vnode folds t, z and, in single precision, y into its 8
// (single) or 4 (double) lanes, so those extents are multiples of 4. The inputs and the reference
// outputs, made once per lattice and precision.
template <class Real>
test::DslashProblem<Real>& problem_for(KernelFamily k) {
  const int max_rhs = test::max_mrhs_rhs<Real>({SimdIsa::Simt});
  static test::DslashProblem<Real> vnode(Geometry({6, 8, 4, 12}), 17, 300, max_rhs), others(Geometry({6, 10, 4, 14}), 17, 300, max_rhs);
  return k == KernelFamily::Vnode ? vnode : others;
}

class CudaDslash : public GpuTest<::testing::TestWithParam<GpuVariant>> {
 protected:
  DslashConfig config() const {
    DslashConfig cfg;
    cfg.kernel = GetParam().kernel;
    cfg.dispatch = GetParam().dispatch;
    // Tiles and teams that do not divide the site count: no site may be dropped.
    cfg.tile = {2, 3, 3, 5};
    cfg.team_size = 24;
    cfg.sites_per_team = 53;
    cfg.compress = GetParam().compress;
    return cfg;
  }
};

TEST_P(CudaDslash, AgreesWithTheReference) {
  if (GetParam().single) test::expect_agrees_with_reference<float, CudaSpace>(problem_for<float>(GetParam().kernel), config());
  else test::expect_agrees_with_reference<double, CudaSpace>(problem_for<double>(GetParam().kernel), config());
}

// The even-odd operator's epilogue in the kernel, a x + b D in with its norm summed on the GPU,
// against the same kernel's D in (tests/xpay_check.hpp); refused with compressed links but naive's
// and vnode single's 12 (built for a mixed solve's --compress-sloppy 12).
TEST_P(CudaDslash, XpayEpilogueIsAXPlusBDslashWithItsNorm) {
  const GpuVariant& v = GetParam();
  const bool sloppy_12 = v.compress == 12 && (v.kernel == KernelFamily::Naive || (v.kernel == KernelFamily::Vnode && v.single));
  const bool fused = v.compress == 18 || sloppy_12;
  if (v.single) test::expect_xpay_epilogue_or_refusal<float, CudaSpace>(problem_for<float>(v.kernel), config(), 900, fused);
  else test::expect_xpay_epilogue_or_refusal<double, CudaSpace>(problem_for<double>(v.kernel), config(), 900, fused);
}

TEST_P(CudaDslash, DefaultTilesAndTeamsToo) {
  if (GetParam().single) test::expect_default_launch_shapes_agree<float, CudaSpace>(problem_for<float>(GetParam().kernel), config());
  else test::expect_default_launch_shapes_agree<double, CudaSpace>(problem_for<double>(GetParam().kernel), config());
}

// Half precision storage (16-bit codes, single's arithmetic) within the format's bounds
// (tests/dslash_kernel_checks.hpp): the single variants, every link storage.
TEST_P(CudaDslash, HalfPrecisionAgreesWithTheReference) {
  if (!GetParam().single) GTEST_SKIP() << "half precision computes in single";
  test::expect_half_agrees_with_reference<CudaSpace>(problem_for<float>(GetParam().kernel), config());
}

std::vector<GpuVariant> all_gpu_variants() {
  std::vector<GpuVariant> v;
  for (bool single : {true, false})
    for (Dispatch d : {Dispatch::Range, Dispatch::Team, Dispatch::MDRange})
      for (KernelFamily k : {KernelFamily::Naive, KernelFamily::Mrhs, KernelFamily::Vnode})
        for (int compress : {18, 12, 8}) v.push_back({k, d, single, compress});
  return v;
}

INSTANTIATE_TEST_SUITE_P(EveryVariant, CudaDslash, ::testing::ValuesIn(all_gpu_variants()),
                         [](const auto& param_info) { return describe(param_info.param, "_"); });

class CudaLanes : public GpuTest<> {};

// Grid's Test_simd: every permute level, lane by lane, against the lane-index rule i -> i ^ (1 << level).
template <class Real>
void check_permutes() {
  const SimdProbe<Real> probe = simd_probe<Real>(SimdIsa::Simt);
  ASSERT_EQ(probe.lanes, simd_lanes(SimdIsa::Simt, sizeof(Real)));
  std::vector<Real> in(static_cast<std::size_t>(probe.lanes)), out(in.size());
  std::iota(in.begin(), in.end(), Real(10));
  for (int level = 0; (1 << level) < probe.lanes; ++level) {
    probe.permute(level, in.data(), out.data());
    for (int l = 0; l < probe.lanes; ++l) EXPECT_EQ(out[static_cast<std::size_t>(l)], in[static_cast<std::size_t>(l ^ (1 << level))]) << "level " << level << " lane " << l;
  }
  // (1 + 2i)(3 - i) + (0.5 + 0.25i) = 5.5 + 5.25i in every lane.
  const std::size_t W = in.size();
  std::vector<Real> a(2 * W), b(2 * W), c(2 * W), r(2 * W);
  for (std::size_t l = 0; l < W; ++l) {
    a[l] = 1, a[W + l] = 2, b[l] = 3, b[W + l] = -1, c[l] = Real(0.5), c[W + l] = Real(0.25);
  }
  probe.complex_op(SimdOp::MulAdd, a.data(), b.data(), c.data(), r.data());
  for (std::size_t l = 0; l < W; ++l) {
    EXPECT_EQ(r[l], Real(5.5));
    EXPECT_EQ(r[W + l], Real(5.25));
  }
}

TEST_F(CudaLanes, PermutesMoveEveryLaneAsDrawn) {
  check_permutes<float>();
  check_permutes<double>();
}

TEST_F(CudaLanes, ALaunchShapeTheGpuCannotTakeIsAClearError) {
  GaugeField<float> u(Geometry({8, 8, 8, 8}));
  fill_unit(u);
  try {
    DslashKernel<float, CudaSpace> d(u, {.kernel = KernelFamily::Vnode, .dispatch = Dispatch::Team, .team_size = 512});
    FAIL() << "a team of 512 x 8 lanes was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("1024 threads per block"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace dslash
