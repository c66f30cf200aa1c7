#pragma once
// Sum reductions: how partial results start (identity) and combine (join). Scalars and complex
// numbers add; std::array<T, N> adds element-wise, so several sums travel in one pass.
#include <array>
#include <cstddef>

#include "dslash/core/macros.hpp"

namespace dslash {

template <class T>
struct Sum {
  DSLASH_INLINE_FUNCTION static T identity() { return T{}; }
  DSLASH_INLINE_FUNCTION static void join(T& into, const T& from) { into += from; }
};

template <class T, std::size_t N>
struct Sum<std::array<T, N>> {
  DSLASH_INLINE_FUNCTION static std::array<T, N> identity() { return {}; }
  DSLASH_INLINE_FUNCTION static void join(std::array<T, N>& into, const std::array<T, N>& from) {
    for (std::size_t i = 0; i < N; ++i) Sum<T>::join(into[i], from[i]);
  }
};

}  // namespace dslash
