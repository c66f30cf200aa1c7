// Which part of vnode's memory access pattern keeps it from the triad's bandwidth (issue 18).
// The vnode single AVX-512 kernel's loads and stores, with no arithmetic but one add per loaded
// vector, taken apart: its links with the output alone, its eight neighbours with the output alone,
// both (the kernel's whole pattern), in the kernel's hop-by-hop order, with software prefetch of a
// later site's far (z, t) neighbours, the links with one group of neighbours at a time (x and y from
// L1/L2, z and t - 1 from the L3 in index order, t + 1 new from DRAM), and in y-blocked traversals.
// The links with the t + 1 neighbour alone are vnode's compulsory bytes, each read once: the rate
// any kernel reaches in vnode's proportions before it reads a neighbour again. A site is one outer
// site of the checkerboarded, folded lattice (16 lattice sites): 144 link vectors and 24 spinor
// vectors of 16 floats, 12288 compulsory bytes. Each pattern's rate is given as that many bytes per
// site over its time, as a % of a streaming-store triad measured in the same run.
// The last patterns ask whether the core overlaps its DRAM stream with reads from its caches, level
// by level: the compulsory stream plus seven neighbour reads that come from a thread's own buffer,
// sized to stay in L1 (12 KiB), L2 (1 MiB) or the L3 (8 MiB), in vnode's proportions and in mrhs's
// (9 link vectors a site instead of 144: mrhs single's 576 link bytes against 3 KiB of spinors),
// and the same with the compulsory lines of a later site prefetched into L2 by software.
//   vnode_access_probe [outer extent, default 24 (48^4)]    PROBE_PREFETCH_DISTANCE=2 (sites)
//   PROBE_LEVELS_ONLY=1: the cache-level patterns alone
// Exits 77 (ctest: skipped) on a CPU without AVX-512.
#include <immintrin.h>
#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using idx = long;
idx L = 24;            // outer extent of every direction: the global lattice is 2L
idx XE = 12;           // checkerboarded outer x extent
idx SITES = 0;         // outer sites of one parity
int prefetch_distance = 2;
std::size_t buffer_slots = 8;  // spinor-sized slots in each thread's buffer (NeighboursFromBuffer)

constexpr std::size_t kBufferStride = 8u << 20;  // bytes between two threads' buffers

constexpr int kLinkVectors = 144, kSpinorVectors = 24, kW = 16;
constexpr double kSiteBytes = 12288.0;  // vnode single, 16 lanes: 16 x 768 (CONVENTIONS.md)

float* alloc(std::size_t bytes) {
  const std::size_t huge = 2u << 20, r = (bytes + huge - 1) / huge * huge;
  auto* p = static_cast<float*>(std::aligned_alloc(huge, r));
  if (p == nullptr) {
    std::fprintf(stderr, "error: cannot allocate %zu bytes\n", r);
    std::exit(2);
  }
  madvise(p, r, MADV_HUGEPAGE);  // as View does
  std::memset(p, 0, r);
  return p;
}

struct Neighbours {
  idx n[8];  // hop h = 2 mu + backward
};

std::vector<Neighbours> neighbours() {
  std::vector<Neighbours> v(static_cast<std::size_t>(SITES));
  const auto index = [](const idx (&n)[4]) { return (n[0] + L * (n[1] + L * (n[2] + L * n[3]))) / 2; };
  for (idx i = 0; i < SITES; ++i) {
    idx j = i;
    const idx xi = j % XE;
    j /= XE;
    const idx y = j % L;
    j /= L;
    const idx z = j % L, t = j / L;
    const idx x[4] = {2 * xi + ((y + z + t) & 1), y, z, t};
    for (int h = 0; h < 8; ++h) {
      idx n[4] = {x[0], x[1], x[2], x[3]};
      n[h / 2] = h % 2 == 0 ? (x[h / 2] + 1) % L : (x[h / 2] + L - 1) % L;
      v[static_cast<std::size_t>(i)].n[h] = index(n);
    }
  }
  return v;
}

// The traversal: x fastest, then y within blocks of `by`, z, t, then the next y block (by = L:
// index order, as the team launch).
std::vector<idx> traversal(idx by) {
  std::vector<idx> o;
  o.reserve(static_cast<std::size_t>(SITES));
  for (idx yb = 0; yb < L; yb += by)
    for (idx t = 0; t < L; ++t)
      for (idx z = 0; z < L; ++z)
        for (idx y = yb; y < std::min(yb + by, L); ++y)
          for (idx x = 0; x < XE; ++x) o.push_back(x + XE * (y + L * (z + L * t)));
  return o;
}

