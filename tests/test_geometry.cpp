#include <gtest/gtest.h>

#include <vector>

#include "dslash/lattice/geometry.hpp"

namespace dslash {
namespace {

const Geometry kGeom({4, 6, 8, 10});

TEST(Geometry, LexicographicIndexIsXFastestAndRoundTrips) {
  EXPECT_EQ(kGeom.volume(), 4 * 6 * 8 * 10);
  EXPECT_EQ(kGeom.site({1, 0, 0, 0}), 1);
  EXPECT_EQ(kGeom.site({0, 1, 0, 0}), 4);
  EXPECT_EQ(kGeom.site({0, 0, 1, 0}), 24);
  EXPECT_EQ(kGeom.site({0, 0, 0, 1}), 192);
  for (site_t s = 0; s < kGeom.volume(); ++s) EXPECT_EQ(kGeom.site(kGeom.coords(s)), s);
}

TEST(Geometry, CheckerboardIndexIsABijectionPerParity) {
  for (Parity p : {Parity::Even, Parity::Odd}) {
    std::vector<int> seen(static_cast<std::size_t>(kGeom.half_volume()), 0);
    for (site_t s = 0; s < kGeom.volume(); ++s) {
      if (kGeom.parity(s) != static_cast<int>(p)) continue;
      const site_t cb = Geometry::cb_index(s);
      ASSERT_LT(cb, kGeom.half_volume());
      seen[static_cast<std::size_t>(cb)]++;
      EXPECT_EQ(kGeom.site_from_cb(cb, p), s);
    }
    for (int n : seen) EXPECT_EQ(n, 1);
  }
}

TEST(Geometry, NeighboursWrapPeriodically) {
  EXPECT_EQ(kGeom.neighbour(kGeom.site({3, 0, 0, 0}), 0, +1), kGeom.site({0, 0, 0, 0}));
  EXPECT_EQ(kGeom.neighbour(kGeom.site({0, 2, 0, 0}), 0, -1), kGeom.site({3, 2, 0, 0}));
  EXPECT_EQ(kGeom.neighbour(kGeom.site({1, 2, 3, 9}), 3, +1), kGeom.site({1, 2, 3, 0}));
  for (site_t s = 0; s < kGeom.volume(); ++s)
    for (int mu = 0; mu < 4; ++mu) {
      const site_t f = kGeom.neighbour(s, mu, +1);
      EXPECT_EQ(kGeom.neighbour(f, mu, -1), s);
      EXPECT_NE(kGeom.parity(f), kGeom.parity(s));  // a hop changes parity
    }
}

TEST(Geometry, NeighboursOfACheckerboardAreTheOtherOne) {
  EXPECT_EQ(neighbour_subset(Subset::Even), Subset::Odd);
  EXPECT_EQ(neighbour_subset(Subset::Odd), Subset::Even);
  EXPECT_EQ(neighbour_subset(Subset::Full), Subset::Full);
}

TEST(Geometry, InvalidExtentsAreClearErrors) {
  try {
    Geometry({4, 5, 8, 10});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("L1 (y) = 5 must be even"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("try 4 or 6"), std::string::npos) << e.what();
  }
  // An extent of 1 has one even neighbour to suggest, not "2 or 2".
  try {
    Geometry({1, 4, 4, 4});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("L0 (x) = 1 must be even for the checkerboard; try 2"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find(" or "), std::string::npos) << e.what();
  }
  EXPECT_THROW(Geometry({0, 4, 4, 4}), std::invalid_argument);
  EXPECT_THROW(Geometry({-2, 4, 4, 4}), std::invalid_argument);
  EXPECT_THROW(Geometry({1 << 30, 1 << 30, 1 << 30, 1 << 30}), std::invalid_argument);
}

TEST(Geometry, ParsesBothSpellingsOfALatticeSize) {
  EXPECT_EQ(parse_extents("16x8x4x32"), (Coord{16, 8, 4, 32}));
  EXPECT_EQ(parse_extents("16.8.4.32"), (Coord{16, 8, 4, 32}));
  for (const char* bad : {"", "16x16x16", "16x16x16x16x16", "16xax16x16", "16x16x16x", "x16x16x16", "16,16,16,16"})
    EXPECT_THROW(parse_extents(bad), std::invalid_argument) << bad;
  // The message names what is wrong: the extent that is no integer, or the count of extents.
  const auto message = [](const char* text) {
    try {
      parse_extents(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message("4.0x4x4x4"), "lattice size '4.0x4x4x4': extent '4.0' is not a positive integer (expected four extents, e.g. 16x16x16x32)");
  EXPECT_EQ(message("4x4x4x4.5"), "lattice size '4x4x4x4.5': extent '4.5' is not a positive integer (expected four extents, e.g. 16x16x16x32)");
  EXPECT_EQ(message("16x16x16"), "lattice size '16x16x16' has 3 extents, not four, e.g. 16x16x16x32");
  EXPECT_EQ(message("4.4.4.4.4"), "lattice size '4.4.4.4.4' has 5 extents, not four, e.g. 16x16x16x32");
}

TEST(Geometry, MemoryCheckRefusesWhatCannotFit) {
  EXPECT_NO_THROW(check_memory_fits(1024, "a small field"));
  try {
    check_memory_fits(std::uint64_t{1} << 62, "a huge field");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("a huge field needs"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace dslash
