#include "dslash/lattice/geometry.hpp"

#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace dslash {

const char* to_string(Parity p) { return p == Parity::Even ? "even" : "odd"; }

const char* to_string(Subset s) {
  switch (s) {
    case Subset::Even: return "even";
    case Subset::Odd: return "odd";
    case Subset::Full: return "full";
  }
  return "?";
}

namespace {
const char* const kAxis = "xyzt";
}

Geometry::Geometry(const Coord& extents) : extents_(extents), volume_(1) {
  for (std::size_t mu = 0; mu < 4; ++mu) {
    const int L = extents[mu];
    if (L <= 0)
      throw std::invalid_argument("lattice extent L" + std::to_string(mu) + " (" + kAxis[mu] + ") = " +
                                  std::to_string(L) + " must be positive");
    if (L % 2 != 0)
      throw std::invalid_argument("lattice extent L" + std::to_string(mu) + " (" + kAxis[mu] + ") = " +
                                  std::to_string(L) + " must be even for the checkerboard; try " +
                                  (L > 1 ? std::to_string(L - 1) + " or " : "") + std::to_string(L + 1));
    // Keep 36 * sizeof(complex<double>) * V representable as well as V itself.
    if (volume_ > (std::numeric_limits<site_t>::max() / 1024) / L)
      throw std::invalid_argument("lattice volume overflows");
    volume_ *= L;
  }
}

std::string Geometry::to_string() const {
  return std::to_string(extents_[0]) + "x" + std::to_string(extents_[1]) + "x" + std::to_string(extents_[2]) +
         "x" + std::to_string(extents_[3]);
}

Coord parse_extents(std::string_view text) {
  if (text.empty()) throw std::invalid_argument("empty lattice size; expected e.g. 16x16x16x32");
  // 'x' separates wherever it appears, so a '.' inside an extent ("4.0x4x4x4") is that extent's error.
  const char sep = text.find('x') != std::string_view::npos ? 'x' : '.';
  std::vector<std::string_view> parts;
  for (std::size_t pos = 0;;) {
    const std::size_t next = text.find(sep, pos);
    parts.push_back(text.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos));
    if (next == std::string_view::npos) break;
    pos = next + 1;
  }
  if (parts.size() != 4)
    throw std::invalid_argument("lattice size '" + std::string(text) + "' has " + std::to_string(parts.size()) +
                                (parts.size() == 1 ? " extent" : " extents") + ", not four, e.g. 16x16x16x32");
  Coord dims{};
  for (std::size_t mu = 0; mu < 4; ++mu) {
    const std::string_view part = parts[mu];
    int value = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (ec != std::errc() || end != part.data() + part.size() || part.empty())
      throw std::invalid_argument("lattice size '" + std::string(text) + "': extent '" + std::string(part) +
                                  "' is not a positive integer (expected four extents, e.g. 16x16x16x32)");
    dims[mu] = value;
  }
  return dims;
}

std::string format_bytes(std::uint64_t bytes) {
  char buf[32];
  const double b = static_cast<double>(bytes);
  if (b >= 1024.0 * 1024 * 1024) std::snprintf(buf, sizeof buf, "%.2f GiB", b / (1024.0 * 1024 * 1024));
  else if (b >= 1024.0 * 1024) std::snprintf(buf, sizeof buf, "%.1f MiB", b / (1024.0 * 1024));
  else std::snprintf(buf, sizeof buf, "%.1f KiB", b / 1024.0);
  return buf;
}

namespace {
// MemAvailable from /proc/meminfo (what can be allocated without swapping); physical memory otherwise.
std::uint64_t available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page)
                               : std::numeric_limits<std::uint64_t>::max();
}
}  // namespace

void check_memory_fits(std::uint64_t bytes, std::string_view what) {
  const std::uint64_t avail = available_memory_bytes();
  if (bytes > avail)
    throw std::runtime_error(std::string(what) + " needs " + format_bytes(bytes) + " but only " +
                             format_bytes(avail) + " of memory is available");
}

}  // namespace dslash
