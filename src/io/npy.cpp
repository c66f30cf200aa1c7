#include "io/npy.hpp"

#include <charconv>
#include <complex>
#include <cstring>
#include <limits>

#include "dslash/core.hpp"
#include "dslash/lattice/field_ops.hpp"
#include "io/atomic_file.hpp"
#include "io/byte_order.hpp"
#include "io/representable.hpp"

namespace dslash::io {

namespace {

constexpr std::string_view kMagic = "\x93NUMPY";

// The value text that follows 'key': in a Python dict literal.
std::string_view dict_value(std::string_view dict, std::string_view key, const std::string& name) {
  std::string quoted(1, '\'');
  quoted.append(key).push_back('\'');
  std::size_t k = dict.find(quoted);
  if (k == std::string_view::npos) throw NpyError(name + ": .npy header lacks '" + std::string(key) + "'");
  k = dict.find(':', k + quoted.size());
  if (k == std::string_view::npos) throw NpyError(name + ": malformed .npy header");
  std::string_view rest = dict.substr(k + 1);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  return rest;
}

// "element [n, t, z, y, x, spin, colour] (n, t, z, y, x, spin, colour), real part, is <what>" (no n
// unless batched): where a value of a spinor file of lattice g is, as NumPy indexes it.
std::string element_text(const Geometry& g, bool batched, std::size_t n, site_t site, std::size_t spin_colour, bool imaginary,
                         const std::string& what) {
  const Coord x = g.coords(site);
  std::string text = "element [";
  if (batched) text += std::to_string(n) + ", ";
  for (int mu = 3; mu >= 0; --mu) text += std::to_string(x[static_cast<std::size_t>(mu)]) + ", ";
  text += std::to_string(spin_colour / 3) + ", " + std::to_string(spin_colour % 3) + "] (" + (batched ? "n, " : "") + "t, z, y, x, spin, colour), ";
  return text + (imaginary ? "imaginary" : "real") + " part, is " + what;
}

}  // namespace

template <class Real>
std::optional<std::string> first_unrepresentable_element(const std::vector<SpinorField<double>>& fields, bool batched) {
  for (std::size_t n = 0; n < fields.size(); ++n) {
    const SpinorField<double>& f = fields[n];
    const auto value = [&](std::size_t i) { return i % 2 == 0 ? f.data()[i / 2].real() : f.data()[i / 2].imag(); };  // real i of the storage
    if (const auto bad = first_unrepresentable<Real>(static_cast<std::size_t>(f.sites()) * 24, value))
      return element_text(f.geometry(), batched, n, f.lattice_site(static_cast<site_t>(*bad / 24)), *bad / 2 % 12, *bad % 2 == 1,
                          unrepresentable_text<Real>(value(*bad)));
  }
  return std::nullopt;
}

NpyHeader parse_npy_header(std::string_view bytes, const std::string& name) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != kMagic) throw NpyError(name + ": not a .npy file (bad magic)");
  const auto major = static_cast<unsigned char>(bytes[6]);
  std::size_t header_len = 0, prefix = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8;
    prefix = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw NpyError(name + ": truncated .npy header");
    for (int i = 3; i >= 0; --i) header_len = header_len << 8 | static_cast<unsigned char>(bytes[8 + static_cast<std::size_t>(i)]);
    prefix = 12;
  } else {
    throw NpyError(name + ": unsupported .npy format version " + std::to_string(major));
  }
  if (header_len > bytes.size() - prefix) throw NpyError(name + ": truncated .npy header");
  const std::string_view dict = bytes.substr(prefix, header_len);

  NpyHeader h;
  h.data_offset = prefix + header_len;
  const std::string_view descr = dict_value(dict, "descr", name);
  if (descr.starts_with("'<c16'")) h.dtype = NpyDtype::Complex128;
  else if (descr.starts_with("'<c8'")) h.dtype = NpyDtype::Complex64;
  else {
    const std::size_t end = descr.find_first_of(",}");
    throw NpyError(name + ": dtype " + std::string(descr.substr(0, end == std::string_view::npos ? 16 : end)) +
                   " unsupported; need little-endian complex64 '<c8' or complex128 '<c16'");
  }
  const std::string_view fortran = dict_value(dict, "fortran_order", name);
  if (fortran.starts_with("True")) throw NpyError(name + ": Fortran-order arrays are not supported; save with C order");
  if (!fortran.starts_with("False")) throw NpyError(name + ": malformed fortran_order in .npy header");

  std::string_view shape = dict_value(dict, "shape", name);
  if (shape.empty() || shape.front() != '(') throw NpyError(name + ": malformed shape in .npy header");
  const std::size_t close = shape.find(')');
  if (close == std::string_view::npos) throw NpyError(name + ": malformed shape in .npy header");
  shape = shape.substr(1, close - 1);
  std::size_t elements = 1;
  while (true) {
    while (!shape.empty() && (shape.front() == ' ' || shape.front() == ',')) shape.remove_prefix(1);
    if (shape.empty()) break;
    std::size_t v = 0;
    const auto [ptr, ec] = std::from_chars(shape.data(), shape.data() + shape.size(), v);
    if (ec != std::errc()) throw NpyError(name + ": malformed shape in .npy header");
    shape.remove_prefix(static_cast<std::size_t>(ptr - shape.data()));
    if (v != 0 && elements > std::numeric_limits<std::size_t>::max() / 16 / v) throw NpyError(name + ": .npy shape too large");
    elements *= v;
    h.shape.push_back(v);
    if (h.shape.size() > 32) throw NpyError(name + ": .npy shape has too many dimensions");
  }
  const std::size_t want = elements * h.item_bytes(), have = bytes.size() - h.data_offset;
  if (have < want)
    throw NpyError(name + ": truncated: " + std::to_string(want) + " bytes of data expected, " + std::to_string(have) + " present");
  if (have > want) throw NpyError(name + ": " + std::to_string(have - want) + " unexpected bytes after the data");
  return h;
}

