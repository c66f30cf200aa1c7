#pragma once
// HaloDslash<Real, Space>: a DslashKernel on this rank's block of the lattice, with the hops that
// cross to a neighbouring rank exchanged as spin-projected half spinors (kernels/dslash_faces.hpp).
// One apply runs in stages, each timed per call (HaloCallTimes):
//   project -> post (MPI_Startall) -> interior (+ progress) -> wait (MPI_Waitall) -> complete
// A CPU rank projects every face in one launch (DslashFaces::project_all), a GPU rank per direction.
// Where the halo is in before the interior, a CPU rank's interior launch adds the remote hops itself
// (HaloComplete::Auto, a ReceivedHalo), so a boundary site is written once; same bits as complete.
// The halo moves through one HaloTransport (mpi/halo_transport.hpp), picked once from the options:
// CPU ranks' inputs (the kernel reads the neighbours' inputs in place), shared (the projections write
// the neighbours' receive buffers) or mpi (messages, which Open MPI moves only inside MPI calls:
// hence the progress strategies, Chunks and Thread). GPU ranks (Space = CudaSpace, mpi/gpu_ranks.hpp)
// run the interior on a low-priority stream and the faces on a high-priority one, the messages staged
// through pinned host buffers or written peer to peer (CUDA IPC); the completion follows the interior
// in its stream, so no launch waits on the other stream for the interior.
// Progress::None launches the interior after the wait. docs/DESIGN.md, "The halo", has the
// timelines; docs/MPI.md the figures.
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "kernels/dslash_faces.hpp"
#include "kernels/dslash_kernel.hpp"
#include "mpi/halo_exchange.hpp"
#include "mpi/halo_options.hpp"
#include "mpi/halo_transport.hpp"
#include "mpi/process_grid.hpp"

namespace dslash::mpi {

// Seconds of one apply on this rank, stage by stage. The stages follow one another, so they add up
// to about the call; `transfer` overlaps them.
struct HaloCallTimes {
  std::array<double, 4> project{}, complete{};  // [mu]: both hops, one launch (DslashFaces::*_both); 0 where mu is not split
  double project_all = 0;  // a CPU rank's projections: every face, one launch (DslashFaces::project_all); project[] stays 0
  double post = 0, interior = 0;
  double progress = 0;  // Chunks: the MPI_Testall calls between the slabs
  double wait = 0, call = 0;
  double transfer = 0;  // post -> every message seen done (at a test or the wait)
  // The GPU (0 on a CPU): the send buffers' way out (DeviceHaloTransport::send_out; staged: the copy
  // to the host, peer: the copies into the neighbours' receive buffers, or after a remote write its
  // event) and the received halo's copy in (bring_in; staged only).
  double send_out = 0, bring_in = 0;
  // The GPU's call as a timeline, where the stages above leave time unaccounted: when each piece
  // ended on the GPU (seconds after the interior's start, the GPU's clock: the interior itself ends
  // at `interior`) and when the host got past each of its steps (seconds after the call's start,
  // the host's clock).
  // boundary_done: where the boundary t-slabs run beside the interior (HaloDslash::boundary_beside),
  // when the later of them ended; else 0.
  struct Timeline {
    double faces_out = 0, boundary_done = 0, complete_done = 0;                  // GPU
    double host_faces_out = 0, host_notices_in = 0, host_complete_launched = 0;  // host (peer: faces queued, not out)
  } at;
  double stages() const;
};

template <class Real, class Space = HostSpace>
class HaloDslash {
 public:
  using spinor_view = typename DslashKernel<Real, Space>::spinor_view;
  static constexpr bool kDevice = !Space::host_accessible;

