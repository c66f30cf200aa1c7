#pragma once
// BLAS-1 per right-hand side on packed spinor buffers, for the block solvers (solvers/block_cg.hpp,
// solvers/block_bicgstab.hpp): every right-hand side of a buffer has its own coefficients and its
// own sums, in one pass over the whole buffer. A right-hand side is a slot of the layout
// (kernels/kernel_layout.hpp): lane l of block b, slot b W + l, of an unfolded layout (mrhs:
// rhs_slots() of them, those past nrhs the zero padding), or the one right-hand side of a folded
// (vnode) or one-lane (naive) buffer.
//
// The sums and coefficients stay where the passes run (RhsSums, over DeviceSums): a pass leaves one
// partial per task and right-hand side, a second launch adds each right-hand side's partials in an
// order fixed by the layout (deterministic) and may then make coefficients from them (`then`), which
// later passes read. So a block solve launches its iteration without waiting for its sums, as the
// single-right-hand-side solvers do, and the host waits only for what it decides on.
#include <algorithm>
#include <cstddef>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "dslash/core.hpp"
#include "solvers/blas.hpp"
#include "solvers/device_sums.hpp"

namespace dslash {

struct RhsLayout {
  PackedComplex c;
  bool folded = false;
  int slots() const { return folded ? 1 : static_cast<int>(c.blocks * c.lanes); }
};

// The per right-hand side values of an RhsSums, by value into kernels: value (set, r) of every set
// of `stride` slots; put() writes the host's copy too (on a GPU, mapped memory the host reads after
// a wait; null where the values are in host memory already).
struct RhsValues {
  double* device = nullptr;
  double* host = nullptr;
  int stride = 0;
  DSLASH_INLINE_FUNCTION double operator()(int set, int r) const { return device[set * stride + r]; }
  DSLASH_INLINE_FUNCTION void put(int set, int r, double v) const {
    device[set * stride + r] = v;
    if (host != nullptr) host[set * stride + r] = v;
  }
};

// Sets of per right-hand side values where the passes run: their sums, coefficients made from them,
// and flags the host decides (set()).
template <class Space>
class RhsSums {
 public:
  RhsSums() = default;
  RhsSums(int sets, int slots) : sums_(sets * slots), sets_(sets), slots_(slots) {}
  int slots() const { return slots_; }
  RhsValues values() const {
    const ReduceInto<double> all = sums_.into(0, sets_ * slots_);
    return {all.device, all.host, slots_};
  }
  const double* on_device(int set) const { return sums_.on_device(index(set)); }
  // Set `set` once the launches so far have ended (the one wait), or without a wait: right for
  // values made by launches before the last read().
  std::vector<double> read(int set) const {
    std::vector<double> v(static_cast<std::size_t>(slots_));
    v[0] = sums_.read(index(set));
    for (int r = 1; r < slots_; ++r) v[static_cast<std::size_t>(r)] = sums_.read_without_wait(index(set) + r);
    return v;
  }
  std::vector<double> read_without_wait(int set) const {
    std::vector<double> v(static_cast<std::size_t>(slots_));
    for (int r = 0; r < slots_; ++r) v[static_cast<std::size_t>(r)] = sums_.read_without_wait(index(set) + r);
    return v;
  }
  // Set `set` = values (zero past values.size()), made on the host, when no launch is writing it.
  void set(int set, const std::vector<double>& values) const {
    std::vector<double> v(static_cast<std::size_t>(slots_), 0.0);
    std::copy_n(values.begin(), std::min(values.size(), v.size()), v.begin());
    sums_.set(index(set), std::span<const double>(v));
  }

