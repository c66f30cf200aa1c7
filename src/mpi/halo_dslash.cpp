#include "mpi/halo_dslash.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "mpi/mpi_session.hpp"
#include "mpi/shared_spinors.hpp"
#if defined(DSLASH_HAVE_CUDA)
#include "dslash/core/backend/cuda/space.hpp"
#endif

namespace dslash::mpi {

namespace {

DslashConfig with_halo(const ProcessGrid& grid, DslashConfig cfg) {
  for (int mu = 0; mu < 4; ++mu) cfg.halo[static_cast<std::size_t>(mu)] = grid.split(mu);
  return cfg;
}

// The upper-face links of the domain below, per split direction (kernels/face_links.hpp): sent
// once, here, since the gauge field does not change between calls. Collective.
template <class Real>
FaceLinks<Real> links_from_below(const ProcessGrid& grid, const GaugeField<Real>& u, const std::array<bool, 4>& split) {
  const FaceLinks<Real> mine = upper_face_links(u, split);
  FaceLinks<Real> below;
  MPI_Datatype link;
  MPI_Type_contiguous(static_cast<int>(sizeof(ColourMatrix<Real>)), MPI_BYTE, &link);
  MPI_Type_commit(&link);
  for (std::size_t mu = 0; mu < 4; ++mu) {
    if (!split[mu]) continue;
    below[mu].resize(mine[mu].size());
    const int n = static_cast<int>(mine[mu].size());  // a face of the local lattice: far below 2^31 sites
    MPI_Sendrecv(mine[mu].data(), n, link, grid.neighbour(static_cast<int>(mu), +1), 0, below[mu].data(), n, link,
                 grid.neighbour(static_cast<int>(mu), -1), 0, grid.comm(), MPI_STATUS_IGNORE);
  }
  MPI_Type_free(&link);
  return below;
}

template <class Real, class Space>
DslashKernel<Real, Space> make_kernel(const ProcessGrid& grid, const GaugeField<Real>& u, const DslashConfig& cfg) {
  const DslashConfig halo_cfg = with_halo(grid, cfg);
  const FaceLinks<Real> below = links_from_below(grid, u, halo_cfg.halo);
  std::optional<DslashKernel<Real, Space>> k;
  // Every rank has the same local lattice and so the same verdict; agreeing keeps it that way.
  collectively([&] {
    try {
      k.emplace(u, halo_cfg, &below);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(grid.describe() + ": " + e.what());
    }
  }, grid.comm());
  return std::move(*k);
}

template <class Real, class Space>
std::array<std::size_t, 4> reals_of(const DslashFaces<Real, Space>& faces) {
  std::array<std::size_t, 4> n{};
  for (int mu = 0; mu < 4; ++mu) n[static_cast<std::size_t>(mu)] = faces.halo_reals(mu);
  return n;
}

}  // namespace

double HaloCallTimes::stages() const {
  double s = project_all + post + interior + progress + wait + send_out + bring_in;
  for (std::size_t mu = 0; mu < 4; ++mu) s += project[mu] + complete[mu];
  return s;
}

template <class Real, class Space>
HaloDslash<Real, Space>::HaloDslash(const ProcessGrid& grid, const GaugeField<Real>& local_u, DslashConfig cfg, HaloOptions options,
                                    const HaloDslash* inputs_of, const HaloDslash* links_of)
    : grid_(grid), kernel_(links_of ? links_of->kernel_.with_dagger(cfg.dagger) : make_kernel<Real, Space>(grid, local_u, cfg)), faces_(kernel_, local_u),
      exchange_(grid, reals_of(faces_), options.coalesce), options_(options) {
  if constexpr (kDevice) {
#if defined(DSLASH_HAVE_CUDA)
    device_ = std::make_unique<Device>();
    // Peer, where a warp's message stores coalesce, the projection writes the neighbour's buffer
    // itself, over NVLink (QUDA's remote write). vnode's message lanes come from neighbouring threads;
    // naive's messages are component-major on the GPU (FaceLanes::kItemsFastest), where item-major
    // put its threads' stores 48 bytes apart. mrhs copies: its remote stores do not coalesce, and
    // writing remotely was slower (docs/history/HISTORY.md, "Queued hops, and the projection writing
    // the neighbour's buffer" and "Naive's messages component by component").
    const KernelLayout& l = kernel_.layout();
    auto halo = make_device_halo_transport(grid, exchange_, options.gpu_halo, l.folded || l.lanes == 1, device_->faces.get());
    device_->halo = halo.get();
    transport_ = std::move(halo);
#endif
  } else {
    transport_ = make_halo_transport(grid, exchange_, options.cpu_halo, options.auto_on_node, inputs_of ? inputs_of->transport_.get() : nullptr);
  }
}

template <class Real, class Space>
typename HaloDslash<Real, Space>::spinor_view HaloDslash<Real, Space>::allocate_spinors(const std::string& label) {
  if constexpr (!kDevice)
    if (auto* spinors = transport_->in_place()) return spinors->allocate(label, static_cast<std::size_t>(kernel_.spinor_bytes() / sizeof(Real)));
  return kernel_.allocate_spinors(label);
}

template <class Real, class Space>
HaloDslash<Real, Space>::~HaloDslash() = default;

template <class Real, class Space>
template <class F>
void HaloDslash<Real, Space>::for_each_split(const F& f) const {
  for (int mu = 0; mu < 4; ++mu)
    if (grid_.split(mu)) f(mu);
}

// A CPU rank's projections write where the transport says (the send buffer, or the peers' buffers),
// in one launch: a vector on an edge of the rank's block (2 or 3 faces) is read once, where one
// launch a direction read it once a face (docs/history/HISTORY.md, "Every face in one launch").
template <class Real, class Space>
void HaloDslash<Real, Space>::project(const spinor_view& in, HaloCallTimes* t) {
  std::array<std::array<Real*, 2>, 4> to{};
  for_each_split([&](int mu) { to[static_cast<std::size_t>(mu)] = {transport_->send(mu, Hop::Forward), transport_->send(mu, Hop::Backward)}; });
  const double t0 = MPI_Wtime();
  faces_.project_all(in, to);
  if (t) t->project_all = MPI_Wtime() - t0;
}

template <class Real, class Space>
bool HaloDslash<Real, Space>::completes_in_kernel(Progress progress) const {
  if constexpr (kDevice) return false;  // the GPU's interior runs while its halo travels
  else return options_.complete == HaloComplete::Auto && exchange_.messages() > 0 && (!transport_->needs_progress() || progress == Progress::None);
}

template <class Real, class Space>
void HaloDslash<Real, Space>::complete(const spinor_view& out, HaloCallTimes& t) {
  for_each_split([&](int mu) {
    const double t0 = MPI_Wtime();
    faces_.complete_both(mu, transport_->received(mu, Hop::Forward), transport_->received(mu, Hop::Backward), out);
    t.complete[static_cast<std::size_t>(mu)] = MPI_Wtime() - t0;
  });
}

template <class Real, class Space>
bool HaloDslash<Real, Space>::interior(const spinor_view& in, const spinor_view& out, Progress progress, HaloCallTimes& t, double posted) {
  bool arrived = false;
  const auto test = [&] {
    if (!arrived && transport_->test()) {
      arrived = true;
      t.transfer = MPI_Wtime() - posted;
    }
  };
  if (!transport_->needs_progress()) progress = Progress::None;  // one launch, then the wait
  if (progress == Progress::Chunks && exchange_.messages() > 0) {
    const index_t T = kernel_.outer_t(), slabs = progress_slabs();
    for (index_t k = 0; k < slabs; ++k) {
      const double t0 = MPI_Wtime();
      kernel_.apply(in, out, {.slab = TSlab{T * k / slabs, T * (k + 1) / slabs}});
      const double t1 = MPI_Wtime();
      test();
      t.interior += t1 - t0;
      t.progress += MPI_Wtime() - t1;
    }
  } else if (progress == Progress::Thread && exchange_.messages() > 0) {
    // Two threads: the master tests (only it calls MPI: FUNNELED), the other opens a nested team of
    // the rest for the interior (at least one thread: with one thread a rank, the tester is extra).
    const int workers = std::max(1, omp_get_max_threads() - 1);
    if (omp_get_max_active_levels() < 2) omp_set_max_active_levels(2);
    std::atomic<bool> computed{false};
    const double t0 = MPI_Wtime();
#pragma omp parallel num_threads(2)
    {
      if (omp_get_thread_num() == 1) {
        omp_set_num_threads(workers);
        kernel_.apply(in, out);
        computed.store(true, std::memory_order_release);
      } else if (omp_get_num_threads() == 1) {  // no second thread after all: compute, then wait
        kernel_.apply(in, out);
      } else {
        while (!computed.load(std::memory_order_acquire) && !arrived) {
          test();
          std::this_thread::yield();  // leaves the core to a compute thread that shares it
        }
      }
    }
    t.interior = MPI_Wtime() - t0;
  } else {
    const double t0 = MPI_Wtime();
    kernel_.apply(in, out);
    t.interior = MPI_Wtime() - t0;
  }
  return arrived;
}

template <class Real, class Space>
void HaloDslash<Real, Space>::apply(const spinor_view& in, const spinor_view& out, Progress progress) {
  if constexpr (kDevice) return apply_device(in, out, progress);
  apply_host(in, out, progress, nullptr);
}

template <class Real, class Space>
std::optional<NormDot> HaloDslash<Real, Space>::apply_xpay(const spinor_view& in, Real a, const spinor_view& x, Real b, const spinor_view& out,
                                                           Progress progress, const spinor_view* w, const spinor_view* w2) {
  if (w2 != nullptr && w == nullptr) throw std::invalid_argument("HaloDslash::apply_xpay: a second inner product needs a first");
  XpayCall e{a, b, &x, w, w2 != nullptr ? w2 : w, {}};
  if constexpr (kDevice) {
    if (!boundary_beside(progress) || !kernel_.fuses_local_xpay(w != nullptr)) return std::nullopt;
    apply_device(in, out, progress, &e);
    return e.sums;
  }
  if (!completes_in_kernel(progress) || !kernel_.fuses_xpay(true, w != nullptr)) return std::nullopt;
  apply_host(in, out, progress, &e);
  return e.sums;
}

template <class Real, class Space>
void HaloDslash<Real, Space>::apply_host(const spinor_view& in, const spinor_view& out, Progress progress, XpayCall* epilogue) {
  if (const auto* spinors = transport_->in_place(); spinors && completes_in_kernel(progress))
    if (const auto* theirs = spinors->neighbours_of(in.data())) return apply_reading_neighbours(in, out, *theirs, epilogue);
  HaloCallTimes t;
  const double start = MPI_Wtime();
  transport_->next_call();
  project(in, &t);
  double t0 = MPI_Wtime();
  transport_->start();
  const double posted = MPI_Wtime();
  t.post = posted - t0;
  bool seen = false;  // a test during the interior saw every message done
  const auto wait = [&] {
    const double w0 = MPI_Wtime();
    transport_->wait();
    const double w1 = MPI_Wtime();
    t.wait = w1 - w0;
    if (!seen) t.transfer = w1 - posted;
  };
  if (completes_in_kernel(progress)) {
    wait();
    std::array<std::array<const Real*, 2>, 4> messages{};
    for_each_split([&](int mu) { messages[static_cast<std::size_t>(mu)] = {transport_->received(mu, Hop::Forward), transport_->received(mu, Hop::Backward)}; });
    const double i0 = MPI_Wtime();
    kernel_with_halo(in, out, faces_.received(messages), epilogue);
    t.interior = MPI_Wtime() - i0;
  } else if (progress == Progress::None) {
    wait();
    interior(in, out, progress, t, posted);
    complete(out, t);
  } else {
    seen = interior(in, out, progress, t, posted);
    wait();
    complete(out, t);
  }
  t.call = MPI_Wtime() - start;
  times_.push_back(t);
}

template <class Real, class Space>
void HaloDslash<Real, Space>::apply_around(const spinor_view& in, const spinor_view& out, const std::function<void()>& local) {
  HaloCallTimes t;
  const double start = MPI_Wtime();
  if constexpr (kDevice) {
#if defined(DSLASH_HAVE_CUDA)
    {
      const cuda::StreamScope on(device_->interior.get());
      local();
    }
    stage_out(in);
    post_and_wait(t);
    stage_in(out, false);  // the faces complete after local() in the interior's stream
#endif
  } else {
    transport_->next_call();
    project(in, &t);
    transport_->start();
    const double i0 = MPI_Wtime();
    local();
    const double w0 = MPI_Wtime();
    t.interior = w0 - i0;
    transport_->wait();
    t.wait = MPI_Wtime() - w0;
    complete(out, t);
  }
  t.call = MPI_Wtime() - start;
  times_.push_back(t);
}

template <class Real, class Space>
void HaloDslash<Real, Space>::kernel_with_halo(const spinor_view& in, const spinor_view& out, const ReceivedHalo<Real>& halo, XpayCall* epilogue) {
  if (epilogue) epilogue->sums = kernel_.apply_xpay(in, out, {.a = epilogue->a, .x = epilogue->x, .b = epilogue->b, .w = epilogue->w, .w2 = epilogue->w2}, {.received = halo});
  else kernel_.apply(in, out, {.received = halo});
}

template <class Real, class Space>
void HaloDslash<Real, Space>::apply_reading_neighbours(const spinor_view& in, const spinor_view& out,
                                                       const std::array<std::array<const Real*, 2>, 4>& theirs, XpayCall* epilogue) {
  ++calls_read_in_place_;
  SharedSpinors<Real>* spinors = transport_->in_place();
  HaloCallTimes t;
  const double start = MPI_Wtime();
  spinors->sync(in.data());  // our writes to the input, before the notice that says they are done
  transport_->start();       // "my input is written"
  const double posted = MPI_Wtime();
  t.post = posted - start;
  transport_->wait();        // theirs are written
  spinors->sync(in.data());  // and visible here
  const double i0 = MPI_Wtime();
  t.wait = i0 - posted;
  ReceivedHalo<Real> halo = faces_.received({});
  halo.neighbour_in = theirs;  // null where mu is not split
  kernel_with_halo(in, out, halo, epilogue);
  const double i1 = MPI_Wtime();
  t.interior = i1 - i0;
  transport_->start();  // "done reading yours"
  transport_->wait();   // and they ours: the caller may write its input again
  t.wait += MPI_Wtime() - i1;
  t.call = MPI_Wtime() - start;
  times_.push_back(t);
}

template <class Real, class Space>
int HaloDslash<Real, Space>::progress_slabs() const {
  if (options_.chunks > 0) return static_cast<int>(std::min<index_t>(options_.chunks, kernel_.outer_t()));
  const KernelLayout& l = kernel_.layout();
  const index_t work = kernel_.output_sites() / (l.folded ? l.lanes : 1) * l.blocks;  // vectors x blocks
  return static_cast<int>(std::clamp<index_t>(work / kSlabWork, std::min(kMinSlabs, kernel_.outer_t()), kernel_.outer_t()));
}

template <class Real, class Space>
void HaloDslash<Real, Space>::exchange(const spinor_view& in) {
  if constexpr (kDevice) {
    HaloCallTimes untimed;
    stage_out(in);
    post_and_wait(untimed);
    stage_in(View<Real, 1, LayoutRight, Space>(), false);
    return;
  }
  transport_->next_call();
  project(in, nullptr);
  transport_->start();
  transport_->wait();
}

template <class Real, class Space>
std::vector<SpinorField<Real>> HaloDslash<Real, Space>::apply(const std::vector<SpinorField<Real>>& in, Progress progress) {
  const spinor_view packed_in = kernel_.allocate_spinors("halo_in"), packed_out = kernel_.allocate_spinors("halo_out");
  kernel_.pack(in, packed_in);
  apply(packed_in, packed_out, progress);
  std::vector<SpinorField<Real>> out;
  kernel_.unpack(packed_out, out);
  return out;
}

#if defined(DSLASH_HAVE_CUDA)
// The GPU's side of the call: its transport (staged or peer), the streams, and an event pair per timed piece.
template <class Real, class Space>
struct HaloDslash<Real, Space>::Device {
  struct Span {  // GPU time between two events of one stream
    cuda::Event start, stop;
    double seconds() const { return stop.since(start); }
  };
  DeviceHaloTransport<Real>* halo = nullptr;  // HaloDslash::transport_
  cuda::Stream faces{true}, interior;  // faces at high priority
  // boundary_beside: the slabs t = 0 and T - 1, each on a stream of its own at high priority. Each
  // is a small launch of long threads: queued one after the other behind the projection on the
  // faces stream, they ended after the interior.
  cuda::Stream first_slab{true}, last_slab{true};
  std::array<Span, 4> project, complete;  // [mu]
  Span copy_out, computed, first, last;
  // apply_xpay's sums: the interior slabs' (their kernel, k = 0) and the boundary slabs' (their
  // completion, k = 1), in device memory and the host's mapped copy: the norm alone, or with the
  // inner products (EpilogueSums).
  View<EpilogueSums, 1, LayoutRight, Space> sums{"halo_xpay_sums", 2};
  cuda::MappedHostBuffer sums_host{2 * sizeof(EpilogueSums)};
  ReduceInto<EpilogueSums> sums_into(int k) { return {sums.data() + k, static_cast<EpilogueSums*>(sums_host.on_device()) + k}; }
  ReduceInto<double> norm_into(int k) {  // the first of the k-th sums
    const ReduceInto<EpilogueSums> at = sums_into(k);
    return {reinterpret_cast<double*>(at.device), reinterpret_cast<double*>(at.host)};
  }
  const EpilogueSums& sum(int k) const { return static_cast<const EpilogueSums*>(sums_host.get())[k]; }
};

namespace {
// A stage's timing event, recorded where the call is timed (HaloDslash::time_stages).
void record_if(bool timed, cuda::Event& event, cudaStream_t stream) {
  if (timed) event.record(stream);
}
}  // namespace
#else
template <class Real, class Space>
struct HaloDslash<Real, Space>::Device {};
#endif

template <class Real, class Space>
bool HaloDslash<Real, Space>::boundary_beside(Progress progress) const {
  const auto& split = kernel_.config().halo;
  return kDevice && progress != Progress::None && split == std::array<bool, 4>{false, false, false, true} && kernel_.outer_t() >= 3;
}

template <class Real, class Space>
void HaloDslash<Real, Space>::stage_out(const spinor_view& in) {
#if defined(DSLASH_HAVE_CUDA)
  Device& g = *device_;
  const cuda::StreamScope on_faces(g.faces.get());
  g.halo->next_call();
  for_each_split([&](int mu) {
    auto& span = g.project[static_cast<std::size_t>(mu)];
    record_if(time_stages_, span.start, g.faces.get());
    faces_.project_both(mu, in, g.halo->send(mu, Hop::Forward), g.halo->send(mu, Hop::Backward));
    record_if(time_stages_, span.stop, g.faces.get());
  });
  record_if(time_stages_, g.copy_out.start, g.faces.get());
  g.halo->send_out(g.faces.get(), time_stages_ ? g.copy_out.stop.get() : nullptr);
#else
  (void)in;
#endif
}

template <class Real, class Space>
void HaloDslash<Real, Space>::post_and_wait(HaloCallTimes& t) {
  const double t0 = MPI_Wtime();
  transport_->start();
  const double posted = MPI_Wtime();
  transport_->wait();
  const double waited = MPI_Wtime();
  t.post = posted - t0;
  t.wait = waited - posted;
  t.transfer = waited - posted;
}

// Brings the received messages in (staged: to the device) and, where `out` is not empty, completes the
// faces; returns with everything done, and the time (MPI_Wtime) it had launched it all. Peer
// messages are in place for the work a stream queues after arrive_on (the GPU waits for the
// senders' copies); staged, the completion waits for the copy to the device. With the boundary
// slabs beside the interior (`beside`: boundary_beside), the t faces complete on the faces stream
// once their slabs are done, while the interior still runs, which takes them off the call's end
// (docs/history/HISTORY.md, "GPU to GPU halos", item 10). Otherwise the faces follow the interior on its
// own stream, direction by direction as in the serial call, so corners get the same bits.
template <class Real, class Space>
double HaloDslash<Real, Space>::stage_in(const spinor_view& out, bool beside, const XpayCall* epilogue) {
#if defined(DSLASH_HAVE_CUDA)
  Device& g = *device_;
  g.halo->bring_in(g.faces.get(), time_stages_);
  const auto complete = [&](int mu, cudaStream_t stream, const FaceXpay<Real>* xpay = nullptr) {
    const cuda::StreamScope on(stream);
    auto& span = g.complete[static_cast<std::size_t>(mu)];
    record_if(time_stages_, span.start, stream);
    const Real *forward = g.halo->received(mu, Hop::Forward), *backward = g.halo->received(mu, Hop::Backward);
    if (xpay) faces_.complete_both(mu, forward, backward, out, *xpay);
    else faces_.complete_both(mu, forward, backward, out);
    record_if(time_stages_, span.stop, stream);
  };
  if (out.size() > 0) {
    if (beside) {  // t alone is split: its faces beside the interior, once their slabs are done
      for (const auto* slab : {&g.first, &g.last}) cuda::check(cudaStreamWaitEvent(g.faces.get(), slab->stop.get(), 0), "cudaStreamWaitEvent");
      // apply_xpay: the t faces' vectors are the boundary slabs, and their completion does their xpay.
      FaceXpay<Real> xpay{};
      if (epilogue) {
        xpay.x = epilogue->x->data(), xpay.a = epilogue->a, xpay.b = epilogue->b, xpay.norm = g.norm_into(1);
        if (epilogue->w) xpay.w = epilogue->w->data(), xpay.w2 = epilogue->w2->data(), xpay.sums = g.sums_into(1);
      }
      complete(3, g.faces.get(), epilogue ? &xpay : nullptr);
    } else {  // after the interior (staged: and the copy to the device)
      g.halo->arrive_on(g.interior.get());
      for_each_split([&](int mu) { complete(mu, g.interior.get()); });
    }
  }
  const double launched = MPI_Wtime();
  g.faces.synchronize();  // staged: the copy to the device
  g.interior.synchronize();
  return launched;
#else
  (void)out, (void)beside, (void)epilogue;
  return 0;
#endif
}

template <class Real, class Space>
void HaloDslash<Real, Space>::apply_device(const spinor_view& in, const spinor_view& out, Progress progress, XpayCall* epilogue) {
#if defined(DSLASH_HAVE_CUDA)
  Device& g = *device_;
  HaloCallTimes t;
  const double start = MPI_Wtime();
  const bool beside = boundary_beside(progress);
  const auto interior = [&] {
    const index_t T = kernel_.outer_t();
    const auto slab = [&](cudaStream_t stream, Device::Span& span, index_t begin, index_t end) {
      const cuda::StreamScope on(stream);
      record_if(time_stages_, span.start, stream);
      // apply_xpay: the interior slabs' xpay in their kernel, with their norm (their sites take no
      // halo); the boundary slabs' in their completion (stage_in).
      if (epilogue && &span == &g.computed) {
        Xpay<Real, Space> xp{.a = epilogue->a, .x = epilogue->x, .b = epilogue->b, .w = epilogue->w, .w2 = epilogue->w2, .local = true};
        if (epilogue->w) xp.sums_into = g.sums_into(0);
        else xp.norm_into = g.norm_into(0);
        kernel_.apply_xpay(in, out, xp, {.slab = TSlab{begin, end}});
      } else {
        kernel_.apply(in, out, {.slab = TSlab{begin, end}});
      }
      // The boundary slabs' stops are not only timing: the t faces wait for them (stage_in).
      record_if(time_stages_ || &span != &g.computed, span.stop, stream);
    };
    if (beside) {
      slab(g.interior.get(), g.computed, 1, T - 1);
      slab(g.first_slab.get(), g.first, 0, 1);
      slab(g.last_slab.get(), g.last, T - 1, T);
    } else {
      slab(g.interior.get(), g.computed, 0, T);
    }
  };
  // The interior goes first when it overlaps: the faces' stream has the higher priority, so their
  // small kernels still start as soon as the GPU has room. Beside (boundary_beside): the interior is
  // the slabs 1 .. T-2, and the boundary slabs run on their own streams at the faces' priority.
  if (progress != Progress::None) interior();
  stage_out(in);
  t.at.host_faces_out = MPI_Wtime() - start;
  post_and_wait(t);
  t.at.host_notices_in = MPI_Wtime() - start;
  if (progress == Progress::None) {  // no overlap: the halos have arrived before the interior starts
    g.halo->landed(g.faces.get());
    interior();
  }
  t.at.host_complete_launched = stage_in(out, beside, epilogue) - start;
  t.call = MPI_Wtime() - start;
  if (epilogue) {  // both streams have ended (stage_in)
    const EpilogueSums &slabs = g.sum(0), &faces = g.sum(1);
    EpilogueSums both;
    for (std::size_t i = 0; i < both.size(); ++i) both[i] = slabs[i] + faces[i];
    if (epilogue->w) epilogue->sums = NormDot::from_sums(both);
    else epilogue->sums = {both[0], {}, {}};  // without w the dot slots hold stale sums: leave them zero
  }
  if (time_stages_) {  // the stages from their events, now that both streams have ended
    for_each_split([&](int mu) {
      const auto m = static_cast<std::size_t>(mu);
      t.project[m] = g.project[m].seconds();
      t.complete[m] = g.complete[m].seconds();
    });
    t.interior = g.computed.seconds();
    if (beside) t.at.boundary_done = std::max(g.first.stop.since(g.computed.start), g.last.stop.since(g.computed.start));
    t.at.faces_out = g.copy_out.stop.since(g.computed.start);
    if (out.size() > 0)
      for_each_split([&](int mu) { t.at.complete_done = std::max(t.at.complete_done, g.complete[static_cast<std::size_t>(mu)].stop.since(g.computed.start)); });
    t.send_out = g.copy_out.seconds();
    t.bring_in = g.halo->bring_in_seconds();
  }
  times_.push_back(t);
#else
  (void)in, (void)out, (void)progress, (void)epilogue;
#endif
}

template class HaloDslash<float>;
template class HaloDslash<double>;
#if defined(DSLASH_HAVE_CUDA)
template class HaloDslash<float, CudaSpace>;
template class HaloDslash<double, CudaSpace>;
#endif

}  // namespace dslash::mpi
