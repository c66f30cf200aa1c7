#pragma once
// HaloHopping: the even-odd operator's hopping term (solvers/hopping_term.hpp) over MPI ranks: four
// HaloDslash (D_{e<-o}, D_{o<-e}, their daggers) on this rank's block, and sums over every rank
// through MPI_Allreduce. EvenOddWilson on it is the decomposed operator, and the solvers run on it
// unchanged: each rank holds its block of every vector, and every rank takes the same steps. CPU
// ranks of one node send their halos through the shared window by default (CpuHalo::Auto picks
// Shared here). With --cpu-halo inputs the four share one set of buffers in shared-memory windows
// (allocate), and a hop on any of them reads its halo in place from the neighbours' vector of the
// same allocation (HaloDslash): a solve allocates every vector through its operator, in the same
// order on every rank, so every hop of it is such a call.
#include <array>
#include <memory>

#include "mpi/halo_dslash.hpp"
#include "solvers/hopping_term.hpp"

namespace dslash::mpi {

template <class Real, class Space = HostSpace>
class HaloHopping final : public HoppingTerm<Real, Space> {
 public:
  using vector_type = typename HoppingTerm<Real, Space>::vector_type;
  // Collective. local_u: this rank's block of the gauge field (mpi::scatter); config.out, dagger
  // and halo are set per kernel. The grid must outlive this object.
  HaloHopping(const ProcessGrid& grid, const GaugeField<Real>& local_u, const DslashConfig& config, Progress progress = Progress::Chunks,
              HaloOptions options = {});
  ~HaloHopping() override;

  const DslashKernel<Real, Space>& kernel(Subset out, bool dagger) const override { return halo(out, dagger).kernel(); }
  // Collective (every rank its n-th vector at once).
  vector_type allocate(const std::string& label) const override { return halos_[0]->allocate_spinors(label); }
  // How the halos travel (HaloDslash::transport), and the hops since construction that read theirs
  // in place from the neighbours' inputs.
  const char* transport() const override { return halos_[0]->transport(); }
  std::int64_t calls_read_in_place() const override;
  // Collective.
  void apply(Subset out, bool dagger, const vector_type& in, const vector_type& result) const override;
  // Collective. In one pass where the halo's hops are added in the kernel (HaloDslash::apply_xpay).
  std::optional<NormDot> apply_xpay(Subset out, bool dagger, const vector_type& in, Real a, const vector_type& x, Real b, const vector_type& result,
                                    const vector_type* w, const vector_type* w2) const override;
  // Collective. local() writes this rank's hops (HaloDslash::apply_around).
  void apply_around(Subset out, bool dagger, const vector_type& in, const vector_type& result, const std::function<void()>& local) const override;
  // Collective: MPI_Allreduce, the same sum on every rank.
  void sum(std::span<double> partials) const override;
  bool spans_processes() const override { return true; }

 private:
  HaloDslash<Real, Space>& halo(Subset out, bool dagger) const {
    return *halos_[static_cast<std::size_t>((out == Subset::Even ? 0 : 2) + (dagger ? 1 : 0))];
  }

  const ProcessGrid& grid_;
  Progress progress_;
  std::array<std::unique_ptr<HaloDslash<Real, Space>>, 4> halos_;
};

}  // namespace dslash::mpi