 private:
  int index(int set) const {
    if (set < 0 || set >= sets_) throw std::out_of_range("RhsSums: no set " + std::to_string(set));
    return set * slots_;
  }
  DeviceSums<Space> sums_;
  int sets_ = 0, slots_ = 0;
};

// scale x values[r] for right-hand side r (scale alone where values is null): read by a pass as it runs.
struct RhsCoefficient {
  double scale = 1;
  const double* values = nullptr;
  DSLASH_INLINE_FUNCTION double operator()(int r) const { return values != nullptr ? scale * values[r] : scale; }
};

// A pass's `then` that does nothing.
struct NoThen {
  DSLASH_INLINE_FUNCTION void operator()(int) const {}
};

namespace rhs_blas_detail {

inline constexpr int kMaxLanes = 16;  // KernelLayout's widest

// Where the partial sums of (chunk, block, lane) are, K to a task's lane.
DSLASH_INLINE_FUNCTION index_t partial(index_t chunk, index_t b, int lane, index_t chunks, int lanes) { return (b * chunks + chunk) * lanes + lane; }

// f(re, im, r, acc) for every complex number of a buffer of layout l (re and im: where its parts
// are; r: its right-hand side; acc: r's K sums of this task, which f adds to), each task leaving its
// sums in partials. A free function: nvcc's extended lambdas may not sit in a private member.
template <int K, class Space, class F>
void elements(const char* label, const RhsLayout& l, index_t chunks, double* partials, const F& f) {
  constexpr int kAcc = K > 0 ? K : 1;
  const index_t sites = l.c.sites, blocks = l.c.blocks;
  const int lanes = static_cast<int>(l.c.lanes);
  const bool folded = l.folded;
  const KernelLayout::Strides st = l.c.strides;
  if constexpr (Space::host_accessible) {
    // A task: a run of sites of one block, its W lanes innermost: adjacent in memory, and with W
    // known to the compiler one vector (a lane count read at run time left the loop scalar).
    if (st.pairs) throw std::logic_error(std::string(label) + ": the GPU's (re, im) pairs in host memory");
    const auto over_lanes = [&]<int W>() {
      parallel_for(label, RangePolicy<typename Space::execution_space>(chunks * blocks), [=](index_t task) {
        const index_t chunk = task / blocks, b = task % blocks;
        const int first_rhs = folded ? 0 : static_cast<int>(b) * W;
        double acc[W][kAcc] = {};
        for (index_t o = chunk * sites / chunks; o < (chunk + 1) * sites / chunks; ++o)
          for (int k = 0; k < 12; ++k) {
            const index_t re = st.index(o, b, 2 * k, 0, W), im = st.index(o, b, 2 * k + 1, 0, W);  // lane 0; the lanes follow
#pragma omp simd
            for (int lane = 0; lane < W; ++lane) f(re + lane, im + lane, folded ? 0 : first_rhs + lane, acc[lane]);
          }
        for (int lane = 0; lane < W; ++lane)
          for (int j = 0; j < K; ++j) partials[partial(chunk, b, lane, chunks, W) * K + j] = acc[lane][j];
      });
    };
    switch (lanes) {
      case 1: return over_lanes.template operator()<1>();
      case 2: return over_lanes.template operator()<2>();
      case 4: return over_lanes.template operator()<4>();
      case 8: return over_lanes.template operator()<8>();
      case 16: return over_lanes.template operator()<16>();
      default: throw std::logic_error(std::string(label) + ": a layout of " + std::to_string(lanes) + " lanes");
    }
  } else {
    // A thread a lane, neighbouring threads on neighbouring lanes and then sites (coalesced), a
    // thread's sites `chunks` apart.
    parallel_for(label, RangePolicy<typename Space::execution_space>(chunks * blocks * lanes), DSLASH_LAMBDA(index_t task) {
      const int lane = static_cast<int>(task % lanes);
      const index_t chunk = task / lanes % chunks, b = task / lanes / chunks;
      const int r = folded ? 0 : static_cast<int>(b) * lanes + lane;
      double acc[kAcc] = {};
      for (index_t o = chunk; o < sites; o += chunks)
        for (int k = 0; k < 12; ++k) f(st.index(o, b, 2 * k, lane, lanes), st.index(o, b, 2 * k + 1, lane, lanes), r, acc);
      for (int j = 0; j < K; ++j) partials[partial(chunk, b, lane, chunks, lanes) * K + j] = acc[j];  // (no constexpr-if: the capture)
    });
  }
}

// Each right-hand side's K sums from the partials, into sets [set, set + K) of out (none with
// K = 0), then then(r): a thread a right-hand side.
template <int K, class Space, class Then>
void finish(const char* label, const RhsLayout& l, index_t chunks, const double* partials, RhsValues out, int set, const Then& then) {
  const index_t blocks = l.c.blocks;
  const int lanes = static_cast<int>(l.c.lanes);
  const bool folded = l.folded;
  parallel_for(label, RangePolicy<typename Space::execution_space>(l.slots()), DSLASH_LAMBDA(index_t slot) {
    const int r = static_cast<int>(slot);
    for (int j = 0; j < K; ++j) {
      double total = 0;
      for (index_t b = folded ? 0 : r / lanes; b < (folded ? blocks : r / lanes + 1); ++b)
        for (int lane = folded ? 0 : r % lanes; lane < (folded ? lanes : r % lanes + 1); ++lane)
          for (index_t chunk = 0; chunk < chunks; ++chunk) total += partials[partial(chunk, b, lane, chunks, lanes) * K + j];
      out.put(set + j, r, total);
    }
    then(r);
  });
}

}  // namespace rhs_blas_detail

template <class Space>
class RhsPasses {
 public:
  // Adds each right-hand side's sums of this process over every process (MPI): null on one process.
  using SumOverProcesses = std::function<void(std::span<double>)>;
  // The most sums of a right-hand side one pass takes.
  static constexpr int kMaxSums = 5;

