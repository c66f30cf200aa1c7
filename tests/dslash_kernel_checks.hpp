#pragma once
// The Dslash kernel checks written once for every backend: DslashKernel<Real, Space> on HostSpace
// (tests/test_dslash_kernels.cpp, over the CPU variants) and on CudaSpace
// (tests/cuda/test_cuda_dslash.cpp, over the GPU variants), each file giving its lattice, its
// launch shapes and which kernels fuse the xpay epilogue. Tolerances as docs/CONVENTIONS.md: 1e-5
// single, 1e-12 double, relative to the scalar reference computed in double from the rounded inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "dslash/lattice/fixed16_field.hpp"
#include "kernels/dslash_kernel.hpp"
#include "kernels/reference_dslash.hpp"
#include "kernel_variant.hpp"
#include "test_support.hpp"
#include "xpay_check.hpp"

namespace dslash::test {

template <class Real>
constexpr double kernel_tolerance() {
  return sizeof(Real) == 4 ? 1e-5 : 1e-12;
}

// A random SU(3) field and spinors rounded to Real, and the reference outputs computed once in
// double from those rounded inputs.
template <class Real>
struct DslashProblem {
  Geometry geom;
  GaugeField<Real> u;
  GaugeField<double> u_double;  // u, rounded to Real, in double
  std::vector<SpinorField<Real>> psi;  // full-lattice inputs
  std::map<std::tuple<int, bool, int>, SpinorField<double>> reference;  // (subset, dagger, rhs)

