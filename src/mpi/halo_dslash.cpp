#include "mpi/halo_dslash.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "mpi/mpi_session.hpp"

namespace dslash::mpi {

namespace {

DslashConfig with_halo(const ProcessGrid& grid, DslashConfig cfg) {
  for (int mu = 0; mu < 4; ++mu) cfg.halo[static_cast<std::size_t>(mu)] = grid.split(mu);
  return cfg;
}

template <class Real>
DslashKernel<Real> make_kernel(const ProcessGrid& grid, const GaugeField<Real>& u, const DslashConfig& cfg) {
  std::optional<DslashKernel<Real>> k;
  // Every rank has the same local lattice and so the same verdict; agreeing keeps it that way.
  collectively([&] {
    try {
      k.emplace(u, with_halo(grid, cfg));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(grid.describe() + ": " + e.what());
    }
  }, grid.comm());
  return std::move(*k);
}

template <class Real>
std::array<std::size_t, 4> reals_of(const DslashFaces<Real>& faces) {
  std::array<std::size_t, 4> n{};
  for (int mu = 0; mu < 4; ++mu) n[static_cast<std::size_t>(mu)] = faces.halo_reals(mu);
  return n;
}

constexpr std::array<Hop, 2> kHops{Hop::Forward, Hop::Backward};

}  // namespace

Progress parse_progress(std::string_view text) {
  if (text == "off") return Progress::None;
  if (text == "on" || text == "chunks") return Progress::Chunks;
  if (text == "thread") return Progress::Thread;
  throw std::invalid_argument("comms overlap '" + std::string(text) + "': expected on, off, chunks or thread");
}

const char* to_string(Progress p) {
  switch (p) {
    case Progress::None: return "off";
    case Progress::Chunks: return "chunks";
    case Progress::Thread: return "thread";
  }
  return "?";
}

double HaloCallTimes::stages() const {
  double s = post + interior + progress + wait;
  for (int mu = 0; mu < 4; ++mu)
    for (int h = 0; h < 2; ++h) s += project[static_cast<std::size_t>(mu)][static_cast<std::size_t>(h)] + complete[static_cast<std::size_t>(mu)][static_cast<std::size_t>(h)];
  return s;
}

template <class Real>
HaloDslash<Real>::HaloDslash(const ProcessGrid& grid, const GaugeField<Real>& local_u, DslashConfig cfg, HaloOptions options)
    : grid_(grid), kernel_(make_kernel(grid, local_u, cfg)), faces_(kernel_, local_u),
      exchange_(grid, reals_of(faces_), options.coalesce), options_(options) {}

template <class Real>
std::array<std::size_t, 4> HaloDslash<Real>::face_reals() const {
  return reals_of(faces_);
}

template <class Real>
void HaloDslash<Real>::project(const View<Real, 1>& in, HaloCallTimes* t) {
  for (int mu = 0; mu < 4; ++mu) {
    if (!grid_.split(mu)) continue;
    for (Hop hop : kHops) {
      const double t0 = MPI_Wtime();
      faces_.project(mu, hop, in, exchange_.send(mu, hop));
      if (t) t->project[static_cast<std::size_t>(mu)][static_cast<std::size_t>(hop)] = MPI_Wtime() - t0;
    }
  }
}

template <class Real>
void HaloDslash<Real>::complete(const View<Real, 1>& out, HaloCallTimes& t) {
  for (int mu = 0; mu < 4; ++mu) {
    if (!grid_.split(mu)) continue;
    for (Hop hop : kHops) {
      const double t0 = MPI_Wtime();
      faces_.complete(mu, hop, exchange_.receive(mu, hop), out);
      t.complete[static_cast<std::size_t>(mu)][static_cast<std::size_t>(hop)] = MPI_Wtime() - t0;
    }
  }
}

template <class Real>
bool HaloDslash<Real>::interior(const View<Real, 1>& in, const View<Real, 1>& out, Progress progress, HaloCallTimes& t, double posted) {
  bool arrived = false;
  const auto test = [&] {
    if (!arrived && exchange_.test()) {
      arrived = true;
      t.transfer = MPI_Wtime() - posted;
    }
  };
  if (progress == Progress::Chunks && exchange_.messages() > 0) {
    const index_t T = kernel_.outer_t(), slabs = progress_slabs();
    for (index_t k = 0; k < slabs; ++k) {
      const double t0 = MPI_Wtime();
      kernel_.apply_slab(in, out, T * k / slabs, T * (k + 1) / slabs);
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

template <class Real>
void HaloDslash<Real>::apply(const View<Real, 1>& in, const View<Real, 1>& out, Progress progress) {
  HaloCallTimes t;
  const double start = MPI_Wtime();
  project(in, &t);
  double t0 = MPI_Wtime();
  exchange_.start();
  const double posted = MPI_Wtime();
  t.post = posted - t0;
  bool seen = false;  // a test during the interior saw every message done
  const auto wait = [&] {
    const double w0 = MPI_Wtime();
    exchange_.wait();
    const double w1 = MPI_Wtime();
    t.wait = w1 - w0;
    if (!seen) t.transfer = w1 - posted;
  };
  if (progress == Progress::None) {
    wait();
    interior(in, out, progress, t, posted);
  } else {
    seen = interior(in, out, progress, t, posted);
    wait();
  }
  complete(out, t);
  t.call = MPI_Wtime() - start;
  times_.push_back(t);
}

template <class Real>
int HaloDslash<Real>::progress_slabs() const {
  if (options_.chunks > 0) return static_cast<int>(std::min<index_t>(options_.chunks, kernel_.outer_t()));
  const KernelLayout& l = kernel_.layout();
  const index_t work = kernel_.output_sites() / (l.folded ? l.lanes : 1) * l.blocks;  // vectors x blocks
  return static_cast<int>(std::clamp<index_t>(work / kSlabWork, std::min(kMinSlabs, kernel_.outer_t()), kernel_.outer_t()));
}

template <class Real>
void HaloDslash<Real>::exchange(const View<Real, 1>& in) {
  project(in, nullptr);
  exchange_.start();
  exchange_.wait();
}

template <class Real>
std::vector<SpinorField<Real>> HaloDslash<Real>::apply(const std::vector<SpinorField<Real>>& in, Progress progress) {
  const View<Real, 1> packed_in = kernel_.allocate_spinors("halo_in"), packed_out = kernel_.allocate_spinors("halo_out");
  kernel_.pack(in, packed_in);
  apply(packed_in, packed_out, progress);
  std::vector<SpinorField<Real>> out;
  kernel_.unpack(packed_out, out);
  return out;
}

template class HaloDslash<float>;
template class HaloDslash<double>;

}  // namespace dslash::mpi
