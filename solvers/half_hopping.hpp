#pragma once
// The hopping term in half precision storage (DslashConfig::half; docs/CONVENTIONS.md), the sloppy
// operator of a double-half solve (solve --prec mixed --sloppy half): its kernels read and write
// 16-bit codes with a norm a site, while the solver's vectors stay single. Each application encodes
// its input into the kernel's half buffer, runs the half kernel and decodes its output: two light
// passes around a Dslash that moves half the bytes (on one process, two around both hops of the
// even-odd operator: apply_pair). Over MPI ranks it runs inside a single precision hopping term's
// halo (HoppingTerm::apply_around): the half kernels take this rank's own hops, and the halo's hops
// travel and are added as that term's, in single precision.
#include <memory>
#include <span>
#include <string>

#include "kernels/dslash_kernel.hpp"
#include "solvers/hopping_term.hpp"

namespace dslash {

template <class Space>
class HalfHopping final : public HoppingTerm<float, Space> {
 public:
  using vector_type = typename HoppingTerm<float, Space>::vector_type;
  // config.half is set; config.out and config.dagger are set per kernel. halo: a single precision
  // hopping term of the same configuration on the same lattice that spans processes (its kernels'
  // config().halo says which directions are split), or null on one process.
  HalfHopping(const GaugeField<float>& u, const DslashConfig& config, std::shared_ptr<const HoppingTerm<float, Space>> halo = nullptr)
      : halo_(std::move(halo)), kernels_(u, with_half(config, halo_.get())),
        in_(kernel(Subset::Even, false).allocate_half_spinors("half_hopping_in")),
        out_(kernel(Subset::Even, false).allocate_half_spinors("half_hopping_out")) {}
  const DslashKernel<float, Space>& kernel(Subset out, bool dagger) const override { return kernels_.kernel(out, dagger); }
  vector_type allocate(const std::string& label) const override { return halo_ ? halo_->allocate(label) : HoppingTerm<float, Space>::allocate(label); }
  void apply(Subset out, bool dagger, const vector_type& in, const vector_type& result) const override {
    const DslashKernel<float, Space>& k = kernel(out, dagger);
    const auto local = [&] {
      k.encode(in, in_);
      k.apply(in_, out_);
      k.decode(out_, result);
    };
    if (halo_) halo_->apply_around(out, dagger, in, result, local);
    else local();
  }
  // On one process: encode, two half kernels, decode (the odd vector stays in half precision codes).
  // Over processes the second hop's halo is projected from the odd vector in single precision.
  bool applies_pairs() const override { return !halo_; }
  void apply_pair(bool dagger, const vector_type& in, const vector_type& result) const override {
    const DslashKernel<float, Space>& to_odd = kernel(Subset::Odd, dagger);
    const DslashKernel<float, Space>& to_even = kernel(Subset::Even, dagger);
    to_odd.encode(in, in_);
    to_odd.apply(in_, out_);
    to_even.apply(out_, in_);
    to_even.decode(in_, result);
  }
  void sum(std::span<double> partials) const override {
    if (halo_) halo_->sum(partials);
  }
  bool spans_processes() const override { return halo_ && halo_->spans_processes(); }
  const char* transport() const override { return halo_ ? halo_->transport() : nullptr; }

 private:
  static DslashConfig with_half(DslashConfig c, const HoppingTerm<float, Space>* halo) {
    c.half = true;
    if (halo) c.halo = halo->kernel(Subset::Even, false).config().halo;  // the hops that cross to another process are the halo's
    return c;
  }
  std::shared_ptr<const HoppingTerm<float, Space>> halo_;
  LocalHopping<float, Space> kernels_;  // its four kernels, whose own hops are on half buffers
  HalfSpinors<Space> in_, out_;  // the kernels' codes: one application (or pair) at a time
};

}  // namespace dslash