SpinorShape spinor_shape(const NpyHeader& header, const std::string& name) {
  const auto& s = header.shape;
  const bool batched = s.size() == 7;
  if (!(s.size() == 6 || batched) || s[s.size() - 2] != 4 || s[s.size() - 1] != 3) {
    std::string got = "(";
    for (std::size_t i = 0; i < s.size(); ++i) got += (i ? ", " : "") + std::to_string(s[i]);
    throw NpyError(name + ": shape " + got + ") is not a spinor; expected (L3, L2, L1, L0, 4, 3) or (N, L3, L2, L1, L0, 4, 3)");
  }
  const std::size_t o = batched ? 1 : 0;
  SpinorShape r{};
  r.nrhs = batched ? s[0] : 1;
  r.batched = batched;
  for (std::size_t mu = 0; mu < 4; ++mu) {
    const std::size_t L = s[o + 3 - mu];
    if (L > static_cast<std::size_t>(std::numeric_limits<int>::max())) throw NpyError(name + ": lattice extent too large");
    r.dims[mu] = static_cast<int>(L);
  }
  if (r.nrhs == 0) throw NpyError(name + ": holds zero spinors");
  return r;
}

template <class Real>
std::vector<SpinorField<Real>> parse_spinors_npy(std::string_view bytes, const std::string& name,
                                                 const std::optional<Geometry>& geom, bool* batched) {
  const NpyHeader h = parse_npy_header(bytes, name);
  const SpinorShape shape = spinor_shape(h, name);
  if (batched) *batched = shape.batched;
  Geometry g = [&] {
    try {
      return Geometry(shape.dims);
    } catch (const std::invalid_argument& e) {
      throw NpyError(name + ": " + e.what());
    }
  }();
  if (geom && !(*geom == g))
    throw NpyError(name + ": spinor lattice " + g.to_string() + " differs from the gauge lattice " + geom->to_string());
  std::vector<SpinorField<Real>> fields;
  const char* data = bytes.data() + h.data_offset;
  const std::size_t per_field = static_cast<std::size_t>(g.volume()) * 12;
  const auto file_value = [&](std::size_t i) {
    if (h.dtype == NpyDtype::Complex64)
      return static_cast<double>(std::bit_cast<float>(load_word<std::uint32_t>(data + 4 * i, ByteOrder::Little)));
    return std::bit_cast<double>(load_word<std::uint64_t>(data + 8 * i, ByteOrder::Little));
  };
  if (const auto bad = first_unrepresentable<Real>(2 * per_field * shape.nrhs, file_value)) {
    const std::size_t k = *bad / 2;  // the complex number, in file order: spinor, site, spin, colour
    throw NpyError(name + ": " + element_text(g, shape.batched, k / per_field, static_cast<site_t>(k % per_field / 12), k % 12, *bad % 2 == 1,
                                              unrepresentable_text<Real>(file_value(*bad))));
  }
  for (std::size_t n = 0; n < shape.nrhs; ++n) {
    SpinorField<Real>& psi = fields.emplace_back(g, Subset::Full, name);
    std::complex<Real>* out = psi.data();
    const char* src = data + n * per_field * h.item_bytes();
    const bool single = h.dtype == NpyDtype::Complex64;
    parallel_for("npy_unpack", RangePolicy<>(static_cast<index_t>(per_field)), [=](index_t i) {
      const std::size_t k = static_cast<std::size_t>(i);
      if (single)
        out[k] = {static_cast<Real>(std::bit_cast<float>(load_word<std::uint32_t>(src + 8 * k, ByteOrder::Little))),
                  static_cast<Real>(std::bit_cast<float>(load_word<std::uint32_t>(src + 8 * k + 4, ByteOrder::Little)))};
      else
        out[k] = {static_cast<Real>(std::bit_cast<double>(load_word<std::uint64_t>(src + 16 * k, ByteOrder::Little))),
                  static_cast<Real>(std::bit_cast<double>(load_word<std::uint64_t>(src + 16 * k + 8, ByteOrder::Little)))};
    });
  }
  return fields;
}

