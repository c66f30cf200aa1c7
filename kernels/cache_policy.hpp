#pragma once
// The cache policy of a CPU kernel (DslashConfig::block_z and link_prefetch), chosen from a
// last-level cache size by the application where it builds a kernel, never by the kernel itself:
// the same config behaves the same on every host, and a test pins it with explicit values.
#include <cstdint>

#include "dslash/lattice/geometry.hpp"
#include "kernels/host_cache.hpp"
#include "kernels/kernel_options.hpp"

namespace dslash {

// The team traversal's z-block: a t-step of it reads three t-planes of input spinors (t - 1, t,
// t + 1) and the next two steps read two of them again, so those three planes of the block, with
// its z-neighbour planes, should fit half the last-level cache (the other half for the links and
// output streaming past). The whole outer z extent (index order) where that fits or the cache is
// unknown (0), else the largest divisor of outer_z that fits, at least 1.
// z_plane_bytes: the input spinors of one outer z-plane of one t-plane.
index_t team_block_z_fitting(index_t outer_z, std::uint64_t z_plane_bytes, std::uint64_t cache_bytes);

// The link-prefetch rule, for a kernel whose body prefetches at all (512-bit vectors, site-major
// links): into L1 where the links fit a last-level cache of cache_bytes (0 when unknown: prefetch);
// from DRAM only vnode's 12-real links gained from it, into L2; the others prefetch nothing there
// (docs/history/HISTORY.md, "The DRAM stream beside reads from each cache level").
LinkPrefetch link_prefetch_for(KernelFamily kernel, int reals_per_link, std::uint64_t link_bytes, std::uint64_t cache_bytes);

// Fills what cfg leaves open: block_z where 0 (team_block_z_fitting) and link_prefetch where Auto
// (link_prefetch_for), for a CPU kernel of bytes_per_real reals on `lattice` (the kernel's own: a
// rank's domain under MPI) beside a last-level cache of llc_bytes (0: unknown). Values set are kept;
// a config the kernel will refuse (a lattice its lanes cannot fold) is left as it is.
void resolve_cache_policy(DslashConfig& cfg, const Geometry& lattice, int bytes_per_real, std::uint64_t llc_bytes);

// What the application builds a kernel of Real on Space with: on the host, the config resolved
// against this host's cache (host_last_level_cache_bytes); on the GPU as it is (index order, no
// prefetch: the kernel's own defaults there).
template <class Real, class Space>
DslashConfig with_host_cache_policy(DslashConfig cfg, const Geometry& lattice) {
  if constexpr (Space::host_accessible) resolve_cache_policy(cfg, lattice, static_cast<int>(sizeof(Real)), host_last_level_cache_bytes());
  return cfg;
}

}  // namespace dslash
