#pragma once
// Layout mappings: how a multi-index becomes an offset.
//   LayoutRight: last index fastest (C order).   LayoutLeft: first index fastest (Fortran order).
#include <array>
#include <cstddef>

namespace dslash {

struct LayoutRight {
  template <std::size_t Rank>
  static constexpr std::array<std::size_t, Rank> strides(const std::array<std::size_t, Rank>& ext) {
    std::array<std::size_t, Rank> s{};
    std::size_t stride = 1;
    for (std::size_t r = Rank; r-- > 0;) {
      s[r] = stride;
      stride *= ext[r];
    }
    return s;
  }
};

struct LayoutLeft {
  template <std::size_t Rank>
  static constexpr std::array<std::size_t, Rank> strides(const std::array<std::size_t, Rank>& ext) {
    std::array<std::size_t, Rank> s{};
    std::size_t stride = 1;
    for (std::size_t r = 0; r < Rank; ++r) {
      s[r] = stride;
      stride *= ext[r];
    }
    return s;
  }
};

}  // namespace dslash