enum Part : int {
  Links = 1,           // the site's 144 link vectors, front to back
  AllNeighbours = 2,   // the 8 neighbours' 24 vectors
  HopByHop = 4,        // hop h's link, then its neighbour: the kernel's order
  PrefetchLater = 8,   // a later site's z and t neighbours, into L2
  NeighboursXY = 16,   // hops 0-3: within a few rows, so from L1/L2
  NeighboursZ = 32,    // hops 4-5: a z-plane away, from the L3 in index order
  NeighbourTUp = 64,   // hop 6: the one read from DRAM for the first time
  NeighbourTDown = 128,  // hop 7: two t-planes back, from the L3
  NeighboursFromBuffer = 256,  // seven neighbours' worth of reads from the thread's own buffer
  MrhsLinks = 512,             // 9 link vectors a site, contiguous, instead of 144
  NoOutput = 1024,             // the accumulator to a thread's scratch in L1 instead of streamed out
  PrefetchCompulsory = 2048,   // a later site's links and t + 1 neighbour, into L2
};

struct Fields {
  const float* links;
  const float* in;
  float* out;
  const Neighbours* nb;
  const float* buffers;  // kBufferStride bytes a thread
};

#define PROBE_AVX512 __attribute__((target("avx512f")))  // the rest of the file runs on any x86-64

PROBE_AVX512 inline void add_neighbour(__m512 (&acc)[kSpinorVectors], const float* p) {
  for (int k = 0; k < kSpinorVectors; ++k) acc[k] = _mm512_add_ps(acc[k], _mm512_load_ps(p + k * kW));
}

template <int Parts>
PROBE_AVX512 inline void site(idx i, idx later, const Fields& f) {
  __m512 acc[kSpinorVectors];
  for (auto& a : acc) a = _mm512_setzero_ps();
  if constexpr ((Parts & PrefetchLater) != 0)
    for (int h = 4; h < 8; ++h)
      for (int l = 0; l < kSpinorVectors; ++l) _mm_prefetch(reinterpret_cast<const char*>(f.in + (f.nb[later].n[h] * kSpinorVectors + l) * kW), _MM_HINT_T1);
  if constexpr ((Parts & PrefetchCompulsory) != 0) {
    const float* later_links = f.links + later * ((Parts & MrhsLinks) != 0 ? 9 : kLinkVectors) * kW;
    for (int k = 0; k < ((Parts & MrhsLinks) != 0 ? 9 : kLinkVectors); ++k) _mm_prefetch(reinterpret_cast<const char*>(later_links + k * kW), _MM_HINT_T1);
    for (int l = 0; l < kSpinorVectors; ++l) _mm_prefetch(reinterpret_cast<const char*>(f.in + (f.nb[later].n[6] * kSpinorVectors + l) * kW), _MM_HINT_T1);
  }
  const float* lk = f.links + i * kLinkVectors * kW;
  if constexpr ((Parts & Links) != 0)
    for (int k = 0; k < kLinkVectors; ++k) acc[k % kSpinorVectors] = _mm512_add_ps(acc[k % kSpinorVectors], _mm512_load_ps(lk + k * kW));
  if constexpr ((Parts & MrhsLinks) != 0)
    for (int k = 0; k < 9; ++k) acc[k] = _mm512_add_ps(acc[k], _mm512_load_ps(f.links + (i * 9 + k) * kW));
  if constexpr ((Parts & NeighboursFromBuffer) != 0) {
    const float* buffer = f.buffers + static_cast<std::size_t>(omp_get_thread_num()) * (kBufferStride / 4);
    for (int h = 0; h < 7; ++h)  // slot by slot through the buffer, so every line is reused once it is in
      add_neighbour(acc, buffer + (static_cast<std::size_t>(i * 7 + h) % buffer_slots) * kSpinorVectors * kW);
  }
  constexpr int group_of_hop[8] = {NeighboursXY, NeighboursXY, NeighboursXY, NeighboursXY, NeighboursZ, NeighboursZ, NeighbourTUp, NeighbourTDown};
  for (int h = 0; h < 8; ++h)
    if ((Parts & (AllNeighbours | group_of_hop[h])) != 0) add_neighbour(acc, f.in + f.nb[i].n[h] * kSpinorVectors * kW);
  if constexpr ((Parts & HopByHop) != 0)
    for (int h = 0; h < 8; ++h) {
      for (int k = 0; k < 18; ++k) acc[(k + 6 * h) % kSpinorVectors] = _mm512_add_ps(acc[(k + 6 * h) % kSpinorVectors], _mm512_load_ps(lk + (18 * h + k) * kW));
      add_neighbour(acc, f.in + f.nb[i].n[h] * kSpinorVectors * kW);
    }
  if constexpr ((Parts & NoOutput) != 0) {
    alignas(64) static thread_local float scratch[kSpinorVectors * kW];
    for (int k = 0; k < kSpinorVectors; ++k) _mm512_store_ps(scratch + k * kW, acc[k]);
    return;
  }
  float* o = f.out + i * kSpinorVectors * kW;
  for (int k = 0; k < kSpinorVectors; ++k) _mm512_stream_ps(o + k * kW, acc[k]);  // as the kernel
}

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// chunk 0: each thread a contiguous share of the traversal (range); else round-robin chunks (team).
template <int Parts>
PROBE_AVX512 double pattern(int chunk, const std::vector<idx>& order, const Fields& f) {
  const double start = now();
  const idx* o = order.data();
  const idx last = SITES - 1;
  if (chunk == 0) {
#pragma omp parallel for schedule(static)
    for (idx j = 0; j < SITES; ++j) site<Parts>(o[j], o[std::min(j + prefetch_distance, last)], f);
  } else {
#pragma omp parallel for schedule(static, chunk)
    for (idx j = 0; j < SITES; ++j) site<Parts>(o[j], o[std::min(j + prefetch_distance, last)], f);
  }
  _mm_sfence();
  return now() - start;
}

