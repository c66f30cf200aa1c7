// Every kernel x dispatch x precision x instruction set x parity x dagger against the scalar
// reference (docs/CONVENTIONS.md tolerances: 1e-5 single, 1e-12 double, relative).
#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <limits>
#include <map>
#include <tuple>

#include "kernels/dslash_faces.hpp"
#include "kernels/dslash_kernel.hpp"
#include "kernels/reference_dslash.hpp"
#include "kernel_variant.hpp"
#include "test_support.hpp"

namespace dslash {
namespace {

// Every extent a multiple of 4 (16 lanes fold all four directions), no two alike where it matters.
const Geometry kLattice({8, 4, 12, 8});
constexpr int kMaxRhs = 32;  // two blocks of 16 AVX-512 lanes

// The inputs, and the reference outputs, computed once in double from the (rounded) inputs.
template <class Real>
struct Fixture {
  GaugeField<Real> u{kLattice};
  GaugeField<double> u_double{kLattice};  // u, rounded to Real, in double
  std::vector<SpinorField<Real>> psi;  // full-lattice inputs
  std::map<std::tuple<int, bool, int>, SpinorField<double>> reference;  // (subset, dagger, rhs)

  Fixture() {
    GaugeField<double> ud(kLattice);
    fill_random_su3(ud, 99);
    u = convert_precision<Real>(ud);
    u_double = convert_precision<double>(u);
    for (int r = 0; r < kMaxRhs; ++r) {
      SpinorField<double> p(kLattice, Subset::Full);
      fill_gaussian(p, 1000 + static_cast<std::uint64_t>(r));
      psi.push_back(convert_precision<Real>(p));
    }
  }
  const SpinorField<double>& expected(Subset out, bool dagger, int rhs) {
    const auto key = std::make_tuple(static_cast<int>(out), dagger, rhs);
    auto it = reference.find(key);
    if (it == reference.end()) {
      SpinorField<double> in_field(kLattice, neighbour_subset(out)), out_field(kLattice, out);
      copy_sites(convert_precision<double>(psi[static_cast<std::size_t>(rhs)]), in_field);
      dslash_reference(u_double, in_field, out_field, dagger);
      it = reference.emplace(key, std::move(out_field)).first;
    }
    return it->second;
  }
  std::vector<SpinorField<Real>> inputs(Subset in, int nrhs) const {
    std::vector<SpinorField<Real>> v;
    for (int r = 0; r < nrhs; ++r) copy_sites(psi[static_cast<std::size_t>(r)], v.emplace_back(kLattice, in));
    return v;
  }
};

template <class Real>
Fixture<Real>& fixture() {
  static Fixture<Real> f;
  return f;
}

using Variant = test::KernelVariant;

std::vector<Variant> all_variants() {
  std::vector<Variant> v;
  for (bool single : {true, false})
    for (Dispatch d : {Dispatch::Range, Dispatch::Team, Dispatch::MDRange}) {
      v.push_back({KernelFamily::Naive, SimdIsa::Scalar, d, single});
      for (KernelFamily k : {KernelFamily::Mrhs, KernelFamily::Vnode})
        for (SimdIsa isa : compiled_isas()) v.push_back({k, isa, d, single});
    }
  return v;
}

class DslashKernels : public ::testing::TestWithParam<Variant> {
 protected:
  void SetUp() override {
    if (!cpu_supports(GetParam().isa)) GTEST_SKIP() << to_string(GetParam().isa) << " is not supported by this CPU";
  }

  template <class Real>
  void check_against_reference(const DslashConfig& base) {
    Fixture<Real>& f = fixture<Real>();
    const double tolerance = sizeof(Real) == 4 ? 1e-5 : 1e-12;
    for (Subset out : {Subset::Even, Subset::Odd, Subset::Full})
      for (bool dagger : {false, true}) {
        DslashConfig cfg = base;
        cfg.out = out;
        cfg.dagger = dagger;
        if (cfg.kernel == KernelFamily::Mrhs) cfg.nrhs = simd_lanes(cfg.isa, sizeof(Real)) * (cfg.isa == SimdIsa::Scalar ? 3 : 1);
        const DslashKernel<Real> d(f.u, cfg);
        const auto result = d.apply(f.inputs(d.in_subset(), cfg.nrhs));
        ASSERT_EQ(static_cast<int>(result.size()), cfg.nrhs);
        for (int r = 0; r < cfg.nrhs; ++r)
          EXPECT_LT(test::relative_difference(result[static_cast<std::size_t>(r)], f.expected(out, dagger, r)), tolerance)
              << d.label() << " " << to_string(out) << (dagger ? " dagger" : "") << " rhs " << r;
      }
  }

