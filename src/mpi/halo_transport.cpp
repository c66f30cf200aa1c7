#include "mpi/halo_transport.hpp"

#include <string>

#include "mpi/mpi_session.hpp"
#include "mpi/shared_halo.hpp"
#include "mpi/shared_spinors.hpp"
#if defined(DSLASH_HAVE_CUDA)
#include "dslash/core/backend/cuda/space.hpp"
#include "mpi/peer_halo.hpp"
#endif

namespace dslash::mpi {

namespace {

// start, test and wait as the exchange's MPI messages: the transports whose halo travels as
// messages, on CPU ranks (mpi) and GPU ranks (staged), move it alike.
template <class Real, class Transport>
class ExchangeMessages : public Transport {
 public:
  explicit ExchangeMessages(HaloExchange<Real>& x) : x_(x) {}
  void start() override { x_.start(); }
  bool test() override { return x_.test(); }
  void wait() override { x_.wait(); }

 protected:
  HaloExchange<Real>& x_;
};

// The messages as they are: HaloExchange.
template <class Real>
class MessageHalo final : public ExchangeMessages<Real, HaloTransport<Real>> {
 public:
  using ExchangeMessages<Real, HaloTransport<Real>>::ExchangeMessages;
  const char* name() const override { return "mpi"; }
  Real* send(int mu, Hop hop) override { return this->x_.send(mu, hop); }
  const Real* received(int mu, Hop hop) const override { return this->x_.receive(mu, hop); }
};

#if defined(DSLASH_HAVE_CUDA)
// GPU ranks' messages through the host: device twins of the exchange's buffers (same layout) and
// both host buffers page-locked, so one copy each way.
template <class Real>
class StagedHalo final : public ExchangeMessages<Real, DeviceHaloTransport<Real>> {
  using ExchangeMessages<Real, DeviceHaloTransport<Real>>::x_;

 public:
  explicit StagedHalo(HaloExchange<Real>& x)
      : ExchangeMessages<Real, DeviceHaloTransport<Real>>(x), send_("halo_send_device", x.reals()), receive_("halo_receive_device", x.reals()),
        pinned_send_(x.send_buffer(), x.buffer_bytes()), pinned_receive_(x.receive_buffer(), x.buffer_bytes()) {}
  const char* name() const override { return "staged"; }
  Real* send(int mu, Hop hop) override { return send_.data() + x_.send_offset(mu, hop); }
  const Real* received(int mu, Hop hop) const override { return receive_.data() + x_.receive_offset(mu, hop); }
  // MPI reads the messages from host memory: they must be there.
  void send_out(cudaStream_t stream, cudaEvent_t out) override {
    cuda::copy_async(x_.send_buffer(), send_.data(), x_.bytes(), stream);
    if (out) cuda::check(cudaEventRecord(out, stream), "cudaEventRecord");
    cuda::check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (a kernel failed)");
  }
  void bring_in(cudaStream_t stream, bool timed) override {
    if (timed) to_device_.record(stream);
    cuda::copy_async(receive_.data(), x_.receive_buffer(), x_.bytes(), stream);
    arrived_.record(stream);  // the completion waits for it
  }
  void arrive_on(cudaStream_t stream) override { cuda::check(cudaStreamWaitEvent(stream, arrived_.get(), 0), "cudaStreamWaitEvent"); }
  double bring_in_seconds() const override { return arrived_.since(to_device_); }

 private:
  View<Real, 1, LayoutRight, CudaSpace> send_, receive_;
  cuda::PinnedRegion pinned_send_, pinned_receive_;
  cuda::Event to_device_, arrived_;
};
#endif

}  // namespace

template <class Real>
std::unique_ptr<HaloTransport<Real>> make_halo_transport(const ProcessGrid& grid, HaloExchange<Real>& x, CpuHalo how, CpuHalo on_node,
                                                         const HaloTransport<Real>* inputs_of) {
  if (how == CpuHalo::Mpi || x.messages() == 0) return std::make_unique<MessageHalo<Real>>(x);
  const std::string refusal = shared_halo_refusal(grid, x);
  if (how != CpuHalo::Auto && !refusal.empty())
    throw CollectiveError(std::string("--cpu-halo ") + (how == CpuHalo::Shared ? "shared: " : "inputs: ") + refusal);
  if (!refusal.empty()) return std::make_unique<MessageHalo<Real>>(x);
  if ((how == CpuHalo::Auto ? on_node : how) != CpuHalo::Inputs) return std::make_unique<SharedHalo<Real>>(grid, x);
  // The shared halo's notices serve the calls read in place, and its window any other input.
  const auto* other = dynamic_cast<const SharedHalo<Real>*>(inputs_of);
  return std::make_unique<SharedHalo<Real>>(grid, x, other && other->spinors() ? other->spinors() : std::make_shared<SharedSpinors<Real>>(grid));
}

#if defined(DSLASH_HAVE_CUDA)
template <class Real>
std::unique_ptr<DeviceHaloTransport<Real>> make_device_halo_transport(const ProcessGrid& grid, HaloExchange<Real>& x, GpuHalo how, bool remote_write,
                                                                      cudaStream_t faces) {
  const std::string refusal = how == GpuHalo::Staged ? "" : peer_halo_refusal(grid, x);
  if (how == GpuHalo::Peer && !refusal.empty()) throw CollectiveError("--gpu-halo peer: " + refusal);
  if (how != GpuHalo::Staged && refusal.empty() && x.messages() > 0) return std::make_unique<PeerHalo<Real>>(grid, x, remote_write, faces);
  return std::make_unique<StagedHalo<Real>>(x);
}
#endif

template std::unique_ptr<HaloTransport<float>> make_halo_transport(const ProcessGrid&, HaloExchange<float>&, CpuHalo, CpuHalo, const HaloTransport<float>*);
template std::unique_ptr<HaloTransport<double>> make_halo_transport(const ProcessGrid&, HaloExchange<double>&, CpuHalo, CpuHalo, const HaloTransport<double>*);
#if defined(DSLASH_HAVE_CUDA)
template std::unique_ptr<DeviceHaloTransport<float>> make_device_halo_transport(const ProcessGrid&, HaloExchange<float>&, GpuHalo, bool, cudaStream_t);
template std::unique_ptr<DeviceHaloTransport<double>> make_device_halo_transport(const ProcessGrid&, HaloExchange<double>&, GpuHalo, bool, cudaStream_t);
#endif

}  // namespace dslash::mpi
