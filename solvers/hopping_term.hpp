#pragma once
// The hopping term D between the checkerboards, as the even-odd Wilson operator uses it: D_{out<-in}
// and its dagger on a DslashKernel's packed buffers, and the sums over the whole lattice of numbers
// that each process holds a part of (norms, inner products).
//   LocalHopping (here)       one process: four DslashKernels, sums as they are
//   mpi::HaloHopping (src/mpi) decomposed over MPI ranks: halo-exchanging kernels, MPI_Allreduce sums
// So EvenOddWilson and the solvers run unchanged on one process or many, and know nothing of MPI.
#include <array>
#include <complex>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include "kernels/dslash_kernel.hpp"

namespace dslash {

template <class Real, class Space>
class HoppingTerm {
 public:
  using vector_type = typename DslashKernel<Real, Space>::spinor_view;
  virtual ~HoppingTerm() = default;

  // The kernel that computes D_{out<-neighbour(out)} (or its dagger) on this process's sites: its
  // layout, buffers and packing.
  virtual const DslashKernel<Real, Space>& kernel(Subset out, bool dagger) const = 0;
  // A buffer for any of the four kernels, even or odd (one size and layout): the kernels'
  // allocate_spinors(), or where the halo is read in place, one that the neighbours read it from.
  virtual vector_type allocate(const std::string& label) const { return kernel(Subset::Even, false).allocate_spinors(label); }
  // result = D_{out<-neighbour(out)} in, or its dagger (on the GPU it may return before it is done:
  // Space::execution_space::fence() waits).
  virtual void apply(Subset out, bool dagger, const vector_type& in, const vector_type& result) const = 0;
  // result = a x + b D in, with ||result||^2 and, where w is given, <w, result> and <w2, result> on this process,
  // in one pass where the hopping term can (DslashKernel::apply_xpay); nullopt, with nothing done,
  // where it cannot (halo faces to add, compressed links).
  virtual std::optional<NormDot> apply_xpay(Subset out, bool dagger, const vector_type& in, Real a, const vector_type& x, Real b,
                                            const vector_type& result, const vector_type* w, const vector_type* w2) const {
    (void)out, (void)dagger, (void)in, (void)a, (void)x, (void)b, (void)result, (void)w, (void)w2;
    return std::nullopt;
  }
  // The same with the norm alone, left at norm (DslashKernel::apply_xpay_into) without waiting for it;
  // false, with nothing done, where it cannot.
  virtual bool apply_xpay_into(Subset out, bool dagger, const vector_type& in, Real a, const vector_type& x, Real b, const vector_type& result,
                               ReduceInto<double> norm) const {
    (void)out, (void)dagger, (void)in, (void)a, (void)x, (void)b, (void)result, (void)norm;
    return false;
  }
  // Whether apply_pair runs: result = D_{e<-o} D_{o<-e} in (or the daggers of both), the odd vector
  // between them kept in the term's own storage (HalfHopping on one process: its half precision
  // codes). Elsewhere the odd vector is the solver's (two apply calls).
  virtual bool applies_pairs() const { return false; }
  virtual void apply_pair(bool dagger, const vector_type& in, const vector_type& result) const {
    (void)dagger, (void)in, (void)result;
    throw std::logic_error("HoppingTerm::apply_pair: this hopping term keeps no odd vector");
  }
  // result = D in, where local() writes this process's own hops into result (kernels of this
  // term's layout on other storage: HalfHopping's half precision ones) and the hops from other
  // processes are added to it after (mpi::HaloHopping: projected from in, and completed by the face
  // kernels). On one process, local() alone.
  virtual void apply_around(Subset out, bool dagger, const vector_type& in, const vector_type& result, const std::function<void()>& local) const {
    (void)out, (void)dagger, (void)in, (void)result;
    local();
  }
  // Partial sums computed on this process -> the sums over every process, in place, in the same
  // order on every call.
  virtual void sum(std::span<double> partials) const { (void)partials; }
  // Whether sum() has other processes' partials to add: then a sum must come through the host.
  virtual bool spans_processes() const { return false; }
  // Where it spans processes: how its halos travel (a solve reports it), and its hops since
  // construction that read the halo in place from the neighbours' inputs. nullptr and 0 on one process.
  virtual const char* transport() const { return nullptr; }
  virtual std::int64_t calls_read_in_place() const { return 0; }
};

// D on one process: its four kernels.
template <class Real, class Space>
class LocalHopping final : public HoppingTerm<Real, Space> {
 public:
  using vector_type = typename HoppingTerm<Real, Space>::vector_type;
  // config.out and config.dagger are set per kernel.
  LocalHopping(const GaugeField<Real>& u, const DslashConfig& config)
      : LocalHopping(DslashKernel<Real, Space>(u, with(config, Subset::Even, false)), DslashKernel<Real, Space>(u, with(config, Subset::Odd, false))) {}

  const DslashKernel<Real, Space>& kernel(Subset out, bool dagger) const override {
    return kernels_[static_cast<std::size_t>((out == Subset::Even ? 0 : 2) + (dagger ? 1 : 0))];
  }
  void apply(Subset out, bool dagger, const vector_type& in, const vector_type& result) const override { kernel(out, dagger).apply(in, result); }
  std::optional<NormDot> apply_xpay(Subset out, bool dagger, const vector_type& in, Real a, const vector_type& x, Real b, const vector_type& result,
                                    const vector_type* w, const vector_type* w2) const override {
    const DslashKernel<Real, Space>& k = kernel(out, dagger);
    if (!k.fuses_xpay(false, w != nullptr)) return std::nullopt;  // compressed links: the BLAS pass
    return k.apply_xpay(in, result, {.a = a, .x = &x, .b = b, .w = w, .w2 = w2});
  }
  bool apply_xpay_into(Subset out, bool dagger, const vector_type& in, Real a, const vector_type& x, Real b, const vector_type& result,
                       ReduceInto<double> norm) const override {
    const DslashKernel<Real, Space>& k = kernel(out, dagger);
    if (!k.fuses_xpay(false, false)) return false;
    k.apply_xpay(in, result, {.a = a, .x = &x, .b = b, .norm_into = norm});
    return true;
  }

  static DslashConfig with(DslashConfig c, Subset out, bool dagger) {
    c.out = out;
    c.dagger = dagger;
    return c;
  }

 private:
  // Each parity's dagger shares its links (DslashKernel::with_dagger).
  LocalHopping(const DslashKernel<Real, Space>& even, const DslashKernel<Real, Space>& odd)
      : kernels_{even, even.with_dagger(true), odd, odd.with_dagger(true)} {}
  std::array<DslashKernel<Real, Space>, 4> kernels_;
};

}  // namespace dslash