  RhsPasses() = default;
  explicit RhsPasses(const RhsLayout& layout, SumOverProcesses over_processes = {})
      : layout_(layout),
        chunks_(std::min<index_t>(layout.c.sites, Space::host_accessible ? 256 : 1024)),
        partials_("rhs_partials", static_cast<std::size_t>(kMaxSums * chunks_ * layout.c.blocks * layout.c.lanes)),
        over_processes_(std::move(over_processes)) {
    if (layout.c.lanes > rhs_blas_detail::kMaxLanes) throw std::logic_error("RhsPasses: a layout of " + std::to_string(layout.c.lanes) + " lanes");
  }

  const RhsLayout& layout() const { return layout_; }
  int slots() const { return layout_.slots(); }

  // f(re, im, r, acc) on every complex number of the layout's buffers (rhs_blas_detail::elements);
  // with K > 0 each right-hand side's K sums over the whole lattice go to sets [set, set + K) of
  // out, and then then(r) runs for every right-hand side r, on the device, without a wait (over MPI
  // the sums go through the host).
  template <int K, class F, class Then = NoThen>
  void each(const char* label, const F& f, const RhsSums<Space>* out = nullptr, int set = 0, const Then& then = {}) const {
    static_assert(K >= 0 && K <= kMaxSums);
    rhs_blas_detail::elements<K, Space>(label, layout_, chunks_, partials_.data(), f);
    if constexpr (K > 0) {
      if (out == nullptr || out->slots() < slots()) throw std::invalid_argument(std::string(label) + ": no sums for its right-hand sides");
      if (!over_processes_) return rhs_blas_detail::finish<K, Space>("rhs_sums", layout_, chunks_, partials_.data(), out->values(), set, then);
      rhs_blas_detail::finish<K, Space>("rhs_sums", layout_, chunks_, partials_.data(), out->values(), set, NoThen{});
      for (int j = 0; j < K; ++j) {
        std::vector<double> local = out->read(set + j);
        over_processes_(std::span<double>(local));
        out->set(set + j, local);
      }
      for_each_rhs("rhs_then", then);
    }
  }

  // then(r) for every right-hand side r, on the device.
  template <class Then>
  void for_each_rhs(const char* label, const Then& then) const {
    rhs_blas_detail::finish<0, Space>(label, layout_, chunks_, partials_.data(), RhsValues{}, 0, then);
  }

  // ||x_r||^2 of every right-hand side into set `set` of out.
  template <class Real, class Then = NoThen>
  void norm2(const View<Real, 1, LayoutRight, Space>& x, const RhsSums<Space>& out, int set, const Then& then = {}) const {
    check(x);
    const Real* xp = x.data();
    each<1>("rhs_norm2", DSLASH_LAMBDA(index_t re, index_t im, int, double* acc) {
      const double a = xp[re], b = xp[im];
      acc[0] += a * a + b * b;
    }, &out, set, then);
  }

  // y_r = a_r x_r + b_r y_r for every right-hand side r; with out, ||y_r||^2 into its set `set`.
  template <class Real, class Then = NoThen>
  void axpby(RhsCoefficient a, const View<Real, 1, LayoutRight, Space>& x, RhsCoefficient b, const View<Real, 1, LayoutRight, Space>& y,
             const RhsSums<Space>* out = nullptr, int set = 0, const Then& then = {}) const {
    check(x);
    check(y);
    const Real* xp = x.data();
    Real* yp = y.data();
    const auto f = DSLASH_LAMBDA(index_t re, index_t im, int r, double* acc) {
      const Real ar = static_cast<Real>(a(r)), br = static_cast<Real>(b(r));
      const Real u = ar * xp[re] + br * yp[re], v = ar * xp[im] + br * yp[im];
      yp[re] = u;
      yp[im] = v;
      acc[0] += static_cast<double>(u) * u + static_cast<double>(v) * v;
    };
    if (out != nullptr) each<1>("rhs_axpby_norm2", f, out, set, then);
    else each<0>("rhs_axpby", f);
  }

  template <class Real>
  void check(const View<Real, 1, LayoutRight, Space>& v) const {
    if (static_cast<std::size_t>(2 * layout_.c.count()) != v.size())
      throw std::invalid_argument("rhs blas: buffer \"" + v.label() + "\" does not have the layout's size");
  }

 private:
  RhsLayout layout_;
  index_t chunks_ = 1;
  View<double, 1, LayoutRight, Space> partials_;
  SumOverProcesses over_processes_;
};

}  // namespace dslash
