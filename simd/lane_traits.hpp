#pragma once
// What a kernel body may ask of its vector type beyond arithmetic: is it SIMT, W neighbouring GPU
// threads each holding one lane (simd/simt.hpp), rather than one CPU register of W lanes? And, if
// it is, its complex-pair accesses.
#include "dslash/core/macros.hpp"
#include "simd/complex.hpp"

namespace dslash::simd {

template <class Vec>
inline constexpr bool is_simt = false;

// SIMT only, defined in simd/simt.hpp: a lane's complex number as one access, where the GPU's vnode
// layout keeps (re, im) adjacent (kernels/kernel_layout.hpp).
template <class Vec>
DSLASH_INLINE_FUNCTION Complex<Vec> load_pair(const typename Vec::value_type* p);
// SIMT only, defined in simd/simt.hpp: a real that the kernel reads once (a link), loaded so that
// the GPU's L2 evicts it first.
template <class Real>
DSLASH_INLINE_FUNCTION Real load_once(const Real* p);
// SIMT only, defined in simd/simt.hpp: a real whose 256-byte neighbourhood other threads read soon.
template <class Real>
DSLASH_INLINE_FUNCTION Real load_fetch_256b(const Real* p);
template <class Vec>
DSLASH_INLINE_FUNCTION void stream_store_pair(typename Vec::value_type* p, const Complex<Vec>& z);

}  // namespace dslash::simd
