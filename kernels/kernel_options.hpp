#pragma once
// The choices a Dslash launch is made of: kernel family, dispatch policy, instruction set.
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "dslash/core/policies.hpp"
#include "dslash/lattice/geometry.hpp"
#include "kernels/kernel_build.hpp"

namespace dslash {

enum class KernelFamily { Naive, Mrhs, Vnode };
enum class Dispatch { Range, Team, MDRange };
// Emulated512 runs the AVX-512 lane counts on our scalar fallback, so the 16-way folding is
// validated on any CPU. Simt is the GPU's: the lanes are neighbouring threads (simd/simt.hpp), 32
// bytes of them; only DslashKernel<Real, CudaSpace> uses it, never a CPU list.
enum class SimdIsa { Scalar, Sse2, Avx2, Avx512, Neon, Emulated512, Simt };
// Spinor storage order in a kernel's buffers, named as the View layouts of (site, component):
// Right = site-major (a site's 24 reals together: CPU caches), Left = component-major (one
// component of every site together: structure of arrays, coalesced on a GPU).
enum class SpinorLayout { Right, Left };

// Where a 512-bit CPU kernel with site-major links asks for a later site's links ahead of its hops
// (kernels/dslash_body.hpp, prefetch_later_links): not at all, into L1, into L2; Auto: left to
// resolve_cache_policy (kernels/cache_policy.hpp), and into L1 where it has not run (as for an unknown cache).
enum class LinkPrefetch { Auto, None, IntoL1, IntoL2 };

const char* to_string(KernelFamily k);
const char* to_string(Dispatch d);
const char* to_string(SimdIsa s);
const char* to_string(SpinorLayout l);
const char* to_string(LinkPrefetch p);  // "auto", "none", "L1", "L2"
SpinorLayout parse_layout(std::string_view name);
// Throw std::invalid_argument listing the valid names.
KernelFamily parse_kernel(std::string_view name);

// What the GPU kernels' epilogue (a x + b D in with its sums, kernels/dslash_body.hpp) is built for
// beyond whole links, which every kernel takes: the one rule for the kernel templates and for
// DslashKernel::fuses_xpay. 12-real links: the kernels a mixed solve's sloppy operator runs with
// --compress-sloppy 12, naive and vnode single, so that solve's last pass of the operator rides the
// kernel too (docs/PERFORMANCE.md, H200 solver).
constexpr bool gpu_epilogue_takes_12_real_links(KernelFamily k, bool single) {
  return k == KernelFamily::Naive || (k == KernelFamily::Vnode && single);
}
// The inner product (BiCGStab): not in naive's, where the BLAS pass was as fast (its registers);
// vnode's GPU and CPU solves gain from it (docs/history/HISTORY.md).
constexpr bool gpu_epilogue_takes_inner_product(KernelFamily k) { return k != KernelFamily::Naive; }
Dispatch parse_dispatch(std::string_view name);
SimdIsa parse_simd(std::string_view name);  // also "auto": the best the CPU runs

// Built into this binary: scalar (naive's, and mrhs at one lane) and the sets of DSLASH_CPU_ISAS.
std::vector<SimdIsa> compiled_isas();
// Whether this build holds family k on isa (vnode on scalar only where DSLASH_CPU_ISAS lists scalar).
bool kernel_built(KernelFamily k, SimdIsa isa);
// And in half precision storage (DSLASH_HALF_ISAS; naive with scalar). The GPU holds every family.
bool half_built(KernelFamily k, SimdIsa isa);
bool cpu_supports(SimdIsa isa);         // compiled in and runnable on this CPU
std::vector<SimdIsa> runnable_isas();   // compiled_isas() filtered by cpu_supports()
SimdIsa best_isa();
// Reals per vector of the instruction set: 4 floats / 2 doubles for SSE2, 8 / 4 AVX2 and SIMT, 16 / 8 AVX-512.
int simd_lanes(SimdIsa isa, int bytes_per_real);
// The right-hand sides a kernel's spinor buffers hold for nrhs of the user's: mrhs rounds nrhs up to
// whole vectors of `lanes`, the padding zero (never unpacked, never credited as work); one elsewhere.
constexpr int padded_rhs(KernelFamily k, int nrhs, int lanes) {
  return k == KernelFamily::Mrhs && lanes > 0 ? (nrhs + lanes - 1) / lanes * lanes : 1;
}

struct DslashConfig {
  KernelFamily kernel = KernelFamily::Naive;
  Dispatch dispatch = Dispatch::Range;
  SimdIsa isa = SimdIsa::Scalar;
  Subset out = Subset::Even;  // Even/Odd: checkerboarded D_{p<-1-p}; Full: the full-lattice D
  bool dagger = false;
  SpinorLayout layout = SpinorLayout::Right;
  // Gauge compression: reals stored per link, 18 (none), 12 (two rows) or 8 (QUDA's reconstruct-8);
  // kernels/link_compression.hpp. 12 and 8 need SU(3) links (DslashKernel checks).
  int compress = 18;
  // Half precision storage (DslashKernel<float>): spinors and links in 16-bit fixed point, the
  // arithmetic single (docs/CONVENTIONS.md, "Half precision storage"); no halo, no epilogue.
  bool half = false;
  int nrhs = 1;                        // mrhs: any >= 1 (buffers padded to the lanes: padded_rhs); naive and vnode: 1
  std::array<index_t, 4> tile{0, 0, 1, 1};  // MDRange tile over (x or x/2, y, z, t); 0 = whole extent
  int team_size = 0;                   // TeamPolicy threads per team; 0 = the backend's default (launch resolves it)
  index_t sites_per_team = 0;          // sites one team handles; 0 = 4 * team_size (set_launch resolves it)
  // Team launches visit the sites in blocks of block_z outer z-planes, t inside the block loop, so a
  // t-neighbour is read again while in the cache (DslashBody::traversal_site). The outer z extent =
  // index order, the GPU's only order. 0: left to resolve_cache_policy, index order where it has not run.
  index_t block_z = 0;
  // The kernel's link prefetch (CPU, 512-bit vectors, site-major links; elsewhere it runs None).
  LinkPrefetch link_prefetch = LinkPrefetch::Auto;
  // Directions split between domains (MPI ranks): the kernel leaves out the hops that leave this
  // domain, and DslashFaces adds them from the neighbours' halos. All false: periodic in one domain.
  std::array<bool, 4> halo{false, false, false, false};
};

}  // namespace dslash
