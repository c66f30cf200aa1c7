#pragma once
// Team member handle and the nested ranges of hierarchical parallelism:
//   parallel_for(TeamThreadRange(member, n), f)   -- split [0, n) over the team's threads
//   parallel_for(ThreadVectorRange(member, n), f) -- split [0, n) over one thread's vector lanes
// On a CPU a team is a group of OpenMP threads and the vector lanes are a SIMD loop inside one
// thread; on a GPU a team is a thread block, its threads are threadIdx.y and the lanes threadIdx.x.
#include <barrier>

#include "dslash/core/macros.hpp"
#include "dslash/core/policies.hpp"

namespace dslash {

class TeamMember {
 public:
  DSLASH_INLINE_FUNCTION TeamMember(index_t league_rank, index_t league_size, int team_rank, int team_size, int vector_length,
                                    std::barrier<>* barrier)
      : league_rank_(league_rank), league_size_(league_size), team_rank_(team_rank), team_size_(team_size),
        vector_length_(vector_length), barrier_(barrier) {}
  DSLASH_INLINE_FUNCTION index_t league_rank() const { return league_rank_; }
  DSLASH_INLINE_FUNCTION index_t league_size() const { return league_size_; }
  DSLASH_INLINE_FUNCTION int team_rank() const { return team_rank_; }
  DSLASH_INLINE_FUNCTION int team_size() const { return team_size_; }
  DSLASH_INLINE_FUNCTION int vector_length() const { return vector_length_; }
  DSLASH_INLINE_FUNCTION void team_barrier() const {
#if DSLASH_ON_DEVICE
    __syncthreads();
#else
    if (barrier_ != nullptr) barrier_->arrive_and_wait();
#endif
  }

 private:
  index_t league_rank_, league_size_;
  int team_rank_, team_size_, vector_length_;
  std::barrier<>* barrier_;  // host teams only
};

struct TeamThreadRange {
  DSLASH_INLINE_FUNCTION TeamThreadRange(const TeamMember& m, index_t n) : member(m), begin(0), end(n) {}
  DSLASH_INLINE_FUNCTION TeamThreadRange(const TeamMember& m, index_t b, index_t e) : member(m), begin(b), end(e) {}
  const TeamMember& member;
  index_t begin, end;
};

struct ThreadVectorRange {
  DSLASH_INLINE_FUNCTION ThreadVectorRange(const TeamMember& m, index_t n) : member(m), begin(0), end(n) {}
  DSLASH_INLINE_FUNCTION ThreadVectorRange(const TeamMember& m, index_t b, index_t e) : member(m), begin(b), end(e) {}
  const TeamMember& member;
  index_t begin, end;
};

// Team threads take indices round-robin: thread r gets begin + r, begin + r + team_size, ...
template <class F>
DSLASH_INLINE_FUNCTION void parallel_for(const TeamThreadRange& range, const F& f) {
  const int stride = range.member.team_size();
  for (index_t i = range.begin + range.member.team_rank(); i < range.end; i += stride) f(i);
}

template <class F>
DSLASH_INLINE_FUNCTION void parallel_for(const ThreadVectorRange& range, const F& f) {
#if DSLASH_ON_DEVICE
  for (index_t i = range.begin + threadIdx.x; i < range.end; i += range.member.vector_length()) f(i);
#else
#pragma omp simd
  for (index_t i = range.begin; i < range.end; ++i) f(i);
#endif
}

}  // namespace dslash
