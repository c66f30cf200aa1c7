#pragma once
// Helpers the tests share: small non-uniform lattices, field comparison, temporary files.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <complex>
#include <cstdint>
#include <filesystem>
#include <type_traits>
#include <unistd.h>
#include <string>
#include <vector>

#include "dslash/core.hpp"
#include "dslash/lattice/field_ops.hpp"

namespace dslash::test {

// Deliberately uneven, so a swapped extent or stride shows up.
inline const Geometry kSmallLattice({4, 6, 8, 10});

// max |a - b| / max |b| over all components (the library's, so tests and bench --check agree).
using dslash::relative_difference;

// The DeGrand-Rossi gamma matrices as docs/CONVENTIONS.md writes them, for tests that must not take
// their expectation from the library's own table (test_gamma.cpp pins that table to these).
using SpinMatrix = std::array<std::array<std::complex<double>, 4>, 4>;
inline constexpr std::complex<double> i(0, 1);
// clang-format off
inline const std::array<SpinMatrix, 4> kDeGrandRossi = {{
  {{{0, 0, 0, i}, {0, 0, i, 0}, {0, -i, 0, 0}, {-i, 0, 0, 0}}},  // g0 (x)
  {{{0, 0, 0, -1}, {0, 0, 1, 0}, {0, 1, 0, 0}, {-1, 0, 0, 0}}},  // g1 (y)
  {{{0, 0, i, 0}, {0, 0, 0, -i}, {-i, 0, 0, 0}, {0, i, 0, 0}}},  // g2 (z)
  {{{0, 0, 1, 0}, {0, 0, 0, 1}, {1, 0, 0, 0}, {0, 1, 0, 0}}},    // g3 (t)
}};
// clang-format on

// A Gaussian spinor field on `subset`: the full lattice's field of that seed, restricted to it.
inline SpinorField<double> gaussian(const Geometry& g, Subset subset, std::uint64_t seed) {
  SpinorField<double> full(g, Subset::Full), f(g, subset);
  fill_gaussian(full, seed);
  copy_sites(full, f);
  return f;
}

// n of them (seeds seed, seed + 1, ...), rounded to Real.
template <class Real = double>
std::vector<SpinorField<Real>> gaussians(const Geometry& g, Subset subset, int n, std::uint64_t seed) {
  std::vector<SpinorField<Real>> v;
  for (int r = 0; r < n; ++r) {
    SpinorField<double> f = gaussian(g, subset, seed + static_cast<std::uint64_t>(r));
    if constexpr (std::is_same_v<Real, double>) {
      v.push_back(std::move(f));
    } else {
      v.push_back(convert_precision<Real>(f));
    }
  }
  return v;
}

template <class Real = double>
std::vector<SpinorField<Real>> empty_fields(const Geometry& g, Subset subset, int n) {
  std::vector<SpinorField<Real>> v;
  for (int r = 0; r < n; ++r) v.emplace_back(g, subset);
  return v;
}

// A per-test scratch directory, removed when it goes out of scope (a failed ASSERT included). One
// directory straight under the temporary folder ($TMPDIR, else /tmp): the test's names, which hold
// '/' in a parameterised test ("AllFormats/NerscRoundTrip"), are sanitised to letters, digits, '_'
// and '-', so no parent directory is made that the removal would leave behind.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            sanitised_name(std::string(info->test_suite_name()) + "_" + info->name() + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directory(path_);
  }
  // Not copyable: a copy's destructor would remove the directory under the original.
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  // Never throws (a throwing destructor would terminate the suite): a directory it cannot remove
  // is reported as a test failure instead.
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    if (ec) ADD_FAILURE() << "could not remove " << path_ << ": " << ec.message();
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

  // "dslash_test_" + the name, every character but a letter, digit, '_' or '-' made '_'.
  static std::string sanitised_name(std::string name) {
    for (char& c : name) {
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) c = '_';
    }
    return "dslash_test_" + name;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace dslash::test
