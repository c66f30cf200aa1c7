#pragma once
// Serial backend: every pattern as a plain loop on the calling thread.
#include "dslash/core/backend/box_loop.hpp"
#include "dslash/core/reducer.hpp"
#include "dslash/core/team.hpp"

namespace dslash::backend {

template <class F>
void parallel_for(const RangePolicy<Serial>& p, const F& f) {
  for (index_t i = p.begin(); i < p.end(); ++i) f(i);
}

template <class F>
void parallel_for(const TeamPolicy<Serial>& p, const F& f) {
  for (index_t league = 0; league < p.league_size(); ++league)
    f(TeamMember(league, p.league_size(), 0, 1, p.vector_length(), nullptr));
}

template <int Rank, class F>
void parallel_for(const MDRangePolicy<Rank, Serial>& p, const F& f) {
  std::array<index_t, Rank> lo, hi;
  for (index_t t = 0; t < p.num_tiles(); ++t) {
    p.tile_bounds(t, lo, hi);
    detail::box_loop<Rank>(lo, hi, f);
  }
}

template <class T, class F>
void parallel_reduce(const RangePolicy<Serial>& p, const F& f, T& result) {
  T acc = Sum<T>::identity();
  for (index_t i = p.begin(); i < p.end(); ++i) f(i, acc);
  result = acc;
}

template <class T, class F>
void parallel_reduce(const TeamPolicy<Serial>& p, const F& f, T& result) {
  T acc = Sum<T>::identity();
  for (index_t league = 0; league < p.league_size(); ++league)
    f(TeamMember(league, p.league_size(), 0, 1, p.vector_length(), nullptr), acc);
  result = acc;
}

template <int Rank, class T, class F>
void parallel_reduce(const MDRangePolicy<Rank, Serial>& p, const F& f, T& result) {
  T acc = Sum<T>::identity();
  std::array<index_t, Rank> lo, hi;
  for (index_t t = 0; t < p.num_tiles(); ++t) {
    p.tile_bounds(t, lo, hi);
    detail::box_loop<Rank>(lo, hi, [&](auto... i) { f(i..., acc); });
  }
  result = acc;
}

}  // namespace dslash::backend
