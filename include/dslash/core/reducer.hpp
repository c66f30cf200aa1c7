#pragma once
// Sum reductions: how partial results start (identity) and combine (join). Scalars and complex
// numbers add; std::array<T, N> adds element-wise, so several sums travel in one pass. On the GPU
// std::complex is refused at compile time (its operators do nothing in device code): sum (re, im).
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

// Where a reduction leaves its total when its caller does not wait for it (Kokkos's reduce into a
// View): `device` in the execution space's memory, for later launches on the same stream to read,
// and, where set, `host`, memory the host reads after a fence (on a GPU, page-locked and mapped). On a
// CPU both are written when the call returns.
template <class T>
struct ReduceInto {
  T* device = nullptr;
  T* host = nullptr;
};

template <class T>
inline constexpr bool is_reduce_into = false;
template <class T>
inline constexpr bool is_reduce_into<ReduceInto<T>> = true;

}  // namespace dslash
