#pragma once
// View: a multidimensional array handle with runtime extents, a label, a layout and a memory
// space. Copies share storage; the last copy frees it (shared ownership, as Kokkos::View).
//
//   View<double, 2> a("a", 3, 4);  // 3x4, LayoutRight, host, zero-initialised in parallel
//   auto b = a;                     // b and a share storage
//   a(1, 2) = 5.0;                  // b(1, 2) == 5.0
#include <array>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "dslash/core/layout.hpp"
#include "dslash/core/macros.hpp"
#include "dslash/core/execution_space.hpp"
#include "dslash/core/memory_space.hpp"
#include "dslash/core/profiling.hpp"

namespace dslash {

namespace detail {

// First touch: each page is written first by the thread that the kernels' static schedule gives
// it to, so on a NUMA machine the page lands next to the core that will use it (kokkos#8053).
// A profiler sees it as a launch: the page faults of a new allocation are most of its cost.
template <class T>
void first_touch(T* p, std::size_t n) {
  static_assert(std::is_trivially_destructible_v<T>, "View elements must be trivially destructible");
  const LaunchTimer timer("view_first_touch");
  const auto count = static_cast<long long>(n);
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < count; ++i) ::new (static_cast<void*>(p + i)) T{};
  timer.finish<OpenMP>();
}

[[noreturn]] inline void bounds_failure(const std::string& label, std::size_t rank, std::size_t index,
                                        std::size_t extent) {
  std::fprintf(stderr, "View \"%s\": index %zu = %zu out of bounds [0, %zu)\n", label.c_str(), rank, index,
               extent);
  std::abort();
}

}  // namespace detail

template <class T, std::size_t Rank, class Layout = LayoutRight, class Space = HostSpace>
class View {
  static_assert(Rank >= 1 && Rank <= 8, "View rank must be 1..8");

 public:
  using value_type = T;
  using layout_type = Layout;
  using memory_space = Space;
  using extents_type = std::array<std::size_t, Rank>;
  static constexpr std::size_t rank = Rank;

  View() = default;

  View(std::string label, const extents_type& extents) : extents_(extents) {
    strides_ = Layout::template strides<Rank>(extents_);
    std::size_t n = 1;
    for (std::size_t e : extents_) {
      if (e != 0 && n > static_cast<std::size_t>(-1) / sizeof(T) / e)
        throw std::length_error("View \"" + label + "\": size overflows");
      n *= e;
    }
    size_ = n;
    T* p = static_cast<T*>(Space::allocate(n * sizeof(T)));
    alloc_ = std::shared_ptr<Allocation>(new Allocation{std::move(label), p});
    data_ = p;
    if constexpr (Space::host_accessible) detail::first_touch(p, n);  // a device space zeroes its own
  }

  // A View of memory it did not allocate (an MPI shared-memory window, say): `owner` keeps the
  // memory alive and goes with the last copy. Contiguous, as allocated Views are; not first-touched.
  View(std::string label, T* data, const extents_type& extents, std::shared_ptr<void> owner) : extents_(extents) {
    strides_ = Layout::template strides<Rank>(extents_);
    size_ = 1;
    for (std::size_t e : extents_) size_ *= e;
    alloc_ = std::shared_ptr<Allocation>(new Allocation{std::move(label), data, std::move(owner)});
    data_ = data;
  }

  template <class... I>
    requires(sizeof...(I) == Rank && (std::is_integral_v<I> && ...))
  View(std::string label, I... extents)
      : View(std::move(label), extents_type{static_cast<std::size_t>(extents)...}) {}

  // Callable on the side whose memory the View holds (a CudaSpace View inside a GPU kernel).
  template <class... I>
    requires(sizeof...(I) == Rank)
  DSLASH_INLINE_FUNCTION T& operator()(I... idx) const {
    const std::size_t i[Rank] = {static_cast<std::size_t>(idx)...};
    std::size_t offset = 0;
    for (std::size_t r = 0; r < Rank; ++r) {
#if defined(DSLASH_BOUNDS_CHECK) && !DSLASH_ON_DEVICE
      if (i[r] >= extents_[r]) detail::bounds_failure(label(), r, i[r], extents_[r]);
#endif
      offset += i[r] * strides_[r];
    }
    return data_[offset];
  }

