#pragma once
// DslashKernel<Real, Space>: one configured Wilson Dslash (family x dispatch x ISA x parity x dagger)
// on a gauge field, with its packed links and spinor buffers in memory space Space. Construction
// validates the configuration against the lattice and packs the links into the kernel's layout;
// apply() on packed spinors is the part a benchmark times.
//
//   DslashKernel<float> d(u, {.kernel = KernelFamily::Vnode, .dispatch = Dispatch::MDRange,
//                             .isa = best_isa(), .out = Subset::Even});
//   auto chi = d.apply(psi);  // psi: odd-parity fields; chi: even-parity fields
//
// Space = CudaSpace (a build with CUDA) runs the same kernel bodies on the GPU (kernels/cuda_runners.cuh)
// with SIMT lanes (SimdIsa::Simt) and the component-major layout, site fastest, that a warp
// coalesces; config().isa and config().layout say so. apply() is then asynchronous, as a GPU launch
// (Cuda::fence() waits); pack, unpack and the vector apply() copy through host memory and wait.
#include <cmath>
#include <complex>
#include <optional>
#include <string>
#include <vector>

#include "dslash/core/view.hpp"
#include "dslash/lattice/gauge_field.hpp"
#include "dslash/lattice/spinor_field.hpp"
#include "kernels/dslash_runner.hpp"
#include "kernels/face_links.hpp"
#include "kernels/cache_policy.hpp"
#include "kernels/kernel_layout.hpp"

namespace dslash {

// ||y||^2, <w, y> = sum conj(w) y and <w2, y> of a buffer, summed in double: what the epilogue of
// DslashKernel::apply_xpay returns, and the solvers' fused BLAS passes (solvers/blas.hpp). dot2 is
// <w, y> again where a pass takes no second vector.
struct NormDot {
  double norm2 = 0;
  std::complex<double> dot, dot2;

