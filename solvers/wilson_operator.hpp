#pragma once
// EvenOddWilson<Real, Space>: the Wilson matrix M = (4 + m) - D/2 (docs/CONVENTIONS.md) reduced to the even
// sites, on a DslashKernel's packed buffers. With a = 4 + m, M in even/odd blocks is
//
//   [ a           -D_{e<-o}/2 ] [x_e]   [b_e]
//   [ -D_{o<-e}/2  a          ] [x_o] = [b_o]
//
// The odd rows give x_o = (b_o + D_{o<-e} x_e / 2) / a (reconstruct); put into the even rows,
//
//   M_ee_hat x_e = b_e_hat,  M_ee_hat = a - D_{e<-o} D_{o<-e} / (4a),  b_e_hat = b_e + D_{e<-o} b_o / (2a)
//
// (prepare_source). Its adjoint is a - D_{o<-e}^dagger D_{e<-o}^dagger / (4a), and since the
// checkerboards of D^dagger are (D^dagger)_{e<-o} = (D_{o<-e})^dagger, it is the same formula with the
// dagger kernels.
//
// The hopping term (solvers/hopping_term.hpp) is four kernels of one configuration (family, dispatch,
// ISA, layout, nrhs from the template): D_{e<-o} and D_{o<-e}, and their daggers, on one process or
// decomposed over MPI ranks (then every buffer holds this rank's sites, and norms and inner products
// are summed over the ranks). Even and odd buffers have the same size and layout, so every buffer
// comes from allocate(). With nrhs > 1 (mrhs) a buffer holds all right-hand sides.
#include <complex>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels/dslash_kernel.hpp"
#include "solvers/blas.hpp"
#include "solvers/device_sums.hpp"
#include "solvers/hop_clock.hpp"
#include "solvers/hopping_term.hpp"
#include "solvers/rhs_blas.hpp"

namespace dslash {

// Space: where its vectors live and its kernels run (HostSpace, or CudaSpace: every vector in device
// memory, every BLAS loop a GPU kernel; only the reductions' sums come back to the host).
template <class Real, class Space = HostSpace>
class EvenOddWilson {
 public:
  using vector_type = typename DslashKernel<Real, Space>::spinor_view;
  using memory_space = Space;

  // On one process: config.out and config.dagger are set per kernel; the rest is taken as given.
  // Throws std::invalid_argument where a kernel refuses the configuration or 4 + mass is not positive.
  EvenOddWilson(const GaugeField<Real>& u, double mass, const DslashConfig& config);
  // On a given hopping term (mpi::HaloHopping: decomposed over MPI ranks).
  EvenOddWilson(std::shared_ptr<const HoppingTerm<Real, Space>> hopping, double mass);

  double mass() const { return mass_; }
  const HoppingTerm<Real, Space>& hopping() const { return *hopping_; }
  const DslashConfig& config() const { return d_eo().config(); }
  const Geometry& geometry() const { return d_eo().geometry(); }  // this process's lattice
  PackedComplex complex_layout() const { return packed_complex(d_eo()); }
  // Where each even site's reals are in an even buffer.
  SpinorSlots slots() const;

  // Under MPI, collective: every rank allocates its n-th vector at once (HoppingTerm::allocate).
  vector_type allocate(const std::string& label) const { return hopping_->allocate(label); }
  // nrhs fields of one parity (Even or Odd) <-> a packed buffer.
  void pack(const std::vector<SpinorField<Real>>& fields, const vector_type& packed) const;
  void unpack(const vector_type& packed, std::vector<SpinorField<Real>>& fields) const;

  // out = M_ee_hat in, or M_ee_hat^dagger in (in and out distinct even buffers).
  void apply(const vector_type& in, const vector_type& out, bool dagger = false) const;
  // r = b - M_ee_hat x (r distinct from b and x): every solver's true residual. Returns ||r||^2
  // over the whole lattice, from the pass that writes r.
  double residual(const vector_type& b, const vector_type& x, const vector_type& r) const;
  // b_hat = b_e + D_{e<-o} b_o / (2 (4 + m))
  void prepare_source(const vector_type& b_even, const vector_type& b_odd, const vector_type& b_hat) const;
  // x_o = (b_o + D_{o<-e} x_e / 2) / (4 + m)
  void reconstruct(const vector_type& x_even, const vector_type& b_odd, const vector_type& x_odd) const;
  // apply(), returning from its last pass over out ||out||^2 (CGNR), or ||out||^2, <w, out> and
  // <w2, out> (BiCGStab; w2 = w in the first form), over the whole lattice: the norm and inner
  // products cost no pass of their own where the kernel's epilogue takes them.
  double apply_norm2(const vector_type& in, const vector_type& out, bool dagger = false) const;
  NormDot apply_norm2_dot(const vector_type& in, const vector_type& out, const vector_type& w, bool dagger = false) const;
  NormDot apply_norm2_dot(const vector_type& in, const vector_type& out, const vector_type& w, const vector_type& w2, bool dagger = false) const;
  // apply_norm2 leaving ||out||^2 as sum i of `sums`, and y = a x + b y leaving ||y||^2 there, over
  // the whole lattice: on one process without waiting for the sum (a later pass reads it as a
  // DeviceRatio), over MPI ranks through the host.
  void apply_norm2(const vector_type& in, const vector_type& out, bool dagger, const DeviceSums<Space>& sums, int i) const;
  template <CoefficientOf<Real> A, CoefficientOf<Real> B>
  void axpby_norm2(A a, const vector_type& x, B b, const vector_type& y, const DeviceSums<Space>& sums, int i) const {
    if (hopping_->spans_processes()) sums.set(i, global_sum(dslash::axpby_norm2(a, x, b, y)));
    else dslash::axpby_norm2(a, x, b, y, sums.into(i));
  }
  // ||v||^2 and <x, y> in double, over the whole lattice (every process's sites): the solvers' sums.
  double norm2(const vector_type& v) const;
  std::complex<double> dot(const vector_type& x, const vector_type& y) const;
  // The sums of a fused BLAS pass over this process's sites (blas.hpp) -> over the whole lattice.
  double global_sum(double partial) const;
  NormDot global_sum(NormDot partial) const;
  // ||v_r||^2 of each right-hand side r < config().nrhs, over the whole lattice (one pass:
  // solvers/rhs_blas.hpp). For the driver's per-source scales; a block solver keeps its own passes.
  std::vector<double> rhs_norm2(const vector_type& v) const;
  // Per right-hand side passes over this operator's buffers (solvers/rhs_blas.hpp), their sums over
  // the whole lattice: a block solver's.
  RhsPasses<Space> rhs_passes() const;
  // Hopping-term applications (each over one parity's sites, every right-hand side) since construction:
  // M_ee_hat and its dagger make two, prepare_source and reconstruct one each. 1320 flops a site each.
  std::int64_t dslash_count() const { return dslash_count_; }
  // Seconds spent in them, each call's own (solvers/hop_clock.hpp: on the GPU, CUDA events around
  // its kernels, not the passes queued before it): what a solve's time is compared with.
  double dslash_seconds() const { return clock_.seconds(); }

