#pragma once
// The cases of half precision's vector conversions (simd/: load_fixed16, store_fixed16 and the site
// scales), and what each lane must give: the scalar definition (simd/fixed16.hpp) bit for
// bit. Shared by the CPU instruction sets (test_simd.cpp) and the GPU's lanes (test_cuda_fixed16.cu).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "simd/fixed16.hpp"

namespace dslash::test {

inline std::uint32_t float_bits(float x) { return std::bit_cast<std::uint32_t>(x); }

// Beyond the edge cases, 1000 random ones of each kind: reals of any size from 2^-120 to 2^100,
// any code, store scales from the norms near each real (so that some saturate), some zero.
constexpr int kFixed16RandomCases = 1000;
struct Fixed16Random {
  std::mt19937 rng{76};
  float real() { return std::ldexp(std::uniform_real_distribution<float>(-2, 2)(rng), static_cast<int>(rng() % 220) - 120); }
  float store_scale(float x) {
    return rng() % 8 == 0 ? 0.0f : fixed16::store_scale(fixed16::site_norm(std::fabs(x) * std::uniform_real_distribution<float>(0.9f, 4)(rng)));
  }
  std::int16_t code() { return static_cast<std::int16_t>(rng()); }
};

// Codes to reals: the extremes of the codes (-32768 is never written, but reads as itself), a zero
// site (scale 0: zeros, not NaN), the extremes of the norms.
struct Fixed16Load {
  std::int16_t code;
  float scale;
};
inline std::vector<Fixed16Load> fixed16_loads() {
  std::vector<Fixed16Load> c = {{0, 1.0f}, {1, 1.0f}, {-1, 1.0f}, {32767, 1.0f / 32767}, {-32767, 1.0f / 32767}, {-32768, 1.0f / 32767},
          {12345, 0.0f}, {-32767, 0.0f}, {32767, fixed16::load_scale(FLT_MAX)}, {-32767, fixed16::load_scale(fixed16::kNormMin)},
          {1, fixed16::load_scale(fixed16::kNormMin)}, {-2, 3.7e30f}, {7, 1e-3f}, {-9999, 0.25f}, {0, 0.0f}, {20000, 1e-20f}, {-1, 5.0f}};
  Fixed16Random r;
  for (int i = 0; i < kFixed16RandomCases; ++i) c.push_back({r.code(), fixed16::load_scale(fixed16::site_norm(std::fabs(r.real())))});
  return c;
}
inline void expect_fixed16_load(const Fixed16Load& c, float got) {
  EXPECT_EQ(float_bits(got), float_bits(fixed16::to_float(c.code, c.scale))) << "load: code " << c.code << " scale " << c.scale << " gave " << got;
  EXPECT_FALSE(std::isnan(got)) << "load: code " << c.code << " scale " << c.scale;
}

// Reals to codes: ties go to the even code, reals beyond the norm saturate at +-32767, a zero site
// (store scale 0) writes zeros, and a site's largest real is the code 32767 whatever its norm.
struct Fixed16Store {
  float x, store_scale;
  int expect;  // the code, or kAny where only agreement with the scalar definition is asked
  static constexpr int kAny = 1 << 20;
};
inline std::vector<Fixed16Store> fixed16_stores() {
  std::vector<Fixed16Store> c = {
      {0.5f, 1, 0},         {1.5f, 1, 2},          {2.5f, 1, 2},           {-0.5f, 1, 0},         {-1.5f, 1, -2},
      {-2.5f, 1, -2},       {32766.5f, 1, 32766},  {-32766.5f, 1, -32766}, {32767.49f, 1, 32767}, {32768, 1, 32767},
      {1e30f, 1, 32767},    {-1e30f, 1, -32767},   {123.4f, 0, 0},         {-7.0f, 0, 0},         {0.0f, 1e30f, 0},
      {0.3f, 32767, 9830},  {-0.3f, 32767, -9830}};
  for (float norm : {1.0f, 3.3e-3f, fixed16::kNormMin, FLT_MAX, 1e-20f, 7.5e12f}) {
    c.push_back({norm, fixed16::store_scale(norm), 32767});
    c.push_back({-norm, fixed16::store_scale(norm), -32767});
    c.push_back({norm / 3, fixed16::store_scale(norm), Fixed16Store::kAny});
    c.push_back({-norm * 0.7f, fixed16::store_scale(norm), Fixed16Store::kAny});
  }
  Fixed16Random r;
  for (int i = 0; i < kFixed16RandomCases; ++i) {
    const float x = r.real();
    c.push_back({x, r.store_scale(x), Fixed16Store::kAny});
  }
  return c;
}
inline void expect_fixed16_store(const Fixed16Store& c, std::int16_t got) {
  EXPECT_EQ(got, fixed16::to_code(c.x, c.store_scale)) << "store: x " << c.x << " scale " << c.store_scale;
  if (c.expect != Fixed16Store::kAny) {
    EXPECT_EQ(got, c.expect) << "store: x " << c.x << " scale " << c.store_scale;
  }
}

// A site's scales from the running max |real| m and one more real x: a zero site, a norm just below
// the smallest kept (stored as zero) and at it, the largest float.
struct Fixed16Site {
  float m, x;
};
inline std::vector<Fixed16Site> fixed16_sites() {
  const float below = std::nextafter(fixed16::kNormMin, 0.0f);
  std::vector<Fixed16Site> c = {{0, 0}, {0, -3}, {2, 1}, {2, -2.5f}, {0, fixed16::kNormMin}, {0, -below}, {below, 0},
                                {0, -1e-35f}, {0, FLT_MAX}, {1e-3f, -1e-2f}, {0, 1e-30f}, {5, -0.0f}};
  Fixed16Random r;
  for (int i = 0; i < kFixed16RandomCases; ++i) c.push_back({std::fabs(r.real()), r.real()});
  return c;
}
inline void expect_fixed16_scales(const Fixed16Site& c, float norm, float load_scale, float store_scale) {
  const float n = fixed16::site_norm(std::max(c.m, std::fabs(c.x)));
  EXPECT_EQ(float_bits(norm), float_bits(n)) << "norm: m " << c.m << " x " << c.x;
  EXPECT_EQ(float_bits(load_scale), float_bits(fixed16::load_scale(n))) << "load scale: norm " << n;
  EXPECT_EQ(float_bits(store_scale), float_bits(fixed16::store_scale(n))) << "store scale: norm " << n;
  EXPECT_TRUE(std::isfinite(load_scale) && std::isfinite(store_scale)) << "norm " << n;
  if (n == 0) {
    EXPECT_TRUE(load_scale == 0 && store_scale == 0) << "a zero site's scales are zero";
  }
}

}  // namespace dslash::test
