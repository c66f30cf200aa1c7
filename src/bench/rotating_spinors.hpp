#pragma once
// Input/output spinor sets in a kernel's layout, all packed from the same fields and used in turn,
// so that a working set that fits in the last-level cache does not flatter the rate
// (bench::rotating_sets in metrics.hpp says how many). Shared by the single-process and MPI benches.
// A half precision kernel's sets (DslashConfig::half) are its codes and norms (half_in, half_out).
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
      if (d.config().half) {
        d.pack(fields, half_in.emplace_back(d.allocate_half_spinors("bench_in")));
        half_out.push_back(d.allocate_half_spinors("bench_out"));
        continue;
      }
      d.pack(fields, in.emplace_back(allocate("bench_in")));
      out.push_back(allocate("bench_out"));
    }
  }
  // The next set, in turn; last() is the one whose output the latest call wrote.
  std::size_t advance() { return last_ = next_++ % (in.empty() ? half_in.size() : in.size()); }
  std::size_t last() const { return last_; }
  // d on set k, and set k's output as fields, whichever storage d keeps.
  void apply(const DslashKernel<Real, Space>& d, std::size_t k) const {
    if (d.config().half) d.apply(half_in[k], half_out[k]);
    else d.apply(in[k], out[k]);
  }
  void unpack(const DslashKernel<Real, Space>& d, std::size_t k, std::vector<SpinorField<Real>>& fields) const {
    if (d.config().half) d.unpack(half_out[k], fields);
    else d.unpack(out[k], fields);
  }

  std::vector<spinor_view> in, out;
  std::vector<HalfSpinors<Space>> half_in, half_out;

 private:
  std::size_t next_ = 0, last_ = 0;
};

}  // namespace dslash::bench
