#pragma once
// FLOP and byte accounting (CONVENTIONS.md "FLOP and byte accounting").
namespace dslash::bench {

inline constexpr double kFlopsPerSite = 1320;  // per output site per right-hand side

struct ByteModel {
  double model;       // no reuse: (8*24 + 8*G/N + 24) * F
  double compulsory;  // each input read once, each output written once
};

// F bytes per real, G reals per stored link, N right-hand sides sharing one gauge field.
inline ByteModel bytes_per_site(bool checkerboard, int bytes_per_real, int rhs_sharing_links, int reals_per_link = 18) {
  const double F = bytes_per_real, G = reals_per_link, N = rhs_sharing_links;
  return {(8 * 24 + 8 * G / N + 24) * F, ((checkerboard ? 8 : 4) * G / N + 24 + 24) * F};
}

}  // namespace dslash::bench
