// The MPI layer under mpirun, against the single-process reference. ctest runs this binary with
// mpirun -np 1, 2, 4 and 16 over grids that split one, two and all four directions:
//   mpirun -np 4 test_mpi_dslash --grid=1.1.2.2
// Every rank runs every test; verdicts are reduced over the ranks, so all ranks pass or fail alike.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>

#include "dslash/lattice/field_ops.hpp"
#include "io/nersc.hpp"
#include "kernels/reference_dslash.hpp"
#include "mpi/distributed_fields.hpp"
#include "mpi/halo_dslash.hpp"
#include "mpi/halo_peers.hpp"
#include "mpi/mpi_session.hpp"
#include "mpi_test_main.hpp"  // tests/mpi
#include "kernel_variant.hpp"

namespace dslash::mpi {
namespace {

Coord g_grid{1, 1, 1, 1};

// Local extents that every folding takes (16 lanes need multiples of 4), z longer so a swapped
// direction shows; the global lattice is the grid of them.
Coord global_extents() {
  const Coord local{4, 4, 8, 4};
  Coord g{};
  for (std::size_t mu = 0; mu < 4; ++mu) g[mu] = local[mu] * g_grid[mu];
  return g;
}

double max_over_ranks(double v) {
  double r = 0;
  MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return r;
}

// The global inputs on every rank (small lattices) and the double-precision references.
struct Fixture {
  Geometry global{global_extents()};
  GaugeField<double> u{global};
  std::vector<SpinorField<double>> psi;  // full lattice
  std::map<std::tuple<int, bool, int>, SpinorField<double>> reference;
  static constexpr int kMaxRhs = 16;

