// Gauge compression on the host: the stored reals of a link, the link the kernels rebuild from them
// (their own code, kernels/link_compression.hpp, on one scalar lane), and the check that a field
// can be compressed without changing the answer.
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "dslash/core.hpp"
#include "kernels/dslash_kernel.hpp"
#include "simd/fallback.hpp"
// keep this order: the kernels' arithmetic comes from the ISA header
#include "kernels/link_compression.hpp"

namespace dslash {

namespace {

template <int Reals, class Real>
ColourMatrix<Real> rebuild(const Real* stored) {
  using V = simd::FallbackBatch<Real, 1>;
  simd::Complex<V> u[3][3];
  kernels::unpack_link<Reals>([&](int k) { return V(stored[k]); }, u);
  ColourMatrix<Real> m;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) m(r, c) = {u[r][c].re.v[0], u[r][c].im.v[0]};
  return m;
}

// max |a(r, c) - b(r, c)| in double; NaN if either holds one.
template <class Real>
double max_difference(const ColourMatrix<Real>& a, const ColourMatrix<double>& b) {
  double worst = 0;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) {
      const double d = std::abs(std::complex<double>(a(r, c)) - b(r, c));
      if (!(d <= worst)) worst = d;  // a NaN stays
    }
  return worst;
}

// Why link u cannot be stored in `reals` reals, as the end of "link (x,y,z,t,mu) = (...) ...", or
// nothing when it can: SU(3) within su3_tolerance (max |U U^dagger - 1| and |det U - 1|, relative to
// the 1 they should equal), and for 8 also rebuilt within rebuild_tolerance.
template <class Real>
std::optional<std::string> compression_problem(const ColourMatrix<Real>& u, int reals, const std::string& option) {
  ColourMatrix<double> ud;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) ud(r, c) = u(r, c);
  const double unitarity = max_difference(ud * adjoint(ud), ColourMatrix<double>::identity());
  std::complex<double> det = 0;
  for (int j = 0; j < 3; ++j) det += ud(0, j) * (ud(1, (j + 1) % 3) * ud(2, (j + 2) % 3) - ud(1, (j + 2) % 3) * ud(2, (j + 1) % 3));
  const double det_error = std::abs(det - 1.0);
  char buf[360];
  if (!(unitarity <= su3_tolerance<Real>() && det_error <= su3_tolerance<Real>())) {
    std::snprintf(buf, sizeof buf,
                  "is not SU(3): |U U^dagger - 1| = %.1e, |det U - 1| = %.1e (%s precision allows %.0e); compression needs SU(3) "
                  "links (reunitarise the field, or use %s 18)",
                  unitarity, det_error, sizeof(Real) == 4 ? "single" : "double", su3_tolerance<Real>(), option.c_str());
    return buf;
  }
  if (reals != 8) return std::nullopt;
  const ColourMatrix<Real> hop_link[2] = {u, adjoint(u)};  // forward hops store U, backward U^dagger
  const ColourMatrix<double> expected[2] = {ud, adjoint(ud)};
  for (int k = 0; k < 2; ++k) {
    Real stored[8];
    compress_link(hop_link[k], 8, stored);
    const double error = max_difference(decompress_link(stored, 8), expected[k]);
    if (!(error <= rebuild_tolerance<Real>())) {
      // At |U00| = 1 the rebuild divides 0 by 0: no error to quote, only the reason.
      if (std::isfinite(error))
        std::snprintf(buf, sizeof buf,
                      "does not survive the 8-real parametrisation: rebuilt with an error of %.1e (it loses rows 2 and 3 as |U00| "
                      "nears 1; use %s 12 or 18)",
                      error, option.c_str());
      else
        std::snprintf(buf, sizeof buf,
                      "does not survive the 8-real parametrisation: its |U00| = 1 (as on unit links), where rows 2 and 3 cannot be "
                      "rebuilt; use %s 12 or 18",
                      option.c_str());
      return buf;
    }
  }
  return std::nullopt;
}

}  // namespace

int checked_compression(int reals, const std::string& option) {
  if (reals != 18 && reals != 12 && reals != 8)
    throw std::invalid_argument(option + " " + std::to_string(reals) + ": choose 18 (none), 12 (two rows) or 8 (QUDA's reconstruct-8)");
  return reals;
}

template <class Real>
void compress_link(const ColourMatrix<Real>& u, int reals, Real* out) {
  if (checked_compression(reals) == 8) {
    const std::complex<Real> stored[3] = {u(0, 1), u(0, 2), u(1, 0)};
    out[0] = std::arg(u(0, 0));
    out[1] = std::arg(u(2, 0));
    for (int k = 0; k < 3; ++k) {
      out[2 + 2 * k] = stored[k].real();
      out[3 + 2 * k] = stored[k].imag();
    }
    return;
  }
  for (int k = 0; k < reals / 2; ++k) {
    out[2 * k] = u(k / 3, k % 3).real();
    out[2 * k + 1] = u(k / 3, k % 3).imag();
  }
}

template <class Real>
ColourMatrix<Real> decompress_link(const Real* stored, int reals) {
  switch (checked_compression(reals)) {
    case 12: return rebuild<12>(stored);
    case 8: return rebuild<8>(stored);
    default: return rebuild<18>(stored);
  }
}

template <class Real>
void check_compressible(const GaugeField<Real>& u, int reals, const std::string& option) {
  if (checked_compression(reals, option) == 18) return;
  const Geometry& geom = u.geometry();
  // Flag the bad sites in parallel; name the first bad link (site order, then mu) in words.
  std::vector<unsigned char> bad(static_cast<std::size_t>(geom.volume()), 0);
  parallel_for("check_compressible", RangePolicy<>(geom.volume()), [&](index_t s) {
    for (int mu = 0; mu < 4; ++mu)
      if (compression_problem(u.link(s, mu), reals, option)) bad[static_cast<std::size_t>(s)] = 1;
  });
  for (site_t s = 0; s < geom.volume(); ++s) {
    if (!bad[static_cast<std::size_t>(s)]) continue;
    for (int mu = 0; mu < 4; ++mu)
      if (const auto why = compression_problem(u.link(s, mu), reals, option)) {
        const Coord x = geom.coords(s);
        throw std::invalid_argument(option + " " + std::to_string(reals) + ": link (x,y,z,t,mu) = (" + std::to_string(x[0]) + "," +
                                    std::to_string(x[1]) + "," + std::to_string(x[2]) + "," + std::to_string(x[3]) + "," +
                                    std::to_string(mu) + ") " + *why);
      }
  }
}

#define DSLASH_INSTANTIATE_COMPRESSION(R)                                     \
  template void compress_link<R>(const ColourMatrix<R>&, int, R*);            \
  template ColourMatrix<R> decompress_link<R>(const R*, int);                 \
  template void check_compressible<R>(const GaugeField<R>&, int, const std::string&);
DSLASH_INSTANTIATE_COMPRESSION(float)
DSLASH_INSTANTIATE_COMPRESSION(double)
#undef DSLASH_INSTANTIATE_COMPRESSION

}  // namespace dslash
