#pragma once
// Visit every point of a Rank-D box [lo, hi) with dimension 0 fastest, calling f(i0, ..., iR-1).
#include <array>
#include <utility>

#include "dslash/core/policies.hpp"

namespace dslash::detail {

template <int Dim, int Rank, class F, class... Idx>
inline void box_loop_nest(const std::array<index_t, Rank>& lo, const std::array<index_t, Rank>& hi, const F& f,
                          Idx... inner) {
  if constexpr (Dim < 0) {
    f(inner...);
  } else {
    for (index_t i = lo[Dim]; i < hi[Dim]; ++i) box_loop_nest<Dim - 1, Rank>(lo, hi, f, i, inner...);
  }
}

template <int Rank, class F>
inline void box_loop(const std::array<index_t, Rank>& lo, const std::array<index_t, Rank>& hi, const F& f) {
  box_loop_nest<Rank - 1, Rank>(lo, hi, f);
}

}  // namespace dslash::detail
