#pragma once
// OpenMP backend. Patterns hand out their work as the policy's Schedule says (execution_space.hpp):
// static shares, or dynamic chunks to whichever thread is free (about 64 a thread for a range, one
// tile of an MDRange, one league rank of a team of one thread; teams of more threads keep static
// round-robin, since all of a team would have to agree on the next rank). A reduction keeps one
// partial per thread (static) or per chunk (dynamic), joined in that order: the chunks depend only
// on the extent and the thread count, so the same thread count gives bitwise the same sum whichever
// thread ran which chunk. A range reduction runs a copy of a trivially copyable functor on its own
// stack, in eight partial sums (openmp_detail::LocalFunctor and reduce_span say why).
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "dslash/core/backend/box_loop.hpp"
#include "dslash/core/reducer.hpp"
#include "dslash/core/team.hpp"

namespace dslash::backend {

namespace openmp_detail {

inline bool dynamic(Schedule s) { return (s == Schedule::Default ? OpenMP::schedule() : s) == Schedule::Dynamic; }

// A dynamic range's chunk: about 64 a thread, so a slow core's share can be taken over in small steps.
inline index_t range_chunk(index_t n) { return std::max<index_t>(1, n / (64 * static_cast<index_t>(omp_get_max_threads()))); }

template <class T>
T join_partials(const std::vector<T>& partials) {
  T acc = Sum<T>::identity();
  for (const T& p : partials) Sum<T>::join(acc, p);
  return acc;
}

// A range reduction runs its functor through `LocalFunctor<F> body = f;`: a copy on the loop's own
// stack where F is trivially copyable (raw pointers and numbers, as the BLAS's lambdas and the
// kernels' RunArgs), else a reference. Behind a reference the compiler must assume that every store
// of the loop may change the functor, and reloads its pointers and coefficients after each one; a
// local copy it keeps in registers. The copy must sit in the function that holds the loop: passed on
// by reference, it is behind a reference again. parallel_for does not take the copy: it was no
// gain there (docs/history/HISTORY.md, "The BLAS reductions, and the functor on the loop's stack").
template <class F>
using LocalFunctor = std::conditional_t<std::is_trivially_copyable_v<F>, const F, const F&>;

// The dynamic schedule's chunks of a range [b, e): chunk c is [b + c size, min(e, b + (c + 1) size)).
struct RangeChunks {
  index_t b, e, size, count;
  explicit RangeChunks(index_t begin, index_t end) : b(begin), e(end), size(range_chunk(end - begin)), count((end - begin + size - 1) / size) {}
  index_t first(index_t c) const { return b + c * size; }
  index_t last(index_t c) const { return std::min(e, b + (c + 1) * size); }
};

// This thread's static share of [b, e).
inline std::pair<index_t, index_t> static_share(index_t b, index_t e) {
  const index_t n = e - b, threads = omp_get_num_threads(), t = omp_get_thread_num();
  return {b + n * t / threads, b + n * (t + 1) / threads};
}

// local += f(i) for i in [first, last), in eight partial sums (index i into partial (i - first) % 8)
// joined as a tree at the end: with one running sum a short body (the solvers' norms and dots) waits
// one add latency an index, single precision as slow as double. The order depends on the span alone,
// so the same span gives the same bits every time.
template <class T, class F>
void reduce_span(index_t first, index_t last, const F& f, T& local) {
  LocalFunctor<F> body = f;
  constexpr int kPartials = 8;
  T part[kPartials];
  for (T& p : part) p = Sum<T>::identity();
  index_t i = first;
  for (; i + kPartials <= last; i += kPartials)
    for (int l = 0; l < kPartials; ++l) body(i + l, part[l]);
  for (int l = 0; i < last; ++i, ++l) body(i, part[l]);
  for (int half = kPartials / 2; half >= 1; half /= 2)
    for (int l = 0; l < half; ++l) Sum<T>::join(part[l], part[l + half]);
  Sum<T>::join(local, part[0]);
}

// f(i0, ..., iR-1) over tile t of an MDRange.
template <int Rank, class F>
void run_tile(const MDRangePolicy<Rank, OpenMP>& p, index_t t, const F& f) {
  std::array<index_t, Rank> lo, hi;
  p.tile_bounds(t, lo, hi);
  detail::box_loop<Rank>(lo, hi, f);
}

// Run body(member) for every league rank. Concurrent teams = max(1, threads / team_size); each
// team's threads share one barrier. Teams take league ranks round-robin.
// Dynamic: teams of one thread take the next league rank when they finish one.
template <class Body>
void run_teams(const TeamPolicy<OpenMP>& p, int max_threads, bool dynamic, const Body& body) {
  const int ts = p.team_size();
  const int want_teams = std::max(1, max_threads / ts);
  std::deque<std::barrier<>> barriers;
  for (int t = 0; t < want_teams; ++t) barriers.emplace_back(ts);
  bool short_of_threads = false;
  std::atomic<index_t> next{0};
  const bool take_next = dynamic && ts == 1;
#pragma omp parallel num_threads(want_teams * ts)
  {
    // The runtime may grant fewer threads than asked; only whole teams then run.
    const int teams = omp_get_num_threads() / ts;
    const int tid = omp_get_thread_num();
    if (teams == 0) {
#pragma omp single
      short_of_threads = true;
    } else if (tid < teams * ts) {
      const int slot = tid / ts;
      std::barrier<>* barrier = &barriers[static_cast<std::size_t>(slot)];
      if (take_next) {
        for (index_t league = next++; league < p.league_size(); league = next++)
          body(TeamMember(league, p.league_size(), 0, 1, p.vector_length(), barrier));
      } else {
        for (index_t league = slot; league < p.league_size(); league += teams)
          body(TeamMember(league, p.league_size(), tid % ts, ts, p.vector_length(), barrier));
      }
    }
  }
  if (short_of_threads)
    throw std::runtime_error("TeamPolicy: the OpenMP runtime granted fewer threads than one team of " +
                             std::to_string(ts) + " needs");
}

}  // namespace openmp_detail

template <class F>
void parallel_for(const RangePolicy<OpenMP>& p, const F& f) {
  const index_t b = p.begin(), e = p.end();
  if (openmp_detail::dynamic(p.schedule())) {
    const index_t chunk = openmp_detail::range_chunk(e - b);
#pragma omp parallel for schedule(dynamic, chunk)
    for (index_t i = b; i < e; ++i) f(i);
    return;
  }
#pragma omp parallel for schedule(static)
  for (index_t i = b; i < e; ++i) f(i);
}

template <class F>
void parallel_for(const TeamPolicy<OpenMP>& p, const F& f) {
  openmp_detail::run_teams(p, omp_get_max_threads(), openmp_detail::dynamic(Schedule::Default), f);
}

template <int Rank, class F>
void parallel_for(const MDRangePolicy<Rank, OpenMP>& p, const F& f) {
  using namespace openmp_detail;
  const index_t ntiles = p.num_tiles();
  if (dynamic(Schedule::Default)) {
#pragma omp parallel for schedule(dynamic, 1)
    for (index_t t = 0; t < ntiles; ++t) run_tile(p, t, f);
    return;
  }
#pragma omp parallel for schedule(static)
  for (index_t t = 0; t < ntiles; ++t) run_tile(p, t, f);
}

template <class T, class F>
void parallel_reduce(const RangePolicy<OpenMP>& p, const F& f, T& result) {
  using namespace openmp_detail;
  if (dynamic(p.schedule())) {
    const RangeChunks chunks(p.begin(), p.end());
    std::vector<T> partials(static_cast<std::size_t>(chunks.count), Sum<T>::identity());
#pragma omp parallel for schedule(dynamic, 1)
    for (index_t c = 0; c < chunks.count; ++c) reduce_span(chunks.first(c), chunks.last(c), f, partials[static_cast<std::size_t>(c)]);
    result = join_partials(partials);
    return;
  }
  std::vector<T> partials(static_cast<std::size_t>(omp_get_max_threads()), Sum<T>::identity());
#pragma omp parallel
  {
    const auto [first, last] = static_share(p.begin(), p.end());
    T local = Sum<T>::identity();  // not in partials: neighbouring threads' partials share cache lines
    reduce_span(first, last, f, local);
    partials[static_cast<std::size_t>(omp_get_thread_num())] = local;
  }
  result = join_partials(partials);
}

template <class T, class F>
void parallel_reduce(const TeamPolicy<OpenMP>& p, const F& f, T& result) {
  const int max_threads = omp_get_max_threads();
  // Dynamic (teams of one thread): a partial per league rank; else one per thread.
  const bool per_league = openmp_detail::dynamic(Schedule::Default) && p.team_size() == 1;
  const int nthreads = std::max(1, max_threads / p.team_size()) * p.team_size();
  std::vector<T> partials(static_cast<std::size_t>(per_league ? p.league_size() : nthreads), Sum<T>::identity());
  openmp_detail::run_teams(p, max_threads, per_league, [&](const TeamMember& m) {
    // Each team sums into a local and adds it once: the partials share cache lines, and a functor
    // that adds per index (the Dslash epilogue's norm, per site) would bounce them between cores.
    T local = Sum<T>::identity();
    f(m, local);
    Sum<T>::join(partials[static_cast<std::size_t>(per_league ? m.league_rank() : omp_get_thread_num())], local);
  });
  result = openmp_detail::join_partials(partials);
}

template <int Rank, class T, class F>
void parallel_reduce(const MDRangePolicy<Rank, OpenMP>& p, const F& f, T& result) {
  using namespace openmp_detail;
  const index_t ntiles = p.num_tiles();
  const auto tile = [&](index_t t, T& local) { run_tile(p, t, [&](auto... i) { f(i..., local); }); };
  if (dynamic(Schedule::Default)) {  // a partial per tile
    std::vector<T> partials(static_cast<std::size_t>(ntiles), Sum<T>::identity());
#pragma omp parallel for schedule(dynamic, 1)
    for (index_t t = 0; t < ntiles; ++t) {
      T local = Sum<T>::identity();  // the functor adds per index: not into partials' shared lines
      tile(t, local);
      partials[static_cast<std::size_t>(t)] = local;
    }
    result = join_partials(partials);
    return;
  }
  std::vector<T> partials(static_cast<std::size_t>(omp_get_max_threads()), Sum<T>::identity());
#pragma omp parallel
  {
    T local = Sum<T>::identity();
#pragma omp for schedule(static)
    for (index_t t = 0; t < ntiles; ++t) tile(t, local);
    partials[static_cast<std::size_t>(omp_get_thread_num())] = local;
  }
  result = join_partials(partials);
}

}  // namespace dslash::backend
