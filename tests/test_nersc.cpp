#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>

#include "io/atomic_file.hpp"
#include "io/nersc.hpp"
#include "test_support.hpp"

namespace dslash {
namespace {

using test::kSmallLattice;

GaugeField<double> random_gauge() {
  GaugeField<double> u(kSmallLattice);
  fill_random_su3(u, 31);
  return u;
}

double max_link_difference(const GaugeField<double>& a, const GaugeField<double>& b) {
  double d = 0;
  for (index_t k = 0; k < kSmallLattice.volume() * 36; ++k) d = std::max(d, std::abs(a.data()[k] - b.data()[k]));
  return d;
}

void write_text(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Replace the first "KEY = ..." line of the header.
std::string with_header_line(std::string bytes, const std::string& key, const std::string& line) {
  const std::size_t at = bytes.find("\n" + key + " =");
  const std::size_t eol = bytes.find('\n', at + 1);
  return bytes.replace(at + 1, eol - at - 1, line);
}

struct Format {
  bool two_row, single, little;
};
// "TwoRowSingleLittle": the test name's suffix; "two-row single little-endian": what a failing line prints.
std::string describe(const Format& f, bool words) {
  if (words) return std::string(f.two_row ? "two-row" : "three-row") + (f.single ? " single" : " double") + (f.little ? " little-endian" : " big-endian");
  return std::string(f.two_row ? "TwoRow" : "ThreeRow") + (f.single ? "Single" : "Double") + (f.little ? "Little" : "Big");
}
void PrintTo(const Format& f, std::ostream* os) { *os << describe(f, true); }

class NerscRoundTrip : public ::testing::TestWithParam<Format> {};

TEST_P(NerscRoundTrip, ReadsBackWhatItWrote) {
  const Format f = GetParam();
  test::TempDir dir;
  const auto u = random_gauge();
  const std::string path = dir.file("u.nersc");
  io::write_nersc(path, u, {.two_row = f.two_row, .single = f.single, .little_endian = f.little});
  io::NerscInfo info;
  const auto back = io::read_nersc<double>(path, kSmallLattice.extents(), &info);
  EXPECT_EQ(info.two_row, f.two_row);
  EXPECT_EQ(info.bytes_per_real, f.single ? 4 : 8);
  EXPECT_EQ(info.big_endian, !f.little);
  const double tolerance = f.single ? 1e-6 : (f.two_row ? 1e-14 : 0.0);
  EXPECT_LE(max_link_difference(back, u), tolerance);
  EXPECT_NEAR(info.plaquette_data, plaquette(u), 1e-6);

  // The ambiguous labels IEEE32 / IEEE64 are read in whichever byte order the checksum confirms.
  const std::string ambiguous = with_header_line(io::read_file_bytes(path), "FLOATING_POINT",
                                                 std::string("FLOATING_POINT = ") + (f.single ? "IEEE32" : "IEEE64"));
  write_text(dir.file("ambiguous.nersc"), ambiguous);
  const auto again = io::read_nersc<double>(dir.file("ambiguous.nersc"), {}, &info);
  EXPECT_EQ(info.big_endian, !f.little);
  EXPECT_LE(max_link_difference(again, u), tolerance);
}

// A failing line names its format in words, not as the struct's bytes.
TEST(NerscFormats, PrintInWords) { EXPECT_EQ(::testing::PrintToString(Format{true, false, true}), "two-row double little-endian"); }

INSTANTIATE_TEST_SUITE_P(AllFormats, NerscRoundTrip,
                         ::testing::Values(Format{false, false, false}, Format{false, false, true}, Format{false, true, false},
                                           Format{false, true, true}, Format{true, false, false}, Format{true, false, true},
                                           Format{true, true, false}, Format{true, true, true}),
                         [](const auto& param_info) { return describe(param_info.param, false); });

TEST(Nersc, WritesTheKeysEveryReaderNeeds) {
  test::TempDir dir;
  io::write_nersc(dir.file("u"), random_gauge());
  const std::string text = io::read_file_bytes(dir.file("u"));
  for (const char* key : {"\nDATATYPE = 4D_SU3_GAUGE_3x3\n", "\nFLOATING_POINT = IEEE64BIG\n", "\nSEQUENCE_NUMBER = ",
                          "\nCHECKSUM = ", "\nPLAQUETTE = ", "\nLINK_TRACE = ", "\nDIMENSION_4 = 10\n"})
    EXPECT_NE(text.find(key), std::string::npos) << key;
  EXPECT_TRUE(text.starts_with("BEGIN_HEADER\n"));
}

class NerscBadFile : public ::testing::Test {
 protected:
  NerscBadFile() {
    io::write_nersc(dir.file("good"), random_gauge());
    good = io::read_file_bytes(dir.file("good"));
  }
  // Expect reading `bytes` to fail with a message containing `what`.
  void expect_rejected(const std::string& bytes, const std::string& what, std::optional<Coord> dims = {}) {
    write_text(dir.file("bad"), bytes);
    try {
      (void)io::read_nersc<double>(dir.file("bad"), dims);
      ADD_FAILURE() << "accepted a file that should fail with: " << what;
    } catch (const io::NerscError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  }
  test::TempDir dir;
  std::string good;
};

TEST_F(NerscBadFile, Truncated) { expect_rejected(good.substr(0, good.size() - 100), "truncated"); }
TEST_F(NerscBadFile, TrailingBytes) { expect_rejected(good + "xx", "unexpected bytes"); }
TEST_F(NerscBadFile, CorruptChecksum) {
  std::string bad = good;
  bad[bad.size() - 1000] ^= 0x01;
  expect_rejected(bad, "checksum mismatch");
}
TEST_F(NerscBadFile, WrongPlaquette) { expect_rejected(with_header_line(good, "PLAQUETTE", "PLAQUETTE = 0.5"), "plaquette mismatch"); }
TEST_F(NerscBadFile, WrongLinkTrace) { expect_rejected(with_header_line(good, "LINK_TRACE", "LINK_TRACE = 0.5"), "link trace mismatch"); }
TEST_F(NerscBadFile, MissingKey) { expect_rejected(with_header_line(good, "CHECKSUM", "COMMENT = none"), "lacks the required key CHECKSUM"); }
TEST_F(NerscBadFile, WrongDimensions) { expect_rejected(good, "differs from the requested", Coord{4, 6, 8, 12}); }
TEST_F(NerscBadFile, UnknownDatatype) { expect_rejected(with_header_line(good, "DATATYPE", "DATATYPE = 4D_SU2_GAUGE"), "unknown DATATYPE"); }
TEST_F(NerscBadFile, UnknownFloatingPoint) { expect_rejected(with_header_line(good, "FLOATING_POINT", "FLOATING_POINT = VAX"), "unknown FLOATING_POINT"); }
TEST_F(NerscBadFile, OddDimension) { expect_rejected(with_header_line(good, "DIMENSION_2", "DIMENSION_2 = 7"), "must be even"); }
TEST_F(NerscBadFile, GarbageNumber) { expect_rejected(with_header_line(good, "DIMENSION_2", "DIMENSION_2 = six"), "not a valid number"); }
TEST_F(NerscBadFile, NotANerscFile) { expect_rejected("hello\nworld\n", "not a NERSC file"); }
TEST_F(NerscBadFile, NoEndOfHeader) { expect_rejected("BEGIN_HEADER\nDATATYPE = 4D_SU3_GAUGE\n", "no END_HEADER"); }
TEST_F(NerscBadFile, MissingFileIsAClearError) {
  EXPECT_THROW((void)io::read_nersc<double>(dir.file("does_not_exist")), std::runtime_error);
}

// ---------------------------------------------------------------- values that are NaN, Inf, or past a precision

// Site (x, y, z, t) = (1, 2, 3, 4).
const site_t kBadSite = kSmallLattice.site({1, 2, 3, 4});

// Reading `path` as Real fails with a message that contains `part`.
template <class Real>
void expect_refused(const std::string& path, const std::string& part) {
  try {
    (void)io::read_nersc<Real>(path);
    ADD_FAILURE() << path << " was read";
  } catch (const io::NerscError& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what() << "\n lacks: " << part;
  }
}

// A NaN or an Inf link entry is refused, named by its site, direction and entry, before the
// plaquette check could blame a mismatch: whatever the header says, the links are not a gauge field.
TEST(NerscValues, ANanOrAnInfIsRefusedWithItsLink) {
  test::TempDir dir;
  for (const bool single : {false, true}) {
    GaugeField<double> u = random_gauge();
    u(kBadSite, 2, 1, 0) = {std::nan(""), 0};
    io::write_nersc(dir.file("nan"), u, {.single = single});
    expect_refused<double>(dir.file("nan"), "nan: link of site (x, y, z, t) = (1, 2, 3, 4), mu 2, entry (1, 0), real part, is nan, not a finite number");
    u = random_gauge();
    u(kBadSite, 3, 0, 2) = {0, std::numeric_limits<double>::infinity()};
    io::write_nersc(dir.file("inf"), u, {.two_row = true, .single = single});
    expect_refused<float>(dir.file("inf"), "link of site (x, y, z, t) = (1, 2, 3, 4), mu 3, entry (0, 2), imaginary part, is inf");
  }
}

// A double file's entry of 1e39 read in single is refused where it is (in double the plaquette, far
// from a gauge field's, fails the header's to within its tolerance).
TEST(NerscValues, AValuePastSinglePrecisionIsRefusedInSingle) {
  test::TempDir dir;
  GaugeField<double> u = random_gauge();
  u(kBadSite, 0, 2, 2) = {1e39, 0};
  io::write_nersc(dir.file("big"), u);
  expect_refused<float>(dir.file("big"),
                        "big: link of site (x, y, z, t) = (1, 2, 3, 4), mu 0, entry (2, 2), real part, is 1e+39, past single precision's range");
  expect_refused<double>(dir.file("big"), "plaquette mismatch");
  EXPECT_EQ(io::first_unrepresentable_link<double>(u), std::nullopt);
  EXPECT_NE(io::first_unrepresentable_link<float>(u), std::nullopt);
}

}  // namespace
}  // namespace dslash