  DSLASH_INLINE_FUNCTION T* data() const { return data_; }
  DSLASH_INLINE_FUNCTION std::size_t extent(std::size_t r) const { return r < Rank ? extents_[r] : 1; }
  DSLASH_INLINE_FUNCTION std::size_t stride(std::size_t r) const { return r < Rank ? strides_[r] : 0; }
  const extents_type& extents() const { return extents_; }
  DSLASH_INLINE_FUNCTION std::size_t size() const { return size_; }
  DSLASH_INLINE_FUNCTION std::size_t span_bytes() const { return size_ * sizeof(T); }
  bool is_allocated() const { return alloc_ != nullptr; }
  long use_count() const { return alloc_.use_count(); }
  const std::string& label() const {
    static const std::string empty;
    return alloc_ ? alloc_->label : empty;
  }

 private:
  struct Allocation {
    Allocation(std::string l, T* p, std::shared_ptr<void> o = nullptr) : label(std::move(l)), ptr(p), owner(std::move(o)) {}
    Allocation(const Allocation&) = delete;
    Allocation& operator=(const Allocation&) = delete;
    ~Allocation() {
      if (!owner) Space::deallocate(ptr);
    }
    std::string label;
    T* ptr;
    std::shared_ptr<void> owner;  // set: the memory is the owner's, released with it
  };

  std::shared_ptr<Allocation> alloc_;
  T* data_ = nullptr;
  extents_type extents_{};
  extents_type strides_{};
  std::size_t size_ = 0;
};

// A host mirror: a View with the same shape and layout in HostSpace. For a host View it is the View
// itself (no copy), as Kokkos::create_mirror_view does.
template <class T, std::size_t R, class L, class S>
auto create_mirror_view(const View<T, R, L, S>& v) {
  if constexpr (std::is_same_v<S, HostSpace>) {
    return v;
  } else {
    return View<T, R, L, HostSpace>(v.label() + "_mirror", v.extents());
  }
}

// A new host allocation with the same shape and layout, always a distinct copy target.
template <class T, std::size_t R, class L, class S>
View<T, R, L, HostSpace> create_mirror(const View<T, R, L, S>& v) {
  return View<T, R, L, HostSpace>(v.label() + "_mirror", v.extents());
}

// Copy every element of src into dst; extents must match. Layouts may differ between host Views;
// a copy to or from a device space needs the same layout (one contiguous transfer).
template <class T, std::size_t R, class LD, class SD, class LS, class SS>
void deep_copy(const View<T, R, LD, SD>& dst, const View<T, R, LS, SS>& src) {
  if (dst.extents() != src.extents())
    throw std::invalid_argument("deep_copy: extents of \"" + dst.label() + "\" and \"" + src.label() +
                                "\" differ");
  if (dst.data() == src.data()) return;
  if constexpr (!SD::host_accessible || !SS::host_accessible) {
    static_assert(std::is_same_v<LD, LS>, "deep_copy to or from device memory needs the same layout on both sides");
    if constexpr (!SD::host_accessible) SD::copy(dst.data(), src.data(), src.span_bytes());
    else SS::copy(dst.data(), src.data(), src.span_bytes());
  } else if constexpr (std::is_same_v<LD, LS>) {
    std::memcpy(static_cast<void*>(dst.data()), static_cast<const void*>(src.data()), src.span_bytes());
  } else {
    // Walk the destination in its own storage order and gather from the source.
    const auto n = static_cast<long long>(src.size());
    const auto ext = src.extents();
#pragma omp parallel for schedule(static)
    for (long long flat = 0; flat < n; ++flat) {
      std::size_t rem = static_cast<std::size_t>(flat), src_off = 0, dst_off = 0;
      for (std::size_t r = R; r-- > 0;) {  // flat index in LayoutRight order
        const std::size_t i = rem % ext[r];
        rem /= ext[r];
        src_off += i * src.stride(r);
        dst_off += i * dst.stride(r);
      }
      dst.data()[dst_off] = src.data()[src_off];
    }
  }
}

// Set every element to value (in device memory: through a host mirror, for setting up, not speed).
template <class T, std::size_t R, class L, class S>
void deep_copy(const View<T, R, L, S>& dst, const T& value) {
  if constexpr (!S::host_accessible) {
    const auto host = create_mirror(dst);
    deep_copy(host, value);
    deep_copy(dst, host);
    return;
  }
  const auto n = static_cast<long long>(dst.size());
  T* p = dst.data();
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < n; ++i) p[i] = value;
}

}  // namespace dslash
