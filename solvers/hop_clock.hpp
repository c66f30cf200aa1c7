#pragma once
// HopClock<Space>: the time of a solver's hopping-term calls (EvenOddWilson::dslash_seconds), each
// call's own and nothing queued before it. On the host a call has ended when it returns: a steady
// clock around it. On the GPU a call returns before its kernel ends, and the BLAS passes launched
// before it may still be running: CUDA events recorded on the stream before and after it time the
// kernel alone, with no wait on the host; their sum is read, waiting for each pair, when asked or
// when the pool of event pairs is full.
#include <chrono>
#include <cstddef>
#include <memory>
#include <vector>

#include "dslash/core.hpp"
#if defined(DSLASH_HAVE_CUDA)
#include "dslash/core/backend/cuda/space.hpp"
#endif

namespace dslash {

template <class Space>
class HopClock {
 public:
  void start() { t0_ = std::chrono::steady_clock::now(); }
  void stop() { seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count(); }
  void cancel() {}  // the call did not run: its time is not counted
  double seconds() const { return seconds_; }

 private:
  std::chrono::steady_clock::time_point t0_;
  double seconds_ = 0;
};

#if defined(DSLASH_HAVE_CUDA)
template <>
class HopClock<CudaSpace> {
 public:
  void start() {
    if (used_ == pairs_.size()) pairs_.push_back(std::make_unique<Pair>());
    pairs_[used_++]->start.record(cuda::current_stream());
  }
  void stop() {
    pairs_[used_ - 1]->stop.record(cuda::current_stream());
    if (used_ == kPairs) harvest();
  }
  void cancel() { --used_; }
  double seconds() const {
    harvest();
    return seconds_;
  }

 private:
  static constexpr std::size_t kPairs = 16;  // a few iterations' hops between two waits
  struct Pair {
    cuda::Event start, stop;
  };
  // Adds up the recorded pairs, each once it has happened: on one stream the last pair's end would
  // do for all, but a hop made under another stream (cuda::StreamScope) may end after it.
  void harvest() const {
    for (std::size_t i = 0; i < used_; ++i) {
      pairs_[i]->stop.synchronize();
      seconds_ += pairs_[i]->stop.since(pairs_[i]->start);
    }
    used_ = 0;
  }
  std::vector<std::unique_ptr<Pair>> pairs_;
  mutable std::size_t used_ = 0;
  mutable double seconds_ = 0;
};
#endif

}  // namespace dslash