  // The five doubles in the order the passes accumulate them: ||y||^2, <w, y> (re, im), <w2, y> (re, im).
  static NormDot from_sums(const std::array<double, 5>& s) { return {s[0], {s[1], s[2]}, {s[3], s[4]}}; }
  std::array<double, 5> sums() const { return {norm2, dot.real(), dot.imag(), dot2.real(), dot2.imag()}; }
};

// The SIMD probe of an instruction set (for tests); throws if it is not compiled in.
template <class Real>
SimdProbe<Real> simd_probe(SimdIsa isa);
template <class Real>
MachineProbe<Real> machine_probe(SimdIsa isa);

// Gauge compression on the host (what is stored: kernels/link_compression.hpp). `reals` is 18, 12
// or 8 (checked_compression throws std::invalid_argument for anything else, naming the choices).
int checked_compression(int reals, const std::string& option = "--compress");
// Link u's `reals` stored reals, in the kernels' order.
template <class Real>
void compress_link(const ColourMatrix<Real>& u, int reals, Real* out);
// The link the kernels rebuild from them, with the kernels' own arithmetic (one scalar lane).
template <class Real>
ColourMatrix<Real> decompress_link(const Real* stored, int reals);
// How far from SU(3) a link may be for 12 or 8 (max |U U^dagger - 1| and |det U - 1|): rounding is
// ~1e-7 single and ~1e-16 double, so these pass any field built or read as SU(3) in the precision and
// refuse one that is not (e.g. 1e-7 off, read in double), whose compressed answer would differ.
template <class Real>
constexpr double su3_tolerance() { return sizeof(Real) == 4 ? 1e-5 : 1e-12; }
// How far from its link the 8-real rebuild may land: its error grows as |U00| -> 0 to about
// sqrt(epsilon) (kernels/link_compression.hpp); this allows about 16 sqrt(epsilon), so what it
// refuses are the links it cannot rebuild at all (|U00| = 1: unit links).
template <class Real>
constexpr double rebuild_tolerance() { return sizeof(Real) == 4 ? 5e-3 : 2.5e-7; }
// Half precision storage (DslashConfig::half): a real is off by at most its site's norm x 2^-15, so
// a spinor by kHalfSpinorError of its 2-norm and a link by half_link_error(reals) in the 2-norm
// (whole, norm 1: sqrt(18) 2^-15; from 12 reals 6 x 2^-15, the third row a cross product of two
// coded unit rows; from 8, three times single's own rebuild tolerance, per entry near |U00| -> 0).
// Each of D's 8 hops (U (1 +- gamma), norm <= 2) carries the inputs' errors and the output adds its
// own encoding and single's arithmetic, so against the exact D psi of the unrounded inputs
//   |out - D psi| / |D psi| <= 16 (half_link_error + kHalfSpinorError) |psi| / |D psi| + kHalfSpinorError + 1e-5.
inline const double kHalfSpinorError = std::sqrt(24.0) * 0x1p-15;
inline double half_link_error(int reals) {
  return reals == 18 ? std::sqrt(18.0) * 0x1p-15 : reals == 12 ? 6 * 0x1p-15 : 3 * rebuild_tolerance<float>();
}
inline double half_precision_bound(int link_reals, double input_over_output_norm) {
  return 16 * (half_link_error(link_reals) + kHalfSpinorError) * input_over_output_norm + kHalfSpinorError + 1e-5;
}
// Throws std::invalid_argument naming the first link (x,y,z,t,mu) that `reals` cannot store: one not
// SU(3) within su3_tolerance, or, for 8, one its rebuild misses by more than rebuild_tolerance.
// `option` is what the user gave `reals` as (a solve's sloppy links come from --compress-sloppy).
template <class Real>
void check_compressible(const GaugeField<Real>& u, int reals, const std::string& option = "--compress");

// What one launch covers (DslashKernel::apply, apply_xpay): every output site, or those of outer t
// in [slab->begin, slab->end); the split directions' hops left out, or read from `received` in the
// same launch (CPU only; out then has the bits of apply followed by DslashFaces::complete).
struct TSlab {
  index_t begin = 0, end = 0;
};
template <class Real>
struct ApplyOptions {
  std::optional<TSlab> slab{};
  std::optional<ReceivedHalo<Real>> received{};
};

// The epilogue of DslashKernel::apply_xpay: out = a x + b D in, with ||out||^2 and, where w is set,
// <w, out> and <w2, out> (BiCGStab's; w2 = w where not set), summed in double over the launch's
// sites. Where they go: returned (neither set); norm_into: ||out||^2 alone (no w); sums_into: all
// five (EpilogueSums, w set) -- left in the kernel's memory space, the launch not waited for.
// local: the split directions' hops left out, the caller completing the faces with b times the
// halo's hops (the xpay is linear: DslashFaces::complete_both with a FaceXpay).
template <class Real, class Space = HostSpace>
struct Xpay {
  using spinor_view = View<Real, 1, LayoutRight, Space>;
  Real a = 1;
  const spinor_view* x = nullptr;  // required
  Real b = 1;
  const spinor_view* w = nullptr;
  const spinor_view* w2 = nullptr;
  std::optional<ReduceInto<double>> norm_into{};
  std::optional<ReduceInto<EpilogueSums>> sums_into{};
  bool local = false;
};

// A half precision kernel's spinors (DslashConfig::half): the codes at the offsets a float buffer's
// reals would have, and one norm per (outer site, block, lane) (RunFixed16).
template <class Space = HostSpace>
struct HalfSpinors {
  View<std::int16_t, 1, LayoutRight, Space> codes;
  View<float, 1, LayoutRight, Space> norms;
};

template <class Real, class Space = HostSpace>
class DslashKernel {
 public:
  using spinor_view = View<Real, 1, LayoutRight, Space>;
  using half_spinors = HalfSpinors<Space>;

  // Throws std::invalid_argument with the reason (a lattice the folding cannot take, an nrhs the
  // lanes do not divide, an ISA this CPU lacks, links that config.compress cannot store, ...).
  // below: in a split direction (config.halo), the backward hops' links of the lower face come
  // from the domain below (kernels/face_links.hpp), as the halo's hops there need them; else the
  // domain wraps onto itself.
  DslashKernel(const GaugeField<Real>& u, const DslashConfig& config, const FaceLinks<Real>* below = nullptr);
  // The constructor's checks of the configuration on a lattice of `geom` (all but those of the
  // links themselves), with the same messages, and the configuration a kernel would run with: for
  // callers that refuse a launch before they spend time on anything else.
  static DslashConfig check_config(const Geometry& geom, const DslashConfig& config);

