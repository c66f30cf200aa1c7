#pragma once
// Input/output spinor sets in a kernel's layout, all packed from the same fields and used in turn,
// so that a working set that fits in the last-level cache does not flatter the rate
// (bench::rotating_sets in metrics.hpp says how many). Shared by the single-process and MPI benches.
#include <string>
#include <vector>

#include "kernels/dslash_kernel.hpp"

namespace dslash::bench {

template <class Real, class Space = HostSpace>
class RotatingSpinors {
 public:
  using spinor_view = typename DslashKernel<Real, Space>::spinor_view;
  RotatingSpinors(const DslashKernel<Real, Space>& d, const std::vector<SpinorField<Real>>& fields, int sets)
      : RotatingSpinors(d, fields, sets, [&](const std::string& label) { return d.allocate_spinors(label); }) {}
  // allocate(label): a buffer in d's layout from elsewhere (HaloDslash::allocate_spinors).
  template <class Allocate>
  RotatingSpinors(const DslashKernel<Real, Space>& d, const std::vector<SpinorField<Real>>& fields, int sets, const Allocate& allocate) {
    for (int k = 0; k < sets; ++k) {
      d.pack(fields, in.emplace_back(allocate("bench_in")));
      out.push_back(allocate("bench_out"));
    }
  }
  // The next set, in turn; last() is the one whose output the latest call wrote.
  std::size_t advance() { return last_ = next_++ % in.size(); }
  std::size_t last() const { return last_; }

  std::vector<spinor_view> in, out;

 private:
  std::size_t next_ = 0, last_ = 0;
};

}  // namespace dslash::bench
