#pragma once
// NumPy .npy spinor files (CONVENTIONS.md "Files"): little-endian complex64 or complex128, C order,
// shape (L3, L2, L1, L0, 4, 3) for one spinor and (N, L3, L2, L1, L0, 4, 3) for N.
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "dslash/lattice/spinor_field.hpp"

namespace dslash::io {

struct NpyError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class NpyDtype { Complex64, Complex128 };

struct NpyHeader {
  NpyDtype dtype = NpyDtype::Complex128;
  std::vector<std::size_t> shape;
  std::size_t data_offset = 0;
  std::size_t item_bytes() const { return dtype == NpyDtype::Complex64 ? 8 : 16; }
};

// Header of a whole .npy file in memory; throws NpyError for a bad magic, version, dict, dtype,
// Fortran order, or a data size that disagrees with the shape.
NpyHeader parse_npy_header(std::string_view bytes, const std::string& name);

// The lattice that a spinor shape describes, with the number of right-hand sides.
struct SpinorShape {
  Coord dims;
  std::size_t nrhs;
  bool batched;  // the 7-D form
};
SpinorShape spinor_shape(const NpyHeader& header, const std::string& name);

// Full-lattice spinors from a file in memory / on disk. When `geom` is given the shape must match it.
// A value that is NaN or Inf, or past Real's range, is an NpyError naming its element.
// `batched`, when given, is set to whether the file has the 7-D shape (also for N = 1), so a result
// can be written in the input's shape.
template <class Real>
std::vector<SpinorField<Real>> parse_spinors_npy(std::string_view bytes, const std::string& name,
                                                 const std::optional<Geometry>& geom = {}, bool* batched = nullptr);
template <class Real>
std::vector<SpinorField<Real>> read_spinors_npy(const std::string& path, const std::optional<Geometry>& geom = {},
                                                bool* batched = nullptr);

// Where the first value of the spinors is NaN or Inf, or past Real's range, and what it is, named by
// its element of the file they make (7-D when `batched`; a checkerboard on the full lattice): "element
// [0, 0, 0, 1, 2, 1] (t, z, y, x, spin, colour), real part, is nan, not a finite number"; nullopt
// when every value is finite in Real. For fields read in double and used in single, or computed.
template <class Real>
std::optional<std::string> first_unrepresentable_element(const std::vector<SpinorField<double>>& fields, bool batched);

// Writes the fields (one spinor: 6-D shape unless `batched`; several: 7-D). A checkerboarded field
// is written on the full lattice with the other parity zero.
template <class Real>
void write_spinors_npy(const std::string& path, const std::vector<SpinorField<Real>>& fields, NpyDtype dtype,
                       bool batched = false);

}  // namespace dslash::io
