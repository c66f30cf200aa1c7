#pragma once
// The portable dispatch front end. Every launch has a label; the policy's execution space picks the
// backend overload in core/backend/<space>.hpp.
//
//   parallel_for("axpy", RangePolicy<>(0, n), [=](index_t i) { y(i) += a * x(i); });
//   double s; parallel_reduce("norm", RangePolicy<>(0, n), [=](index_t i, double& acc) { ... }, s);
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

template <class Policy, class F, class T>
void parallel_reduce(std::string_view label, const Policy& policy, const F& f, T& result) {
  const detail::LaunchTimer timer(label);
  backend::parallel_reduce(policy, f, result);
  timer.finish<typename Policy::execution_space>();
}

}  // namespace dslash
