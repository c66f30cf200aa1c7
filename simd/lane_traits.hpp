#pragma once
// What a kernel body may ask of its vector type beyond arithmetic: is it SIMT, W neighbouring GPU
// threads each holding one lane (simd/simt.hpp), rather than one CPU register of W lanes?
namespace dslash::simd {

template <class Vec>
inline constexpr bool is_simt = false;

}  // namespace dslash::simd
