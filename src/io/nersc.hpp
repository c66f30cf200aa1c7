#pragma once
// NERSC archive gauge files (CONVENTIONS.md "Files"), as Grid, MILC and QUDA read and write them.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dslash/lattice/gauge_field.hpp"

namespace dslash::io {

struct NerscError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct NerscWriteOptions {
  bool two_row = false;   // DATATYPE 4D_SU3_GAUGE (12 reals per link) instead of 4D_SU3_GAUGE_3x3
  bool single = false;    // IEEE32BIG instead of IEEE64BIG
  bool little_endian = false;  // the explicit LITTLE labels; BIG is the default every reader accepts
  int sequence_number = 1;
  std::string ensemble_label = "dslash-miniapp";
};

// What a file says and what its data give; filled by parse_nersc whether or not the checks pass.
struct NerscInfo {
  std::vector<std::pair<std::string, std::string>> header;  // in file order
  Coord dims{};
  bool two_row = false;
  int bytes_per_real = 8;
  std::string floating_point;
  bool big_endian = true;  // resolved byte order of the data
  std::uint32_t checksum_header = 0, checksum_data = 0;
  double plaquette_header = 0, plaquette_data = 0;
  double link_trace_header = 0, link_trace_data = 0;
  bool checksum_ok() const { return checksum_header == checksum_data; }
  bool plaquette_ok() const;
  bool link_trace_ok() const;
};

// Parse a whole file held in memory. Structural problems (no header, missing keys, unknown format,
// truncated or oversized data, dimensions that disagree with `expected`, a link entry that is NaN or
// Inf) throw NerscError; the checksum, plaquette and link-trace verdicts are left in `info`.
GaugeField<double> parse_nersc(std::string_view bytes, NerscInfo& info, const std::string& name,
                               const std::optional<Coord>& expected = {});

// Read and verify: also throws NerscError when the checksum, plaquette or link trace disagree, or a
// link entry is past Real's range.
template <class Real>
GaugeField<Real> read_nersc(const std::string& path, const std::optional<Coord>& expected = {},
                            NerscInfo* info = nullptr);

// Where the first link entry of u that is NaN or Inf, or past Real's range, is, and what it is: "link
// of site (x, y, z, t) = (1, 0, 0, 0), mu 2, entry (1, 0), real part, is nan, not a finite number";
// nullopt when every entry is finite in Real.
template <class Real>
std::optional<std::string> first_unrepresentable_link(const GaugeField<double>& u);

template <class Real>
void write_nersc(const std::string& path, const GaugeField<Real>& u, const NerscWriteOptions& options = {});

}  // namespace dslash::io