PROBE_AVX512 double triad(float* a, const float* b, const float* c, idx n) {
  const double start = now();
  const __m512 s = _mm512_set1_ps(3.f);
#pragma omp parallel for schedule(static)
  for (idx i = 0; i < n; i += kW) _mm512_stream_ps(a + i, _mm512_fmadd_ps(s, _mm512_load_ps(c + i), _mm512_load_ps(b + i)));
  _mm_sfence();
  return now() - start;
}

}  // namespace

int main(int argc, char** argv) {
  if (!__builtin_cpu_supports("avx512f")) {
    std::printf("skipped: this CPU has no AVX-512\n");
    return 77;
  }
  if (argc > 1) {
    char* end = nullptr;
    L = std::strtol(argv[1], &end, 10);
    if (*end != '\0' || L < 2 || L % 2 != 0 || L > 64) {
      std::fprintf(stderr, "error: the outer extent must be an even number from 2 to 64 (the global lattice is twice it), not '%s'\n", argv[1]);
      return 2;
    }
  }
  if (const char* d = std::getenv("PROBE_PREFETCH_DISTANCE")) prefetch_distance = std::max(1, std::atoi(d));
  const bool levels_only = std::getenv("PROBE_LEVELS_ONLY") != nullptr;  // the cache-level patterns alone
  XE = L / 2;
  SITES = XE * L * L * L;
  const std::size_t link_bytes = static_cast<std::size_t>(SITES) * kLinkVectors * 64, spinor_bytes = static_cast<std::size_t>(SITES) * kSpinorVectors * 64;
  const auto nb = neighbours();
  const Fields f{alloc(link_bytes), alloc(spinor_bytes), alloc(spinor_bytes), nb.data(),
                 alloc(static_cast<std::size_t>(omp_get_max_threads()) * kBufferStride)};
  const idx triad_n = std::max<idx>(idx{1} << 20, static_cast<idx>((link_bytes + 2 * spinor_bytes) / 12 / kW * kW));
  float* ta = alloc(static_cast<std::size_t>(triad_n) * 4);
  float* tb = alloc(static_cast<std::size_t>(triad_n) * 4);
  float* tc = alloc(static_cast<std::size_t>(triad_n) * 4);
  std::printf("# vnode access probe: global %ld^4, %d threads, links %.0f MB, spinors 2 x %.0f MB, prefetch distance %d sites\n",
              2 * L, omp_get_max_threads(), static_cast<double>(link_bytes) / 1e6, static_cast<double>(spinor_bytes) / 1e6, prefetch_distance);
  const auto best = [](auto run) {
    double b = 1e30;
    for (int r = 0; r < 5; ++r) b = std::min(b, run());
    return b;
  };
  struct Pattern {
    const char* name;
    double (*run)(int, const std::vector<idx>&, const Fields&);
  };
  const Pattern patterns[] = {
      {"links+out", pattern<Links>},
      {"neighbours+out", pattern<AllNeighbours>},
      {"links+neighbours+out", pattern<Links | AllNeighbours>},
      {"hop by hop", pattern<HopByHop>},
      {"hop by hop, prefetch later", pattern<HopByHop | PrefetchLater>},
      {"links+out+x,y", pattern<Links | NeighboursXY>},
      {"links+out+z", pattern<Links | NeighboursZ>},
      {"links+out+t+1 (compulsory)", pattern<Links | NeighbourTUp>},
      {"links+out+t-1", pattern<Links | NeighbourTDown>},
  };
  // The compulsory stream with seven reads from one cache level (index order only).
  constexpr int kCompulsory = Links | NeighbourTUp, kMrhsCompulsory = MrhsLinks | NeighbourTUp;
  struct Level {
    const char* name;
    std::size_t bytes;
  };
  const Level levels[] = {{"L1", 12u << 10}, {"L2", 1u << 20}, {"L3", kBufferStride}};
  struct LevelPattern {
    const char* name;
    double (*run)(int, const std::vector<idx>&, const Fields&);
    int parts;
  };
#define PROBE_LEVEL_PATTERN(name, parts) LevelPattern{name, pattern<(parts)>, (parts)}
  const LevelPattern by_level[] = {
      PROBE_LEVEL_PATTERN("compulsory", kCompulsory),
      PROBE_LEVEL_PATTERN("7 from", NeighboursFromBuffer | NoOutput),  // the cache side alone
      PROBE_LEVEL_PATTERN("compulsory+7 from", kCompulsory | NeighboursFromBuffer),
      PROBE_LEVEL_PATTERN("mrhs-shaped compulsory", kMrhsCompulsory),
      PROBE_LEVEL_PATTERN("mrhs-shaped +7 from", kMrhsCompulsory | NeighboursFromBuffer),
      PROBE_LEVEL_PATTERN("compulsory, prefetched", kCompulsory | PrefetchCompulsory),
      PROBE_LEVEL_PATTERN("prefetched compulsory+7 from", kCompulsory | PrefetchCompulsory | NeighboursFromBuffer),
      PROBE_LEVEL_PATTERN("mrhs-shaped, prefetched", kMrhsCompulsory | PrefetchCompulsory),
      PROBE_LEVEL_PATTERN("prefetched mrhs-shaped+7 from", kMrhsCompulsory | PrefetchCompulsory | NeighboursFromBuffer),
  };
#undef PROBE_LEVEL_PATTERN
  for (int round = 0; round < 2; ++round) {
    const double triad_GBs = 12.0 * static_cast<double>(triad_n) / best([&] { return triad(ta, tb, tc, triad_n); }) / 1e9;
    std::printf("round %d: triad %.1f GB/s (streaming stores)\n", round, triad_GBs);
    for (idx by : {L, idx{4}, idx{2}}) {
      if (levels_only) break;
      if (by != L && (by >= L || L % by != 0)) continue;  // index order, then the blocks that divide L
      const auto order = traversal(by);
      for (int chunk : {0, 8}) {
        for (const Pattern& p : patterns) {
          const double t = best([&] { return p.run(chunk, order, f); });
          const double GBs = static_cast<double>(SITES) * kSiteBytes / t / 1e9;
          std::printf("  %-34s y-block %2ld %-6s %7.2f ms %7.1f GB/s %6.1f%% of triad\n", p.name, by, chunk == 0 ? "range" : "team", t * 1e3, GBs, 100 * GBs / triad_GBs);
        }
      }
    }
    // Rated, like the rest, by vnode's compulsory bytes a site; the mrhs-shaped ones by their own
    // (9 link vectors, 24 in, 24 out: 3648 bytes). Where the times of "compulsory" and "7 from"
    // add up to that of "compulsory+7 from", the core does not overlap the two.
    const auto order = traversal(L);
    for (int chunk : {0, 8})
      for (const LevelPattern& p : by_level)
        for (const Level& level : levels) {
          const bool mrhs = (p.parts & MrhsLinks) != 0, from = (p.parts & NeighboursFromBuffer) != 0;
          if (!from && &level != levels) continue;  // one run of a pattern without the buffer
          buffer_slots = level.bytes / (kSpinorVectors * 64);
          const double t = best([&] { return p.run(chunk, order, f); });
          const double GBs = static_cast<double>(SITES) * (mrhs ? 3648.0 : kSiteBytes) / t / 1e9;
          const std::string name = std::string(p.name) + (from ? std::string(" ") + level.name : std::string());
          std::printf("  %-34s y-block %2ld %-6s %7.2f ms %7.1f GB/s %6.1f%% of triad\n", name.c_str(), L, chunk == 0 ? "range" : "team", t * 1e3, GBs, 100 * GBs / triad_GBs);
        }
  }
}
