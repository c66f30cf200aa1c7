#include "kernels/reference_dslash.hpp"

#include <stdexcept>
#include <string>

#include "dslash/core.hpp"
#include "dslash/lattice/gamma.hpp"

namespace dslash {

void check_dslash_operands(const Geometry& gauge_geometry, Subset in, const Geometry& in_geometry, Subset out,
                           const Geometry& out_geometry) {
  if (!(in_geometry == gauge_geometry) || !(out_geometry == gauge_geometry))
    throw std::invalid_argument("dslash: spinor lattice " + in_geometry.to_string() + " / " +
                                out_geometry.to_string() + " differs from gauge lattice " + gauge_geometry.to_string());
  const bool full = in == Subset::Full && out == Subset::Full;
  const bool checkerboard = in != Subset::Full && out != Subset::Full && in != out;
  if (!full && !checkerboard)
    throw std::invalid_argument(std::string("dslash: cannot map a ") + to_string(in) + " input to a " +
                                to_string(out) + " output (use full -> full or parity 1-p -> p)");
}

namespace {

using Spinor = std::array<ColourVector<double>, 4>;

// Storage index of lattice site s in a field of the given subset (the site is known to be there).
index_t storage_index(Subset subset, site_t s) { return subset == Subset::Full ? s : Geometry::cb_index(s); }

// acc += (1 + sign * g_mu) v
void add_projected(Spinor& acc, int mu, int sign, const Spinor& v) {
  for (int row = 0; row < 4; ++row)
    for (int c = 0; c < 3; ++c) {
      std::complex<double> g_v = 0;
      for (int col = 0; col < 4; ++col) {
        const GammaEntry e = kGamma[static_cast<std::size_t>(mu)][static_cast<std::size_t>(row)][static_cast<std::size_t>(col)];
        if (e.re != 0 || e.im != 0) g_v += std::complex<double>(e.re, e.im) * v[static_cast<std::size_t>(col)][static_cast<std::size_t>(c)];
      }
      acc[static_cast<std::size_t>(row)][static_cast<std::size_t>(c)] += v[static_cast<std::size_t>(row)][static_cast<std::size_t>(c)] + static_cast<double>(sign) * g_v;
    }
}

Spinor colour_multiply(const ColourMatrix<double>& u, const SpinorField<double>& psi, index_t i) {
  Spinor r;
  for (int sp = 0; sp < 4; ++sp)
    r[static_cast<std::size_t>(sp)] = u * ColourVector<double>{psi(i, sp, 0), psi(i, sp, 1), psi(i, sp, 2)};
  return r;
}

}  // namespace

void dslash_reference(const GaugeField<double>& u, const SpinorField<double>& in, SpinorField<double>& out,
                      bool dagger) {
  check_dslash_operands(u.geometry(), in.subset(), in.geometry(), out.subset(), out.geometry());
  const Geometry& g = u.geometry();
  const int forward_sign = dagger ? +1 : -1;  // D: (1 - g_mu) forward; D^dagger: (1 + g_mu)
  parallel_for("dslash_reference", RangePolicy<>(out.sites()), [&](index_t i) {
    const site_t x = out.lattice_site(i);
    Spinor acc{};
    for (int mu = 0; mu < 4; ++mu) {
      const site_t xf = g.neighbour(x, mu, +1), xb = g.neighbour(x, mu, -1);
      add_projected(acc, mu, forward_sign, colour_multiply(u.link(x, mu), in, storage_index(in.subset(), xf)));
      add_projected(acc, mu, -forward_sign, colour_multiply(adjoint(u.link(xb, mu)), in, storage_index(in.subset(), xb)));
    }
    for (int sp = 0; sp < 4; ++sp)
      for (int c = 0; c < 3; ++c) out(i, sp, c) = acc[static_cast<std::size_t>(sp)][static_cast<std::size_t>(c)];
  });
}

void wilson_matrix_reference(const GaugeField<double>& u, const SpinorField<double>& in, SpinorField<double>& out,
                             double mass) {
  if (in.subset() != Subset::Full || out.subset() != Subset::Full)
    throw std::invalid_argument("wilson_matrix_reference: needs full-lattice fields");
  dslash_reference(u, in, out, false);
  const auto* pin = in.data();
  auto* pout = out.data();
  const double diag = 4.0 + mass;
  parallel_for("wilson_diag", RangePolicy<>(in.sites() * 12), [=](index_t k) { pout[k] = diag * pin[k] - 0.5 * pout[k]; });
}

}  // namespace dslash
