// Every kernel x dispatch x precision x instruction set x parity x dagger against the scalar
// reference (docs/CONVENTIONS.md tolerances: 1e-5 single, 1e-12 double, relative), uncompressed and
// with compressed links (12 and 8 reals); the link compression itself, link by link. The checks the
// GPU runs too (the reference, the default launch shapes, the xpay epilogue) are written once in
// tests/dslash_kernel_checks.hpp; the CPU's own (halo faces, links from below, the traffic probe,
// layouts, lanes, cache policy) are here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <numbers>
#include <tuple>

#include "kernels/dslash_faces.hpp"
#include "kernels/dslash_kernel.hpp"
#include "kernels/reference_dslash.hpp"
#include "dslash_kernel_checks.hpp"
#include "kernel_variant.hpp"
#include "test_support.hpp"
#include "xpay_check.hpp"

namespace dslash {
namespace {

// Every extent a multiple of 4 (16 lanes fold all four directions), no two alike where it matters.
const Geometry kLattice({8, 4, 12, 8});
constexpr int kMaxRhs = 32;  // two blocks of 16 AVX-512 lanes

// The inputs, and the reference outputs, computed once in double from the (rounded) inputs.
template <class Real>
using Fixture = test::DslashProblem<Real>;

template <class Real>
Fixture<Real>& fixture() {
  static Fixture<Real> f(kLattice, 99, 1000, kMaxRhs);
  return f;
}

using Variant = test::KernelVariant;

std::vector<Variant> all_variants(int compress = 18) {
  std::vector<Variant> v;
  for (bool single : {true, false})
    for (Dispatch d : {Dispatch::Range, Dispatch::Team, Dispatch::MDRange}) {
      v.push_back({KernelFamily::Naive, SimdIsa::Scalar, d, single, compress});
      for (KernelFamily k : {KernelFamily::Mrhs, KernelFamily::Vnode})
        for (SimdIsa isa : compiled_isas())
          if (kernel_built(k, isa)) v.push_back({k, isa, d, single, compress});
    }
  return v;
}
std::vector<Variant> compressed_variants() {
  std::vector<Variant> v;
  for (int reals : test::built_compressions()) {
    const std::vector<Variant> these = all_variants(reals);
    v.insert(v.end(), these.begin(), these.end());
  }
  return v;
}
std::string variant_name(const ::testing::TestParamInfo<Variant>& info) { return test::describe(info.param, "_"); }

using test::kEveryCase;

class DslashKernels : public ::testing::TestWithParam<Variant> {
 protected:
  void SetUp() override {
    if (!cpu_supports(GetParam().isa)) GTEST_SKIP() << to_string(GetParam().isa) << " is not supported by this CPU";
  }

  // Against the reference (tests/dslash_kernel_checks.hpp), on this suite's lattice.
  template <class Real>
  void check_against_reference(const DslashConfig& base, const std::vector<std::pair<Subset, bool>>& cases = kEveryCase) {
    test::expect_agrees_with_reference<Real, HostSpace>(fixture<Real>(), base, cases);
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
    // Team launches in blocks of 3 outer z-planes, t inside (12 or, folded, 6 planes: 4 or 2 blocks),
    // so the blocked traversal visits every site once; the default (0) keeps index order here.
    if (cfg.dispatch == Dispatch::Team) cfg.block_z = 3;
    cfg.compress = GetParam().compress;
    return cfg;
  }

  // The halo as the kernel reads it from its neighbours' inputs, where every neighbour is this domain.
  template <class Real>
  static ReceivedHalo<Real> neighbour_inputs(const DslashFaces<Real>& faces, const DslashConfig& cfg, const View<Real, 1>& in) {
    ReceivedHalo<Real> r = faces.received({});
    for (std::size_t m = 0; m < 4; ++m)
      if (cfg.halo[m]) r.neighbour_in[m] = {in.data(), in.data()};
    return r;
  }

