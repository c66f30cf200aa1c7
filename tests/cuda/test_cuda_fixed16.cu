// Half precision's conversions on the GPU's lanes (simd/simt_half.hpp) against the scalar definition,
// lane by lane and bit for bit, on the cases of the CPU instruction sets (fixed16_cases.hpp), one
// thread a lane. Without a usable GPU they are skipped.
#include <gtest/gtest.h>

#include <cstdint>
#include <algorithm>

#include "dslash/core.hpp"
#include "fixed16_cases.hpp"
#include "gpu_test.hpp"
#include "simd/simt_half.hpp"

namespace dslash {
namespace {

class CudaFixed16 : public GpuTest<> {};

// Block b, a W-lane vector of W threads, takes cases b W .. b W + W - 1.
template <int W>
__global__ void convert(const std::int16_t* codes, const float* scale, const float* x, const float* store_scale, float* loaded,
                        std::int16_t* stored) {
  using V = simd::SimtLane<float, W>;
  const int at = static_cast<int>(blockIdx.x) * W;
  simd::load_fixed16(codes + at, V::load_aligned(scale + at)).store_aligned(loaded + at);
  simd::store_fixed16(stored + at, V::load_aligned(x + at), V::load_aligned(store_scale + at));
}
template <int W>
__global__ void site_scales(const float* m, const float* x, float* norm, float* load_scale, float* store_scale) {
  using V = simd::SimtLane<float, W>;
  const int at = static_cast<int>(blockIdx.x) * W;
  const V n = simd::fixed16_site_norm(simd::max_abs(V::load_aligned(m + at), V::load_aligned(x + at)));
  n.store_aligned(norm + at);
  simd::fixed16_load_scale(n).store_aligned(load_scale + at);
  simd::fixed16_store_scale(n).store_aligned(store_scale + at);
}

template <int W>
void check_lanes() {
  const auto loads = test::fixed16_loads();
  const auto stores = test::fixed16_stores();
  const auto sites = test::fixed16_sites();
  const std::size_t cases = std::max({loads.size(), stores.size(), sites.size()});
  const std::size_t n = (cases + W - 1) / W * W;
  // Case i of each list in lane i, its last case again past its end.
  const auto lane = [](const auto& list, std::size_t i) { return list[std::min(i, list.size() - 1)]; };
  HostBuffer<std::int16_t> codes("codes", n);
  HostBuffer<float> scale("scale", n), x("x", n), store_scale("store_scale", n), m("m", n), site_x("site_x", n);
  for (std::size_t i = 0; i < n; ++i) {
    codes.data()[i] = lane(loads, i).code, scale.data()[i] = lane(loads, i).scale;
    x.data()[i] = lane(stores, i).x, store_scale.data()[i] = lane(stores, i).store_scale;
    m.data()[i] = lane(sites, i).m, site_x.data()[i] = lane(sites, i).x;
  }
  DeviceBuffer<float> loaded("loaded", n), norm("norm", n), load_scale("load_scale", n), site_store_scale("site_store_scale", n);
  DeviceBuffer<std::int16_t> stored("stored", n);
  const auto blocks = static_cast<unsigned>(n / W);
  const auto d_codes = on_device(codes);
  const auto d_scale = on_device(scale), d_x = on_device(x), d_store_scale = on_device(store_scale), d_m = on_device(m), d_site_x = on_device(site_x);
  convert<W><<<blocks, W>>>(d_codes.data(), d_scale.data(), d_x.data(), d_store_scale.data(), loaded.data(), stored.data());
  site_scales<W><<<blocks, W>>>(d_m.data(), d_site_x.data(), norm.data(), load_scale.data(), site_store_scale.data());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const auto got_loaded = on_host(loaded);
  const auto got_stored = on_host(stored);
  const auto got_norm = on_host(norm), got_load_scale = on_host(load_scale), got_store_scale = on_host(site_store_scale);
  for (std::size_t i = 0; i < loads.size(); ++i) test::expect_fixed16_load(loads[i], got_loaded.data()[i]);
  for (std::size_t i = 0; i < stores.size(); ++i) test::expect_fixed16_store(stores[i], got_stored.data()[i]);
  for (std::size_t i = 0; i < sites.size(); ++i)
    test::expect_fixed16_scales(sites[i], got_norm.data()[i], got_load_scale.data()[i], got_store_scale.data()[i]);
}

TEST_F(CudaFixed16, OneLaneAThreadMatchesTheScalarDefinition) { check_lanes<8>(); }

}  // namespace
}  // namespace dslash
