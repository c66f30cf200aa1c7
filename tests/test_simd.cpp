// Every SIMD operation of every instruction set, lane by lane against scalar code. The vector code
// runs inside the kernel library's per-ISA translation units (through SimdProbe); this file is
// built for the baseline CPU, so it runs everywhere and skips what the CPU cannot run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "dslash/core/view.hpp"
#include "fixed16_cases.hpp"
#include "kernels/dslash_kernel.hpp"

namespace dslash {
namespace {

struct Case {
  SimdIsa isa;
  bool single;
};
// "avx2 single": the test name's suffix (separator "_") and what a failing line prints (" ").
std::string describe(const Case& c, const char* separator) {
  return std::string(to_string(c.isa)) + separator + (c.single ? "single" : "double");
}
void PrintTo(const Case& c, std::ostream* os) { *os << describe(c, " "); }

std::vector<Case> all_cases() {
  std::vector<Case> c;
  for (SimdIsa isa : compiled_isas())
    for (bool single : {true, false}) c.push_back({isa, single});
  return c;
}

// f(n, at) for each run of n <= W cases; lane i of a run holds case at(i) (the run's last case
// again in the lanes past n, so every lane is a valid input).
template <class F>
void for_lanes(std::size_t cases, int W, const F& f) {
  for (std::size_t first = 0; first < cases; first += static_cast<std::size_t>(W)) {
    const int n = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(W), cases - first));
    f(n, [=](int i) { return first + static_cast<std::size_t>(std::min(i, n - 1)); });
  }
}

class Simd : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    if (!cpu_supports(GetParam().isa)) GTEST_SKIP() << to_string(GetParam().isa) << " is not supported by this CPU";
  }
  template <class Real>
  void check_permutes() {
    const SimdProbe<Real> probe = simd_probe<Real>(GetParam().isa);
    const int W = probe.lanes;
    ASSERT_EQ(W, simd_lanes(GetParam().isa, sizeof(Real)));
    View<Real, 1> in("in", 16), out("out", 16);
    for (int i = 0; i < W; ++i) in(i) = static_cast<Real>(10 + i);
    for (int level = 0; (1 << level) < W; ++level) {
      probe.permute(level, in.data(), out.data());
      for (int i = 0; i < W; ++i) EXPECT_EQ(out(i), in(i ^ (1 << level))) << "level " << level << " lane " << i;
    }
  }
  // The face halves (simd/lane_traits.hpp): expand puts W/2 values in order into the lanes whose
  // bit `level` is `node` and zeroes the rest; compress takes them back out.
  template <class Real>
  void check_face_halves() {
    const SimdProbe<Real> probe = simd_probe<Real>(GetParam().isa);
    const int W = probe.lanes;
    if (W == 1) GTEST_SKIP() << "one lane: no folded directions";
    ASSERT_NE(probe.half, nullptr);
    ASSERT_NE(probe.keep_half, nullptr);
    View<Real, 1> in("in", 16), out("out", 16);
    for (int level = 0; (1 << level) < W; ++level)
      for (int node : {0, 1}) {
        for (int i = 0; i < W; ++i) in(i) = static_cast<Real>(10 + i), out(i) = Real(-1);
        probe.half(true, level, node, in.data(), out.data());
        for (int i = 0, k = 0; i < W; ++i) {
          const bool on_face = ((i >> level) & 1) == node;
          EXPECT_EQ(out(i), on_face ? in(k++) : Real(0)) << "expand, level " << level << " node " << node << " lane " << i;
        }
        for (int i = 0; i < W; ++i) out(i) = Real(-1);
        probe.half(false, level, node, in.data(), out.data());
        for (int i = 0, k = 0; i < W; ++i) {
          if (((i >> level) & 1) != node) continue;
          EXPECT_EQ(out(k++), in(i)) << "compress, level " << level << " node " << node << " lane " << i;
        }
        for (int k = W / 2; k < W; ++k) EXPECT_EQ(out(k), Real(-1)) << "compress wrote past W/2, level " << level;
        // keep_half: the face lanes as they are, +0 in the others (as expand leaves them), even where
        // the input holds -0.
        for (int i = 0; i < W; ++i) in(i) = i % 2 == 0 ? Real(-0.0) : static_cast<Real>(-10 - i);
        probe.keep_half(level, node, in.data(), out.data());
        for (int i = 0; i < W; ++i) {
          const bool on_face = ((i >> level) & 1) == node;
          EXPECT_EQ(out(i), on_face ? in(i) : Real(0)) << "keep, level " << level << " node " << node << " lane " << i;
          EXPECT_EQ(std::signbit(out(i)), on_face && std::signbit(in(i))) << "keep: the sign of a zero, level " << level << " lane " << i;
        }
      }
  }
  template <class Real>
  void check_complex_ops() {
    const SimdProbe<Real> probe = simd_probe<Real>(GetParam().isa);
    const int W = probe.lanes;
    View<Real, 1> a("a", 32), b("b", 32), c("c", 32), out("out", 32);
    auto lane = [&](const View<Real, 1>& v, int i) { return std::complex<double>(v(i), v(i + W)); };
    for (int i = 0; i < W; ++i) {
      a(i) = static_cast<Real>(0.5 + i), a(i + W) = static_cast<Real>(-1.25 + 0.5 * i);
      b(i) = static_cast<Real>(2 - i), b(i + W) = static_cast<Real>(0.75 * i);
      c(i) = static_cast<Real>(3), c(i + W) = static_cast<Real>(-i);
    }
    const std::pair<SimdOp, std::complex<double> (*)(std::complex<double>, std::complex<double>, std::complex<double>)> ops[] = {
        {SimdOp::Mul, [](auto x, auto y, auto) { return x * y; }},
        {SimdOp::MulAdd, [](auto x, auto y, auto z) { return z + x * y; }},
        {SimdOp::ConjMulAdd, [](auto x, auto y, auto z) { return z + std::conj(x) * y; }},
        {SimdOp::TimesI, [](auto x, auto, auto) { return std::complex<double>(0, 1) * x; }},
        {SimdOp::TimesMinusI, [](auto x, auto, auto) { return std::complex<double>(0, -1) * x; }},
        {SimdOp::StreamStore, [](auto x, auto, auto) { return x; }},
    };
    for (const auto& [op, expect] : ops) {
      probe.complex_op(op, a.data(), b.data(), c.data(), out.data());
      for (int i = 0; i < W; ++i)
        EXPECT_NEAR(std::abs(lane(out, i) - expect(lane(a, i), lane(b, i), lane(c, i))), 0.0, 1e-5)
            << "op " << static_cast<int>(op) << " lane " << i;
    }
  }
  // Half precision storage: each vector conversion and site scale, W lanes at a time
  // (tests/fixed16_cases.hpp).
  void check_fixed16() {
    const SimdProbe<float> probe = simd_probe<float>(GetParam().isa);
    ASSERT_NE(probe.load_fixed16, nullptr);
    ASSERT_NE(probe.store_fixed16, nullptr);
    ASSERT_NE(probe.fixed16_scales, nullptr);
    const int W = probe.lanes;
    alignas(64) std::int16_t codes[16];
    alignas(64) float a[16], b[16], out[16], out2[16], out3[16];
    const auto loads = test::fixed16_loads();
    for_lanes(loads.size(), W, [&](int n, auto at) {
      for (int i = 0; i < W; ++i) codes[i] = loads[at(i)].code, a[i] = loads[at(i)].scale;
      probe.load_fixed16(codes, a, out);
      for (int i = 0; i < n; ++i) test::expect_fixed16_load(loads[at(i)], out[i]);
    });
    const auto stores = test::fixed16_stores();
    for_lanes(stores.size(), W, [&](int n, auto at) {
      for (int i = 0; i < W; ++i) a[i] = stores[at(i)].x, b[i] = stores[at(i)].store_scale;
      std::fill(codes, codes + 16, std::int16_t{-12345});
      probe.store_fixed16(a, b, codes);
      for (int i = 0; i < n; ++i) test::expect_fixed16_store(stores[at(i)], codes[i]);
      for (int i = W; i < 16; ++i) EXPECT_EQ(codes[i], -12345) << "store wrote past W codes";
    });
    const auto sites = test::fixed16_sites();
    for_lanes(sites.size(), W, [&](int n, auto at) {
      for (int i = 0; i < W; ++i) a[i] = sites[at(i)].m, b[i] = sites[at(i)].x;
      probe.fixed16_scales(a, b, out, out2, out3);
      for (int i = 0; i < n; ++i) test::expect_fixed16_scales(sites[at(i)], out[i], out2[i], out3[i]);
    });
  }
  // The in-cache body probe (bench_dslash's body/ suite) runs the mrhs and vnode bodies and reports
  // a rate; the bodies' results are checked by test_dslash_kernels.
  template <class Real>
  void check_body_probe() {
    const MachineProbe<Real> probe = machine_probe<Real>(GetParam().isa);
    for (auto* body : {probe.mrhs_body, probe.vnode_body}) {
      if (body == probe.vnode_body && !kernel_built(KernelFamily::Vnode, GetParam().isa)) continue;
      ASSERT_NE(body, nullptr);
      const double flops = body(2);
      EXPECT_TRUE(std::isfinite(flops) && flops > 0) << flops;
    }
  }
};

