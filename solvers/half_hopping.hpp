#pragma once
// The hopping term in half precision storage (DslashConfig::half; docs/CONVENTIONS.md): its kernels
// read and write 16-bit codes with a norm a site, while the solver's vectors stay single. Each
// application encodes its input into the kernel's half buffer, runs the half kernel and decodes its
// output: two light passes around a Dslash that moves half the bytes. The sloppy operator of a
// double-half solve (solve --prec mixed --sloppy half); one process (the half kernels have no halo).
#include <string>

#include "kernels/dslash_kernel.hpp"
#include "solvers/hopping_term.hpp"

namespace dslash {

template <class Space>
class HalfHopping final : public HoppingTerm<float, Space> {
 public:
  using vector_type = typename HoppingTerm<float, Space>::vector_type;
  // config.half is set; config.out and config.dagger are set per kernel.
  HalfHopping(const GaugeField<float>& u, const DslashConfig& config)
      : kernels_(u, with_half(config)),
        in_(kernel(Subset::Even, false).allocate_half_spinors("half_hopping_in")),
        out_(kernel(Subset::Even, false).allocate_half_spinors("half_hopping_out")) {}
  const DslashKernel<float, Space>& kernel(Subset out, bool dagger) const override { return kernels_.kernel(out, dagger); }
  void apply(Subset out, bool dagger, const vector_type& in, const vector_type& result) const override {
    const DslashKernel<float, Space>& k = kernel(out, dagger);
    k.encode(in, in_);
    k.apply(in_, out_);
    k.decode(out_, result);
  }

 private:
  static DslashConfig with_half(DslashConfig c) {
    c.half = true;
    return c;
  }
  LocalHopping<float, Space> kernels_;  // its four kernels, whose own hops are on half buffers
  HalfSpinors<Space> in_, out_;  // the kernels' input and output codes: one application at a time
};

}  // namespace dslash
