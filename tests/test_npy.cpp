#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>

#include "io/atomic_file.hpp"
#include "io/npy.hpp"
#include "test_support.hpp"

namespace dslash {
namespace {

using test::kSmallLattice;

std::vector<SpinorField<double>> random_spinors(int n) {
  std::vector<SpinorField<double>> v;
  for (int i = 0; i < n; ++i) fill_gaussian(v.emplace_back(kSmallLattice, Subset::Full), 100 + static_cast<std::uint64_t>(i));
  return v;
}

TEST(Npy, RoundTripsEveryDtypeAndShape) {
  test::TempDir dir;
  for (io::NpyDtype dtype : {io::NpyDtype::Complex128, io::NpyDtype::Complex64})
    for (int n : {1, 3}) {
      const auto psi = random_spinors(n);
      const std::string path = dir.file("psi.npy");
      io::write_spinors_npy(path, psi, dtype, n > 1);
      const std::string bytes = io::read_file_bytes(path);
      EXPECT_EQ(io::parse_npy_header(bytes, path).data_offset % 64, 0u);
      const auto back = io::read_spinors_npy<double>(path, kSmallLattice);
      ASSERT_EQ(back.size(), static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i)
        EXPECT_LE(test::relative_difference(back[static_cast<std::size_t>(i)], psi[static_cast<std::size_t>(i)]),
                  dtype == io::NpyDtype::Complex64 ? 1e-7 : 0.0);
    }
}

TEST(Npy, HeaderMatchesNumpyConventions) {
  test::TempDir dir;
  io::write_spinors_npy(dir.file("a.npy"), random_spinors(1), io::NpyDtype::Complex128);
  const std::string bytes = io::read_file_bytes(dir.file("a.npy"));
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_NE(bytes.find("'shape': (10, 8, 6, 4, 4, 3)"), std::string::npos);  // (L3, L2, L1, L0, 4, 3)
  EXPECT_NE(bytes.find("'descr': '<c16'"), std::string::npos);
  const io::NpyHeader h = io::parse_npy_header(bytes, "a");
  EXPECT_EQ(bytes[h.data_offset - 1], '\n');
  // Site order: element (t, z, y, x, s, c) is at ((((t*L2 + z)*L1 + y)*L0 + x)*4 + s)*3 + c.
  const auto back = io::parse_spinors_npy<double>(bytes, "a");
  EXPECT_EQ(back[0].geometry().extents(), kSmallLattice.extents());
}

TEST(Npy, ReportsWhetherTheFileIsBatchedSoOneSpinorKeepsItsShape) {
  test::TempDir dir;
  for (bool batched : {false, true}) {
    const std::string path = dir.file(batched ? "one_batched.npy" : "one.npy");
    io::write_spinors_npy(path, random_spinors(1), io::NpyDtype::Complex128, batched);
    bool read_batched = !batched;
    const auto back = io::read_spinors_npy<double>(path, kSmallLattice, &read_batched);
    ASSERT_EQ(back.size(), 1u);
    EXPECT_EQ(read_batched, batched) << path;
    // Written back with the flag read, the shape is the input's: (1, L3, L2, L1, L0, 4, 3) stays 7-D.
    io::write_spinors_npy(dir.file("again.npy"), back, io::NpyDtype::Complex128, read_batched);
    EXPECT_EQ(io::parse_npy_header(io::read_file_bytes(dir.file("again.npy")), "again").shape.size(), batched ? 7u : 6u);
  }
}

TEST(Npy, CheckerboardedFieldIsWrittenOnTheFullLatticeWithZeros) {
  test::TempDir dir;
  std::vector<SpinorField<double>> odd;
  fill_gaussian(odd.emplace_back(kSmallLattice, Subset::Odd), 4);
  io::write_spinors_npy(dir.file("odd.npy"), odd, io::NpyDtype::Complex128);
  const auto back = io::read_spinors_npy<double>(dir.file("odd.npy"));
  for (site_t s = 0; s < kSmallLattice.volume(); ++s)
    EXPECT_EQ(back[0](s, 1, 2), kSmallLattice.parity(s) == 1 ? odd[0](Geometry::cb_index(s), 1, 2) : std::complex<double>(0));
}

class NpyBadFile : public ::testing::Test {
 protected:
  NpyBadFile() {
    io::write_spinors_npy(dir.file("good.npy"), random_spinors(1), io::NpyDtype::Complex64);
    good = io::read_file_bytes(dir.file("good.npy"));
  }
  void expect_rejected(const std::string& bytes, const std::string& what, std::optional<Geometry> geom = {}) {
    try {
      (void)io::parse_spinors_npy<double>(bytes, "bad.npy", geom);
      ADD_FAILURE() << "accepted a file that should fail with: " << what;
    } catch (const io::NpyError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  }
  static std::string replace(std::string s, const std::string& from, const std::string& to) {
    const std::size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  }
  test::TempDir dir;
  std::string good;
};

TEST_F(NpyBadFile, BadMagic) { expect_rejected("\x93NUMPX" + good.substr(6), "bad magic"); }
TEST_F(NpyBadFile, Truncated) { expect_rejected(good.substr(0, good.size() - 8), "truncated"); }
TEST_F(NpyBadFile, TruncatedHeader) { expect_rejected(good.substr(0, 40), "truncated .npy header"); }
TEST_F(NpyBadFile, RealDtype) { expect_rejected(replace(good, "'<c8'", "'<f8'"), "dtype '<f8' unsupported"); }
TEST_F(NpyBadFile, BigEndianDtype) { expect_rejected(replace(good, "'<c8'", "'>c8'"), "unsupported"); }
TEST_F(NpyBadFile, FortranOrder) { expect_rejected(replace(good, "False", "True "), "Fortran-order"); }
TEST_F(NpyBadFile, NotASpinorShape) { expect_rejected(replace(good, "(10, 8, 6, 4, 4, 3)", "(10, 8, 6, 4, 3, 4)"), "is not a spinor"); }
TEST_F(NpyBadFile, WrongLattice) { expect_rejected(good, "differs from the gauge lattice", Geometry({4, 6, 8, 12})); }
TEST_F(NpyBadFile, MalformedShape) { expect_rejected(replace(good, "(10, 8, 6, 4, 4, 3)", "[10, 8, 6, 4, 4, 3]"), "malformed shape"); }
TEST_F(NpyBadFile, UnsupportedVersion) {
  std::string bad = good;
  bad[6] = 9;
  expect_rejected(bad, "unsupported .npy format version 9");
}

// ---------------------------------------------------------------- values that are NaN, Inf, or past a precision

// Reading `path` as Real fails with a message that contains each of `parts`.
template <class Real>
void expect_refused(const std::string& path, const std::vector<std::string>& parts) {
  try {
    (void)io::read_spinors_npy<Real>(path);
    ADD_FAILURE() << path << " was read";
  } catch (const io::NpyError& e) {
    for (const std::string& part : parts) EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what() << "\n lacks: " << part;
  }
}

// Site (x, y, z, t) = (1, 2, 3, 4): NumPy's element [t, z, y, x, spin, colour] is [4, 3, 2, 1, ...].
const site_t kBadSite = kSmallLattice.site({1, 2, 3, 4});

TEST(NpyValues, ANanOrAnInfIsRefusedWithItsElement) {
  test::TempDir dir;
  for (io::NpyDtype dtype : {io::NpyDtype::Complex128, io::NpyDtype::Complex64}) {
    auto one = random_spinors(1);
    one[0](kBadSite, 2, 1) = {std::nan(""), 0.5};
    io::write_spinors_npy(dir.file("nan.npy"), one, dtype);
    expect_refused<double>(dir.file("nan.npy"), {"nan.npy: element [4, 3, 2, 1, 2, 1] (t, z, y, x, spin, colour), real part, is nan, not a finite number"});

    auto two = random_spinors(2);  // batched: the spinor is the first index
    two[1](kBadSite, 0, 2) = {0.5, -std::numeric_limits<double>::infinity()};
    io::write_spinors_npy(dir.file("inf.npy"), two, dtype, true);
    expect_refused<float>(dir.file("inf.npy"), {"element [1, 4, 3, 2, 1, 0, 2] (n, t, z, y, x, spin, colour), imaginary part, is -inf"});
  }
}

// 1e39 is a double, not a float: a complex128 file that holds it reads in double and is refused in
// single, naming the value and the range.
TEST(NpyValues, AValuePastSinglePrecisionIsRefusedInSingle) {
  test::TempDir dir;
  auto psi = random_spinors(1);
  psi[0](kBadSite, 3, 0) = {-1e39, 0};
  io::write_spinors_npy(dir.file("big.npy"), psi, io::NpyDtype::Complex128);
  EXPECT_EQ(io::read_spinors_npy<double>(dir.file("big.npy"))[0](kBadSite, 3, 0), std::complex<double>(-1e39, 0));
  expect_refused<float>(dir.file("big.npy"), {"element [4, 3, 2, 1, 3, 0]", "real part, is -1e+39, past single precision's range (largest 3.40282e+38)"});
}

// The same check on fields in memory (read in double, to be used in single; or computed), a
// checkerboard named by its site on the full lattice.
TEST(NpyValues, FieldsInMemoryNameTheirFirstValueOutsideAPrecision) {
  auto psi = random_spinors(2);
  EXPECT_EQ(io::first_unrepresentable_element<float>(psi, true), std::nullopt);
  psi[1](kBadSite, 1, 1) = {0, 1e39};
  EXPECT_EQ(io::first_unrepresentable_element<double>(psi, true), std::nullopt);
  EXPECT_EQ(io::first_unrepresentable_element<float>(psi, true),
            "element [1, 4, 3, 2, 1, 1, 1] (n, t, z, y, x, spin, colour), imaginary part, is 1e+39, past single precision's range (largest 3.40282e+38)");
  std::vector<SpinorField<double>> odd;
  fill_gaussian(odd.emplace_back(kSmallLattice, Subset::Odd), 5);
  const site_t odd_site = kSmallLattice.site({2, 2, 3, 4});
  ASSERT_EQ(kSmallLattice.parity(odd_site), 1);
  odd[0](Geometry::cb_index(odd_site), 0, 0) = std::nan("");
  EXPECT_EQ(io::first_unrepresentable_element<double>(odd, false),
            "element [4, 3, 2, 2, 0, 0] (t, z, y, x, spin, colour), real part, is nan, not a finite number");
}

}  // namespace
}  // namespace dslash
