#include "mpi/halo_hopping.hpp"

#include <mpi.h>

#ifdef DSLASH_HAVE_CUDA
#include "dslash/core/backend/cuda/space.hpp"
#endif

namespace dslash::mpi {

template <class Real, class Space>
HaloHopping<Real, Space>::HaloHopping(const ProcessGrid& grid, const GaugeField<Real>& local_u, const DslashConfig& config, Progress progress,
                                      HaloOptions options)
    : grid_(grid), progress_(progress) {
  // A solve's vectors in shared windows (--cpu-halo inputs) made its iterations no faster and its
  // setup longer (docs/MPI.md): auto sends the messages through the shared window here.
  options.auto_on_node = CpuHalo::Shared;
  for (Subset out : {Subset::Even, Subset::Odd})
    for (bool dagger : {false, true}) {
      const std::size_t k = static_cast<std::size_t>((out == Subset::Even ? 0 : 2) + (dagger ? 1 : 0));
      // The first's buffers are every kernel's; a dagger kernel shares the links of its parity's other.
      halos_[k] = std::make_unique<HaloDslash<Real, Space>>(grid, local_u, LocalHopping<Real, Space>::with(config, out, dagger), options,
                                                            halos_[0].get(), dagger ? halos_[k - 1].get() : nullptr);
      // A solve's applies are timed as a whole: GPU ranks record no stage events, which would cost
      // every iteration (docs/history/HISTORY.md, "GPU ranks' calls without their timing events").
      halos_[k]->time_stages(false);
    }
}

template <class Real, class Space>
HaloHopping<Real, Space>::~HaloHopping() = default;

template <class Real, class Space>
std::int64_t HaloHopping<Real, Space>::calls_read_in_place() const {
  std::int64_t n = 0;
  for (const auto& h : halos_) n += h->calls_read_in_place();
  return n;
}

template <class Real, class Space>
void HaloHopping<Real, Space>::apply(Subset out, bool dagger, const vector_type& in, const vector_type& result) const {
  HaloDslash<Real, Space>& d = halo(out, dagger);
  d.apply(in, result, progress_);
  d.reset_times();  // a solve makes thousands of applies; their stage times are the bench's business
}

template <class Real, class Space>
std::optional<NormDot> HaloHopping<Real, Space>::apply_xpay(Subset out, bool dagger, const vector_type& in, Real a, const vector_type& x, Real b,
                                                            const vector_type& result, const vector_type* w, const vector_type* w2) const {
  HaloDslash<Real, Space>& d = halo(out, dagger);
  const std::optional<NormDot> sums = d.apply_xpay(in, a, x, b, result, progress_, w, w2);
  d.reset_times();
  return sums;
}

template <class Real, class Space>
void HaloHopping<Real, Space>::apply_around(Subset out, bool dagger, const vector_type& in, const vector_type& result,
                                            const std::function<void()>& local) const {
  HaloDslash<Real, Space>& d = halo(out, dagger);
  d.apply_around(in, result, local);
  d.reset_times();
}

template <class Real, class Space>
void HaloHopping<Real, Space>::sum(std::span<double> partials) const {
  MPI_Allreduce(MPI_IN_PLACE, partials.data(), static_cast<int>(partials.size()), MPI_DOUBLE, MPI_SUM, grid_.comm());
}

template class HaloHopping<float>;
template class HaloHopping<double>;
#ifdef DSLASH_HAVE_CUDA
template class HaloHopping<float, CudaSpace>;
template class HaloHopping<double, CudaSpace>;
#endif

}  // namespace dslash::mpi