  DslashConfig config() const {
    DslashConfig cfg;
    cfg.kernel = GetParam().kernel;
    cfg.isa = GetParam().isa;
    cfg.dispatch = GetParam().dispatch;
    // Tiles and teams that do not divide the site count: no site may be dropped.
    cfg.tile = {3, 3, 5, 3};
    cfg.team_size = 3;
    cfg.sites_per_team = 7;
    return cfg;
  }
};

TEST_P(DslashKernels, AgreesWithTheReference) {
  if (GetParam().single) check_against_reference<float>(config());
  else check_against_reference<double>(config());
}

// The default launch shapes, with the component-major (LayoutLeft) spinor layout: together with the
// test above every variant runs in both layouts.
TEST_P(DslashKernels, DefaultTilesAndTeamsToo) {
  DslashConfig cfg = config();
  cfg.layout = SpinorLayout::Left;
  cfg.tile = DslashConfig{}.tile;
  cfg.team_size = 1;
  cfg.sites_per_team = 0;
  if (GetParam().single) check_against_reference<float>(cfg);
  else check_against_reference<double>(cfg);
}

// One domain with its split directions wrapped onto itself: the kernel leaves out the hops that
// leave the domain, and DslashFaces sends our own faces back to us, as MPI does with a grid of
// one rank per split direction. The sum must be the periodic operator. The kernel runs in slabs.
TEST_P(DslashKernels, HaloFacesCompleteTheSplitDirections) {
  const auto run = [&]<class Real>(Real) {
    Fixture<Real>& f = fixture<Real>();
    const double tolerance = sizeof(Real) == 4 ? 1e-5 : 1e-12;
    const std::array<bool, 4> splits[3] = {{true, true, true, true}, {true, false, true, false}, {false, true, false, true}};
    for (Subset out : {Subset::Even, Subset::Odd, Subset::Full})
      for (bool dagger : {false, true}) {
        DslashConfig cfg = config();
        cfg.out = out;
        cfg.dagger = dagger;
        cfg.halo = splits[static_cast<int>(out)];
        // Two blocks of right-hand sides on one parity (the messages interleave blocks per face
        // vector), and the component-major spinor layout on another.
        if (cfg.kernel == KernelFamily::Mrhs) cfg.nrhs = simd_lanes(cfg.isa, sizeof(Real)) * (out == Subset::Odd ? 2 : 1);
        if (out == Subset::Full) cfg.layout = SpinorLayout::Left;
        const DslashKernel<Real> d(f.u, cfg);
        const DslashFaces<Real> faces(d, f.u);
        const View<Real, 1> in = d.allocate_spinors("in"), chi = d.allocate_spinors("out");
        d.pack(f.inputs(d.in_subset(), cfg.nrhs), in);
        // The interior in uneven slabs of outer t, as HaloDslash launches it between MPI tests.
        const index_t T = d.outer_t(), cuts[] = {0, T / 3, T / 3 + 1, T};
        for (int k = 0; k < 3; ++k) d.apply_slab(in, chi, cuts[k], cuts[k + 1]);
        for (int mu = 0; mu < 4; ++mu) {
          const index_t face = kLattice.volume() / kLattice.extent(mu) / (out == Subset::Full ? 1 : 2);
          EXPECT_EQ(faces.face_sites(mu), cfg.halo[static_cast<std::size_t>(mu)] ? face : 0);
          std::vector<Real> half(faces.halo_reals(mu));
          EXPECT_EQ(half.size(), static_cast<std::size_t>(faces.face_sites(mu) * cfg.nrhs * 12));
          for (Hop hop : {Hop::Forward, Hop::Backward}) {
            faces.project(mu, hop, in, half.data());
            faces.complete(mu, hop, half.data(), chi);
          }
        }
        std::vector<SpinorField<Real>> result;
        d.unpack(chi, result);
        for (int r = 0; r < cfg.nrhs; ++r)
          EXPECT_LT(test::relative_difference(result[static_cast<std::size_t>(r)], f.expected(out, dagger, r)), tolerance)
              << d.label() << " " << to_string(out) << (dagger ? " dagger" : "") << " rhs " << r;
      }
  };
  if (GetParam().single) run(float{});
  else run(double{});
}

// The traffic probe (bench --traffic) must read all eight neighbours of every output site and write
// every output: with every input component 1, each output component is their sum, 8 (+ 8i).
TEST_P(DslashKernels, TrafficProbeReadsEveryNeighbourAndWritesEveryOutput) {
  const auto run = [&]<class Real>(Real) {
    Fixture<Real>& f = fixture<Real>();
    for (Subset out : {Subset::Even, Subset::Full})
      for (SpinorLayout layout : {SpinorLayout::Right, SpinorLayout::Left}) {
        DslashConfig cfg = config();
        cfg.out = out;
        cfg.layout = layout;
        if (cfg.kernel == KernelFamily::Mrhs) cfg.nrhs = 2 * simd_lanes(cfg.isa, sizeof(Real));
        const DslashKernel<Real> d(f.u, cfg);
        const View<Real, 1> in = d.allocate_spinors("in"), chi = d.allocate_spinors("out");
        deep_copy(in, Real(1));
        deep_copy(chi, std::numeric_limits<Real>::quiet_NaN());
        d.apply_traffic(in, chi);
        std::vector<SpinorField<Real>> result;
        d.unpack(chi, result);
        ASSERT_EQ(static_cast<int>(result.size()), cfg.nrhs);
        for (const auto& field : result)
          for (site_t i = 0; i < field.sites(); ++i)
            for (int sp = 0; sp < 4; ++sp)
              for (int c = 0; c < 3; ++c)
                ASSERT_EQ(field(i, sp, c), std::complex<Real>(8, 8)) << d.label() << " " << to_string(out) << " " << to_string(layout) << " site " << i;
      }
  };
  if (GetParam().single) run(float{});
  else run(double{});
}

// A failing line names its variant in words, not as the struct's bytes.
TEST(DslashKernelVariants, PrintInWords) {
  EXPECT_EQ(::testing::PrintToString(Variant{KernelFamily::Vnode, SimdIsa::Avx2, Dispatch::MDRange, false}), "vnode avx2 mdrange double");
}

INSTANTIATE_TEST_SUITE_P(EveryVariant, DslashKernels, ::testing::ValuesIn(all_variants()),
                         [](const auto& param_info) { return test::describe(param_info.param, "_"); });

TEST(DslashKernelLayouts, PackThenUnpackIsExact) {
  Fixture<double>& f = fixture<double>();
  for (SimdIsa isa : runnable_isas())
    for (SpinorLayout layout : {SpinorLayout::Right, SpinorLayout::Left})
    for (KernelFamily k : {KernelFamily::Naive, KernelFamily::Mrhs, KernelFamily::Vnode}) {
      DslashConfig cfg{.kernel = k, .isa = isa, .out = Subset::Full, .layout = layout};
      cfg.nrhs = k == KernelFamily::Mrhs ? simd_lanes(isa, 8) : 1;
      const DslashKernel<double> full(f.u, cfg);
      const auto in = f.inputs(Subset::Full, cfg.nrhs);
      const View<double, 1> packed = full.allocate_spinors("packed");
      full.pack(in, packed);
      std::vector<SpinorField<double>> back;
      full.unpack(packed, back);
      for (int r = 0; r < cfg.nrhs; ++r) EXPECT_EQ(test::relative_difference(back[static_cast<std::size_t>(r)], in[static_cast<std::size_t>(r)]), 0.0) << full.label();
      // A checkerboard packed by the D_{o<-e} kernel unpacks through the D_{e<-o} kernel's output side.
      cfg.out = Subset::Odd;
      const DslashKernel<double> odd_out(f.u, cfg);
      cfg.out = Subset::Even;
      const DslashKernel<double> even_out(f.u, cfg);
      const auto even_in = f.inputs(Subset::Even, cfg.nrhs);
      const View<double, 1> cb = odd_out.allocate_spinors("cb");
      odd_out.pack(even_in, cb);
      even_out.unpack(cb, back);
      for (int r = 0; r < cfg.nrhs; ++r) EXPECT_EQ(test::relative_difference(back[static_cast<std::size_t>(r)], even_in[static_cast<std::size_t>(r)]), 0.0) << even_out.label();
    }
}

// Components whose bits differ (re and im parts apart).
template <class Real>
int differing_bits(const SpinorField<Real>& a, const SpinorField<Real>& b) {
  int n = 0;
  for (index_t k = 0; k < a.sites() * 12; ++k)
    for (int part = 0; part < 2; ++part)
      n += std::memcmp(reinterpret_cast<const Real*>(a.data() + k) + part, reinterpret_cast<const Real*>(b.data() + k) + part, sizeof(Real)) != 0;
  return n;
}

// Whether an instruction set's multiply-add rounds the product before the add, as the naive kernel's
// scalar fallback (a*b + c, built for the baseline x86-64 CPU) does: the fallback batches, and SSE2,
// for which xsimd writes fma as x*y + z. AVX2, AVX-512 and NEON fuse it (one rounding).
bool rounds_products_like_naive(SimdIsa isa) { return isa == SimdIsa::Scalar || isa == SimdIsa::Emulated512 || isa == SimdIsa::Sse2; }

// The lanes of the mrhs kernel are independent right-hand sides, on every instruction set.
// - Lane r of two blocks of right-hand sides against the same instruction set on right-hand side r
//   alone (copied into every lane of one block): the same body, the same operations in the same
//   order in every lane, so the same bits. A tolerance would let through a lane-ordering bug that
//   swaps nearly equal results.
// - Against the naive kernel, the same body at one lane: also the same operations in the same
//   order (links broadcast to the lanes, no lane crossing), so the same bits wherever the
//   multiply-add rounds as the fallback's does. Where it is fused, each product skips a rounding:
//   within 8 float epsilons of the largest component (1.5 measured on this fixture). A bound per
//   component in its own ulps cannot hold there: a result that cancels keeps the products' errors.
TEST(DslashKernelLayouts, MrhsEqualsIndependentSingleRhsApplications) {
  Fixture<float>& f = fixture<float>();
  const DslashKernel<float> naive(f.u, {.kernel = KernelFamily::Naive, .out = Subset::Odd});
  for (SimdIsa isa : runnable_isas()) {
    const int w = simd_lanes(isa, 4), n = 2 * w;  // two blocks of right-hand sides
    const DslashKernel<float> mrhs(f.u, {.kernel = KernelFamily::Mrhs, .isa = isa, .out = Subset::Odd, .nrhs = n});
    const DslashKernel<float> one_block(f.u, {.kernel = KernelFamily::Mrhs, .isa = isa, .out = Subset::Odd, .nrhs = w});
    const auto in = f.inputs(Subset::Even, n);
    const auto together = mrhs.apply(in);
    for (int r = 0; r < n; ++r) {
      const auto& lane = together[static_cast<std::size_t>(r)];
      const auto copies = one_block.apply(std::vector<SpinorField<float>>(static_cast<std::size_t>(w), in[static_cast<std::size_t>(r)]));
      for (int l = 0; l < w; ++l)
        EXPECT_EQ(differing_bits(lane, copies[static_cast<std::size_t>(l)]), 0) << mrhs.label() << " rhs " << r << " against lane " << l << " of rhs " << r << " alone";
      const auto alone = naive.apply({in[static_cast<std::size_t>(r)]});
      if (rounds_products_like_naive(isa)) EXPECT_EQ(differing_bits(lane, alone[0]), 0) << mrhs.label() << " rhs " << r << " against naive";
      else  // fused: 1.5 eps at most on this fixture; per component no ulp bound holds (sums cancel)
        EXPECT_LT(test::relative_difference(lane, alone[0]), 8 * std::numeric_limits<float>::epsilon()) << mrhs.label() << " rhs " << r << " against naive";
    }
  }
}

TEST(DslashKernelValidation, ClearErrorsForWhatAKernelCannotTake) {
  GaugeField<float> u(Geometry({4, 6, 8, 10}));
  fill_unit(u);
  auto message = [&](const DslashConfig& cfg) -> std::string {
    try {
      DslashKernel<float> d(u, cfg);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "accepted";
  };
  // 16 emulated lanes fold x, y, z, t: L1 = 6 is not a multiple of 4.
  EXPECT_NE(message({.kernel = KernelFamily::Vnode, .isa = SimdIsa::Emulated512}).find("L1 (y) = 6 must be a multiple of 4; nearest valid: 4 or 8"), std::string::npos)
      << message({.kernel = KernelFamily::Vnode, .isa = SimdIsa::Emulated512});
  EXPECT_NE(message({.kernel = KernelFamily::Mrhs, .isa = SimdIsa::Emulated512, .nrhs = 20}).find("must be a multiple of 16; nearest valid: 16 or 32"), std::string::npos);
  EXPECT_NE(message({.kernel = KernelFamily::Vnode, .isa = SimdIsa::Scalar, .nrhs = 2}).find("one right-hand side"), std::string::npos);
  EXPECT_NE(message({.kernel = KernelFamily::Naive, .tile = {-1, 0, 0, 0}}).find("tile"), std::string::npos);
  EXPECT_EQ(message({.kernel = KernelFamily::Vnode, .isa = SimdIsa::Scalar}), "accepted");  // one lane folds nothing
}

}  // namespace
}  // namespace dslash