  const DslashConfig& config() const { return cfg_; }
  // This kernel with config().dagger as given, sharing its links: the dagger changes the projectors'
  // signs, not a link, so D and D^dagger of one output parity need one copy of them.
  DslashKernel with_dagger(bool dagger) const {
    DslashKernel k = *this;
    k.cfg_.dagger = dagger;
    return k;
  }
  const KernelLayout& layout() const { return layout_; }
  const Geometry& geometry() const { return geom_; }  // the lattice (the domain, under MPI) it acts on
  // U_mu on the upper face of the domain below, per split direction: `below`, or this domain's own.
  const FaceLinks<Real>& links_below() const { return below_; }
  // Where (outer site, block, component) lives in this kernel's spinor buffers.
  KernelLayout::Strides spinor_strides() const;
  const std::string& label() const { return label_; }  // e.g. "dslash_vnode_avx2_f32_mdrange"
  Subset in_subset() const;
  Subset out_subset() const { return cfg_.out; }
  site_t output_sites() const;  // lattice sites written per right-hand side

  // The right-hand sides its buffers hold: config().nrhs, padded with zero ones to whole vectors of
  // lanes for mrhs (padded_rhs). pack() zeroes the padding, unpack() leaves it out.
  int rhs_slots() const { return layout_.folded ? 1 : layout_.blocks * layout_.lanes; }
  // A spinor buffer in this kernel's layout for all rhs_slots() right-hand sides (input and output alike).
  spinor_view allocate_spinors(const std::string& label) const;
  std::uint64_t spinor_bytes() const;
  std::uint64_t link_bytes() const { return links_.span_bytes() + half_links_.span_bytes(); }
  // nrhs fields of in_subset() -> packed; packed -> nrhs fields of out_subset().
  void pack(const std::vector<SpinorField<Real>>& in, const spinor_view& packed) const;
  void unpack(const spinor_view& packed, std::vector<SpinorField<Real>>& out) const;
  // The same for a half precision kernel (config().half): each site encoded with its own norm.
  half_spinors allocate_half_spinors(const std::string& label) const;
  std::uint64_t half_spinor_bytes() const;  // codes and norms
  void pack(const std::vector<SpinorField<Real>>& in, const half_spinors& packed) const;
  void unpack(const half_spinors& packed, std::vector<SpinorField<Real>>& out) const;
  // One launch of a half precision kernel (the whole lattice; split directions' hops left out, no epilogue).
  void apply(const half_spinors& in, const half_spinors& out) const;
  // Floats in this kernel's layout <-> its half buffers, on the device where Space is (the
  // conversions of a half precision kernel's inputs and outputs: solvers/half_hopping.hpp).
  void encode(const spinor_view& in, const half_spinors& out) const;
  void decode(const half_spinors& in, const spinor_view& out) const;
  // Where a (site, block)'s norm vector of W lanes is in its half buffers, in vectors: site x first
  // + block x second (RunFixed16).
  std::pair<index_t, index_t> half_norm_strides() const;

