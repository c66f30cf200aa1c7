#include "kernels/cache_policy.hpp"

#include <stdexcept>

#include "kernels/kernel_layout.hpp"

namespace dslash {

index_t team_block_z_fitting(index_t outer_z, std::uint64_t z_plane_bytes, std::uint64_t cache_bytes) {
  const auto fits = [&](index_t planes) { return 3 * static_cast<std::uint64_t>(planes) * z_plane_bytes <= cache_bytes / 2; };
  if (cache_bytes == 0 || fits(outer_z)) return outer_z;
  for (index_t bz = outer_z - 1; bz > 1; --bz)
    if (outer_z % bz == 0 && fits(bz + 2)) return bz;  // + its two z-neighbour planes
  return 1;
}

LinkPrefetch link_prefetch_for(KernelFamily kernel, int reals_per_link, std::uint64_t link_bytes, std::uint64_t cache_bytes) {
  if (cache_bytes == 0 || link_bytes <= cache_bytes) return LinkPrefetch::IntoL1;
  return kernel == KernelFamily::Vnode && reals_per_link == 12 ? LinkPrefetch::IntoL2 : LinkPrefetch::None;
}

void resolve_cache_policy(DslashConfig& cfg, const Geometry& lattice, int bytes_per_real, std::uint64_t llc_bytes) {
  // The kernel's lanes and outer lattice, as DslashKernel resolves them (naive: one scalar lane).
  const bool naive = cfg.kernel == KernelFamily::Naive;
  const int lanes = naive ? 1 : simd_lanes(cfg.isa, bytes_per_real);
  if (lanes < 1 || cfg.nrhs < 1) return;
  KernelLayout layout;
  try {
    layout = KernelLayout::make(lattice, lanes, cfg.kernel == KernelFamily::Vnode, 1, "");
  } catch (const std::invalid_argument&) {
    return;  // the kernel says why
  }
  const std::uint64_t sites = static_cast<std::uint64_t>(cfg.out == Subset::Full ? lattice.volume() : lattice.half_volume());
  const std::uint64_t real = static_cast<std::uint64_t>(bytes_per_real);
  if (cfg.block_z == 0) {
    const index_t outer_z = layout.outer[2], outer_t = layout.outer[3];
    const std::uint64_t spinor_bytes = sites * 24u * static_cast<std::uint64_t>(padded_rhs(cfg.kernel, cfg.nrhs, lanes)) * real;
    cfg.block_z = team_block_z_fitting(outer_z, spinor_bytes / static_cast<std::uint64_t>(outer_z * outer_t), llc_bytes);
  }
  // The links: 8 of compress reals per output site, folded or not.
  if (cfg.link_prefetch == LinkPrefetch::Auto)
    cfg.link_prefetch = link_prefetch_for(cfg.kernel, cfg.compress, sites * 8u * static_cast<std::uint64_t>(cfg.compress) * real, llc_bytes);
}

}  // namespace dslash