  Fixture() {
    fill_random_su3(u, 7);
    for (int r = 0; r < kMaxRhs; ++r) fill_gaussian(psi.emplace_back(global, Subset::Full), 500 + static_cast<std::uint64_t>(r));
  }
  const SpinorField<double>& expected(Subset out, bool dagger, int rhs) {
    const auto key = std::make_tuple(static_cast<int>(out), dagger, rhs);
    auto it = reference.find(key);
    if (it == reference.end()) {
      SpinorField<double> in(global, neighbour_subset(out)), chi(global, out);
      copy_sites(psi[static_cast<std::size_t>(rhs)], in);
      dslash_reference(u, in, chi, dagger);
      it = reference.emplace(key, std::move(chi)).first;
    }
    return it->second;
  }
};
Fixture& fixture() {
  static Fixture f;
  return f;
}

using Variant = test::KernelVariant;

// 16 single-precision lanes: emulated where the build has it (any CPU), else AVX-512.
SimdIsa sixteen_lanes() { return cpu_supports(SimdIsa::Emulated512) ? SimdIsa::Emulated512 : SimdIsa::Avx512; }

std::vector<Variant> variants() {
  std::vector<Variant> v;
  for (bool single : {false, true}) {
    for (Dispatch d : {Dispatch::Range, Dispatch::Team, Dispatch::MDRange})
      for (KernelFamily k : {KernelFamily::Naive, KernelFamily::Mrhs, KernelFamily::Vnode})
        v.push_back({k, k == KernelFamily::Naive ? SimdIsa::Scalar : best_isa(), d, single});
    // 16 lanes fold all four directions: every split direction is a folded one.
    if (cpu_supports(sixteen_lanes()) && sixteen_lanes() != best_isa()) v.push_back({KernelFamily::Vnode, sixteen_lanes(), Dispatch::MDRange, single});
  }
  return v;
}

constexpr std::array<Progress, 3> kStrategies{Progress::None, Progress::Chunks, Progress::Thread};

class HaloDslashTest : public ::testing::TestWithParam<Variant> {};

// Every parity and dagger, each progress strategy, one message per peer and per face, halos through
// MPI and through the shared-memory window, their hops added by the interior kernel or by the face
// kernels: the gathered result against the reference (and so against one process) to 1e-12 in
// double, 1e-5 in single.
TEST_P(HaloDslashTest, AgreesWithTheSingleProcessReference) {
  const Variant v = GetParam();
  Fixture& f = fixture();
  const ProcessGrid grid(g_grid, f.global.extents());
  const auto run = [&]<class Real>(Real) {
    const GaugeField<Real> u_global = convert_precision<Real>(f.u);
    const GaugeField<Real> u = scatter(grid, grid.rank() == 0 ? &u_global : nullptr);
    const double tolerance = sizeof(Real) == 4 ? 1e-5 : 1e-12;
    int call = 0;
    for (Subset out : {Subset::Even, Subset::Odd, Subset::Full})
      for (bool dagger : {false, true}) {
        DslashConfig cfg{.kernel = v.kernel, .dispatch = v.dispatch, .isa = v.isa, .out = out, .dagger = dagger};
        cfg.nrhs = v.kernel == KernelFamily::Mrhs ? simd_lanes(v.isa, sizeof(Real)) : 1;
        cfg.tile = {1, 3, 2, 1};  // divides nothing evenly
        cfg.team_size = 2;
        cfg.sites_per_team = 5;
        const Progress progress = kStrategies[static_cast<std::size_t>(call % 3)];
        const CpuHalo how = call % 2 == 0 ? CpuHalo::Mpi : CpuHalo::Shared;
        const HaloComplete complete = call / 2 % 2 == 0 ? HaloComplete::Auto : HaloComplete::Faces;
        const bool coalesce = call++ < 3;
        HaloDslash<Real> d(grid, u, cfg, {.coalesce = coalesce, .cpu_halo = how, .complete = complete});
        if (d.messages() > 0) {
          EXPECT_STREQ(d.transport(), how == CpuHalo::Mpi ? "mpi" : "shared");
          const bool in_kernel = complete == HaloComplete::Auto && (how == CpuHalo::Shared || progress == Progress::None);
          EXPECT_STREQ(d.completion(progress), in_kernel ? "kernel" : "faces");
        }
        std::vector<SpinorField<Real>> in;
        for (int r = 0; r < cfg.nrhs; ++r) {
          SpinorField<Real> p(f.global, d.in_subset());
          copy_sites(convert_precision<Real>(f.psi[static_cast<std::size_t>(r)]), p);
          in.push_back(scatter(grid, grid.rank() == 0 ? &p : nullptr, d.in_subset()));
        }
        const auto result = d.apply(in, progress);
        double worst = 0;
        for (int r = 0; r < cfg.nrhs; ++r) {
          const auto global = gather(grid, result[static_cast<std::size_t>(r)]);
          if (global) worst = std::max(worst, relative_difference(*global, f.expected(out, dagger, r)));
        }
        EXPECT_LT(max_over_ranks(worst), tolerance) << d.kernel().label() << " " << to_string(out) << (dagger ? " dagger" : "")
                                                    << " progress " << to_string(progress) << ", " << d.transport() << ", hops added by the "
                                                    << d.completion(progress)
                                                    << (coalesce ? " per peer" : " per face") << " on " << grid.describe();
        // What goes on the wire is the projected half spinor: 12 reals per face site and rhs.
        std::uint64_t expected_bytes = 0;
        for (int mu = 0; mu < 4; ++mu)
          if (grid.split(mu))
            expected_bytes += 2ull * 12 * sizeof(Real) * static_cast<std::uint64_t>(cfg.nrhs) *
                              static_cast<std::uint64_t>(grid.local().volume() / grid.local().extent(mu) / (out == Subset::Full ? 1 : 2));
        EXPECT_EQ(d.halo_bytes(), expected_bytes);
      }
  };
  if (v.single) run(float{});
  else run(double{});
}

INSTANTIATE_TEST_SUITE_P(EveryVariant, HaloDslashTest, ::testing::ValuesIn(variants()),
                         [](const auto& param_info) { return test::describe(param_info.param, "_"); });

// The persistent requests and buffers of one HaloDslash serve many calls: 30 applies, cycling the
// progress strategies (chunks automatic and one slab per outer t) over two inputs, each output
// bit for bit the first of its input; and a per-face HaloDslash gives the same bits again. The
// first reads its halo in place from the neighbours' inputs (ranks of one node, inputs from its
// allocate_spinors()), a second writes it into their shared-memory window, whose two buffers
// alternate: every call reads the halo of its own call; the others go through MPI. The first two's
// interior kernels add the halo's hops themselves, the per-face one's face kernels do (and the
// slabs' one either way).
template <class Real>
void reuse_across_calls(const DslashConfig& cfg, const ProcessGrid& grid) {
  Fixture& f = fixture();
  const GaugeField<Real> u_global = convert_precision<Real>(f.u);
  const GaugeField<Real> u = scatter(grid, grid.rank() == 0 ? &u_global : nullptr);
  HaloDslash<Real> per_peer(grid, u, cfg), shared(grid, u, cfg, {.cpu_halo = CpuHalo::Shared}),
      per_face(grid, u, cfg, {.coalesce = false, .cpu_halo = CpuHalo::Mpi}), slabs(grid, u, cfg, {.chunks = 1 << 20, .cpu_halo = CpuHalo::Mpi});
  if (per_peer.messages() > 0) {
    EXPECT_STREQ(per_peer.transport(), "inputs");
    EXPECT_STREQ(shared.transport(), "shared");
    EXPECT_STREQ(shared.completion(Progress::Chunks), "kernel");
    EXPECT_STREQ(per_peer.completion(Progress::Chunks), "kernel");
    EXPECT_STREQ(per_face.completion(Progress::Chunks), "faces");
  }
  std::vector<View<Real, 1>> in, first;
  for (int k = 0; k < 2; ++k) {
    std::vector<SpinorField<Real>> local;
    for (int r = 0; r < cfg.nrhs; ++r) {
      SpinorField<Real> p(f.global, per_peer.in_subset());
      copy_sites(convert_precision<Real>(f.psi[static_cast<std::size_t>((k * cfg.nrhs + r) % Fixture::kMaxRhs)]), p);
      local.push_back(scatter(grid, grid.rank() == 0 ? &p : nullptr, per_peer.in_subset()));
    }
    in.push_back(per_peer.allocate_spinors("test"));
    per_peer.kernel().pack(local, in.back());
  }
  const auto same = [](const View<Real, 1>& a, const View<Real, 1>& b) { return std::equal(a.data(), a.data() + a.size(), b.data()); };
  int mismatches = 0;
  const View<Real, 1> out = per_peer.kernel().allocate_spinors("test");
  for (int call = 0; call < 30; ++call) {
    const std::size_t k = static_cast<std::size_t>(call % 2);
    const Progress progress = kStrategies[static_cast<std::size_t>(call / 2 % 3)];
    HaloDslash<Real>& d = call % 5 == 4 ? slabs : per_peer;
    d.apply(in[k], out, progress);
    if (call < 2) {
      first.push_back(per_peer.kernel().allocate_spinors("test"));
      std::copy(out.data(), out.data() + out.size(), first.back().data());
    } else {
      mismatches += same(out, first[k]) ? 0 : 1;
    }
  }
  for (std::size_t k = 0; k < 2; ++k)
    for (HaloDslash<Real>* other : {&per_face, &shared, &shared}) {  // shared twice: each of its buffers
      other->apply(in[k], out, Progress::Chunks);
      mismatches += same(out, first[k]) ? 0 : 1;
    }
  EXPECT_EQ(max_over_ranks(mismatches), 0.0) << per_peer.kernel().label() << " on " << grid.describe();
  EXPECT_EQ(per_peer.times().size(), 24u);  // 30 calls, 6 of them by `slabs`
  EXPECT_EQ(slabs.progress_slabs(), per_peer.kernel().outer_t());
  // Messages per call: one per face, or one per neighbouring rank (a grid extent of 2 has one
  // rank both above and below).
  int faces = 0, peers = 0;
  for (int mu = 0; mu < 4; ++mu)
    if (grid.split(mu)) faces += 2, peers += grid.grid()[static_cast<std::size_t>(mu)] == 2 ? 1 : 2;
  EXPECT_EQ(per_face.messages(), faces);
  EXPECT_LE(per_peer.messages(), peers);
  EXPECT_EQ(per_peer.halo_bytes(), per_face.halo_bytes());
}

TEST(HaloReuse, PersistentRequestsServeManyCallsWithTheSameBits) {
  const ProcessGrid grid(g_grid, fixture().global.extents());
  reuse_across_calls<double>({.kernel = KernelFamily::Vnode, .dispatch = Dispatch::Range, .isa = best_isa(), .out = Subset::Odd}, grid);
  reuse_across_calls<float>({.kernel = KernelFamily::Mrhs, .dispatch = Dispatch::Team, .isa = best_isa(), .out = Subset::Full, .dagger = true,
                             .nrhs = simd_lanes(best_isa(), 4), .team_size = 2},
                            grid);
  reuse_across_calls<float>({.kernel = KernelFamily::Naive, .dispatch = Dispatch::MDRange, .isa = SimdIsa::Scalar, .out = Subset::Even}, grid);
}

// The set-up messages of the halos that bypass MPI's own (mpi/halo_peers.hpp: the peer and
// shared-memory halos): each receiver tells each of its senders, and each sender each of its
// receivers, matched span by span, per face and per peer.
TEST(HaloPeers, SendersAndReceiversTellEachOtherSpanBySpan) {
  const ProcessGrid grid(g_grid, fixture().global.extents());
  std::array<std::size_t, 4> reals{};
  for (int mu = 0; mu < 4; ++mu) reals[static_cast<std::size_t>(mu)] = grid.split(mu) ? 12 * static_cast<std::size_t>(mu + 1) : 0;
  struct Said {
    int rank, tag;
  };
  for (bool coalesce : {true, false}) {
    const HaloExchange<double> x(grid, reals, coalesce);
    std::vector<Said> to_senders, to_receivers;
    for (const auto& s : x.receives()) to_senders.push_back({grid.rank(), s.tag});
    for (const auto& s : x.sends()) to_receivers.push_back({grid.rank(), s.tag});
    const std::vector<Said> senders_heard = tell_senders(grid, x, to_senders, 200);
    const std::vector<Said> receivers_heard = tell_receivers(grid, x, to_receivers, 300);
    ASSERT_EQ(senders_heard.size(), x.sends().size());
    ASSERT_EQ(receivers_heard.size(), x.receives().size());
    for (std::size_t i = 0; i < x.sends().size(); ++i) {
      EXPECT_EQ(senders_heard[i].rank, x.sends()[i].peer) << "send span " << i << (coalesce ? ", per peer" : ", per face");
      EXPECT_EQ(senders_heard[i].tag, x.sends()[i].tag) << "send span " << i;
    }
    for (std::size_t i = 0; i < x.receives().size(); ++i) {
      EXPECT_EQ(receivers_heard[i].rank, x.receives()[i].peer) << "receive span " << i << (coalesce ? ", per peer" : ", per face");
      EXPECT_EQ(receivers_heard[i].tag, x.receives()[i].tag) << "receive span " << i;
    }
  }
}

// The even-odd operator's last pass in the kernel's epilogue (HaloDslash::apply_xpay): where the
// halo's hops are added in the kernel, out = a x + b D in, its norm, Re <D in, out> and Re <in, out>
// (a second vector), summed over the ranks, against apply and the same sums here; with the face
// kernels, nothing is done.
TEST(HaloXpay, TheEpilogueRidesTheKernelWhereTheHaloIsInFirst) {
  Fixture& f = fixture();
  const ProcessGrid grid(g_grid, f.global.extents());
  const GaugeField<double> u = scatter(grid, grid.rank() == 0 ? &f.u : nullptr);
  const DslashConfig cfg{.kernel = KernelFamily::Vnode, .dispatch = Dispatch::Range, .isa = best_isa(), .out = Subset::Even};
  HaloDslash<double> in_kernel(grid, u, cfg), faces(grid, u, cfg, {.complete = HaloComplete::Faces});
  if (in_kernel.messages() == 0) GTEST_SKIP() << "no split direction on " << grid.describe();
  const DslashKernel<double>& k = in_kernel.kernel();
  const View<double, 1> in = k.allocate_spinors("in"), x = k.allocate_spinors("x"), plain = k.allocate_spinors("plain"),
                        fused = k.allocate_spinors("fused");
  for (std::size_t i = 0; i < in.size(); ++i) {
    in(i) = std::sin(0.37 * static_cast<double>(i) + grid.rank());
    x(i) = std::cos(0.11 * static_cast<double>(i) - grid.rank());
  }
  const double a = 1.25, b = -0.4;
  in_kernel.apply(in, plain, Progress::None);
  for (Progress progress : kStrategies) {
    const std::optional<NormDot> sums = in_kernel.apply_xpay(in, a, x, b, fused, progress, &plain, &in);
    ASSERT_TRUE(sums.has_value()) << to_string(progress) << ": the shared halo is in before the kernel";
    double worst = 0, sum = 0, re_dot = 0, w_norm2 = 0, re_dot2 = 0, w2_norm2 = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      const double expect = a * x(i) + b * plain(i);
      worst = std::max(worst, std::abs(fused(i) - expect) / (std::abs(expect) + 1));
      sum += fused(i) * fused(i);
      re_dot += plain(i) * fused(i);  // Re <w, y> pairs every real with its own
      w_norm2 += plain(i) * plain(i);
      re_dot2 += in(i) * fused(i);
      w2_norm2 += in(i) * in(i);
    }
    EXPECT_LT(max_over_ranks(worst), 1e-13) << to_string(progress);
    EXPECT_LT(max_over_ranks(std::abs(sums->norm2 - sum) / sum), 1e-12) << to_string(progress);
    EXPECT_LT(max_over_ranks(std::abs(sums->dot.real() - re_dot) / std::sqrt(sum * w_norm2)), 1e-12) << to_string(progress);
    EXPECT_LT(max_over_ranks(std::abs(sums->dot2.real() - re_dot2) / std::sqrt(sum * w2_norm2)), 1e-12) << to_string(progress);
  }
  EXPECT_FALSE(faces.apply_xpay(in, a, x, b, fused, Progress::None).has_value());
}

// A rank's own hops computed by the caller (HaloDslash::apply_around): with the kernel's own launch,
// the bits of the face kernels' completion; with the half precision kernels of the same split
// directions (a double-half solve's sloppy hops over ranks, solvers/half_hopping.hpp), the
// reference within half precision's bound (docs/CONVENTIONS.md).
TEST(HaloAround, AddsTheHaloToTheRanksOwnHops) {
  Fixture& f = fixture();
  const ProcessGrid grid(g_grid, f.global.extents());
  const GaugeField<float> u_global = convert_precision<float>(f.u);
  const GaugeField<float> u = scatter(grid, grid.rank() == 0 ? &u_global : nullptr);
  const DslashConfig cfg{.kernel = KernelFamily::Vnode, .dispatch = Dispatch::Range, .isa = best_isa(), .out = Subset::Even};
  HaloDslash<float> faces(grid, u, cfg, {.complete = HaloComplete::Faces});
  if (faces.messages() == 0) GTEST_SKIP() << "no split direction on " << grid.describe();
  const DslashKernel<float>& k = faces.kernel();
  SpinorField<float> psi(f.global, k.in_subset());
  copy_sites(convert_precision<float>(f.psi[0]), psi);
  const std::vector<SpinorField<float>> in_fields{scatter(grid, grid.rank() == 0 ? &psi : nullptr, k.in_subset())};
  const View<float, 1> in = k.allocate_spinors("in"), plain = k.allocate_spinors("plain"), around = k.allocate_spinors("around");
  k.pack(in_fields, in);
  faces.apply(in, plain, Progress::None);
  faces.apply_around(in, around, [&] { k.apply(in, around); });
  double differ = 0;
  for (std::size_t i = 0; i < in.size(); ++i) differ += plain(i) != around(i) ? 1 : 0;
  EXPECT_EQ(max_over_ranks(differ), 0) << "not the face kernels' bits";

  if (!half_built(cfg.kernel, cfg.isa)) GTEST_SKIP() << "half precision kernels are not built for " << to_string(cfg.isa);
  DslashConfig half_cfg = cfg;
  half_cfg.half = true;
  half_cfg.halo = k.config().halo;
  const DslashKernel<float> half(u, half_cfg);
  const HalfSpinors<HostSpace> in_codes = half.allocate_half_spinors("in_codes"), out_codes = half.allocate_half_spinors("out_codes");
  faces.apply_around(in, around, [&] {
    half.encode(in, in_codes);
    half.apply(in_codes, out_codes);
    half.decode(out_codes, around);
  });
  std::vector<SpinorField<float>> out_fields;
  k.unpack(around, out_fields);
  if (const auto result = gather(grid, out_fields[0])) {
    const SpinorField<double>& expected = f.expected(Subset::Even, false, 0);
    EXPECT_LE(relative_difference(*result, expected), half_precision_bound(18, std::sqrt(norm2(psi) / norm2(expected)))) << grid.describe();
    EXPECT_GT(relative_difference(*result, expected), 0) << "half precision's rounding is not there";
  }
}

// The stage timers of every strategy account for the call: their sum is at most the call and, in
// the median call, at least 80% of it (what is left is the loop between the timers), through MPI
// and through the shared-memory window. Directions that are not split have no stage time.
TEST(HaloTimes, StagesAddUpToTheCall) {
  Fixture& f = fixture();
  const ProcessGrid grid(g_grid, f.global.extents());
  const GaugeField<double> u = scatter(grid, grid.rank() == 0 ? &f.u : nullptr);
  for (const CpuHalo how : {CpuHalo::Mpi, CpuHalo::Shared}) {
    HaloDslash<double> d(grid, u, {.kernel = KernelFamily::Vnode, .dispatch = Dispatch::Range, .isa = best_isa(), .out = Subset::Full}, {.cpu_halo = how});
    const View<double, 1> in = d.kernel().allocate_spinors("test"), out = d.kernel().allocate_spinors("test");
    for (Progress progress : kStrategies) {
      d.reset_times();
      for (int call = 0; call < 15; ++call) d.apply(in, out, progress);
      std::vector<double> share;
      int bad = 0;
      for (const HaloCallTimes& t : d.times()) {
        share.push_back(t.stages() / t.call);
        bad += t.stages() <= t.call * (1 + 1e-9) ? 0 : 1;
        bad += t.transfer >= 0 && t.interior > 0 ? 0 : 1;
        // A CPU rank projects every face in one launch (with no split direction, an empty one).
        bool any_split = false;
        for (int mu = 0; mu < 4; ++mu) any_split = any_split || grid.split(mu);
        bad += (any_split ? t.project_all > 0 : t.project_all >= 0) ? 0 : 1;
        for (int mu = 0; mu < 4; ++mu) {
          bad += t.project[static_cast<std::size_t>(mu)] == 0 ? 0 : 1;
          if (!grid.split(mu)) bad += t.complete[static_cast<std::size_t>(mu)] == 0 ? 0 : 1;
        }
        if (progress != Progress::Chunks) bad += t.progress == 0 ? 0 : 1;
      }
      std::sort(share.begin(), share.end());
      EXPECT_EQ(max_over_ranks(bad), 0.0) << to_string(progress) << ", " << d.transport();
      EXPECT_GT(-max_over_ranks(-share[share.size() / 2]), 0.8) << to_string(progress) << ", " << d.transport() << ": the stages miss part of the call";
    }
  }
}

// Rank 0 reads and scatters, gathers and writes: the file written under MPI is byte for byte the
// one a single process writes, and every rank holds its block of the field.
TEST(DistributedNersc, ReadScatterGatherWriteIsExact) {
  Fixture& f = fixture();
  const ProcessGrid grid(g_grid, f.global.extents());
  int stamp = static_cast<int>(::getpid());
  MPI_Bcast(&stamp, 1, MPI_INT, 0, MPI_COMM_WORLD);
  const auto dir = std::filesystem::temp_directory_path() / ("dslash_mpi_nersc_" + std::to_string(stamp));
  const std::string one = (dir / "one.nersc").string(), many = (dir / "many.nersc").string();
  // Rank 0 made the directory and removes it however the test ends, a throw or a failed ASSERT included.
  struct RemovedOnRank0 {
    std::filesystem::path dir;
    bool rank0;
    ~RemovedOnRank0() {
      std::error_code ec;
      if (rank0) std::filesystem::remove_all(dir, ec);
    }
  } const removed{dir, grid.rank() == 0};
  if (grid.rank() == 0) {
    std::filesystem::create_directories(dir);
    io::write_nersc(one, f.u);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const GaugeField<double> local = read_nersc<double>(grid, one);
  double worst = 0;
  const Coord origin = grid.origin();
  for (site_t s = 0; s < grid.local().volume(); ++s) {
    Coord x = grid.local().coords(s);
    for (std::size_t mu = 0; mu < 4; ++mu) x[mu] += origin[mu];
    for (int mu = 0; mu < 4; ++mu)
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) worst = std::max(worst, std::abs(local(s, mu, a, b) - f.u(f.global.site(x), mu, a, b)));
  }
  EXPECT_EQ(max_over_ranks(worst), 0.0);
  write_nersc(grid, many, local);
  if (grid.rank() == 0) {
    const auto bytes = [](const std::string& p) {
      std::ifstream in(p, std::ios::binary);
      return std::string(std::istreambuf_iterator<char>(in), {});
    };
    EXPECT_EQ(bytes(one), bytes(many));
  }
  // A missing file is rank 0's problem and every rank's error.
  EXPECT_THROW(read_nersc<double>(grid, (dir / "missing.nersc").string()), CollectiveError);
}

// Bad grids and lattices: every rank throws, so none is left waiting in a collective.
TEST(ProcessGridErrors, EveryRankThrowsTheSameError) {
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const auto message = [](const Coord& grid, const Coord& lattice) -> std::string {
    try {
      ProcessGrid g(grid, lattice);
    } catch (const CollectiveError& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_NE(message({1, 1, 1, ranks + 1}, {8, 8, 8, 8 * (ranks + 1)}).find("were started"), std::string::npos);
  if (ranks > 2) {
    EXPECT_NE(message({1, 1, 1, ranks}, {8, 8, 8, 2 * ranks + 2}).find("not divisible by"), std::string::npos);
  }
  if (ranks > 1) {
    EXPECT_NE(message({1, 1, 1, ranks}, {8, 8, 8, ranks}).find("even local extent"), std::string::npos);
  }
  EXPECT_THROW(parse_grid("1.1.0.2"), std::invalid_argument);
  EXPECT_THROW(parse_grid("2.2"), std::invalid_argument);
  // A local lattice the kernel cannot fold: 16 lanes need local extents that are multiples of 4.
  Coord lattice = global_extents();
  lattice[1] = 2 * g_grid[1];  // local y extent 2
  const ProcessGrid grid(g_grid, lattice);
  GaugeField<float> u(grid.local());
  fill_unit(u);
  if (!cpu_supports(sixteen_lanes())) GTEST_SKIP() << "no 16-lane instruction set in this build";
  try {
    HaloDslash<float> d(grid, u, {.kernel = KernelFamily::Vnode, .isa = sixteen_lanes()});
    ADD_FAILURE() << "a local y extent of 2 was accepted for 16-lane folding";
  } catch (const CollectiveError& e) {
    EXPECT_NE(std::string(e.what()).find("local " + grid.local().to_string()), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace dslash::mpi

int main(int argc, char** argv) { return dslash::test::run_mpi_tests(argc, argv, dslash::mpi::g_grid); }
