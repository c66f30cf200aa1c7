#include "io/nersc.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

#include "dslash/core.hpp"
#include "dslash/lattice/field_ops.hpp"
#include "io/atomic_file.hpp"
#include "io/byte_order.hpp"
#include "io/representable.hpp"

namespace dslash::io {

bool NerscInfo::plaquette_ok() const { return std::abs(plaquette_header - plaquette_data) <= 1e-5; }
bool NerscInfo::link_trace_ok() const { return std::abs(link_trace_header - link_trace_data) <= 1e-6; }

namespace {

constexpr std::size_t kMaxHeaderBytes = 1 << 16;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Splits the text header into KEY = VALUE pairs; returns the offset where the binary data starts.
std::size_t parse_header(std::string_view bytes, std::vector<std::pair<std::string, std::string>>& header,
                         const std::string& name) {
  std::size_t pos = 0;
  bool first = true;
  while (true) {
    const std::size_t eol = bytes.find('\n', pos);
    if (eol == std::string_view::npos || eol > kMaxHeaderBytes)
      throw NerscError(name + ": not a NERSC file (no END_HEADER line in the first 64 KiB)");
    const std::string_view line = trim(bytes.substr(pos, eol - pos));
    pos = eol + 1;
    if (first) {
      if (line != "BEGIN_HEADER") throw NerscError(name + ": not a NERSC file (first line is not BEGIN_HEADER)");
      first = false;
      continue;
    }
    if (line == "END_HEADER") return pos;
    if (line.empty()) continue;
    const std::size_t eq = line.find('=');
    if (eq == std::string_view::npos) throw NerscError(name + ": malformed header line '" + std::string(line) + "'");
    header.emplace_back(std::string(trim(line.substr(0, eq))), std::string(trim(line.substr(eq + 1))));
  }
}

const std::string& require(const std::map<std::string, std::string>& keys, const std::string& key, const std::string& name) {
  const auto it = keys.find(key);
  if (it == keys.end()) throw NerscError(name + ": header lacks the required key " + key);
  return it->second;
}

template <class T>
T parse_number(const std::string& text, const std::string& key, const std::string& name, int base = 10) {
  T value{};
  const char* b = text.data();
  const char* e = b + text.size();
  if (base == 16 && text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) b += 2;
  std::from_chars_result r;
  if constexpr (std::is_floating_point_v<T>) r = std::from_chars(b, e, value);
  else r = std::from_chars(b, e, value, base);
  if (r.ec != std::errc() || r.ptr != e) throw NerscError(name + ": " + key + " = '" + text + "' is not a valid number");
  return value;
}

// The 32-bit wrap-around sum of the stored reals taken as 32-bit words in host order.
std::uint32_t checksum(std::string_view data, int bytes_per_real, ByteOrder order) {
  std::uint32_t sum = 0;
  if (bytes_per_real == 4) {
    for (std::size_t i = 0; i + 4 <= data.size(); i += 4) sum += load_word<std::uint32_t>(data.data() + i, order);
  } else {
    for (std::size_t i = 0; i + 8 <= data.size(); i += 8) {
      const std::uint64_t w = load_word<std::uint64_t>(data.data() + i, order);
      sum += static_cast<std::uint32_t>(w) + static_cast<std::uint32_t>(w >> 32);
    }
  }
  return sum;
}

double load_real(const char* p, int bytes_per_real, ByteOrder order) {
  if (bytes_per_real == 4) return static_cast<double>(std::bit_cast<float>(load_word<std::uint32_t>(p, order)));
  return std::bit_cast<double>(load_word<std::uint64_t>(p, order));
}

// Links from the binary data: sites lexicographic, then mu, then rows (2 or 3), re/im interleaved.
GaugeField<double> decode_links(std::string_view data, const Geometry& geom, bool two_row, int bpr, ByteOrder order,
                                const std::string& label) {
  GaugeField<double> u(geom, label);
  const std::size_t site_bytes = 4u * static_cast<std::size_t>((two_row ? 12 : 18) * bpr);
  parallel_for("nersc_unpack", RangePolicy<>(geom.volume()), [&](index_t s) {
    const char* p = data.data() + static_cast<std::size_t>(s) * site_bytes;
    for (int mu = 0; mu < 4; ++mu) {
      ColourMatrix<double> m;
      for (int a = 0; a < (two_row ? 2 : 3); ++a)
        for (int b = 0; b < 3; ++b, p += 2 * bpr) m(a, b) = {load_real(p, bpr, order), load_real(p + bpr, bpr, order)};
      if (two_row) reconstruct_third_row(m);
      u.set_link(s, mu, m);
    }
  });
  return u;
}

}  // namespace

GaugeField<double> parse_nersc(std::string_view bytes, NerscInfo& info, const std::string& name,
                               const std::optional<Coord>& expected) {
  info = NerscInfo{};
  const std::size_t data_offset = parse_header(bytes, info.header, name);
  const std::map<std::string, std::string> keys(info.header.begin(), info.header.end());

  const std::string datatype = require(keys, "DATATYPE", name);
  if (datatype == "4D_SU3_GAUGE_3x3") info.two_row = false;
  else if (datatype == "4D_SU3_GAUGE") info.two_row = true;
  else throw NerscError(name + ": unknown DATATYPE '" + datatype + "' (expected 4D_SU3_GAUGE_3x3 or 4D_SU3_GAUGE)");

  info.floating_point = require(keys, "FLOATING_POINT", name);
  std::vector<ByteOrder> candidate_orders;
  const std::string& fp = info.floating_point;
  if (fp == "IEEE32BIG" || fp == "IEEE64BIG") candidate_orders = {ByteOrder::Big};
  else if (fp == "IEEE32LITTLE" || fp == "IEEE64LITTLE") candidate_orders = {ByteOrder::Little};
  else if (fp == "IEEE32" || fp == "IEEE64") candidate_orders = {ByteOrder::Little, ByteOrder::Big};  // ambiguous: let the checksum decide
  else throw NerscError(name + ": unknown FLOATING_POINT '" + fp + "'");
  info.bytes_per_real = fp.starts_with("IEEE32") ? 4 : 8;

  for (std::size_t mu = 0; mu < 4; ++mu) {
    const std::string key = "DIMENSION_" + std::to_string(mu + 1);
    info.dims[mu] = parse_number<int>(require(keys, key, name), key, name);
  }
  if (expected && *expected != info.dims)
    throw NerscError(name + ": lattice " + std::to_string(info.dims[0]) + "x" + std::to_string(info.dims[1]) + "x" +
                     std::to_string(info.dims[2]) + "x" + std::to_string(info.dims[3]) + " differs from the requested " +
                     Geometry(*expected).to_string());
  info.checksum_header = parse_number<std::uint32_t>(require(keys, "CHECKSUM", name), "CHECKSUM", name, 16);
  info.plaquette_header = parse_number<double>(require(keys, "PLAQUETTE", name), "PLAQUETTE", name);
  info.link_trace_header = parse_number<double>(require(keys, "LINK_TRACE", name), "LINK_TRACE", name);

  Geometry geom = [&] {
    try {
      return Geometry(info.dims);
    } catch (const std::invalid_argument& e) {
      throw NerscError(name + ": " + e.what());
    }
  }();
  const int reals_per_link = info.two_row ? 12 : 18;
  const std::uint64_t data_bytes = static_cast<std::uint64_t>(geom.volume()) * 4u * static_cast<std::uint64_t>(reals_per_link) *
                                   static_cast<std::uint64_t>(info.bytes_per_real);
  const std::uint64_t have = bytes.size() - data_offset;
  if (have < data_bytes)
    throw NerscError(name + ": truncated: " + std::to_string(data_bytes) + " bytes of link data expected, " +
                     std::to_string(have) + " present");
  if (have > data_bytes)
    throw NerscError(name + ": " + std::to_string(have - data_bytes) + " unexpected bytes after the link data");
  const std::string_view data = bytes.substr(data_offset);

  ByteOrder order = candidate_orders.front();
  for (ByteOrder o : candidate_orders) {
    if (checksum(data, info.bytes_per_real, o) == info.checksum_header) {
      order = o;
      break;
    }
  }
  info.big_endian = order == ByteOrder::Big;
  info.checksum_data = checksum(data, info.bytes_per_real, order);

  GaugeField<double> u = decode_links(data, geom, info.two_row, info.bytes_per_real, order, name);
  if (const auto bad = first_unrepresentable_link<double>(u)) throw NerscError(name + ": " + *bad);
  info.plaquette_data = plaquette(u);
  info.link_trace_data = link_trace(u);
  return u;
}

template <class Real>
GaugeField<Real> read_nersc(const std::string& path, const std::optional<Coord>& expected, NerscInfo* info_out) {
  const std::string bytes = read_file_bytes(path);
  NerscInfo info;
  GaugeField<double> u = parse_nersc(bytes, info, path, expected);
  // Before the checks of the header's sums, which such a link fails too without saying where.
  if constexpr (!std::is_same_v<Real, double>)
    if (const auto bad = first_unrepresentable_link<Real>(u)) throw NerscError(path + ": " + *bad);
  char buf[256];
  if (!info.checksum_ok()) {
    std::snprintf(buf, sizeof buf, ": checksum mismatch: header %08x, data %08x", info.checksum_header, info.checksum_data);
    throw NerscError(path + buf);
  }
  if (!info.plaquette_ok()) {
    std::snprintf(buf, sizeof buf, ": plaquette mismatch: header %.10g, data %.10g", info.plaquette_header, info.plaquette_data);
    throw NerscError(path + buf);
  }
  if (!info.link_trace_ok()) {
    std::snprintf(buf, sizeof buf, ": link trace mismatch: header %.10g, data %.10g", info.link_trace_header, info.link_trace_data);
    throw NerscError(path + buf);
  }
  if (info_out) *info_out = info;
  if constexpr (std::is_same_v<Real, double>) return u;
  else return convert_precision<Real>(u);
}

template <class Real>
std::optional<std::string> first_unrepresentable_link(const GaugeField<double>& u) {
  const std::size_t entries = static_cast<std::size_t>(u.geometry().volume()) * 36;  // file order: site, mu, row, column
  const std::complex<double>* links = u.data();
  const auto value = [&](std::size_t i) { return i % 2 == 0 ? links[i / 2].real() : links[i / 2].imag(); };
  const std::optional<std::size_t> bad = first_unrepresentable<Real>(2 * entries, value);
  if (!bad) return std::nullopt;
  const std::size_t k = *bad / 2;
  const Coord x = u.geometry().coords(static_cast<site_t>(k / 36));
  char where[160];
  std::snprintf(where, sizeof where, "link of site (x, y, z, t) = (%d, %d, %d, %d), mu %zu, entry (%zu, %zu), %s part, is ", x[0], x[1], x[2], x[3],
                k % 36 / 9, k % 9 / 3, k % 3, *bad % 2 == 0 ? "real" : "imaginary");
  return where + unrepresentable_text<Real>(value(*bad));
}

template <class Real>
void write_nersc(const std::string& path, const GaugeField<Real>& u, const NerscWriteOptions& opt) {
  const Geometry& geom = u.geometry();
  const int rows = opt.two_row ? 2 : 3;
  const int bpr = opt.single ? 4 : 8;
  const ByteOrder order = opt.little_endian ? ByteOrder::Little : ByteOrder::Big;
  const std::size_t site_bytes = 4u * static_cast<std::size_t>(rows * 3 * 2 * bpr);
  std::string data(static_cast<std::size_t>(geom.volume()) * site_bytes, '\0');
  parallel_for("nersc_pack", RangePolicy<>(geom.volume()), [&](index_t s) {
    char* p = data.data() + static_cast<std::size_t>(s) * site_bytes;
    for (int mu = 0; mu < 4; ++mu)
      for (int a = 0; a < rows; ++a)
        for (int b = 0; b < 3; ++b)
          for (const Real x : {u(s, mu, a, b).real(), u(s, mu, a, b).imag()}) {
            if (bpr == 4) store_word(p, std::bit_cast<std::uint32_t>(static_cast<float>(x)), order);
            else store_word(p, std::bit_cast<std::uint64_t>(static_cast<double>(x)), order);
            p += bpr;
          }
  });
  // The checks describe the links as a reader will see them: rounded, third row rebuilt.
  const GaugeField<double> stored = decode_links(data, geom, opt.two_row, bpr, order, "nersc_stored");
  const std::uint32_t sum = checksum(data, bpr, order);
  const double plaq = plaquette(stored), trace = link_trace(stored);

  char line[128];
  std::string header = "BEGIN_HEADER\nHDR_VERSION = 1.0\n";
  header += "DATATYPE = " + std::string(opt.two_row ? "4D_SU3_GAUGE" : "4D_SU3_GAUGE_3x3") + "\n";
  header += "STORAGE_FORMAT = 1.0\n";
  for (int mu = 0; mu < 4; ++mu) header += "DIMENSION_" + std::to_string(mu + 1) + " = " + std::to_string(geom.extent(mu)) + "\n";
  std::snprintf(line, sizeof line, "LINK_TRACE = %.15g\nPLAQUETTE = %.15g\n", trace, plaq);
  header += line;
  for (int mu = 0; mu < 4; ++mu) header += "BOUNDARY_" + std::to_string(mu + 1) + " = PERIODIC\n";
  std::snprintf(line, sizeof line, "CHECKSUM = %08x\n", sum);
  header += line;
  header += "ENSEMBLE_ID = " + opt.ensemble_label + "\nENSEMBLE_LABEL = " + opt.ensemble_label + "\n";
  header += "SEQUENCE_NUMBER = " + std::to_string(opt.sequence_number) + "\n";
  header += "CREATOR = dslash\n";
  header += std::string("FLOATING_POINT = ") + (opt.single ? "IEEE32" : "IEEE64") + (opt.little_endian ? "LITTLE" : "BIG") + "\n";
  header += "END_HEADER\n";

  AtomicFileWriter out(path);
  out.stream().write(header.data(), static_cast<std::streamsize>(header.size()));
  out.stream().write(data.data(), static_cast<std::streamsize>(data.size()));
  out.commit();
}

template GaugeField<float> read_nersc<float>(const std::string&, const std::optional<Coord>&, NerscInfo*);
template GaugeField<double> read_nersc<double>(const std::string&, const std::optional<Coord>&, NerscInfo*);
template std::optional<std::string> first_unrepresentable_link<float>(const GaugeField<double>&);
template std::optional<std::string> first_unrepresentable_link<double>(const GaugeField<double>&);
template void write_nersc<float>(const std::string&, const GaugeField<float>&, const NerscWriteOptions&);
template void write_nersc<double>(const std::string&, const GaugeField<double>&, const NerscWriteOptions&);

}  // namespace dslash::io