  // The split directions `halo` left out by the kernel (run in uneven slabs of outer t, as
  // HaloDslash launches it between MPI tests) and added back by DslashFaces from this domain's own
  // faces, wrapped onto itself as MPI does with a grid of one rank per split direction: the sum must
  // be the periodic operator. Hop by hop, both hops of a direction in one launch (a GPU rank's way),
  // and read from the messages by the kernel itself (a CPU rank whose halo is in first): the same
  // bits; every face projected in one launch (a CPU rank's way): the same messages.
  template <class Real>
  void check_halo_faces_against_reference(const DslashConfig& cfg) {
    Fixture<Real>& f = fixture<Real>();
    const double tolerance = test::kernel_tolerance<Real>();
    const DslashKernel<Real> d(f.u, cfg);
    const DslashFaces<Real> faces(d, f.u);
    const View<Real, 1> in = d.allocate_spinors("in"), chi = d.allocate_spinors("out"), fused = d.allocate_spinors("fused"),
                        in_kernel = d.allocate_spinors("in_kernel");
    d.pack(f.inputs(d.in_subset(), cfg.nrhs), in);
    const index_t T = d.outer_t(), cuts[] = {0, T / 3, T / 3 + 1, T};
    for (int k = 0; k < 3; ++k) d.apply(in, chi, {.slab = TSlab{cuts[k], cuts[k + 1]}});
    d.apply(in, fused);
    std::array<std::vector<Real>, 4> forward, backward;
    std::array<std::array<const Real*, 2>, 4> messages{};
    for (int mu = 0; mu < 4; ++mu) {
      const auto m = static_cast<std::size_t>(mu);
      const index_t face = kLattice.volume() / kLattice.extent(mu) / (cfg.out == Subset::Full ? 1 : 2);
      EXPECT_EQ(faces.face_sites(mu), cfg.halo[m] ? face : 0);
      std::vector<Real> half(faces.halo_reals(mu));
      forward[m].resize(half.size());
      backward[m].resize(half.size());
      EXPECT_EQ(half.size(), static_cast<std::size_t>(faces.face_sites(mu) * cfg.nrhs * 12));
      for (Hop hop : {Hop::Forward, Hop::Backward}) {
        faces.project(mu, hop, in, half.data());
        faces.complete(mu, hop, half.data(), chi);
      }
      faces.project_both(mu, in, forward[m].data(), backward[m].data());
      faces.complete_both(mu, forward[m].data(), backward[m].data(), fused);
      messages[m] = {forward[m].data(), backward[m].data()};
    }
    d.apply(in, in_kernel, {.received = faces.received(messages)});
    // The neighbour's input read in place, as a CPU rank of one node reads it (--cpu-halo inputs):
    // wrapped onto itself, the neighbour's input is our own.
    const View<Real, 1> in_place = d.allocate_spinors("in_place");
    d.apply(in, in_place, {.received = neighbour_inputs(faces, cfg, in)});
    // Every direction's projections in one launch, each face vector read once (a CPU rank's): the
    // same messages, bit for bit, edges and corners included.
    std::array<std::vector<Real>, 4> all_forward, all_backward;
    std::array<std::array<Real*, 2>, 4> halves{};
    for (std::size_t m = 0; m < 4; ++m) {
      all_forward[m].assign(forward[m].size(), Real(0));
      all_backward[m].assign(backward[m].size(), Real(0));
      halves[m] = {all_forward[m].data(), all_backward[m].data()};
    }
    faces.project_all(in, halves);
    for (std::size_t m = 0; m < 4; ++m) {
      EXPECT_TRUE(all_forward[m] == forward[m]) << d.label() << (cfg.dagger ? " dagger" : "") << ": project_all's forward message, direction " << m;
      EXPECT_TRUE(all_backward[m] == backward[m]) << d.label() << (cfg.dagger ? " dagger" : "") << ": project_all's backward message, direction " << m;
    }
    std::vector<SpinorField<Real>> result, result_fused, result_in_kernel, result_in_place;
    d.unpack(chi, result);
    d.unpack(fused, result_fused);
    d.unpack(in_kernel, result_in_kernel);
    d.unpack(in_place, result_in_place);
    for (int r = 0; r < cfg.nrhs; ++r) {
      const auto k = static_cast<std::size_t>(r);
      EXPECT_LT(test::relative_difference(result[k], f.expected(cfg.out, cfg.dagger, r)), tolerance)
          << d.label() << " " << to_string(cfg.out) << (cfg.dagger ? " dagger" : "") << " rhs " << r;
      EXPECT_EQ(test::relative_difference(result_fused[k], result[k]), 0.0) << d.label() << ": both hops in one launch differ, rhs " << r;
      EXPECT_EQ(test::relative_difference(result_in_kernel[k], result[k]), 0.0)
          << d.label() << " " << to_string(cfg.out) << (cfg.dagger ? " dagger" : "") << ": the kernel's own halo hops differ, rhs " << r;
      EXPECT_EQ(test::relative_difference(result_in_place[k], result[k]), 0.0)
          << d.label() << " " << to_string(cfg.out) << (cfg.dagger ? " dagger" : "") << ": the halo read in place differs, rhs " << r;
    }
    // Every split direction needs its messages.
    if (std::find(cfg.halo.begin(), cfg.halo.end(), true) != cfg.halo.end()) {
      EXPECT_THROW(d.apply(in, in_kernel, {.received = ReceivedHalo<Real>{}}), std::invalid_argument);
      EXPECT_THROW(d.apply_xpay(in, chi, {.x = &fused}), std::invalid_argument);  // the faces would come after the epilogue
    }
    // The epilogue after the halo's hops: out = a x + b D in, its norm and <D in, out>, against the
    // plain result.
    if (!d.fuses_xpay(true)) return;
    const View<Real, 1> xpay = d.allocate_spinors("xpay");
    const Real a = Real(1.5), b = Real(-0.25);
    const NormDot sums = d.apply_xpay(in, xpay, {.a = a, .x = &in_kernel, .b = b, .w = &chi}, {.received = faces.received(messages)});
    const View<Real, 1> xpay_in_place = d.allocate_spinors("xpay_in_place");
    const NormDot sums_in_place = d.apply_xpay(in, xpay_in_place, {.a = a, .x = &in_kernel, .b = b, .w = &chi}, {.received = neighbour_inputs(faces, cfg, in)});
    EXPECT_EQ(sums_in_place.norm2, sums.norm2) << d.label() << ": the epilogue with the halo read in place";
    EXPECT_EQ(sums_in_place.dot, sums.dot) << d.label() << ": the epilogue with the halo read in place";
    std::vector<SpinorField<Real>> result_xpay, result_xpay_in_place;
    d.unpack(xpay, result_xpay);
    d.unpack(xpay_in_place, result_xpay_in_place);
    for (int r = 0; r < cfg.nrhs; ++r)
      EXPECT_EQ(test::relative_difference(result_xpay_in_place[static_cast<std::size_t>(r)], result_xpay[static_cast<std::size_t>(r)]), 0.0)
          << d.label() << ": the epilogue with the halo read in place, rhs " << r;
    double expect_norm2 = 0;
    std::complex<double> expect_dot = 0;
    for (int r = 0; r < cfg.nrhs; ++r) {
      const auto k = static_cast<std::size_t>(r);
      SpinorField<double> expect(kLattice, cfg.out);
      for (site_t site = 0; site < expect.sites(); ++site)
        for (int sp = 0; sp < 4; ++sp)
          for (int c = 0; c < 3; ++c) {
            expect(site, sp, c) = (static_cast<double>(a) + static_cast<double>(b)) * std::complex<double>(result[k](site, sp, c));
            expect_norm2 += std::norm(std::complex<double>(result_xpay[k](site, sp, c)));
            expect_dot += std::conj(std::complex<double>(result[k](site, sp, c))) * std::complex<double>(result_xpay[k](site, sp, c));
          }
      EXPECT_LT(test::relative_difference(result_xpay[k], expect), tolerance) << d.label() << ": the epilogue after the halo's hops, rhs " << r;
    }
    EXPECT_NEAR(sums.norm2, expect_norm2, tolerance * expect_norm2) << d.label();
    // w = D in, out = (a + b) D in: <w, out> = (a + b) ||D in||^2, real.
    EXPECT_NEAR(sums.dot.real(), expect_dot.real(), tolerance * std::abs(expect_dot)) << d.label();
    EXPECT_NEAR(sums.dot.imag(), expect_dot.imag(), tolerance * std::abs(expect_dot)) << d.label();
  }
};

TEST_P(DslashKernels, AgreesWithTheReference) {
  if (GetParam().single) check_against_reference<float>(config());
  else check_against_reference<double>(config());
}

// The default launch shapes, with the component-major (LayoutLeft) spinor layout: together with the
// test above every variant runs in both layouts.
TEST_P(DslashKernels, DefaultTilesAndTeamsToo) {
  if (GetParam().single) test::expect_default_launch_shapes_agree<float, HostSpace>(fixture<float>(), config());
  else test::expect_default_launch_shapes_agree<double, HostSpace>(fixture<double>(), config());
}

// One domain with its split directions wrapped onto itself: the kernel leaves out the hops that
// leave the domain, and DslashFaces sends our own faces back to us, as MPI does with a grid of
// one rank per split direction. The sum must be the periodic operator. The kernel runs in slabs.
TEST_P(DslashKernels, HaloFacesCompleteTheSplitDirections) {
  const auto run = [&]<class Real>(Real) {
    const std::array<bool, 4> splits[3] = {{true, true, true, true}, {true, false, true, false}, {false, true, false, true}};
    for (const auto& [out, dagger] : kEveryCase) {
      DslashConfig cfg = config();
      cfg.out = out;
      cfg.dagger = dagger;
      cfg.halo = splits[static_cast<int>(out)];
      // Two blocks of right-hand sides on one parity (the messages interleave blocks per face
      // vector), and the component-major spinor layout on another.
      if (cfg.kernel == KernelFamily::Mrhs) cfg.nrhs = simd_lanes(cfg.isa, sizeof(Real)) * (out == Subset::Odd ? 2 : 1);
      if (out == Subset::Full) cfg.layout = test::left_layout_if_built();
      check_halo_faces_against_reference<Real>(cfg);
    }
  };
  if (GetParam().single) run(float{});
  else run(double{});
}

// Under MPI a backward hop into the lower face (x_mu = 0) takes U_mu(x - mu) from the domain below
// (kernels/face_links.hpp), held by the kernel for its own halo hops and by the face completion.
// Given another field's upper-face links as "below": the face kernels, both hops in one launch and
// the kernel's own halo hops agree bit for bit, and equal the reference operator of a field whose
// mu links on the upper face are the other field's, on the lower face's sites (which that field
// changes nowhere else), and of the domain's own field elsewhere.
TEST_P(DslashKernels, LinksFromBelowReachEveryCompletion) {
  const auto run = [&]<class Real>(Real) {
    Fixture<Real>& f = fixture<Real>();
    const double tolerance = test::kernel_tolerance<Real>();
    GaugeField<double> other_double(kLattice);
    fill_random_su3(other_double, 7);
    const GaugeField<Real> other = convert_precision<Real>(other_double);
    for (const auto& [mu, out, dagger] : {std::tuple{0, Subset::Odd, true}, std::tuple{3, Subset::Even, false}}) {
      const auto m = static_cast<std::size_t>(mu);
      DslashConfig cfg = config();
      cfg.out = out;
      cfg.dagger = dagger;
      cfg.halo = {};
      cfg.halo[m] = true;
      if (cfg.kernel == KernelFamily::Mrhs) cfg.nrhs = simd_lanes(cfg.isa, sizeof(Real));
      const FaceLinks<Real> below = upper_face_links(other, cfg.halo);
      const DslashKernel<Real> d(f.u, cfg, &below);
      const DslashFaces<Real> faces(d, f.u);
      const View<Real, 1> in = d.allocate_spinors("in"), by_hop = d.allocate_spinors("by_hop"), fused = d.allocate_spinors("fused"),
                          in_kernel = d.allocate_spinors("in_kernel");
      d.pack(f.inputs(d.in_subset(), cfg.nrhs), in);
      d.apply(in, by_hop);
      d.apply(in, fused);
      std::vector<Real> half(faces.halo_reals(mu)), forward(half.size()), backward(half.size());
      for (Hop hop : {Hop::Forward, Hop::Backward}) {
        faces.project(mu, hop, in, half.data());
        faces.complete(mu, hop, half.data(), by_hop);
      }
      faces.project_both(mu, in, forward.data(), backward.data());
      faces.complete_both(mu, forward.data(), backward.data(), fused);
      std::array<std::array<const Real*, 2>, 4> messages{};
      messages[m] = {forward.data(), backward.data()};
      d.apply(in, in_kernel, {.received = faces.received(messages)});
      const View<Real, 1> in_place = d.allocate_spinors("in_place");
      d.apply(in, in_place, {.received = neighbour_inputs(faces, cfg, in)});
      std::vector<SpinorField<Real>> result, result_fused, result_in_kernel, result_in_place;
      d.unpack(by_hop, result);
      d.unpack(fused, result_fused);
      d.unpack(in_kernel, result_in_kernel);
      d.unpack(in_place, result_in_place);
      // The expected operator: on the lower face, that of the field with the other's upper-face links.
      GaugeField<double> swapped = convert_precision<double>(f.u);
      const GaugeField<double> other_rounded = convert_precision<double>(other);
      for (site_t s = 0; s < kLattice.volume(); ++s)
        if (kLattice.coords(s)[m] == kLattice.extent(mu) - 1) swapped.set_link(s, mu, other_rounded.link(s, mu));
      for (int r = 0; r < cfg.nrhs; ++r) {
        const auto k = static_cast<std::size_t>(r);
        SpinorField<double> in_field(kLattice, neighbour_subset(out)), lower(kLattice, out);
        copy_sites(convert_precision<double>(f.psi[k]), in_field);
        dslash_reference(swapped, in_field, lower, dagger);
        SpinorField<double> expect(kLattice, out);
        const SpinorField<double>& rest = f.expected(out, dagger, r);
        for (site_t i = 0; i < expect.sites(); ++i) {
          const bool on_lower_face = kLattice.coords(expect.lattice_site(i))[m] == 0;
          for (int sp = 0; sp < 4; ++sp)
            for (int c = 0; c < 3; ++c) expect(i, sp, c) = on_lower_face ? lower(i, sp, c) : rest(i, sp, c);
        }
        EXPECT_LT(test::relative_difference(result[k], expect), tolerance) << d.label() << " mu " << mu << " rhs " << r;
        EXPECT_GT(test::relative_difference(result[k], rest), 100 * tolerance) << d.label() << ": the links from below went unused, mu " << mu;
        EXPECT_EQ(test::relative_difference(result_fused[k], result[k]), 0.0) << d.label() << ": both hops in one launch differ, mu " << mu;
        EXPECT_EQ(test::relative_difference(result_in_kernel[k], result[k]), 0.0) << d.label() << ": the kernel's own halo hops differ, mu " << mu;
        EXPECT_EQ(test::relative_difference(result_in_place[k], result[k]), 0.0) << d.label() << ": the halo read in place differs, mu " << mu;
      }
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
      for (SpinorLayout layout : test::built_cpu_layouts()) {
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

// The even-odd operator's epilogue in the kernel: a x + b D in and its norm, against the same
// kernel's D in (tests/xpay_check.hpp), on a checkerboard and on the full lattice. Built on the CPU
// for whole links only: the compressed variants below expect it refused.
TEST_P(DslashKernels, XpayEpilogueIsAXPlusBDslashWithItsNorm) {
  const bool fused = GetParam().compress == 18;
  if (GetParam().single) test::expect_xpay_epilogue_or_refusal<float, HostSpace>(fixture<float>(), config(), 700, fused);
  else test::expect_xpay_epilogue_or_refusal<double, HostSpace>(fixture<double>(), config(), 700, fused);
}

// The epilogue would run before the halo faces complete the output: refused, not wrong. With
// compressed links it is not built (the solvers' BLAS pass runs instead): refused too.
TEST(DslashKernelValidation, XpayEpilogueIsRefusedWithHaloDirectionsOrCompressedLinks) {
  GaugeField<double> u(kLattice);
  fill_random_su3(u, 5);
  DslashConfig cfg;
  EXPECT_TRUE(DslashKernel<double>(u, cfg).fuses_xpay());
  cfg.halo = {false, false, false, true};
  test::expect_xpay_refused(DslashKernel<double>(u, cfg), "apply_xpay needs every direction on this process");
  cfg.halo = {};
  cfg.compress = 12;
  if (build::kLinks12) test::expect_xpay_refused(DslashKernel<double>(u, cfg), "apply_xpay needs whole links");
}

// Every xpay entry point checks its vectors before anything runs (DslashKernel::xpay_args): x and
// the inner products' vectors the kernel's spinor size, and a second inner product only with a first.
TEST(DslashKernelValidation, XpayChecksItsVectorsBeforeItRuns) {
  GaugeField<double> u(kLattice);
  fill_random_su3(u, 5);
  const DslashKernel<double> d(u, DslashConfig{});
  const auto in = d.allocate_spinors("in"), out = d.allocate_spinors("out"), w = d.allocate_spinors("w");
  const DslashKernel<double>::spinor_view short_view("short", in.size() - 1);
  const auto refused = [](const std::function<void()>& call, const std::string& reason) {
    try {
      call();
      ADD_FAILURE() << "ran where it should refuse: " << reason;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    }
  };
  refused([&] { d.apply_xpay(in, out, {.x = &short_view}); }, "the xpay buffer has the wrong size");
  refused([&] { d.apply_xpay(in, out, {.x = &in, .w = &short_view}); }, "the inner product's buffer has the wrong size");
  refused([&] { d.apply_xpay(in, out, {.x = &in, .w = &w, .w2 = &short_view}); }, "the inner product's buffer has the wrong size");
  refused([&] { d.apply_xpay(in, out, {.x = &in, .w2 = &w}); }, "a second inner product needs a first");
  refused([&] { d.apply_xpay(in, out, {}); }, "apply_xpay needs x");
  View<double, 1> norm("norm", 1);
  View<EpilogueSums, 1> sums_into("sums", 1);
  refused([&] { d.apply_xpay(in, out, {.x = &short_view, .norm_into = ReduceInto<double>{norm.data(), nullptr}}); }, "the xpay buffer has the wrong size");
  refused([&] { d.apply_xpay(in, out, {.x = &in, .norm_into = ReduceInto<double>{}}); }, "needs memory for the norm");
  refused([&] { d.apply_xpay(in, out, {.x = &in, .sums_into = ReduceInto<EpilogueSums>{}}); }, "needs memory for the sums");
  refused([&] { d.apply_xpay(in, out, {.x = &in, .w = &w, .norm_into = ReduceInto<double>{norm.data(), nullptr}}); }, "takes the norm alone");
  refused([&] { d.apply_xpay(in, out, {.x = &in, .sums_into = ReduceInto<EpilogueSums>{sums_into.data(), nullptr}}); }, "needs the inner products' w");
  refused([&] {
    d.apply_xpay(in, out, {.x = &in, .norm_into = ReduceInto<double>{norm.data(), nullptr}, .sums_into = ReduceInto<EpilogueSums>{sums_into.data(), nullptr}});
  }, "norm_into or sums_into");
  refused([&] { d.apply_xpay(in, out, {.x = &in}, {.slab = TSlab{0, d.outer_t() + 1}}); }, "t slab out of range");
  // With the vectors right it runs, and w2 defaults to w: both inner products are <w, out>.
  for (std::size_t i = 0; i < in.size(); ++i) in(i) = std::sin(0.1 * static_cast<double>(i)), w(i) = std::cos(0.3 * static_cast<double>(i));
  const NormDot sums = d.apply_xpay(in, out, {.x = &in, .w = &w});
  EXPECT_NE(sums.dot, std::complex<double>(0));
  EXPECT_EQ(sums.dot, sums.dot2);
}

// 512-bit kernels prefetch a later site's links into L1 where the links fit the last-level cache
// (from DRAM that prefetch cost the device host's 48^4 vnode 8 points of roofline), and from DRAM
// only vnode's 12-real links, into L2 (a few per cent there: 1.04x at the median).
TEST(DslashKernelValidation, PrefetchLinksWhereTheCacheAndTheLinksSay) {
  using K = KernelFamily;
  EXPECT_EQ(link_prefetch_for(K::Vnode, 18, 100 << 20, 0), LinkPrefetch::IntoL1) << "an unknown cache keeps the prefetch";
  EXPECT_EQ(link_prefetch_for(K::Vnode, 18, 100 << 20, 300 << 20), LinkPrefetch::IntoL1);
  EXPECT_EQ(link_prefetch_for(K::Mrhs, 8, 300 << 20, 300 << 20), LinkPrefetch::IntoL1);
  EXPECT_EQ(link_prefetch_for(K::Vnode, 18, 301 << 20, 300 << 20), LinkPrefetch::None);
  EXPECT_EQ(link_prefetch_for(K::Vnode, 8, 301 << 20, 300 << 20), LinkPrefetch::None);
  EXPECT_EQ(link_prefetch_for(K::Mrhs, 12, 301 << 20, 300 << 20), LinkPrefetch::None);
  EXPECT_EQ(link_prefetch_for(K::Vnode, 12, 301 << 20, 300 << 20), LinkPrefetch::IntoL2);
  EXPECT_STREQ(to_string(LinkPrefetch::IntoL2), "L2");
  GaugeField<double> u(kLattice);
  fill_random_su3(u, 5);
  EXPECT_EQ(DslashKernel<double>(u, DslashConfig{}).link_prefetch(), LinkPrefetch::None) << "naive: one lane, no vectors";
  EXPECT_EQ(DslashKernel<double>(u, DslashConfig{.link_prefetch = LinkPrefetch::IntoL1}).link_prefetch(), LinkPrefetch::None)
      << "naive: asked for, still none";
  // The application's choice from a cache size (resolve_cache_policy): this lattice's vnode links
  // (8 hops x 18 doubles on each of 1536 sites) are 1.7 MiB, of 12 reals 1.2 MiB.
  const DslashConfig vnode{.kernel = KernelFamily::Vnode, .isa = SimdIsa::Avx512};
  const auto resolved = [&](DslashConfig cfg, std::uint64_t llc) {
    resolve_cache_policy(cfg, u.geometry(), sizeof(double), llc);
    return cfg.link_prefetch;
  };
  EXPECT_EQ(resolved(vnode, 0), LinkPrefetch::IntoL1) << "an unknown cache keeps the prefetch";
  EXPECT_EQ(resolved(vnode, 32 << 20), LinkPrefetch::IntoL1);
  EXPECT_EQ(resolved(vnode, 1 << 20), LinkPrefetch::None);
  DslashConfig vnode12 = vnode;
  vnode12.compress = 12;
  EXPECT_EQ(resolved(vnode12, 1 << 20), LinkPrefetch::IntoL2);
  DslashConfig chosen = vnode;
  chosen.link_prefetch = LinkPrefetch::None;
  EXPECT_EQ(resolved(chosen, 32 << 20), LinkPrefetch::None) << "a value set is kept";
  // vnode on AVX-512 (8 doubles, 512 bits) with site-major links: the kernel runs what its config
  // says, whatever the host's cache; Auto (unresolved) as for an unknown cache.
  if (cpu_supports(SimdIsa::Avx512)) {
    DslashConfig cfg = vnode;
    EXPECT_EQ(DslashKernel<double>(u, cfg).link_prefetch(), LinkPrefetch::IntoL1) << "Auto";
    for (LinkPrefetch p : {LinkPrefetch::None, LinkPrefetch::IntoL1, LinkPrefetch::IntoL2}) {
      cfg.link_prefetch = p;
      EXPECT_EQ(DslashKernel<double>(u, cfg).link_prefetch(), p) << to_string(p);
      EXPECT_EQ(DslashKernel<double>::check_config(u.geometry(), cfg).link_prefetch, p) << to_string(p);
    }
    // On this host: its small links fit any cache.
    const DslashKernel<double> d(u, with_host_cache_policy<double, HostSpace>(vnode, u.geometry()));
    EXPECT_EQ(d.link_prefetch(), LinkPrefetch::IntoL1) << d.link_bytes() << " bytes of links against a cache of " << host_last_level_cache_bytes();
    cfg.layout = SpinorLayout::Left;  // component-major links: the next sites' are adjacent, no prefetch
    cfg.link_prefetch = LinkPrefetch::IntoL1;
    if (build::kCpuLeftLayout) {
      EXPECT_EQ(DslashKernel<double>(u, cfg).link_prefetch(), LinkPrefetch::None);
    }
  }
}

// The team traversal's z-block from the cache: three t-planes of the block's input spinors (with its
// two z-neighbour planes) in half the cache, else index order.
TEST(DslashKernelValidation, TeamBlockZFromTheCache) {
  // The 2-vCPU VM: mrhs single 32^4 (16 RHS), 16 x 32 sites of 1536 bytes a z-plane, 32 MiB of L3:
  // 4 planes a block, the fastest there (docs/history/HISTORY.md).
  EXPECT_EQ(team_block_z_fitting(32, 16 * 32 * 1536, 32 << 20), 4);
  EXPECT_EQ(team_block_z_fitting(32, 16 * 32 * 1536, 0), 32) << "an unknown cache keeps index order";
  EXPECT_EQ(team_block_z_fitting(32, 16 * 32 * 1536, std::uint64_t{1} << 30), 32) << "the whole plane fits";
  EXPECT_EQ(team_block_z_fitting(48, 24 * 48 * 1536, 300 << 20), 24);  // the device host's 48^4 mrhs
  EXPECT_EQ(team_block_z_fitting(32, 16 * 32 * 1536, 1 << 20), 1) << "nothing fits: one plane a block";
  GaugeField<double> u(kLattice);
  fill_random_su3(u, 5);
  DslashConfig cfg{.dispatch = Dispatch::Team};
  EXPECT_EQ(DslashKernel<double>(u, cfg).block_z(), 12) << "unresolved: index order";
  // The application's choice from a cache size: a z-plane of this lattice's naive even sites is
  // 4 x 4 sites x 192 bytes, and index order needs 3 x 12 of them in half the cache; a block of
  // bz planes, 3 (bz + 2).
  const auto resolved = [&](DslashConfig c, std::uint64_t llc) {
    resolve_cache_policy(c, u.geometry(), sizeof(double), llc);
    return c.block_z;
  };
  EXPECT_EQ(resolved(cfg, 0), 12) << "an unknown cache keeps index order";
  EXPECT_EQ(resolved(cfg, 32 << 20), 12) << "the whole plane fits";
  EXPECT_EQ(resolved(cfg, 2 * 3 * 12 * 16 * 192), 12);
  EXPECT_EQ(resolved(cfg, 2 * 3 * 12 * 16 * 192 - 2), 6);
  EXPECT_EQ(resolved(cfg, 1 << 10), 1) << "nothing fits: one plane a block";
  DslashConfig chosen = cfg;
  chosen.block_z = 3;
  EXPECT_EQ(resolved(chosen, 1 << 10), 3) << "a value set is kept";
  EXPECT_EQ(DslashKernel<double>(u, with_host_cache_policy<double, HostSpace>(cfg, u.geometry())).block_z(), 12)
      << "this lattice's planes fit any cache";
  cfg.block_z = 4;
  EXPECT_EQ(DslashKernel<double>(u, cfg).block_z(), 4);
  cfg.block_z = 5;
  try {
    DslashKernel<double> d(u, cfg);
    FAIL() << "a block of 5 z-planes of 12 was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("must divide the outer z extent 12"), std::string::npos) << e.what();
  }
}

// A failing line names its variant in words, not as the struct's bytes.
TEST(DslashKernelVariants, PrintInWords) {
  EXPECT_EQ(::testing::PrintToString(Variant{KernelFamily::Vnode, SimdIsa::Avx2, Dispatch::MDRange, false}), "vnode avx2 mdrange double");
  EXPECT_EQ(::testing::PrintToString(Variant{KernelFamily::Mrhs, SimdIsa::Sse2, Dispatch::Team, true, 12}), "mrhs sse2 team single r12");
}

INSTANTIATE_TEST_SUITE_P(EveryVariant, DslashKernels, ::testing::ValuesIn(all_variants()), variant_name);

// Gauge compression: every variant again with 12 and with 8 stored reals per link, on the same
// (SU(3) to rounding) links and tolerances. Three applications, not the 18 + 6 of the tests above,
// cover both daggers, all three parities, both layouts (site-major and the GPU's component-major
// links), the odd launch shapes, two blocks of right-hand sides (each rebuilds the links), and the
// halo faces (which keep their own uncompressed links) with every direction split.
class CompressedLinks : public DslashKernels {};

TEST_P(CompressedLinks, AgreeWithTheReference) {
  const auto run = [&]<class Real>(Real) {
    DslashConfig cfg = config();
    check_against_reference<Real>(cfg, {{Subset::Even, false}, {Subset::Full, true}});
    cfg.layout = test::left_layout_if_built();
    cfg.out = Subset::Odd;
    cfg.dagger = true;
    cfg.halo = {true, true, true, true};
    if (cfg.kernel == KernelFamily::Mrhs) cfg.nrhs = 2 * simd_lanes(cfg.isa, sizeof(Real));
    check_halo_faces_against_reference<Real>(cfg);
  };
  if (GetParam().single) run(float{});
  else run(double{});
}

// The xpay epilogue is not built for compressed links on the CPU (the solvers' BLAS pass runs
// instead): the shared check expects every compressed variant to refuse it with the reason.
TEST_P(CompressedLinks, RefuseTheXpayEpilogue) {
  if (GetParam().single) test::expect_xpay_epilogue_or_refusal<float, HostSpace>(fixture<float>(), config(), 700, false);
  else test::expect_xpay_epilogue_or_refusal<double, HostSpace>(fixture<double>(), config(), 700, false);
}

INSTANTIATE_TEST_SUITE_P(EveryVariant, CompressedLinks, ::testing::ValuesIn(compressed_variants()), variant_name);

// Half precision storage: every single-precision variant that DSLASH_HALF_ISAS builds, with 18, 12
// and 8 stored reals a link, against the reference within the format's bounds
// (tests/dslash_kernel_checks.hpp), the odd launch shapes, in both spinor layouts: each parity,
// and each dagger, once (the body's parity and dagger code is single's, tested above).
class HalfPrecision : public DslashKernels {};

TEST_P(HalfPrecision, AgreesWithTheReference) {
  DslashConfig cfg = config();
  test::expect_half_agrees_with_reference<HostSpace>(fixture<float>(), cfg,
                                                     cfg.compress == 18 ? std::vector<std::pair<Subset, bool>>{{Subset::Even, false}, {Subset::Full, true}}
                                                                        : std::vector<std::pair<Subset, bool>>{{Subset::Even, true}});
  cfg.layout = test::left_layout_if_built();
  test::expect_half_agrees_with_reference<HostSpace>(fixture<float>(), cfg, {{Subset::Odd, true}});
}

std::vector<Variant> half_variants() {
  std::vector<Variant> v;
  for (int reals : {18, 12, 8}) {
    const std::vector<int> built = test::built_compressions();
    if (reals != 18 && std::find(built.begin(), built.end(), reals) == built.end()) continue;
    for (const Variant& x : all_variants(reals))
      if (x.single && half_built(x.kernel, x.isa)) v.push_back(x);
  }
  return v;
}
INSTANTIATE_TEST_SUITE_P(EveryVariant, HalfPrecision, ::testing::ValuesIn(half_variants()), variant_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(HalfPrecision);  // a build without half kernels (DSLASH_HALF_ISAS=none)

// D and D^dagger of one parity share their links (DslashKernel::with_dagger, as the solvers' hopping
// terms build them): the bits of a dagger kernel built on its own, and not D's.
TEST(DslashKernelDagger, SharesItsParitysLinksWithTheSameBits) {
  const DslashConfig cfg{.kernel = KernelFamily::Vnode, .dispatch = Dispatch::Range, .isa = best_isa(), .out = Subset::Odd};
  DslashConfig dagger = cfg;
  dagger.dagger = true;
  const DslashKernel<float> d(fixture<float>().u, cfg), own(fixture<float>().u, dagger), shared = d.with_dagger(true);
  EXPECT_TRUE(shared.config().dagger);
  SpinorField<float> psi(kLattice, d.in_subset());
  fill_gaussian(psi, 31);
  const std::vector<SpinorField<float>> in{psi};
  const auto by_own = own.apply(in), by_shared = shared.apply(in), by_d = d.apply(in);
  EXPECT_EQ(relative_difference(by_shared.at(0), by_own.at(0)), 0.0);
  EXPECT_GT(relative_difference(by_d.at(0), by_own.at(0)), 0.1);
}

// What half precision does not hold yet is refused with the reason, before any work: double
// arithmetic, the xpay epilogue, single precision buffers. A zero spinor stays zero. (Its kernels
// in split directions: tests/mpi/test_mpi_dslash.cpp, HaloAround.)
TEST(HalfPrecisionKernel, RefusesWhatItDoesNotHoldAndKeepsZeroSitesZero) {
  if (!half_built(KernelFamily::Naive, SimdIsa::Scalar)) GTEST_SKIP() << "half precision is not built for naive (scalar)";
  DslashConfig cfg;
  cfg.half = true;
  EXPECT_THROW((DslashKernel<double>(fixture<double>().u, cfg)), std::invalid_argument);
  const DslashKernel<float> d(fixture<float>().u, cfg);
  EXPECT_FALSE(d.fuses_xpay());
  const auto floats = d.allocate_spinors("in");
  EXPECT_THROW(d.apply(floats, floats), std::invalid_argument);
  SpinorField<float> zero(kLattice, d.in_subset());
  fill_zero(zero);
  const auto out = d.apply(std::vector<SpinorField<float>>{zero});
  EXPECT_EQ(norm2(out.at(0)), 0.0);
}

// The GPU's vnode layout (kernel_layout.hpp): every real of every (site, block, component, lane) at
// its own index, a lane's imaginary part right after its real part, lanes adjacent.
TEST(DslashKernelLayouts, PairsStridesCoverEveryRealOnceWithReImAdjacent) {
  KernelLayout layout;
  layout.lanes = 4;
  layout.blocks = 3;
  const index_t sites = 5, W = layout.lanes;
  const KernelLayout::Strides st = layout.spinor_strides(true, sites, true);
  std::vector<int> hits(static_cast<std::size_t>(sites * layout.blocks * 24 * W), 0);
  for (index_t s = 0; s < sites; ++s)
    for (index_t b = 0; b < layout.blocks; ++b)
      for (int c = 0; c < 24; c += 2)
        for (int lane = 0; lane < W; ++lane) {
          const index_t re = st.index(s, b, c, lane, static_cast<int>(W)), im = st.index(s, b, c + 1, lane, static_cast<int>(W));
          ASSERT_EQ(im, re + 1);
          ASSERT_EQ(re, st.index(s, b, c, 0, static_cast<int>(W)) + 2 * lane);
          ++hits.at(static_cast<std::size_t>(re));
          ++hits.at(static_cast<std::size_t>(im));
        }
  for (int h : hits) ASSERT_EQ(h, 1);
}

TEST(DslashKernelLayouts, PackThenUnpackIsExact) {
  Fixture<double>& f = fixture<double>();
  for (SimdIsa isa : runnable_isas())
    for (SpinorLayout layout : test::built_cpu_layouts())
    for (KernelFamily k : {KernelFamily::Naive, KernelFamily::Mrhs, KernelFamily::Vnode}) {
      if (!kernel_built(k, isa)) continue;
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

// Any number of right-hand sides: the kernel pads them to whole vectors of lanes with zero ones,
// which unpack leaves out. One, primes that fill no vector (7, 13), and more than the lanes, each
// against the reference on its own; the padding's outputs stay zero (a solver's sums include them).
template <class Real>
void expect_any_rhs_count_agrees(SimdIsa isa) {
  Fixture<Real>& f = fixture<Real>();
  const int w = simd_lanes(isa, sizeof(Real));
  for (int n : {1, 7, 13, w + 3}) {
    for (Subset out : {Subset::Even, Subset::Odd}) {
      const DslashKernel<Real> d(f.u, {.kernel = KernelFamily::Mrhs, .isa = isa, .out = out, .nrhs = n});
      ASSERT_EQ(d.rhs_slots(), (n + w - 1) / w * w) << d.label();
      const auto in = f.inputs(d.in_subset(), n);
      const View<Real, 1> packed_in = d.allocate_spinors("in"), packed_out = d.allocate_spinors("out");
      d.pack(in, packed_in);
      d.apply(packed_in, packed_out);
      std::vector<SpinorField<Real>> result;
      d.unpack(packed_out, result);
      ASSERT_EQ(static_cast<int>(result.size()), n) << d.label();
      for (int r = 0; r < n; ++r)
        EXPECT_LT(test::relative_difference(result[static_cast<std::size_t>(r)], f.expected(out, false, r)), test::kernel_tolerance<Real>())
            << d.label() << " nrhs " << n << " rhs " << r;
      // The padding: every slot of a right-hand side past n, in and out, is zero.
      const KernelLayout::Strides st = d.spinor_strides();
      double padding = 0;
      for (index_t o = 0; o < d.output_sites(); ++o)
        for (int slot = n; slot < d.rhs_slots(); ++slot)
          for (int c = 0; c < 24; ++c) {
            const index_t i = st.index(o, slot / w, c, slot % w, w);
            padding += std::abs(packed_in.data()[i]) + std::abs(packed_out.data()[i]);
          }
      EXPECT_EQ(padding, 0.0) << d.label() << " nrhs " << n;
    }
  }
}

TEST(DslashKernelLayouts, MrhsTakesAnyNumberOfRightHandSides) {
  for (SimdIsa isa : runnable_isas()) {
    if (!kernel_built(KernelFamily::Mrhs, isa)) continue;
    expect_any_rhs_count_agrees<float>(isa);
    expect_any_rhs_count_agrees<double>(isa);
  }
}

// Gauge compression, link by link: what the kernels store (compress_link) and rebuild with their own
// arithmetic (decompress_link), against the link, in units of the precision's epsilon.
template <class Real>
double rebuild_error(const ColourMatrix<Real>& u, int reals) {
  Real stored[18];
  compress_link(u, reals, stored);
  const ColourMatrix<Real> back = decompress_link(stored, reals);
  double worst = 0;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) {
      const double d = std::abs(std::complex<double>(back(r, c)) - std::complex<double>(u(r, c)));
      if (!(d <= worst)) worst = d;  // a NaN stays
    }
  return worst;
}

// The links of a small random field, and their adjoints (the backward hops store U^dagger).
template <class Real>
std::vector<ColourMatrix<Real>> random_links() {
  GaugeField<double> u(Geometry({4, 4, 4, 4}));
  fill_random_su3(u, 7);
  const GaugeField<Real> ur = convert_precision<Real>(u);
  std::vector<ColourMatrix<Real>> links;
  for (site_t s = 0; s < ur.geometry().volume(); ++s)
    for (int mu = 0; mu < 4; ++mu) {
      links.push_back(ur.link(s, mu));
      links.push_back(adjoint(ur.link(s, mu)));
    }
  return links;
}

// An SU(3) link with U00 = a1 (|a1| <= 1) and the rest random: the first row keeps the direction of
// a random link's a2, a3, scaled to norm sqrt(1 - |a1|^2); Gram-Schmidt and the cross product do the rest.
ColourMatrix<double> link_with_first_entry(std::complex<double> a1, std::uint64_t seed) {
  GaugeField<double> u(Geometry({2, 2, 2, 2}));
  fill_random_su3(u, seed);
  ColourMatrix<double> m = u.link(0, 0);
  const double rest = std::sqrt(std::norm(m(0, 1)) + std::norm(m(0, 2)));
  for (int c = 1; c < 3; ++c) m(0, c) *= std::sqrt(1 - std::norm(a1)) / rest;
  m(0, 0) = a1;
  reunitarize(m);
  return m;
}

template <class Real>
ColourMatrix<Real> convert_precision_link(const ColourMatrix<double>& m) {
  ColourMatrix<Real> r;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) r(a, b) = std::complex<Real>(m(a, b));
  return r;
}

template <class Real>
void expect_round_trips() {
  constexpr double eps = std::numeric_limits<Real>::epsilon();
  double worst12 = 0, worst8 = 0;
  for (const ColourMatrix<Real>& u : random_links<Real>()) {
    EXPECT_EQ(rebuild_error(u, 18), 0.0);
    worst12 = std::max(worst12, rebuild_error(u, 12) / eps);
    // 8: the rebuilt |U00| = sqrt(1 - |a2|^2 - |a3|^2) carries the rounding of the sum over |U00|.
    worst8 = std::max(worst8, rebuild_error(u, 8) / eps / (1 + 1 / std::abs(std::complex<double>(u(0, 0)))));
  }
  EXPECT_LT(worst12, 8) << "12: worst error in epsilons";
  EXPECT_LT(worst8, 8) << "8: worst error in epsilons x (1 + 1/|U00|)";
}
TEST(LinkCompression, RandomSu3LinksRoundTripToRoundingInSingle) { expect_round_trips<float>(); }
TEST(LinkCompression, RandomSu3LinksRoundTripToRoundingInDouble) { expect_round_trips<double>(); }

// Where the 8-real parametrisation is delicate: |U00| -> 0 (its size from 1 - |a2|^2 - |a3|^2, at
// most about sqrt(epsilon) off) and phases at the branch cut of arg, +-pi (a1 and c1 negative
// real, from either side, and just inside it).
template <class Real>
void expect_delicate_links_round_trip() {
  constexpr double eps = std::numeric_limits<Real>::epsilon();
  std::uint64_t seed = 1;
  for (double magnitude : {1e-2, 1e-4, 1e-6, 0.0})
    for (double phase : {0.3, -2.9}) {
      const auto u = convert_precision_link<Real>(link_with_first_entry(std::polar(magnitude, phase), ++seed));
      EXPECT_LT(rebuild_error(u, 8), 4 * std::sqrt(eps)) << "|U00| = " << magnitude;
      EXPECT_LT(rebuild_error(u, 8), rebuild_tolerance<Real>());
      EXPECT_LT(rebuild_error(u, 12), 8 * eps) << "|U00| = " << magnitude;
    }
  const double pi = std::numbers::pi;
  for (std::complex<double> a1 : {std::complex<double>(-0.6, 0.0), std::complex<double>(-0.6, -0.0), std::polar(0.6, pi - 1e-7),
                                  std::polar(0.6, -pi + 1e-7)}) {
    ColourMatrix<double> m = link_with_first_entry(a1, ++seed);
    // c1 onto the cut too, at a1's phase: rows b and c turned by opposite phases (determinant 1).
    const std::complex<double> turn = std::polar(1.0, std::arg(a1) - std::arg(m(2, 0)));
    for (int c = 0; c < 3; ++c) {
      m(2, c) *= turn;
      m(1, c) /= turn;
    }
    if (a1.imag() == 0) m(2, 0) = {-std::abs(m(2, 0)), a1.imag()};  // exactly on the cut, with a1's signed zero
    m(0, 0) = a1;
    const auto u = convert_precision_link<Real>(m);
    EXPECT_LT(rebuild_error(u, 8), 16 * eps) << "U00 = " << a1 << ", U20 = " << m(2, 0);
  }
}
TEST(LinkCompression, DelicateLinksRoundTripInSingle) { expect_delicate_links_round_trip<float>(); }
TEST(LinkCompression, DelicateLinksRoundTripInDouble) { expect_delicate_links_round_trip<double>(); }

// A field that is not SU(3) within the precision, or that 8 cannot store, is refused with the link
// and the reason; 18 takes anything.
TEST(LinkCompression, RefusesLinksItCannotStore) {
  auto message = [](const auto& u, int compress) -> std::string {
    using Real = typename std::decay_t<decltype(u)>::real_type;
    try {
      DslashKernel<Real> d(u, {.kernel = KernelFamily::Naive, .compress = compress});
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "accepted";
  };
  GaugeField<double> random(Geometry({4, 4, 4, 4}));
  fill_random_su3(random, 3);
  GaugeField<float> u = convert_precision<float>(random);
  EXPECT_EQ(message(u, 12), "accepted");
  EXPECT_EQ(message(u, 8), "accepted");
  // One link 3% too long: |U U^dagger - 1| = 1.03^2 - 1, |det U - 1| = 1.03^3 - 1.
  const site_t s = u.geometry().site({1, 2, 3, 0});
  ColourMatrix<float> bad = u.link(s, 2);
  for (auto& row : bad.m)
    for (auto& z : row) z *= 1.03f;
  u.set_link(s, 2, bad);
  EXPECT_EQ(message(u, 18), "accepted");
  EXPECT_NE(message(u, 12).find("--compress 12: link (x,y,z,t,mu) = (1,2,3,0,2) is not SU(3): |U U^dagger - 1| = 6.1e-02, "
                                "|det U - 1| = 9.3e-02 (single precision allows 1e-05)"),
            std::string::npos)
      << message(u, 12);
  EXPECT_NE(message(u, 8).find("(1,2,3,0,2) is not SU(3)"), std::string::npos) << message(u, 8);
  // SU(3) to single-precision rounding is not SU(3) in double: its compressed answer would differ.
  EXPECT_NE(message(convert_precision<double>(convert_precision<float>(random)), 12).find("(double precision allows 1e-12)"), std::string::npos);
  // Unit links: 12 stores them, 8 cannot (its rows 2 and 3 are lost where |U00| = 1).
  GaugeField<double> unit(Geometry({4, 4, 4, 4}));
  fill_unit(unit);
  EXPECT_EQ(message(unit, 12), "accepted");
  EXPECT_NE(message(unit, 8).find("--compress 8: link (x,y,z,t,mu) = (0,0,0,0,0) does not survive the 8-real parametrisation"), std::string::npos)
      << message(unit, 8);
  EXPECT_NE(message(unit, 7).find("--compress 7: choose 18 (none), 12 (two rows) or 8"), std::string::npos) << message(unit, 7);
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
  // 16 lanes (AVX-512, or emulated where the build has it) fold x, y, z, t: L1 = 6 is not a multiple of 4.
  const SimdIsa wide = cpu_supports(SimdIsa::Avx512) ? SimdIsa::Avx512 : SimdIsa::Emulated512;
  if (cpu_supports(wide)) {
    EXPECT_NE(message({.kernel = KernelFamily::Vnode, .isa = wide}).find("L1 (y) = 6 must be a multiple of 4; nearest valid: 4 or 8"), std::string::npos)
        << message({.kernel = KernelFamily::Vnode, .isa = wide});
  }
  EXPECT_NE(message({.kernel = KernelFamily::Vnode, .isa = SimdIsa::Scalar, .nrhs = 2}).find("one right-hand side"), std::string::npos);
  EXPECT_NE(message({.kernel = KernelFamily::Naive, .tile = {-1, 0, 0, 0}}).find("tile"), std::string::npos);
  if (kernel_built(KernelFamily::Vnode, SimdIsa::Scalar)) {
    EXPECT_EQ(message({.kernel = KernelFamily::Vnode, .isa = SimdIsa::Scalar}), "accepted");  // one lane folds nothing
  } else {
    EXPECT_NE(message({.kernel = KernelFamily::Vnode, .isa = SimdIsa::Scalar}).find("not built for this instruction set (cmake -DDSLASH_CPU_ISAS"), std::string::npos);
  }
}

}  // namespace
}  // namespace dslash
