#pragma once
// DeviceSums<Space>: a solve's sums kept where its passes run. A pass reads a coefficient made of
// them when it runs (CG's alpha = gamma / ||M p||^2: DeviceRatio in solvers/blas.hpp), so on a GPU
// the host launches it without waiting for the sums, and waits only for the sums it decides on (the
// residual's, for the stopping test and the reliable updates): one round trip a CG iteration, not
// three. On the host a sum is a plain double, there when its reduction returns.
#include <algorithm>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>

#include "dslash/core.hpp"
#if defined(DSLASH_HAVE_CUDA)
#include "dslash/core/backend/cuda/space.hpp"
#endif

namespace dslash {

template <class Space>
class DeviceSums {
 public:
  DeviceSums() = default;
  explicit DeviceSums(int count) : sums_("device_sums", static_cast<std::size_t>(count)) {}
  // Where a reduction leaves sum i.
  ReduceInto<double> into(int i) const { return {at(i), nullptr}; }
  // Sum i, for a pass to read.
  const double* on_device(int i) const { return at(i); }
  // Sum i, once the launches so far have ended.
  double read(int i) const { return *at(i); }
  // Sum i without a wait: right for a sum whose reduction was launched before the last read().
  double read_without_wait(int i) const { return *at(i); }
  // Sum i = value: a sum made on the host (over MPI ranks) from reductions that have ended.
  void set(int i, double value) const { *at(i) = value; }
  // Sums [i, i + count) for a kernel that writes several (the per right-hand side ones:
  // solvers/rhs_blas.hpp), and [i, i + values.size()) = values as set() does.
  ReduceInto<double> into(int i, int count) const {
    if (count > 0) at(i + count - 1);
    return {at(i), nullptr};
  }
  void set(int i, std::span<const double> values) const {
    if (!values.empty()) at(i + static_cast<int>(values.size()) - 1);
    std::copy(values.begin(), values.end(), at(i));
  }

 private:
  double* at(int i) const {
    if (i < 0 || static_cast<std::size_t>(i) >= sums_.size()) throw std::out_of_range("DeviceSums: no sum " + std::to_string(i));
    return sums_.data() + i;
  }
  View<double, 1, LayoutRight, Space> sums_;
};

#if defined(DSLASH_HAVE_CUDA)
// On the GPU: in device memory, and the last block of each reduction also writes a host copy
// (page-locked, mapped), which read() returns after the stream has caught up.
template <>
class DeviceSums<CudaSpace> {
 public:
  DeviceSums() = default;
  explicit DeviceSums(int count)
      : sums_("device_sums", static_cast<std::size_t>(count)), copies_(static_cast<std::size_t>(count) * sizeof(double)), count_(count) {}
  ReduceInto<double> into(int i) const {
    check(i);
    return {sums_.data() + i, static_cast<double*>(copies_.on_device()) + i};
  }
  const double* on_device(int i) const {
    check(i);
    return sums_.data() + i;
  }
  double read(int i) const {
    check(i);
    cuda::check(cudaStreamSynchronize(cuda::current_stream()), "cudaStreamSynchronize (a solver's pass failed)");
    return read_without_wait(i);
  }
  // A second read after one wait costs another round trip to the driver (an idle stream's
  // synchronize): sums launched before the last read() are in its host copies already.
  double read_without_wait(int i) const {
    check(i);
    return static_cast<const double*>(copies_.get())[i];
  }
  // For a sum made on the host from reductions that have ended (none still writing sum i): the copy
  // goes in stream order, without a wait (from pageable memory it is staged at once).
  void set(int i, double value) const {
    check(i);
    static_cast<double*>(copies_.get())[i] = value;
    cuda::copy_async(sums_.data() + i, &value, sizeof(double), cuda::current_stream());
  }
  ReduceInto<double> into(int i, int count) const {
    if (count > 0) check(i + count - 1);
    return into(i);
  }
  // One copy for the range, from the caller's (pageable) memory: staged before it returns.
  void set(int i, std::span<const double> values) const {
    if (values.empty()) return;
    check(i + static_cast<int>(values.size()) - 1);
    std::copy(values.begin(), values.end(), static_cast<double*>(copies_.get()) + i);
    cuda::copy_async(sums_.data() + i, values.data(), values.size() * sizeof(double), cuda::current_stream());
  }

 private:
  void check(int i) const {
    if (i < 0 || i >= count_) throw std::out_of_range("DeviceSums: no sum " + std::to_string(i));
  }
  View<double, 1, LayoutRight, CudaSpace> sums_;
  cuda::MappedHostBuffer copies_;
  int count_ = 0;
};
#endif

}  // namespace dslash