template <class Real>
std::vector<SpinorField<Real>> read_spinors_npy(const std::string& path, const std::optional<Geometry>& geom, bool* batched) {
  return parse_spinors_npy<Real>(read_file_bytes(path), path, geom, batched);
}

template <class Real>
void write_spinors_npy(const std::string& path, const std::vector<SpinorField<Real>>& fields, NpyDtype dtype,
                       bool batched) {
  if (fields.empty()) throw std::invalid_argument("write_spinors_npy: no fields");
  const Geometry& g = fields.front().geometry();
  const Coord& L = g.extents();
  // Built with append: GCC 12 warns falsely (-Wrestrict, bug 105329) on chained operator+.
  std::string dict = "{'descr': '";
  dict.append(dtype == NpyDtype::Complex64 ? "<c8" : "<c16").append("', 'fortran_order': False, 'shape': (");
  if (batched || fields.size() > 1) dict.append(std::to_string(fields.size())).append(", ");
  for (int mu = 3; mu >= 0; --mu) dict.append(std::to_string(L[static_cast<std::size_t>(mu)])).append(", ");
  dict.append("4, 3), }");
  // Pad with spaces so magic + version + length + dict + '\n' is a multiple of 64 bytes.
  const std::size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';

  AtomicFileWriter out(path);
  out.stream().write(kMagic.data(), 6);
  const char version_and_len[4] = {1, 0, static_cast<char>(dict.size() & 0xff), static_cast<char>(dict.size() >> 8)};
  out.stream().write(version_and_len, 4);
  out.stream().write(dict.data(), static_cast<std::streamsize>(dict.size()));

  const std::size_t item = dtype == NpyDtype::Complex64 ? 8 : 16;
  std::string buf(static_cast<std::size_t>(g.volume()) * 12 * item, '\0');
  for (const SpinorField<Real>& f : fields) {
    if (!(f.geometry() == g)) throw std::invalid_argument("write_spinors_npy: fields on different lattices");
    SpinorField<Real> full(g, Subset::Full, "npy_full");
    copy_sites(f, full);
    const std::complex<Real>* in = full.data();
    char* dst = buf.data();
    parallel_for("npy_pack", RangePolicy<>(g.volume() * 12), [=](index_t i) {
      const std::size_t k = static_cast<std::size_t>(i);
      if (item == 8) {
        store_word(dst + 8 * k, std::bit_cast<std::uint32_t>(static_cast<float>(in[k].real())), ByteOrder::Little);
        store_word(dst + 8 * k + 4, std::bit_cast<std::uint32_t>(static_cast<float>(in[k].imag())), ByteOrder::Little);
      } else {
        store_word(dst + 16 * k, std::bit_cast<std::uint64_t>(static_cast<double>(in[k].real())), ByteOrder::Little);
        store_word(dst + 16 * k + 8, std::bit_cast<std::uint64_t>(static_cast<double>(in[k].imag())), ByteOrder::Little);
      }
    });
    out.stream().write(buf.data(), static_cast<std::streamsize>(buf.size()));
  }
  out.commit();
}

template std::vector<SpinorField<float>> parse_spinors_npy<float>(std::string_view, const std::string&, const std::optional<Geometry>&, bool*);
template std::vector<SpinorField<double>> parse_spinors_npy<double>(std::string_view, const std::string&, const std::optional<Geometry>&, bool*);
template std::vector<SpinorField<float>> read_spinors_npy<float>(const std::string&, const std::optional<Geometry>&, bool*);
template std::vector<SpinorField<double>> read_spinors_npy<double>(const std::string&, const std::optional<Geometry>&, bool*);
template std::optional<std::string> first_unrepresentable_element<float>(const std::vector<SpinorField<double>>&, bool);
template std::optional<std::string> first_unrepresentable_element<double>(const std::vector<SpinorField<double>>&, bool);
template void write_spinors_npy<float>(const std::string&, const std::vector<SpinorField<float>>&, NpyDtype, bool);
template void write_spinors_npy<double>(const std::string&, const std::vector<SpinorField<double>>&, NpyDtype, bool);

}  // namespace dslash::io