  DslashProblem(const Geometry& g, std::uint64_t gauge_seed, std::uint64_t spinor_seed, int max_rhs) : geom(g), u(g), u_double(g) {
    GaugeField<double> ud(geom);
    fill_random_su3(ud, gauge_seed);
    u = convert_precision<Real>(ud);
    u_double = convert_precision<double>(u);
    for (int r = 0; r < max_rhs; ++r) {
      SpinorField<double> p(geom, Subset::Full);
      fill_gaussian(p, spinor_seed + static_cast<std::uint64_t>(r));
      psi.push_back(convert_precision<Real>(p));
    }
  }
  const SpinorField<double>& expected(Subset out, bool dagger, int rhs) {
    const auto key = std::make_tuple(static_cast<int>(out), dagger, rhs);
    auto it = reference.find(key);
    if (it == reference.end()) {
      SpinorField<double> in_field(geom, neighbour_subset(out)), out_field(geom, out);
      copy_sites(convert_precision<double>(psi.at(static_cast<std::size_t>(rhs))), in_field);
      dslash_reference(u_double, in_field, out_field, dagger);
      it = reference.emplace(key, std::move(out_field)).first;
    }
    return it->second;
  }
  std::vector<SpinorField<Real>> inputs(Subset in, int nrhs) const {
    std::vector<SpinorField<Real>> v;
    for (int r = 0; r < nrhs; ++r) copy_sites(psi.at(static_cast<std::size_t>(r)), v.emplace_back(geom, in));
    return v;
  }
};

// Each output parity with and without the dagger.
inline const std::vector<std::pair<Subset, bool>> kEveryCase = {{Subset::Even, false}, {Subset::Even, true}, {Subset::Odd, false},
                                                                {Subset::Odd, true},   {Subset::Full, false}, {Subset::Full, true}};

// The instruction set a kernel of this configuration runs: the GPU's SIMT lanes whatever is asked,
// on a CPU the one asked (naive: scalar by definition).
template <class Space>
SimdIsa kernel_isa(const DslashConfig& cfg) {
  if constexpr (!Space::host_accessible) return SimdIsa::Simt;
  else return cfg.kernel == KernelFamily::Naive ? SimdIsa::Scalar : cfg.isa;
}

// The mrhs kernel's right-hand sides: a block of lanes; three blocks of the scalar "lanes", and two
// of the GPU's on the odd parity, so that blocks after the first are checked on both backends.
template <class Real>
int mrhs_rhs(SimdIsa isa, Subset out) {
  return simd_lanes(isa, sizeof(Real)) * (isa == SimdIsa::Scalar ? 3 : 1) * (isa == SimdIsa::Simt && out == Subset::Odd ? 2 : 1);
}
// The most right-hand sides mrhs_rhs asks for on these instruction sets.
template <class Real>
int max_mrhs_rhs(const std::vector<SimdIsa>& isas) {
  int n = 1;
  for (SimdIsa isa : isas) n = std::max(n, mrhs_rhs<Real>(isa, Subset::Odd));
  return n;
}

// Every case against the reference, right-hand side by right-hand side, on the instruction set the
// backend runs.
template <class Real, class Space>
void expect_agrees_with_reference(DslashProblem<Real>& p, const DslashConfig& base, const std::vector<std::pair<Subset, bool>>& cases = kEveryCase) {
  const double tolerance = kernel_tolerance<Real>();
  for (const auto& [out, dagger] : cases) {
    DslashConfig cfg = base;
    cfg.out = out;
    cfg.dagger = dagger;
    if (cfg.kernel == KernelFamily::Mrhs) cfg.nrhs = mrhs_rhs<Real>(kernel_isa<Space>(cfg), out);
    const DslashKernel<Real, Space> d(p.u, cfg);
    EXPECT_EQ(d.config().isa, kernel_isa<Space>(cfg)) << d.label();
    const auto result = d.apply(p.inputs(d.in_subset(), cfg.nrhs));
    ASSERT_EQ(static_cast<int>(result.size()), cfg.nrhs);
    for (int r = 0; r < cfg.nrhs; ++r)
      EXPECT_LT(relative_difference(result[static_cast<std::size_t>(r)], p.expected(out, dagger, r)), tolerance)
          << d.label() << " " << to_string(out) << (dagger ? " dagger" : "") << " rhs " << r;
  }
}

// Half precision storage (DslashConfig::half) against the reference, every case and right-hand side,
// within the format's bounds (kernels/dslash_kernel.hpp, half_precision_bound). With 18 reals also
// against the reference applied to the inputs as stored (psi and U decoded), where only the output's
// own encoding and single's arithmetic remain: kHalfSpinorError + 1e-5.
template <class Space>
void expect_half_agrees_with_reference(DslashProblem<float>& p, const DslashConfig& base, const std::vector<std::pair<Subset, bool>>& cases = kEveryCase) {
  GaugeField<double> u_stored(p.geom);  // the links as the kernel holds them (whole links only)
  {
    Fixed16GaugeField codes(p.geom);
    encode_fixed16(p.u, codes);
    decode_fixed16(codes, u_stored);
  }
  for (const auto& [out, dagger] : cases) {
    DslashConfig cfg = base;
    cfg.half = true;
    cfg.out = out;
    cfg.dagger = dagger;
    if (cfg.kernel == KernelFamily::Mrhs) cfg.nrhs = mrhs_rhs<float>(kernel_isa<Space>(cfg), out);
    const DslashKernel<float, Space> d(p.u, cfg);
    const auto inputs = p.inputs(d.in_subset(), cfg.nrhs);
    const auto result = d.apply(inputs);
    ASSERT_EQ(static_cast<int>(result.size()), cfg.nrhs);
    for (int r = 0; r < cfg.nrhs; ++r) {
      const SpinorField<float>& psi = inputs[static_cast<std::size_t>(r)];
      const std::string what = d.label() + " " + to_string(out) + (dagger ? " dagger" : "") + " rhs " + std::to_string(r);
      if (cfg.compress == 18) {
        Fixed16SpinorField codes(p.geom, psi.subset());
        SpinorField<double> psi_stored(p.geom, psi.subset()), ref(p.geom, out);
        encode_fixed16(psi, codes);
        decode_fixed16(codes, psi_stored);
        dslash_reference(u_stored, psi_stored, ref, dagger);
        EXPECT_LE(relative_difference(result[static_cast<std::size_t>(r)], ref), kHalfSpinorError + 1e-5) << what;
      }
      const SpinorField<double>& ref = p.expected(out, dagger, r);
      EXPECT_LE(relative_difference(result[static_cast<std::size_t>(r)], ref), half_precision_bound(cfg.compress, std::sqrt(norm2(psi) / norm2(ref)))) << what;
    }
  }
}

// The default launch shapes (tiles, the backend's team size) against the reference, with the
// component-major spinor layout where a CPU build holds it (the GPU runs that layout whatever is
// asked): with the backend's own odd shapes in expect_agrees_with_reference, every variant runs both
// layouts. The default team is one thread on a CPU and one warp on a GPU, never a one-thread block.
template <class Real, class Space>
void expect_default_launch_shapes_agree(DslashProblem<Real>& p, const DslashConfig& base) {
  DslashConfig cfg = base;
  cfg.layout = left_layout_if_built();
  cfg.tile = DslashConfig{}.tile;
  cfg.team_size = DslashConfig{}.team_size;
  cfg.sites_per_team = 0;
  if (cfg.dispatch == Dispatch::Team) {
    EXPECT_EQ((DslashKernel<Real, Space>(p.u, cfg).config().team_size), Space::host_accessible ? 1 : 32);
  }
  expect_agrees_with_reference<Real, Space>(p, cfg);
}

// The even-odd operator's epilogue in the kernel (tests/xpay_check.hpp): a x + b D in with its norm
// and inner products against the same kernel's D in, on each checkerboard (one with the dagger) and
// on the full lattice in the component-major layout; where the backend does not build it for this
// variant (`fused` false: compressed links), refused with the reason.
template <class Real, class Space>
void expect_xpay_epilogue_or_refusal(const DslashProblem<Real>& p, const DslashConfig& base, std::uint64_t seed, bool fused) {
  for (const auto& [out, dagger] : {std::pair{Subset::Even, false}, std::pair{Subset::Odd, true}, std::pair{Subset::Full, false}}) {
    DslashConfig cfg = base;
    cfg.out = out;
    cfg.dagger = dagger;
    if (out == Subset::Full) cfg.layout = left_layout_if_built();
    if (cfg.kernel == KernelFamily::Mrhs) cfg.nrhs = 2 * simd_lanes(kernel_isa<Space>(cfg), sizeof(Real));
    const DslashKernel<Real, Space> d(p.u, cfg);
    if (fused) expect_xpay_epilogue(d, seed);
    else expect_xpay_refused(d, "needs whole links");
  }
}

}  // namespace dslash::test