  // One launch of D on the output sites (opts: a t slab, the received halo). CPU: the split
  // directions' hops are left out unless opts.received holds them (DslashFaces::complete adds them).
  void apply(const spinor_view& in, const spinor_view& out, const ApplyOptions<Real>& opts = {}) const;
  // out = xp.a xp.x + xp.b D in in one pass (QUDA's Dslash with xpay; x in the output's layout): the
  // even-odd operator's last pass fused into its second hop. The sums (Xpay) are returned, or left
  // in the kernel's memory without waiting (xp.norm_into, xp.sums_into). Refused (std::invalid_argument)
  // where !fuses_xpay(opts.received, xp.w) or, with xp.local, !fuses_local_xpay(xp.w).
  NormDot apply_xpay(const spinor_view& in, const spinor_view& out, const Xpay<Real, Space>& xp, const ApplyOptions<Real>& opts = {}) const;
  bool fuses_local_xpay(bool with_dot = false) const { return epilogue_refusal(with_dot).empty(); }
  // Where the kernel asks for later sites' links ahead of their hops: config().link_prefetch as it
  // runs (Auto: into L1), on a CPU with 512-bit vectors and site-major links; None elsewhere.
  LinkPrefetch link_prefetch() const { return cfg_.link_prefetch; }
  // Whether apply_xpay can run here: whole links (18 reals; the epilogue is built for those, and
  // without the inner product for the 12 of the GPU's naive and vnode single kernels:
  // kernels/dslash_body.hpp), and no halo
  // directions, or (with_halo) their halo read in the kernel. With the inner product (with_dot):
  // not in the GPU's naive kernel.
  bool fuses_xpay(bool with_halo = false, bool with_dot = false) const { return xpay_refusal(with_halo, with_dot).empty(); }
  // The z-planes a block of the team traversal holds (config().block_z; 0 there runs index order).
  index_t block_z() const { return cfg_.block_z; }
  index_t outer_t() const { return layout_.outer[3]; }
  // The memory traffic of apply() alone: the same sites in the same order, each reading its links
  // and its 8 neighbours' spinors and streaming out its output, one add per load and no Dslash
  // (kernels/machine_probe.hpp, run_traffic). What the access pattern allows out of cache.
  // Not on the GPU: throws std::invalid_argument there.
  void apply_traffic(const spinor_view& in, const spinor_view& out) const;
  // Changes only the launch shape (tile, team size, sites per team): what a tuner varies.
  void set_launch(const std::array<index_t, 4>& tile, int team_size, index_t sites_per_team);
  std::vector<SpinorField<Real>> apply(const std::vector<SpinorField<Real>>& in) const;  // pack, apply, unpack
  // The packed slot (outer index * lanes + lane) that holds each site of a `subset` field, by the
  // field's storage index: where pack() puts a site, for code that moves packed data between layouts.
  std::vector<index_t> slots_of_sites(Subset subset) const;
  // The face kernels of the same family and instruction set (kernels/dslash_faces.hpp).
  FaceRunner<Real> face_runner() const { return face_runner_; }
  // Every face in one launch (DslashFaces::project_all); null on the GPU.
  FacesProjectRunner<Real> project_all_runner() const { return project_all_runner_; }

 private:
  // The configuration checked and resolved (isa, layout, block_z, launch shape), its layout, and
  // the words its messages name it by.
  struct Resolved {
    DslashConfig cfg;
    KernelLayout layout;
    std::string what;
  };
  // The constructor's three steps: the configuration checked against the lattice (also
  // check_config's), the runners of its family and instruction set with the label, and the links
  // checked (compression, the domain below's face links) and packed into the kernel's layout.
  static Resolved validate(const Geometry& geom, const DslashConfig& config);
  void select_runners();
  void pack_links(const GaugeField<Real>& u, const FaceLinks<Real>* below, const std::string& what);
  // set_launch's checks and resolution on cfg, for a kernel of `lanes` lanes.
  static void launch(DslashConfig& cfg, int lanes, const std::array<index_t, 4>& tile, int team_size, index_t sites_per_team);
  // Calls f(storage index in a `subset` field, lane, packed outer index) for every packed slot.
  template <class F>
  void for_each_slot(Subset subset, const F& f) const;
  std::string xpay_refusal(bool with_halo, bool with_dot) const;  // why apply_xpay cannot run here; empty where it can
  std::string epilogue_refusal(bool with_dot) const;              // the same for the links alone (what the epilogue is built for)
  // The halo's checks of a launch with opts.received: the GPU, a split direction without its messages.
  void check_received(const ReceivedHalo<Real>& received) const;
  // The checks every launch makes (buffer sizes, the slab, the received halo), and its arguments.
  RunArgs<Real> run_args(const spinor_view& in, const spinor_view& out, const ApplyOptions<Real>& opts) const;
  RunArgs<Real> launch_args(const ApplyOptions<Real>& opts) const;  // run_args without the buffers
  RunArgs<Real> half_args(const half_spinors* in, const half_spinors* out) const;  // a half precision launch's, with its checks
  // Where the kernel's outer sites are: output sites over the folded lanes.
  index_t outer_sites() const { return output_sites() / (layout_.folded ? layout_.lanes : 1); }

  DslashConfig cfg_;
  Geometry geom_;
  FaceLinks<Real> below_;
  KernelLayout layout_;
  spinor_view links_;
  View<std::int16_t, 1, LayoutRight, Space> half_links_;  // config().half: the links' codes instead
  DslashRunner<Real> runner_ = nullptr;
  DslashRunner<Real> half_runner_ = nullptr, encode_runner_ = nullptr, decode_runner_ = nullptr;
  FaceRunner<Real> face_runner_ = nullptr;
  FacesProjectRunner<Real> project_all_runner_ = nullptr;
  DslashRunner<Real> traffic_runner_ = nullptr;
  std::string label_;
};

}  // namespace dslash
