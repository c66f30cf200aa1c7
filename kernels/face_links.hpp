#pragma once
// The links a domain's backward hops need from the domain below: a backward hop into x (x_mu = 0)
// takes U_mu(x - mu)^dagger, and x - mu lies on the upper face of the domain below. Each domain
// hands them over once, when the halo is built (src/mpi/halo_dslash.cpp): the gauge field does not
// change between calls, so no message carries links, and the kernel (DslashKernel) and the face
// completion (DslashFaces) hold the true neighbours' links, as on one lattice.
#include <array>
#include <cstddef>
#include <vector>

#include "dslash/lattice/gauge_field.hpp"

namespace dslash {

// U_mu on a domain's upper face (x_mu = L_mu - 1) per direction, the face's sites listed by
// face_site_index; empty where a direction is not split.
template <class Real>
using FaceLinks = std::array<std::vector<ColourMatrix<Real>>, 4>;

template <class Real>
FaceLinks<Real> upper_face_links(const GaugeField<Real>& u, const std::array<bool, 4>& split);

// A site's place on a face of direction mu: lexicographic in the three other coordinates, x fastest.
std::size_t face_site_index(const Coord& extents, int mu, const Coord& x);

// Throws std::invalid_argument unless below holds a whole face of `extents` for every split direction.
template <class Real>
void check_face_links(const FaceLinks<Real>& below, const Coord& extents, const std::array<bool, 4>& split, const char* who);

}  // namespace dslash