TEST_P(Simd, BodyProbeReportsARate) {
  if (GetParam().single) check_body_probe<float>();
  else check_body_probe<double>();
}

TEST_P(Simd, PermutesSwapLanesAcrossEachFold) {
  if (GetParam().single) check_permutes<float>();
  else check_permutes<double>();
}

TEST_P(Simd, FaceHalvesExpandCompressAndKeepTheirLanes) {
  if (GetParam().single) check_face_halves<float>();
  else check_face_halves<double>();
}

TEST_P(Simd, ComplexArithmeticMatchesScalar) {
  if (GetParam().single) check_complex_ops<float>();
  else check_complex_ops<double>();
}

TEST_P(Simd, Fixed16ConversionsMatchTheScalarDefinition) {
  if (!GetParam().single) GTEST_SKIP() << "half precision converts to and from single";
  check_fixed16();
}

// A failing line names its instruction set and precision in words, not as the struct's bytes.
TEST(SimdCases, PrintInWords) { EXPECT_EQ(::testing::PrintToString(Case{SimdIsa::Sse2, true}), "sse2 single"); }

INSTANTIATE_TEST_SUITE_P(EveryIsa, Simd, ::testing::ValuesIn(all_cases()), [](const auto& param_info) { return describe(param_info.param, "_"); });

TEST(SimdSelection, AutoPicksARunnableIsaAndUnknownNamesAreErrors) {
  EXPECT_TRUE(cpu_supports(parse_simd("auto")));
  EXPECT_TRUE(cpu_supports(SimdIsa::Scalar));
  EXPECT_THROW(parse_simd("avx1024"), std::invalid_argument);
  for (SimdIsa isa : compiled_isas())
    if (!cpu_supports(isa)) {
      try {
        parse_simd(to_string(isa));
        ADD_FAILURE() << "accepted " << to_string(isa);
      } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("does not support"), std::string::npos) << e.what();
      }
    }
}

}  // namespace
}  // namespace dslash