 private:
  const DslashKernel<Real, Space>& d_eo() const { return hopping_->kernel(Subset::Even, false); }
  const DslashKernel<Real, Space>& kernel(Subset parity) const { return hopping_->kernel(parity, false); }
  // out = M_ee_hat in (or its dagger), returning on this process ||out||^2 when want_norm2, and <w, out>
  // and <w2, out> where w is given (w2 = w where it is not; else zeros); with norm_into set,
  // leaving ||out||^2 there instead, without waiting for it (no inner products).
  NormDot apply_here(const vector_type& in, const vector_type& out, bool dagger, bool want_norm2, const vector_type* w = nullptr,
                     const vector_type* w2 = nullptr, ReduceInto<double> norm_into = {}) const;
  // D_{out<-in} in (or its dagger), counted and timed; hop_xpay: a x + b D in with its norm (and
  // <w, result>, <w2, result> where w is given), where the hopping term fuses them (else nullopt,
  // nothing done).
  void hop(Subset out, bool dagger, const vector_type& in, const vector_type& result) const;
  std::optional<NormDot> hop_xpay(Subset out, bool dagger, const vector_type& in, Real a, const vector_type& x, Real b, const vector_type& result,
                                  const vector_type* w, const vector_type* w2) const;
  // Runs a hopping-term call that returns whether it ran (a GPU's returns before its kernels end); a
  // call that ran counts as `hops` Dslash applications and adds its time.
  template <class Call>
  auto counted(const Call& call, int hops = 1) const;

  double mass_;
  std::shared_ptr<const HoppingTerm<Real, Space>> hopping_;
  vector_type odd_scratch_;  // D_{o<-e} in, inside apply()
  // A folded layout's slot of each even site and the even site in each slot, for slots().
  View<index_t, 1, LayoutRight, Space> even_slots_, even_sites_;
  mutable std::int64_t dslash_count_ = 0;
  mutable HopClock<Space> clock_;
};

// dst (op_to's precision and layout) = src (op_from's), both even buffers, in Space: element by
// element where the two layouts are the same (naive; the same precision), else site by site through
// the two layouts' slots, since the precisions' SIMD layouts differ in their lane counts (mrhs, vnode).
template <class To, class From, class Space>
void convert(const EvenOddWilson<From, Space>& op_from, const typename EvenOddWilson<From, Space>::vector_type& src, const EvenOddWilson<To, Space>& op_to,
             const typename EvenOddWilson<To, Space>::vector_type& dst);
// y += x and x = 0, x of op_from's precision and layout and y of op_to's (both even buffers): a
// reliable update's x += x_s in one pass.
template <class To, class From, class Space>
void add_and_zero(const EvenOddWilson<From, Space>& op_from, const typename EvenOddWilson<From, Space>::vector_type& x, const EvenOddWilson<To, Space>& op_to,
                  const typename EvenOddWilson<To, Space>::vector_type& y);
// y += x + c p and x = 0, p of op_from's too: the same with the share of x_s that an iteration has
// not added yet (CG's alpha p), in the same pass.
template <class To, class From, class Space>
void add_and_zero(const EvenOddWilson<From, Space>& op_from, const typename EvenOddWilson<From, Space>::vector_type& x, DeviceRatio<From> c,
                  const typename EvenOddWilson<From, Space>::vector_type& p, const EvenOddWilson<To, Space>& op_to,
                  const typename EvenOddWilson<To, Space>::vector_type& y);
// dst = x - y in op_to's precision and layout, x and y of op_from's (even buffers), returning
// ||x - y||^2 over the whole lattice from the same pass: a reliable update's true residual b - M x
// taken to the sloppy precision, one pass instead of a subtraction and a conversion.
template <class To, class From, class Space>
double convert_difference(const EvenOddWilson<From, Space>& op_from, const typename EvenOddWilson<From, Space>::vector_type& x,
                          const typename EvenOddWilson<From, Space>::vector_type& y, const EvenOddWilson<To, Space>& op_to,
                          const typename EvenOddWilson<To, Space>::vector_type& dst);

}  // namespace dslash
