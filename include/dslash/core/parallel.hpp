#pragma once
// The portable dispatch front end. Every launch has a label; the policy's execution space picks the
// backend overload in core/backend/<space>.hpp.
//
//   parallel_for("axpy", RangePolicy<>(0, n), [=](index_t i) { y(i) += a * x(i); });
//   double s; parallel_reduce("norm", RangePolicy<>(0, n), [=](index_t i, double& acc) { ... }, s);
//   parallel_reduce("norm", RangePolicy<Cuda>(0, n), f, ReduceInto<double>{d, h});  // returns at once
#include <string_view>

#include "dslash/core/backend/openmp.hpp"
#include "dslash/core/backend/serial.hpp"
#if defined(__CUDACC__)
#include "dslash/core/backend/cuda/parallel.hpp"  // the GPU patterns need nvcc
#endif
#include "dslash/core/policies.hpp"
#include "dslash/core/profiling.hpp"
#include "dslash/core/team.hpp"

namespace dslash {

template <class Policy, class F>
void parallel_for(std::string_view label, const Policy& policy, const F& f) {
  const detail::LaunchTimer timer(label);
  backend::parallel_for(policy, f);
  timer.finish<typename Policy::execution_space>();
}

namespace backend {
// A host backend's reduction into memory: the total is there when the call returns. The GPU's
// overloads (core/backend/cuda/parallel.hpp) return before it is.
template <class Policy, class F, class T>
void parallel_reduce_into(const Policy& policy, const F& f, const ReduceInto<T>& into) {
  T total;
  parallel_reduce(policy, f, total);
  *into.device = total;
  if (into.host != nullptr) *into.host = total;
}
}  // namespace backend

template <class Policy, class F, class T>
  requires(!is_reduce_into<T>)
void parallel_reduce(std::string_view label, const Policy& policy, const F& f, T& result) {
  const detail::LaunchTimer timer(label);
  backend::parallel_reduce(policy, f, result);
  timer.finish<typename Policy::execution_space>();
}

// The total left in memory (ReduceInto), for later launches to read without the host waiting for it.
template <class Policy, class F, class T>
void parallel_reduce(std::string_view label, const Policy& policy, const F& f, ReduceInto<T> into) {
  const detail::LaunchTimer timer(label);
  backend::parallel_reduce_into(policy, f, into);
  timer.finish<typename Policy::execution_space>();
}

}  // namespace dslash
