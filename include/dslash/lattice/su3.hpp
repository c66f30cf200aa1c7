#pragma once
// 3x3 complex colour matrices and 3-vectors: the small algebra the fields, observables and the
// reference operator share. Written for clarity; the fast kernels have their own arithmetic.
#include <array>
#include <complex>

namespace dslash {

template <class Real>
using ColourVector = std::array<std::complex<Real>, 3>;

template <class Real>
struct ColourMatrix {
  std::array<std::array<std::complex<Real>, 3>, 3> m{};
  std::complex<Real>& operator()(int a, int b) { return m[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)]; }
  const std::complex<Real>& operator()(int a, int b) const { return m[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)]; }

  static ColourMatrix identity() {
    ColourMatrix u;
    for (int a = 0; a < 3; ++a) u(a, a) = 1;
    return u;
  }
};

template <class Real>
ColourMatrix<Real> operator*(const ColourMatrix<Real>& a, const ColourMatrix<Real>& b) {
  ColourMatrix<Real> c;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) c(i, j) += a(i, k) * b(k, j);
  return c;
}

template <class Real>
ColourMatrix<Real> adjoint(const ColourMatrix<Real>& a) {
  ColourMatrix<Real> c;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) c(i, j) = std::conj(a(j, i));
  return c;
}

template <class Real>
ColourVector<Real> operator*(const ColourMatrix<Real>& u, const ColourVector<Real>& v) {
  ColourVector<Real> w{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) w[static_cast<std::size_t>(i)] += u(i, j) * v[static_cast<std::size_t>(j)];
  return w;
}

template <class Real>
std::complex<Real> trace(const ColourMatrix<Real>& a) {
  return a(0, 0) + a(1, 1) + a(2, 2);
}

// Third row of an SU(3) matrix from its first two: row2 = conj(row0 x row1).
template <class Real>
void reconstruct_third_row(ColourMatrix<Real>& u) {
  u(2, 0) = std::conj(u(0, 1) * u(1, 2) - u(0, 2) * u(1, 1));
  u(2, 1) = std::conj(u(0, 2) * u(1, 0) - u(0, 0) * u(1, 2));
  u(2, 2) = std::conj(u(0, 0) * u(1, 1) - u(0, 1) * u(1, 0));
}

// Project onto SU(3): Gram-Schmidt on the first two rows, then the third from their cross product.
template <class Real>
void reunitarize(ColourMatrix<Real>& u) {
  auto row_norm = [&](int r) {
    Real n = 0;
    for (int c = 0; c < 3; ++c) n += std::norm(u(r, c));
    return std::sqrt(n);
  };
  Real n0 = row_norm(0);
  for (int c = 0; c < 3; ++c) u(0, c) /= n0;
  std::complex<Real> dot = 0;
  for (int c = 0; c < 3; ++c) dot += std::conj(u(0, c)) * u(1, c);
  for (int c = 0; c < 3; ++c) u(1, c) -= dot * u(0, c);
  Real n1 = row_norm(1);
  for (int c = 0; c < 3; ++c) u(1, c) /= n1;
  reconstruct_third_row(u);
}

}  // namespace dslash
