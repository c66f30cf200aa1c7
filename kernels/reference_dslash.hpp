#pragma once
// The scalar reference Wilson Dslash, double precision, written to read like docs/CONVENTIONS.md:
//
//   (D psi)(x) = sum_mu [ (1 - g_mu) U_mu(x) psi(x+mu) + (1 + g_mu) U_mu(x-mu)^dagger psi(x-mu) ]
//   D^dagger:    the same with (1 - g_mu) and (1 + g_mu) exchanged.
//
// It multiplies by the full 4x4 gamma matrices (no spin projection), so it checks the fast kernels
// independently of the projection trick they use.
#include "dslash/lattice/gauge_field.hpp"
#include "dslash/lattice/spinor_field.hpp"

namespace dslash {

// out = D in (dagger = false) or D^dagger in.
//   in and out both Full           -> the full-lattice operator
//   out of parity p, in of 1 - p   -> the checkerboarded D_{p <- 1-p}
// Any other pairing throws std::invalid_argument.
void dslash_reference(const GaugeField<double>& u, const SpinorField<double>& in, SpinorField<double>& out,
                      bool dagger);

// The Wilson matrix M = (4 + m) - D/2 on the full lattice.
void wilson_matrix_reference(const GaugeField<double>& u, const SpinorField<double>& in,
                             SpinorField<double>& out, double mass);

// Throws std::invalid_argument unless (in, out) is one of the pairings above on u's lattice.
void check_dslash_operands(const Geometry& gauge_geometry, Subset in, const Geometry& in_geometry, Subset out,
                           const Geometry& out_geometry);

}  // namespace dslash
