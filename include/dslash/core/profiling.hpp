#pragma once
// Kernel labels: every launch carries a name. A hook, when installed, is told each launch's label
// and wall time (for a profiler, a log, or `dslash solve --profile`). With a hook installed every
// launch waits for its execution space (fence): a GPU launch is timed to its kernel's end, not to
// its return.
#include <chrono>
#include <functional>
#include <string_view>

namespace dslash {

using KernelHook = std::function<void(std::string_view label, double seconds)>;

inline KernelHook& kernel_hook() {
  static KernelHook hook;
  return hook;
}
inline void set_kernel_hook(KernelHook hook) { kernel_hook() = std::move(hook); }

namespace detail {
// Times a launch only when a hook is installed: finish() waits for ExecSpace and reports. (Not a
// destructor: a GPU fence may throw the kernel's error, which then propagates as any launch error.)
class LaunchTimer {
 public:
  explicit LaunchTimer(std::string_view label) : label_(label), active_(static_cast<bool>(kernel_hook())) {
    if (active_) start_ = std::chrono::steady_clock::now();
  }
  template <class ExecSpace>
  void finish() const {
    if (!active_) return;
    ExecSpace::fence();
    kernel_hook()(label_, std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
  }

 private:
  std::string_view label_;
  bool active_;
  std::chrono::steady_clock::time_point start_;
};
}  // namespace detail

}  // namespace dslash
