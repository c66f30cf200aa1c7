#include "kernels/dslash_kernel.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <type_traits>

#include "dslash/core.hpp"
#include "kernels/reference_dslash.hpp"
#include "simd/fixed16.hpp"
#if defined(DSLASH_HAVE_CUDA)
#include "dslash/core/backend/cuda/space.hpp"
#endif

namespace dslash {

namespace {

// The tables of one instruction set's build, or a refusal naming it.
template <class Real>
struct IsaTables {
  RunnerTable<Real> (*runners)();
  ProbeTable<Real> (*probes)();
};
#define DSLASH_ISA_TABLES(isa) IsaTables<Real>{&isa##_runners<Real>, &isa##_probes<Real>}

template <class Real>
IsaTables<Real> tables_for(SimdIsa isa) {
  switch (isa) {
#if defined(DSLASH_HAVE_CUDA)
    case SimdIsa::Simt: return DSLASH_ISA_TABLES(cuda);
#endif
    case SimdIsa::Scalar: return DSLASH_ISA_TABLES(scalar);  // naive's, whatever the build's list
#if DSLASH_BUILT_EMULATED512
    case SimdIsa::Emulated512: return DSLASH_ISA_TABLES(emulated512);
#endif
#if DSLASH_BUILT_SSE2
    case SimdIsa::Sse2: return DSLASH_ISA_TABLES(sse2);
#endif
#if DSLASH_BUILT_AVX2
    case SimdIsa::Avx2: return DSLASH_ISA_TABLES(avx2);
#endif
#if DSLASH_BUILT_AVX512
    case SimdIsa::Avx512: return DSLASH_ISA_TABLES(avx512);
#endif
#if DSLASH_BUILT_NEON
    case SimdIsa::Neon: return DSLASH_ISA_TABLES(neon);
#endif
    default: break;
  }
  throw std::invalid_argument(std::string("no kernels compiled for ") + to_string(isa));
}
#undef DSLASH_ISA_TABLES

template <class Real>
RunnerTable<Real> runners_for(SimdIsa isa) {
  return tables_for<Real>(isa).runners();
}
template <class Real>
ProbeTable<Real> probes_for(SimdIsa isa) {
  return tables_for<Real>(isa).probes();
}

}  // namespace

namespace {

// Fails with the reason when `bytes` more do not fit in Space's memory.
template <class Space>
void check_fits(std::uint64_t bytes, const std::string& what) {
  if constexpr (Space::host_accessible) {
    check_memory_fits(bytes, what);
  } else {
    const std::uint64_t free = Space::available_bytes();
    if (bytes > free)
      throw std::runtime_error(what + " needs " + format_bytes(bytes) + " but only " + format_bytes(free) + " of device memory is free");
  }
}

}  // namespace

// Everything the constructor checks that the configuration and the lattice decide, in its order,
// without the gauge field: check_config runs it where a caller must refuse a launch before it
// spends time (the bench's ceilings).
template <class Real, class Space>
typename DslashKernel<Real, Space>::Resolved DslashKernel<Real, Space>::validate(const Geometry& geom, const DslashConfig& config) {
  constexpr bool kDevice = !Space::host_accessible;
  Resolved r{config, {}, {}};
  DslashConfig& cfg = r.cfg;
  if constexpr (kDevice) {
    // The GPU's lanes are threads, and a warp coalesces the component-major layout (site fastest).
    cfg.isa = SimdIsa::Simt;
    cfg.layout = SpinorLayout::Left;
  } else if (cfg.kernel == KernelFamily::Naive) {
    cfg.isa = SimdIsa::Scalar;  // naive is scalar by definition
  }
  const std::string where = kDevice ? std::string("cuda") : to_string(cfg.isa);
  r.what = std::string(to_string(cfg.kernel)) + " (" + where + ", " + (cfg.half ? "half" : sizeof(Real) == 4 ? "single" : "double") + ")";
  const std::string& what = r.what;
  if (cfg.half && sizeof(Real) != 4) throw std::invalid_argument(what + ": half precision storage computes in single (a float kernel)");
  if (!kDevice && !cpu_supports(cfg.isa)) throw std::invalid_argument(what + ": this CPU cannot run " + to_string(cfg.isa));
  const int lanes = cfg.kernel == KernelFamily::Naive ? 1 : simd_lanes(cfg.isa, sizeof(Real));
  if (cfg.nrhs < 1) throw std::invalid_argument(what + ": nrhs must be >= 1");
  int blocks = 1;
  if (cfg.kernel == KernelFamily::Mrhs) {
    blocks = padded_rhs(cfg.kernel, cfg.nrhs, lanes) / lanes;  // the last block's lanes past nrhs are zero padding
  } else if (cfg.nrhs != 1) {
    throw std::invalid_argument(what + " applies to one right-hand side at a time (nrhs = " + std::to_string(cfg.nrhs) +
                                "); use mrhs for several");
  }
  r.layout = KernelLayout::make(geom, lanes, cfg.kernel == KernelFamily::Vnode, blocks, what);
  const index_t outer_z = r.layout.outer[2];
  if (kDevice && cfg.block_z != 0 && cfg.block_z != outer_z) {
    throw std::invalid_argument(what + ": the GPU's team launches keep index order (a traversal block of " + std::to_string(cfg.block_z) +
                                " z-planes is for the CPU's caches)");
  } else if (cfg.block_z == 0) {
    cfg.block_z = outer_z;  // index order: a block from the cache is the application's (resolve_cache_policy)
  } else if (cfg.block_z < 0 || outer_z % cfg.block_z != 0) {
    throw std::invalid_argument(what + ": a team traversal block of " + std::to_string(cfg.block_z) + " z-planes must divide the outer z extent " +
                                std::to_string(outer_z));
  }
  launch(cfg, r.layout.lanes, cfg.tile, cfg.team_size, cfg.sites_per_team);
  // Only the CPU body on 512-bit vectors with site-major links prefetches (DslashBody::prefetch_later_links).
  const bool prefetches = !kDevice && r.layout.lanes * static_cast<int>(sizeof(Real)) >= 64 && cfg.layout == SpinorLayout::Right;
  if (!prefetches) cfg.link_prefetch = LinkPrefetch::None;
  else if (cfg.link_prefetch == LinkPrefetch::Auto) cfg.link_prefetch = LinkPrefetch::IntoL1;

  const FamilyRunners<Real> runners = runners_for<Real>(cfg.isa).family[static_cast<int>(cfg.kernel)];
  // The GPU has no traffic probe yet.
  if (runners.dslash == nullptr || runners.faces == nullptr || (!kDevice && (runners.traffic == nullptr || runners.project_all == nullptr)))
    throw std::invalid_argument(what + ": not built for this instruction set (cmake -DDSLASH_CPU_ISAS=...)");
  if (cfg.half && runners.dslash_half == nullptr)
    throw std::invalid_argument(what + ": half precision is not built for this instruction set (cmake -DDSLASH_HALF_ISAS=...)");
  if ((cfg.compress == 12 && !build::kLinks12) || (cfg.compress == 8 && !build::kLinks8))
    throw std::invalid_argument(what + ": links of " + std::to_string(cfg.compress) + " reals are not built (cmake -DDSLASH_LINK_COMPRESSIONS=\"18;12;8\")");
  if (!kDevice && cfg.layout == SpinorLayout::Left && !build::kCpuLeftLayout)
    throw std::invalid_argument(what + ": the component-major CPU layout is not built (cmake -DDSLASH_CPU_LAYOUTS=\"right;left\")");
  return r;
}

template <class Real, class Space>
DslashConfig DslashKernel<Real, Space>::check_config(const Geometry& geom, const DslashConfig& config) {
  return validate(geom, config).cfg;
}

template <class Real, class Space>
DslashKernel<Real, Space>::DslashKernel(const GaugeField<Real>& u, const DslashConfig& config, const FaceLinks<Real>* below)
    : geom_(u.geometry()) {
  const Resolved resolved = validate(geom_, config);
  cfg_ = resolved.cfg;
  layout_ = resolved.layout;
  select_runners();
  pack_links(u, below, resolved.what);
}

template <class Real, class Space>
void DslashKernel<Real, Space>::select_runners() {
  constexpr bool kDevice = !Space::host_accessible;
  const std::string prec = cfg_.half ? "f16" : sizeof(Real) == 4 ? "f32" : "f64";
  const std::string where = kDevice ? std::string("cuda") : to_string(cfg_.isa);
  const FamilyRunners<Real> runners = runners_for<Real>(cfg_.isa).family[static_cast<int>(cfg_.kernel)];
  runner_ = runners.dslash;
  face_runner_ = runners.faces;
  project_all_runner_ = runners.project_all;
  traffic_runner_ = runners.traffic;
  half_runner_ = runners.dslash_half;
  encode_runner_ = runners.encode_half;
  decode_runner_ = runners.decode_half;
  label_ = std::string("dslash_") + to_string(cfg_.kernel) + "_" + where + "_" + prec + "_" + to_string(cfg_.dispatch) +
           (!kDevice && cfg_.layout == SpinorLayout::Left ? "_left" : "") + (cfg_.compress != 18 ? "_r" + std::to_string(cfg_.compress) : "");
}

template <class Real, class Space>
void DslashKernel<Real, Space>::pack_links(const GaugeField<Real>& u, const FaceLinks<Real>* below, const std::string& what) {
  constexpr bool kDevice = !Space::host_accessible;
  check_compressible(u, cfg_.compress);  // and 18, 12 or 8
  if (below) check_face_links(*below, geom_.extents(), cfg_.halo, what.c_str());
  below_ = below ? *below : upper_face_links(u, cfg_.halo);

  // Links per output site: forward U_mu(x), backward U_mu(x - mu)^dagger, for each lane, G stored
  // reals each in the order of kernels/kernel_layout.hpp; site-major, or component-major with the Left layout.
  const int W = layout_.lanes, G = cfg_.compress;
  const int link_lanes = layout_.folded ? W : 1;
  const index_t sites = outer_sites();
  const bool component_major = cfg_.layout == SpinorLayout::Left;
  const bool pairs = spinor_strides().pairs;
  const std::size_t link_reals = static_cast<std::size_t>(sites * 8 * G * link_lanes);
  const std::uint64_t link_bytes = link_reals * (cfg_.half ? sizeof(std::int16_t) : sizeof(Real));
  check_fits<Space>(link_bytes, label_ + " links");
  if (cfg_.half) half_links_ = View<std::int16_t, 1, LayoutRight, Space>(label_ + "_links", link_reals);
  else links_ = spinor_view(label_ + "_links", link_reals);
  if constexpr (kDevice) check_memory_fits(link_bytes, label_ + " links (packed on the host)");
  const auto host_links = create_mirror_view(links_);  // links_ itself in host memory
  const auto host_codes = create_mirror_view(half_links_);
  Real* L = host_links.data();
  std::int16_t* codes = host_codes.data();
  std::string unstorable;  // the first link entry half precision cannot store (beyond its norm)
  for_each_slot(cfg_.out, [&](index_t, int lane, index_t o, site_t s) {
    if (!layout_.folded && lane != 0) return;
    const Coord x = geom_.coords(s);
    for (int mu = 0; mu < 4; ++mu) {
      const auto m = static_cast<std::size_t>(mu);
      // Where the halo's hop reads it (DslashBody::add_received), U_mu(x - mu) comes from below_.
      const ColourMatrix<Real> back = cfg_.halo[m] && x[m] == 0 ? below_[m][face_site_index(geom_.extents(), mu, x)] : u.link(geom_.neighbour(s, mu, -1), mu);
      const ColourMatrix<Real> hop_link[2] = {u.link(s, mu), adjoint(back)};
      for (int dir = 0; dir < 2; ++dir) {
        Real stored[18];
        compress_link(hop_link[dir], G, stored);
        for (int k = 0; k < G; ++k) {
          const index_t e = link_offset(2 * mu + dir, G) + k;  // stored component, of 8 G per site
          const index_t lane_at = layout_.folded ? lane : 0;
          const index_t at = pairs ? ((e / 2 * sites + o) * link_lanes + lane_at) * 2 + e % 2
                                   : (component_major ? e * sites + o : o * 8 * G + e) * link_lanes + lane_at;
          if (!cfg_.half) {
            L[at] = stored[k];
            continue;
          }
          // Codes of norm 1, the phases of 8-real links of norm pi (docs/CONVENTIONS.md).
          const float norm = G == 8 && k < 2 ? fixed16::kPhaseNorm : fixed16::kLinkNorm;
          if (std::abs(static_cast<float>(stored[k])) > norm * (1.0f + 0x1p-16f)) {
#pragma omp critical
            if (unstorable.empty())
              unstorable = "link (" + std::to_string(x[0]) + "," + std::to_string(x[1]) + "," + std::to_string(x[2]) + "," + std::to_string(x[3]) +
                           ", mu " + std::to_string(mu) + ") has an entry of magnitude " + std::to_string(static_cast<double>(std::abs(stored[k]))) +
                           " beyond the norm " + std::to_string(norm) + " of its half precision codes (not SU(3))";
          }
          codes[at] = fixed16::to_code(static_cast<float>(stored[k]), fixed16::store_scale(norm));
        }
      }
    }
  });
  if (!unstorable.empty()) throw std::invalid_argument(what + ": " + unstorable);
  if constexpr (kDevice) {
    deep_copy(links_, host_links);
    deep_copy(half_links_, host_codes);
  }
}

template <class Real, class Space>
void DslashKernel<Real, Space>::launch(DslashConfig& cfg, int lanes, const std::array<index_t, 4>& tile, int team_size, index_t sites_per_team) {
  for (index_t t : tile)
    if (t < 0) throw std::invalid_argument(std::string(to_string(cfg.kernel)) + ": MDRange tile sizes must be >= 0");
  if (team_size < 0) throw std::invalid_argument(std::string(to_string(cfg.kernel)) + ": team size must be >= 1");
  // A GPU team is a block: one warp unless asked, as a block of one thread idles 31 of a warp's lanes.
  if (team_size == 0) team_size = Space::host_accessible ? 1 : 32;
  if constexpr (!Space::host_accessible) {  // a GPU team is one block of team_size x lanes threads
    if (team_size * lanes > 1024)
      throw std::invalid_argument(std::string(to_string(cfg.kernel)) + ": team size " + std::to_string(team_size) + " x " +
                                  std::to_string(lanes) + " lanes exceeds the GPU's 1024 threads per block");
  }
  if (sites_per_team < 0) throw std::invalid_argument(std::string(to_string(cfg.kernel)) + ": sites per team must be >= 0");
  cfg.tile = tile;
  cfg.team_size = team_size;
  cfg.sites_per_team = sites_per_team > 0 ? sites_per_team : 4 * index_t{team_size};  // config() reports what runs
}

template <class Real, class Space>
void DslashKernel<Real, Space>::set_launch(const std::array<index_t, 4>& tile, int team_size, index_t sites_per_team) {
  launch(cfg_, layout_.lanes, tile, team_size, sites_per_team);
}

template <class Real, class Space>
KernelLayout::Strides DslashKernel<Real, Space>::spinor_strides() const {
  // Input and output buffers hold the same number of outer sites (V/2 or V, over the lanes).
  return layout_.spinor_strides(cfg_.layout == SpinorLayout::Left, output_sites() / (layout_.folded ? layout_.lanes : 1),
                                !Space::host_accessible && layout_.folded);
}

template <class Real, class Space>
Subset DslashKernel<Real, Space>::in_subset() const {
  return neighbour_subset(cfg_.out);
}

template <class Real, class Space>
site_t DslashKernel<Real, Space>::output_sites() const {
  return cfg_.out == Subset::Full ? geom_.volume() : geom_.half_volume();
}

template <class Real, class Space>
std::uint64_t DslashKernel<Real, Space>::spinor_bytes() const {
  return static_cast<std::uint64_t>(output_sites()) * 24u * static_cast<std::uint64_t>(rhs_slots()) * sizeof(Real);
}

template <class Real, class Space>
typename DslashKernel<Real, Space>::spinor_view DslashKernel<Real, Space>::allocate_spinors(const std::string& label) const {
  check_fits<Space>(spinor_bytes(), label);
  return spinor_view(label, static_cast<std::size_t>(spinor_bytes() / sizeof(Real)));
}

// Every packed slot: outer index o (one vector per lane set), lane, and the global site it holds.
// f(storage index of that site in a `subset` field, lane, o, global site).
template <class Real, class Space>
template <class F>
void DslashKernel<Real, Space>::for_each_slot(Subset subset, const F& f) const {
  const Geometry outer = layout_.outer_geometry();
  const index_t n = subset == Subset::Full ? outer.volume() : outer.half_volume();
  const int W = layout_.lanes;
  parallel_for("pack_slots", RangePolicy<>(n), [&](index_t o) {
    const site_t so = subset == Subset::Full ? o : outer.site_from_cb(o, static_cast<Parity>(subset));
    const Coord xo = outer.coords(so);
    for (int lane = 0; lane < W; ++lane) {
      const site_t s = geom_.site(layout_.global_coords(xo, lane));
      f(subset == Subset::Full ? s : Geometry::cb_index(s), lane, o, s);
    }
  });
}

template <class Real, class Space>
std::vector<index_t> DslashKernel<Real, Space>::slots_of_sites(Subset subset) const {
  std::vector<index_t> slots(static_cast<std::size_t>(subset == Subset::Full ? geom_.volume() : geom_.half_volume()));
  for_each_slot(subset, [&](index_t i, int lane, index_t o, site_t) { slots[static_cast<std::size_t>(i)] = o * layout_.lanes + lane; });
  return slots;
}

template <class Real, class Space>
void DslashKernel<Real, Space>::pack(const std::vector<SpinorField<Real>>& in, const spinor_view& packed) const {
  if (static_cast<int>(in.size()) != cfg_.nrhs)
    throw std::invalid_argument(label_ + ": expects " + std::to_string(cfg_.nrhs) + " input spinors, got " + std::to_string(in.size()));
  for (const auto& f : in)
    if (f.subset() != in_subset() || !(f.geometry() == geom_))
      throw std::invalid_argument(label_ + ": input spinors must be " + to_string(in_subset()) + " fields on " + geom_.to_string());
  if (packed.size() * sizeof(Real) != spinor_bytes()) throw std::invalid_argument(label_ + ": packed buffer has the wrong size");
  const int W = layout_.lanes, B = layout_.blocks;
  const KernelLayout::Strides st = spinor_strides();
  const auto host = create_mirror_view(packed);  // packed itself in host memory
  Real* p = host.data();
  for_each_slot(in_subset(), [&](index_t i, int lane, index_t o, site_t) {
    for (int b = 0; b < B; ++b) {
      const int rhs = layout_.folded ? 0 : b * W + lane;
      const index_t site = layout_.folded ? i : o;
      for (int k = 0; k < 12; ++k) {
        const std::complex<Real> z = rhs < cfg_.nrhs ? in[static_cast<std::size_t>(rhs)](site, k / 3, k % 3) : std::complex<Real>(0);
        p[st.index(o, b, 2 * k, lane, W)] = z.real();
        p[st.index(o, b, 2 * k + 1, lane, W)] = z.imag();
      }
    }
  });
  if constexpr (!Space::host_accessible) deep_copy(packed, host);
}

template <class Real, class Space>
void DslashKernel<Real, Space>::unpack(const spinor_view& packed, std::vector<SpinorField<Real>>& out) const {
  out.clear();
  for (int r = 0; r < cfg_.nrhs; ++r) out.emplace_back(geom_, cfg_.out, label_ + "_out");
  const int W = layout_.lanes, B = layout_.blocks;
  const KernelLayout::Strides st = spinor_strides();
  const auto host = create_mirror_view(packed);
  if constexpr (!Space::host_accessible) deep_copy(host, packed);
  const Real* p = host.data();
  for_each_slot(cfg_.out, [&](index_t i, int lane, index_t o, site_t) {
    for (int b = 0; b < B; ++b) {
      const int rhs = layout_.folded ? 0 : b * W + lane;
      if (rhs >= cfg_.nrhs) continue;  // padding
      SpinorField<Real>& f = out[static_cast<std::size_t>(rhs)];
      const index_t site = layout_.folded ? i : o;
      for (int k = 0; k < 12; ++k)
        f(site, k / 3, k % 3) = {p[st.index(o, b, 2 * k, lane, W)], p[st.index(o, b, 2 * k + 1, lane, W)]};
    }
  });
}

template <class Real, class Space>
void DslashKernel<Real, Space>::apply(const spinor_view& in, const spinor_view& out, const ApplyOptions<Real>& opts) const {
  runner_(run_args(in, out, opts));
}

template <class Real, class Space>
std::uint64_t DslashKernel<Real, Space>::half_spinor_bytes() const {
  return spinor_bytes() / sizeof(Real) * sizeof(std::int16_t) + static_cast<std::uint64_t>(spinor_bytes() / sizeof(Real) / 24) * sizeof(float);
}

template <class Real, class Space>
typename DslashKernel<Real, Space>::half_spinors DslashKernel<Real, Space>::allocate_half_spinors(const std::string& label) const {
  if (!cfg_.half) throw std::invalid_argument(label_ + ": half precision buffers are for a half precision kernel (config().half)");
  check_fits<Space>(half_spinor_bytes(), label);
  const std::size_t reals = spinor_bytes() / sizeof(Real);
  return {View<std::int16_t, 1, LayoutRight, Space>(label + "_codes", reals), View<float, 1, LayoutRight, Space>(label + "_norms", reals / 24)};
}

// Site-major: beside its spinor; else component-major, as the spinors' component 0.
template <class Real, class Space>
std::pair<index_t, index_t> DslashKernel<Real, Space>::half_norm_strides() const {
  const KernelLayout::Strides st = spinor_strides();
  return st.component == 1 ? std::pair<index_t, index_t>{layout_.blocks, 1} : std::pair<index_t, index_t>{1, st.block / (st.pairs ? 2 : 1)};
}

// Through a buffer of floats in this kernel's layout, converted where the kernel runs.
template <class Real, class Space>
void DslashKernel<Real, Space>::pack(const std::vector<SpinorField<Real>>& in, const half_spinors& packed) const {
  const spinor_view floats = allocate_spinors(label_ + "_pack");
  pack(in, floats);
  encode(floats, packed);
}

template <class Real, class Space>
void DslashKernel<Real, Space>::unpack(const half_spinors& packed, std::vector<SpinorField<Real>>& out) const {
  const spinor_view floats = allocate_spinors(label_ + "_unpack");
  decode(packed, floats);
  unpack(floats, out);
}

template <class Real, class Space>
RunArgs<Real> DslashKernel<Real, Space>::half_args(const half_spinors* in, const half_spinors* out) const {
  if (!cfg_.half) throw std::invalid_argument(label_ + ": half precision buffers are for a half precision kernel (config().half)");
  for (const half_spinors* v : {in, out})
    if (v != nullptr && (v->codes.size() * sizeof(Real) != spinor_bytes() || v->norms.size() * 24 * sizeof(Real) != spinor_bytes()))
      throw std::invalid_argument(label_ + ": half precision spinor buffers have the wrong size");
  RunArgs<Real> args = launch_args({});
  const auto [ns, nb] = half_norm_strides();
  args.fields.half = {in != nullptr ? in->codes.data() : nullptr, in != nullptr ? in->norms.data() : nullptr, out != nullptr ? out->codes.data() : nullptr,
                      out != nullptr ? out->norms.data() : nullptr, half_links_.data(), ns, nb};
  return args;
}

template <class Real, class Space>
void DslashKernel<Real, Space>::encode(const spinor_view& in, const half_spinors& out) const {
  RunArgs<Real> args = half_args(nullptr, &out);
  if (in.size() * sizeof(Real) != spinor_bytes()) throw std::invalid_argument(label_ + ": encode's buffer has the wrong size");
  args.launch.dispatch = Dispatch::Range;
  args.fields.in = in.data();
  encode_runner_(args);
}

template <class Real, class Space>
void DslashKernel<Real, Space>::decode(const half_spinors& in, const spinor_view& out) const {
  RunArgs<Real> args = half_args(&in, nullptr);
  if (out.size() * sizeof(Real) != spinor_bytes()) throw std::invalid_argument(label_ + ": decode's buffer has the wrong size");
  args.launch.dispatch = Dispatch::Range;
  args.fields.out = out.data();
  decode_runner_(args);
}

template <class Real, class Space>
void DslashKernel<Real, Space>::apply(const half_spinors& in, const half_spinors& out) const {
  half_runner_(half_args(&in, &out));
}

template <class Real, class Space>
void DslashKernel<Real, Space>::check_received(const ReceivedHalo<Real>& received) const {
  if constexpr (!Space::host_accessible) throw std::invalid_argument(label_ + ": the GPU adds its halo with the face kernels");
  for (std::size_t mu = 0; mu < 4; ++mu)
    if (cfg_.halo[mu] && (received.slot[mu] == nullptr || !received.has_hop(mu, 0) || !received.has_hop(mu, 1)))
      throw std::invalid_argument(label_ + ": no received halo for split direction " + std::to_string(mu));
}

// The checks, in the order each old entry made them: what the kernel can fuse, the inner products'
// and x's buffers, the launch's, then where the sums go.
template <class Real, class Space>
NormDot DslashKernel<Real, Space>::apply_xpay(const spinor_view& in, const spinor_view& out, const Xpay<Real, Space>& xp,
                                              const ApplyOptions<Real>& opts) const {
  const bool with_dot = xp.w != nullptr;
  const std::string refusal = xp.local ? epilogue_refusal(with_dot) : xpay_refusal(opts.received.has_value(), with_dot);
  if (!refusal.empty()) throw std::invalid_argument(label_ + ": " + refusal);
  if (xp.local && opts.received) throw std::invalid_argument(label_ + ": a local apply_xpay leaves the halo's hops out: no received halo");
  if (xp.x == nullptr) throw std::invalid_argument(label_ + ": apply_xpay needs x");
  if (xp.w2 != nullptr && xp.w == nullptr) throw std::invalid_argument(label_ + ": a second inner product needs a first");
  const spinor_view* w2 = xp.w2 != nullptr ? xp.w2 : xp.w;
  if (xp.x->size() * sizeof(Real) != spinor_bytes()) throw std::invalid_argument(label_ + ": the xpay buffer has the wrong size");
  for (const spinor_view* v : {xp.w, w2})
    if (v != nullptr && v->size() * sizeof(Real) != spinor_bytes()) throw std::invalid_argument(label_ + ": the inner product's buffer has the wrong size");
  const bool split = std::find(cfg_.halo.begin(), cfg_.halo.end(), true) != cfg_.halo.end();
  // Without a halo, a split kernel's xpay was refused above; a non-split one ignores any given.
  ApplyOptions<Real> launch_opts = opts;
  if (!split) launch_opts.received.reset();
  RunArgs<Real> args = run_args(in, out, launch_opts);
  if (!split && opts.received) args.halo.received = *opts.received;
  args.epilogue.x = xp.x->data();
  args.epilogue.w = xp.w != nullptr ? xp.w->data() : nullptr;
  args.epilogue.w2 = w2 != nullptr ? w2->data() : nullptr;
  args.epilogue.a = xp.a;
  args.epilogue.b = xp.b;
  if (xp.norm_into && xp.sums_into) throw std::invalid_argument(label_ + ": apply_xpay leaves its sums in one place: norm_into or sums_into");
  if (xp.norm_into) {
    if (xp.norm_into->device == nullptr) throw std::invalid_argument(label_ + ": apply_xpay's norm_into needs memory for the norm");
    if (with_dot) throw std::invalid_argument(label_ + ": apply_xpay's norm_into takes the norm alone (no inner product)");
    args.epilogue.norm_into = *xp.norm_into;
    runner_(args);
    return {};
  }
  if (xp.sums_into) {
    if (xp.sums_into->device == nullptr) throw std::invalid_argument(label_ + ": apply_xpay's sums_into needs memory for the sums");
    if (!with_dot) throw std::invalid_argument(label_ + ": apply_xpay's sums_into needs the inner products' w");
    args.epilogue.sums_into = *xp.sums_into;
    runner_(args);
    return {};
  }
  EpilogueSums sums{};
  args.epilogue.sums = &sums;
  runner_(args);
  return NormDot::from_sums(sums);
}

template <class Real, class Space>
std::string DslashKernel<Real, Space>::xpay_refusal(bool with_halo, bool with_dot) const {
  const bool split = std::find(cfg_.halo.begin(), cfg_.halo.end(), true) != cfg_.halo.end(), gpu = !Space::host_accessible;
  if (split && !with_halo)
    return "apply_xpay needs every direction on this process, or the halo read in the kernel (its faces would be added after the epilogue)";
  if (split && gpu) return "apply_xpay on the GPU needs every direction on this process (its faces are added after the kernel)";
  return epilogue_refusal(with_dot);
}

template <class Real, class Space>
std::string DslashKernel<Real, Space>::epilogue_refusal(bool with_dot) const {
  const bool gpu = !Space::host_accessible;
  if (cfg_.half) return "half precision has no epilogue yet";
  // What the epilogue is built for: kernels/kernel_options.hpp (the GPU's), kernels/dslash_body.hpp (run_dslash).
  const bool gpu_12 = gpu && cfg_.compress == 12 && gpu_epilogue_takes_12_real_links(cfg_.kernel, std::is_same_v<Real, float>);
  if (!gpu && !build::kCpuXpay) return "apply_xpay is not built for the CPU kernels (cmake -DDSLASH_CPU_XPAY=ON)";
  if (cfg_.compress != 18 && !gpu_12)
    return "apply_xpay needs whole links (18 reals; 12 in the GPU's naive and single-precision vnode kernels); this kernel stores " +
           std::to_string(cfg_.compress);
  if (with_dot && cfg_.compress != 18) return "apply_xpay with an inner product needs whole links (18 reals); this kernel stores " + std::to_string(cfg_.compress);
  if (with_dot && gpu && !gpu_epilogue_takes_inner_product(cfg_.kernel))
    return "apply_xpay with an inner product is not built for the GPU's naive kernel (its BLAS pass is as fast)";
  return {};
}

template <class Real, class Space>
void DslashKernel<Real, Space>::apply_traffic(const spinor_view& in, const spinor_view& out) const {
  if (traffic_runner_ == nullptr) throw std::invalid_argument(label_ + ": no traffic probe on this backend");
  traffic_runner_(run_args(in, out, {}));
}

template <class Real, class Space>
RunArgs<Real> DslashKernel<Real, Space>::run_args(const spinor_view& in, const spinor_view& out, const ApplyOptions<Real>& opts) const {
  if (cfg_.half) throw std::invalid_argument(label_ + ": a half precision kernel applies to half precision buffers (allocate_half_spinors)");
  if (in.size() * sizeof(Real) != spinor_bytes() || out.size() * sizeof(Real) != spinor_bytes())
    throw std::invalid_argument(label_ + ": spinor buffers have the wrong size");
  RunArgs<Real> args = launch_args(opts);
  args.fields.in = in.data();
  args.fields.out = out.data();
  return args;
}

template <class Real, class Space>
RunArgs<Real> DslashKernel<Real, Space>::launch_args(const ApplyOptions<Real>& opts) const {
  const index_t t_begin = opts.slab ? opts.slab->begin : 0, t_end = opts.slab ? opts.slab->end : outer_t();
  if (t_begin < 0 || t_begin > t_end || t_end > outer_t()) throw std::invalid_argument(label_ + ": t slab out of range");
  if (opts.received) check_received(*opts.received);
  RunArgs<Real> args{};
  args.fields.links = links_.data();
  for (std::size_t mu = 0; mu < 4; ++mu) args.sites.outer[mu] = layout_.outer[mu];
  args.sites.t_begin = t_begin;
  args.sites.t_end = t_end;
  args.sites.checkerboard = cfg_.out != Subset::Full;
  args.sites.out_parity = cfg_.out == Subset::Odd ? 1 : 0;
  args.sites.blocks = layout_.blocks;
  const KernelLayout::Strides st = spinor_strides();
  args.fields.site_stride = st.site;
  args.fields.block_stride = st.block;
  args.fields.component_stride = st.component;
  args.fields.link_stride = outer_sites();
  args.fields.reals_per_link = cfg_.compress;
  args.dagger = cfg_.dagger;
  args.halo.split = cfg_.halo;
  args.launch.dispatch = cfg_.dispatch;
  args.launch.tile = cfg_.tile;
  args.launch.team_size = cfg_.team_size;
  args.launch.sites_per_team = cfg_.sites_per_team;
  args.launch.block_z = cfg_.block_z;
  args.launch.label = label_.c_str();
  args.launch.link_prefetch = cfg_.link_prefetch;
  if (opts.received) args.halo.received = *opts.received;
  return args;
}

template <class Real, class Space>
std::vector<SpinorField<Real>> DslashKernel<Real, Space>::apply(const std::vector<SpinorField<Real>>& in) const {
  const auto pack_apply_unpack = [&](const auto& packed_in, const auto& packed_out) {
    pack(in, packed_in);
    apply(packed_in, packed_out);
    std::vector<SpinorField<Real>> out;
    unpack(packed_out, out);
    return out;
  };
  if (cfg_.half) return pack_apply_unpack(allocate_half_spinors(label_ + "_in"), allocate_half_spinors(label_ + "_out"));
  return pack_apply_unpack(allocate_spinors(label_ + "_in"), allocate_spinors(label_ + "_out"));
}

template <class Real>
SimdProbe<Real> simd_probe(SimdIsa isa) {
  return probes_for<Real>(isa).probe;
}
template <class Real>
MachineProbe<Real> machine_probe(SimdIsa isa) {
  return probes_for<Real>(isa).machine;
}
template MachineProbe<float> machine_probe<float>(SimdIsa);
template MachineProbe<double> machine_probe<double>(SimdIsa);
template SimdProbe<float> simd_probe<float>(SimdIsa);
template SimdProbe<double> simd_probe<double>(SimdIsa);

template class DslashKernel<float>;
template class DslashKernel<double>;
#if defined(DSLASH_HAVE_CUDA)
template class DslashKernel<float, CudaSpace>;
template class DslashKernel<double, CudaSpace>;
#endif

}  // namespace dslash
