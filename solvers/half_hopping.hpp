#pragma once
// The hopping term in half precision storage (DslashConfig::half; docs/CONVENTIONS.md): its kernels
// read and write 16-bit codes with a norm a site, while the solver's vectors stay single. Each
// application encodes its input into the kernel's half buffer, runs the half kernel and decodes its
// output: two light passes around a Dslash that moves half the bytes. The sloppy operator of a
// double-half solve (solve --prec mixed --sloppy half); one process (the half kernels have no halo).
#include <array>
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
      : kernels_{DslashKernel<float, Space>(u, with(config, Subset::Even, false)), DslashKernel<float, Space>(u, with(config, Subset::Even, true)),
                 DslashKernel<float, Space>(u, with(config, Subset::Odd, false)), DslashKernel<float, Space>(u, with(config, Subset::Odd, true))},
        in_(kernels_[0].allocate_half_spinors("half_hopping_in")),
        out_(kernels_[0].allocate_half_spinors("half_hopping_out")) {}
  const DslashKernel<float, Space>& kernel(Subset out, bool dagger) const override {
    return kernels_[static_cast<std::size_t>((out == Subset::Even ? 0 : 2) + (dagger ? 1 : 0))];
  }
  void apply(Subset out, bool dagger, const vector_type& in, const vector_type& result) const override {
    const DslashKernel<float, Space>& k = kernel(out, dagger);
    k.encode(in, in_);
    k.apply(in_, out_);
    k.decode(out_, result);
  }

 private:
  static DslashConfig with(DslashConfig c, Subset out, bool dagger) {
    c.out = out;
    c.dagger = dagger;
    c.half = true;
    return c;
  }
  std::array<DslashKernel<float, Space>, 4> kernels_;
  HalfSpinors<Space> in_, out_;  // the kernels' input and output codes: one application at a time
};

}  // namespace dslash