  // Collective. cfg.halo is set from the grid's split directions. A configuration the kernel cannot
  // take on the local lattice (vnode folding, nrhs) is a CollectiveError naming the local lattice.
  // On the GPU, the rank must already be bound to its device (mpi::bind_gpu). inputs_of: another
  // HaloDslash on this grid whose allocate_spinors() buffers this one reads in place too (where both
  // are "inputs"), so that the four kernels of a hopping term share one set of buffers (HaloHopping).
  // links_of: another HaloDslash on this grid of the same configuration but the dagger, whose
  // kernel's links this one's shares (DslashKernel::with_dagger).
  HaloDslash(const ProcessGrid& grid, const GaugeField<Real>& local_u, DslashConfig cfg, HaloOptions options = {},
             const HaloDslash* inputs_of = nullptr, const HaloDslash* links_of = nullptr);
  ~HaloDslash();

  const DslashKernel<Real, Space>& kernel() const { return kernel_; }
  Subset in_subset() const { return kernel_.in_subset(); }

  // Collective (every rank its n-th buffer at once). A buffer for apply(): where transport() is
  // "inputs", in a shared window that the neighbours read their halo from when it is an apply's
  // input; else kernel().allocate_spinors(label). Every rank of a call must pass its buffer of the
  // same allocation (or every rank one of its own): the two kinds synchronise differently.
  spinor_view allocate_spinors(const std::string& label);

  // Collective. in/out: buffers from allocate_spinors() or kernel().allocate_spinors(). Every strategy gives the same bits.
  // On the GPU it returns with the result complete in `out`.
  void apply(const spinor_view& in, const spinor_view& out, Progress progress);
  // Collective. out = a x + b D in, the even-odd operator's last pass in the kernel's epilogue
  // (DslashKernel::apply_xpay), returning ||out||^2 and, where w is given, <w, out> and <w2, out> on this rank;
  // where the halo's hops are added in the kernel (completion(progress) is "kernel") and the kernel
  // fuses the epilogue (whole links). GPU ranks, overlapped with t alone split (boundary_beside):
  // split linearly, a x + b D_local in in the slabs' kernels and b times the halo's hops in its
  // completion, which finishes the boundary slabs (DslashFaces::complete_both with a FaceXpay), each
  // with its sums; with w, where the kernel's epilogue takes an inner product (not the GPU's naive).
  // Elsewhere nullopt, with nothing done.
  std::optional<NormDot> apply_xpay(const spinor_view& in, Real a, const spinor_view& x, Real b, const spinor_view& out, Progress progress,
                                    const spinor_view* w = nullptr, const spinor_view* w2 = nullptr);
  // Collective. out = D in where local() writes this rank's own hops into out (a kernel of this
  // one's halo configuration on other storage: the half precision kernels of solvers/half_hopping.hpp);
  // the halo's hops are projected from in, moved while local() runs, and added to out by the face
  // kernels after it. On the GPU, local() launches on the interior's stream.
  void apply_around(const spinor_view& in, const spinor_view& out, const std::function<void()>& local);
  // Collective. Local fields in, local fields out (pack, apply, unpack).
  std::vector<SpinorField<Real>> apply(const std::vector<SpinorField<Real>>& in, Progress progress = Progress::Chunks);
  // Collective. Only the halo exchange of an apply (project, post, wait), untimed: for halo bandwidth.
  void exchange(const spinor_view& in);
  // Collective. The messages of an exchange alone, moved as apply() moves them (MPI on the host
  // buffers; peer: the GPU copies and their notices), no projection and no staging copy: what the
  // halo could move at best here (the bench's exchange-only ceiling).
  void move_halos() { transport_->move(); }

