#pragma once
// Kernel labels: every launch carries a name. A hook, when installed, is told each launch's label
// and wall time (for a profiler, a log, or the benchmark's per-kernel breakdown).
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
// Times the enclosing launch only when a hook is installed.
class LaunchScope {
 public:
  explicit LaunchScope(std::string_view label) : label_(label), active_(static_cast<bool>(kernel_hook())) {
    if (active_) start_ = std::chrono::steady_clock::now();
  }
  ~LaunchScope() {
    if (active_)
      kernel_hook()(label_, std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
  }
  LaunchScope(const LaunchScope&) = delete;
  LaunchScope& operator=(const LaunchScope&) = delete;

 private:
  std::string_view label_;
  bool active_;
  std::chrono::steady_clock::time_point start_;
};
}  // namespace detail

}  // namespace dslash