  // Bytes this rank sends per apply: 12 reals x face sites x the kernel's rhs_slots(), for each face of each split direction.
  std::uint64_t halo_bytes() const { return exchange_.bytes(); }
  int messages() const { return exchange_.messages(); }
  // How the halos travel: "mpi", "shared" or "inputs" (CPU ranks), "staged" or "peer" (GPU ranks).
  const char* transport() const { return transport_->name(); }
  // The applies whose input was an allocate_spinors() buffer read in place by the neighbours (with
  // "inputs"), since construction: the others sent their faces as messages.
  std::int64_t calls_read_in_place() const { return calls_read_in_place_; }
  // Where an apply with this progress strategy adds the halo's hops: "kernel" (the interior launch
  // reads the messages) or "faces" (DslashFaces::complete after it).
  const char* completion(Progress progress) const { return completes_in_kernel(progress) ? "kernel" : "faces"; }
  int progress_slabs() const;
  // One entry per apply since reset_times().
  const std::vector<HaloCallTimes>& times() const { return times_; }
  void reset_times() { times_.clear(); }
  // GPU ranks: whether an apply records its stages' CUDA events (on by default). Off, its times()
  // entry has the host's figures alone (call, post, wait, the host's timeline). The events are a
  // dozen records and as many reads on the host's path of every call, which a small call feels
  // (docs/history/HISTORY.md, "GPU ranks' calls without their timing events"). CPU ranks read host
  // clocks, which cost nothing: always timed.
  void time_stages(bool on) { time_stages_ = on; }

 private:
  // f(mu) for each split direction.
  template <class F>
  void for_each_split(const F& f) const;
  void project(const spinor_view& in, HaloCallTimes* t);
  // True when a test saw every message done (and set t.transfer).
  bool interior(const spinor_view& in, const spinor_view& out, Progress progress, HaloCallTimes& t, double posted);
  void complete(const spinor_view& out, HaloCallTimes& t);
  struct XpayCall {  // apply_xpay's arguments and sums (dslash::Epilogue is what the kernel is built with)
    Real a, b;
    const spinor_view* x;
    const spinor_view *w, *w2;
    NormDot sums;
  };
  void apply_host(const spinor_view& in, const spinor_view& out, Progress progress, XpayCall* epilogue);
  // The kernel on every site, the halo's hops added from `halo`, with the epilogue where given.
  void kernel_with_halo(const spinor_view& in, const spinor_view& out, const ReceivedHalo<Real>& halo, XpayCall* epilogue);
  // The call without messages: notices, the kernel reading the neighbours' inputs, notices.
  void apply_reading_neighbours(const spinor_view& in, const spinor_view& out, const std::array<std::array<const Real*, 2>, 4>& theirs,
                                XpayCall* epilogue);
  bool completes_in_kernel(Progress progress) const;
  // The GPU's stages (halo_dslash.cpp): project and copy to the host; copy to the device and complete.
  void apply_device(const spinor_view& in, const spinor_view& out, Progress progress, XpayCall* epilogue = nullptr);
  // The GPU, overlapping, t alone split (outer t >= 3): the boundary t-slabs run beside the
  // interior's others, and the t faces complete once their slabs are done and their messages in,
  // while the interior still runs.
  bool boundary_beside(Progress progress) const;
  void stage_out(const spinor_view& in);
  void post_and_wait(HaloCallTimes& t);  // the GPU's messages, or notices, once sent out
  // Returns when (MPI_Wtime) the completion was launched, before waiting for it. beside: the call's
  // boundary_beside, decided once at its start.
  // epilogue: the xpay's second half, in the t faces' completion (apply_xpay).
  double stage_in(const spinor_view& out, bool beside, const XpayCall* epilogue = nullptr);

  // Chunks: at least kMinSlabs slabs, and more for long calls (mrhs), about one per kSlabWork
  // vectors x blocks of output.
  static constexpr index_t kMinSlabs = 4, kSlabWork = 1024;
  const ProcessGrid& grid_;
  DslashKernel<Real, Space> kernel_;
  DslashFaces<Real, Space> faces_;
  HaloExchange<Real> exchange_;
  HaloOptions options_;
  std::vector<HaloCallTimes> times_;
  bool time_stages_ = true;
  struct Device;  // the GPU's streams, events and device transport; null on a CPU
  std::unique_ptr<Device> device_;
  std::unique_ptr<HaloTransport<Real>> transport_;
  std::int64_t calls_read_in_place_ = 0;
};

}  // namespace dslash::mpi
