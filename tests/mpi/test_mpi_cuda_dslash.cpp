// The GPU halo under mpirun (a build with CUDA and MPI): every rank binds to a GPU (ranks share one
// where there are fewer), and the decomposed GPU Dslash, its halos staged through the host and
// moved GPU to GPU (CUDA IPC), is checked against the single-process reference. ctest runs it on 2 ranks splitting t and on 4 splitting z and t:
//   mpirun -np 2 test_mpi_cuda_dslash --grid=1.1.1.2
// Without a usable GPU on every rank, every test reports itself skipped with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <ostream>
#include <string>

#include "dslash/core/backend/cuda/space.hpp"
#include "dslash/lattice/field_ops.hpp"
#include "kernels/reference_dslash.hpp"
#include "mpi/distributed_fields.hpp"
#include "mpi/gpu_ranks.hpp"
#include "mpi/halo_dslash.hpp"
#include "mpi/mpi_session.hpp"
#include "mpi_test_main.hpp"  // tests/mpi

namespace dslash::mpi {
namespace {

Coord g_grid{1, 1, 1, 2};

double max_over_ranks(double v) {
  double r = 0;
  MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return r;
}

// Empty once every rank is bound to a GPU; else why not (the same on every rank).
const std::string& skip_reason() {
  static const std::string why = [] {
    std::string mine = cuda::unavailable_reason();
    int missing = mine.empty() ? 0 : 1, any = 0;
    MPI_Allreduce(&missing, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any) return std::string("a rank has no usable CUDA device") + (mine.empty() ? "" : ": " + mine);
    bind_gpu(MPI_COMM_WORLD, false);
    return std::string();
  }();
  return why;
}

// Local extents every GPU folding takes (8 lanes fold y, z, t into halves), z longer; t long
// enough that vnode's outer t (4) has slabs beside its boundary ones (HaloDslash::boundary_beside).
Geometry global_lattice() {
  const Coord local{4, 4, 8, 8};
  Coord g{};
  for (std::size_t mu = 0; mu < 4; ++mu) g[mu] = local[mu] * g_grid[mu];
  return Geometry(g);
}

struct Variant {
  KernelFamily kernel;
  Dispatch dispatch;
  bool single;
};
// "vnode mdrange single": joined by "_" the test name's suffix, by " " what a failing line prints.
std::string describe(const Variant& v, const char* separator) {
  return std::string(to_string(v.kernel)) + separator + to_string(v.dispatch) + separator + (v.single ? "single" : "double");
}
void PrintTo(const Variant& v, std::ostream* os) { *os << describe(v, " "); }

class CudaHaloDslashTest : public ::testing::TestWithParam<Variant> {};

// Even, odd and full output, with and without dagger, overlapped and not: the gathered result
// against the reference to 1e-12 in double, 1e-5 in single; overlap on and off, staged and peer
// halos and repeated calls give the same bits.
TEST_P(CudaHaloDslashTest, AgreesWithTheSingleProcessReference) {
  if (!skip_reason().empty()) GTEST_SKIP() << skip_reason();
  const Variant v = GetParam();
  const Geometry global = global_lattice();
  const ProcessGrid grid(g_grid, global.extents());
  GaugeField<double> u_double(global);
  fill_random_su3(u_double, 7);
  const auto run = [&]<class Real>(Real) {
    const GaugeField<Real> u_global = convert_precision<Real>(u_double);
    const GaugeField<Real> u = scatter(grid, grid.rank() == 0 ? &u_global : nullptr);
    const double tolerance = sizeof(Real) == 4 ? 1e-5 : 1e-12;
    for (Subset out : {Subset::Even, Subset::Odd, Subset::Full})
      for (bool dagger : {false, true}) {
        DslashConfig cfg{.kernel = v.kernel, .dispatch = v.dispatch, .out = out, .dagger = dagger};
        cfg.nrhs = v.kernel == KernelFamily::Mrhs ? static_cast<int>(32 / sizeof(Real)) : 1;  // one block of SIMT lanes
        cfg.tile = {1, 3, 2, 1};
        // Staged through host memory, and GPU to GPU: the ranks of a test share a node.
        std::vector<SpinorField<Real>> staged_result;
        for (const GpuHalo how : {GpuHalo::Staged, GpuHalo::Peer}) {
          HaloDslash<Real, CudaSpace> d(grid, u, cfg, {.gpu_halo = how});
          const bool peer = how == GpuHalo::Peer;
          ASSERT_STREQ(d.transport(), peer ? "peer" : "staged");
          std::vector<SpinorField<double>> psi;
          std::vector<SpinorField<Real>> in;
          for (int r = 0; r < cfg.nrhs; ++r) {
            SpinorField<double> full(global, Subset::Full), p(global, d.in_subset());
            fill_gaussian(full, 500 + static_cast<std::uint64_t>(r));
            copy_sites(full, p);
            const SpinorField<Real> p_real = convert_precision<Real>(p);
            in.push_back(scatter(grid, grid.rank() == 0 ? &p_real : nullptr, d.in_subset()));
            psi.push_back(std::move(p));
          }
          // Three calls: peer alternates its two receive buffers, so the third reuses the first's.
          // The third records no stage events, as a solver's calls (the boundary slabs' stay).
          const auto overlapped = d.apply(in, Progress::Chunks), serial = d.apply(in, Progress::None);
          d.time_stages(false);
          const auto again = d.apply(in, Progress::Chunks);
          d.time_stages(true);
          double worst = 0;
          int differ = 0;
          for (int r = 0; r < cfg.nrhs; ++r) {
            const auto& a = overlapped[static_cast<std::size_t>(r)];
            const auto bits = [&](const SpinorField<Real>& b) { return relative_difference(convert_precision<double>(a), convert_precision<double>(b)) == 0 ? 0 : 1; };
            differ += bits(serial[static_cast<std::size_t>(r)]) + bits(again[static_cast<std::size_t>(r)]);
            if (peer) differ += bits(staged_result[static_cast<std::size_t>(r)]);
            const auto got = gather(grid, a);
            if (!got) continue;
            SpinorField<double> expected(global, out);
            dslash_reference(u_double, psi[static_cast<std::size_t>(r)], expected, dagger);
            worst = std::max(worst, relative_difference(*got, expected));
          }
          if (!peer) staged_result = overlapped;
          const std::string what = d.kernel().label() + " " + to_string(out) + (dagger ? " dagger" : "") + " on " + grid.describe() + ", " + d.transport();
          EXPECT_LT(max_over_ranks(worst), tolerance) << what;
          EXPECT_EQ(max_over_ranks(differ), 0.0) << what << ": overlap on and off, staged and peer, or a repeated call differ";
          // Every call is timed stage by stage: the interior, and each split direction's faces and copies.
          ASSERT_EQ(d.times().size(), 3u);
          const HaloCallTimes& untimed = d.times().back();
          EXPECT_GT(untimed.call, 0) << what;
          EXPECT_EQ(untimed.interior + untimed.send_out + untimed.bring_in, 0) << what << ": an untimed call has no GPU stages";
          const HaloCallTimes& t = d.times().front();
          EXPECT_GT(t.interior, 0) << what;
          EXPECT_GT(t.send_out, 0) << what;  // staged: the copy to the host; peer: the copies into the neighbours
          EXPECT_EQ(t.bring_in > 0, !peer) << what;  // the copy in, staged only
          // Overlapped with t alone split, the boundary t-slabs run beside the interior (the serial
          // call above gave the same bits).
          const bool t_alone = grid.split(3) && !grid.split(0) && !grid.split(1) && !grid.split(2);
          EXPECT_EQ(t.at.boundary_done > 0, t_alone && d.kernel().outer_t() >= 3) << what;
          for (int mu = 0; mu < 4; ++mu) {
            if (grid.split(mu)) {
              EXPECT_GT(t.project[static_cast<std::size_t>(mu)], 0) << what;
              EXPECT_GT(t.complete[static_cast<std::size_t>(mu)], 0) << what;
            }
          }
        }
      }
  };
  if (v.single) run(float{});
  else run(double{});
}

// The even-odd operator's last pass on GPU ranks (HaloDslash::apply_xpay): overlapped with t alone
// split, split linearly, a x + b D_local in in the slabs' kernels and b times the halo's hops in the
// completion of the boundary slabs. out against a x + b (the same call's plain apply) site by site,
// and its norm against ||out||^2 summed here, on each rank; on other grids, without overlap or with
// an inner product, nothing is done. Both dagger and not, both output parities.
TEST_P(CudaHaloDslashTest, XpaySplitsOverTheSlabsAndTheirFaces) {
  if (!skip_reason().empty()) GTEST_SKIP() << skip_reason();
  const Variant v = GetParam();
  const Geometry global = global_lattice();
  const ProcessGrid grid(g_grid, global.extents());
  GaugeField<double> u_double(global);
  fill_random_su3(u_double, 11);
  const auto run = [&]<class Real>(Real) {
    const GaugeField<Real> u_global = convert_precision<Real>(u_double);
    const GaugeField<Real> u = scatter(grid, grid.rank() == 0 ? &u_global : nullptr);
    const double tolerance = sizeof(Real) == 4 ? 1e-5 : 1e-12;
    const Real a = Real(1.25), b = Real(-0.4);
    for (Subset out : {Subset::Even, Subset::Odd})
      for (bool dagger : {false, true}) {
        DslashConfig cfg{.kernel = v.kernel, .dispatch = v.dispatch, .out = out, .dagger = dagger};
        cfg.nrhs = v.kernel == KernelFamily::Mrhs ? static_cast<int>(32 / sizeof(Real)) : 1;
        cfg.tile = {1, 3, 2, 1};
        HaloDslash<Real, CudaSpace> d(grid, u, cfg);
        const DslashKernel<Real, CudaSpace>& k = d.kernel();
        const std::string what = k.label() + " " + to_string(out) + (dagger ? " dagger" : "") + " on " + grid.describe();
        std::vector<SpinorField<Real>> in_fields, x_fields, w_fields, w2_fields;
        for (int r = 0; r < cfg.nrhs; ++r) {
          const auto seed = static_cast<std::uint64_t>(100 * grid.rank() + r);
          fill_gaussian(in_fields.emplace_back(grid.local(), d.in_subset()), 700 + seed);
          fill_gaussian(x_fields.emplace_back(grid.local(), d.in_subset()), 900 + seed);  // any values in every slot
          fill_gaussian(w_fields.emplace_back(grid.local(), d.in_subset()), 1100 + seed);
          fill_gaussian(w2_fields.emplace_back(grid.local(), d.in_subset()), 1300 + seed);
        }
        const auto in = k.allocate_spinors("in"), x = k.allocate_spinors("x"), plain = k.allocate_spinors("plain"), fused = k.allocate_spinors("fused");
        const auto w = k.allocate_spinors("w"), w2 = k.allocate_spinors("w2"), fused_w = k.allocate_spinors("fused_w");
        k.pack(in_fields, in);
        k.pack(x_fields, x);
        k.pack(w_fields, w);
        k.pack(w2_fields, w2);
        d.apply(in, plain, Progress::Chunks);
        const bool splits = grid.split(3) && !grid.split(0) && !grid.split(1) && !grid.split(2) && k.outer_t() >= 3;
        const std::optional<NormDot> sums = d.apply_xpay(in, a, x, b, fused, Progress::Chunks);
        ASSERT_EQ(sums.has_value(), splits) << what;
        EXPECT_FALSE(d.apply_xpay(in, a, x, b, fused, Progress::None).has_value()) << what << ": without overlap";
        // BiCGStab's inner products ride the split where the kernel's epilogue takes them (not naive's).
        const bool dots = splits && v.kernel != KernelFamily::Naive;
        const std::optional<NormDot> sums_w = d.apply_xpay(in, a, x, b, fused_w, Progress::Chunks, &w, &w2);
        ASSERT_EQ(sums_w.has_value(), dots) << what << ": with inner products";
        if (!splits) continue;
        const auto host = [](const auto& view) {
          const auto h = create_mirror_view(view);
          deep_copy(h, view);
          return h;
        };
        const auto x_h = host(x), plain_h = host(plain), fused_h = host(fused);
        double worst = 0, norm2 = 0;
        for (std::size_t i = 0; i < fused_h.size(); ++i) {
          const double expect = static_cast<double>(a) * x_h(i) + static_cast<double>(b) * plain_h(i);
          worst = std::max(worst, std::abs(fused_h(i) - expect) / (std::abs(expect) + 1));
          norm2 += static_cast<double>(fused_h(i)) * fused_h(i);
        }
        EXPECT_LT(max_over_ranks(worst), tolerance) << what;
        EXPECT_LT(max_over_ranks(std::abs(sums->norm2 - norm2) / norm2), tolerance) << what;
        if (!dots) continue;
        // The same output, bit for bit, and this rank's <w, out> and <w2, out> against sums in double
        // here; |<w, out>| <= ||w|| ||out|| is the scale of their rounding.
        const auto fused_w_h = host(fused_w);
        double differs = 0;
        for (std::size_t i = 0; i < fused_h.size(); ++i) differs = std::max(differs, std::abs(static_cast<double>(fused_w_h(i) - fused_h(i))));
        EXPECT_EQ(max_over_ranks(differs), 0.0) << what << ": the inner products changed the output";
        std::vector<SpinorField<Real>> out_fields, w_out, w2_out;
        k.unpack(fused_w, out_fields);
        k.unpack(w, w_out);
        k.unpack(w2, w2_out);
        std::complex<double> dot = 0, dot2 = 0;
        double w_norm2 = 0, w2_norm2 = 0;
        for (std::size_t r = 0; r < out_fields.size(); ++r) {
          dot += inner_product(w_out[r], out_fields[r]);
          dot2 += inner_product(w2_out[r], out_fields[r]);
          w_norm2 += dslash::norm2(w_out[r]);
          w2_norm2 += dslash::norm2(w2_out[r]);
        }
        EXPECT_LT(max_over_ranks(std::abs(sums_w->norm2 - norm2) / norm2), tolerance) << what << ": with inner products";
        EXPECT_LT(max_over_ranks(std::abs(sums_w->dot - dot) / std::sqrt(w_norm2 * norm2)), tolerance) << what << ": <w, out>";
        EXPECT_LT(max_over_ranks(std::abs(sums_w->dot2 - dot2) / std::sqrt(w2_norm2 * norm2)), tolerance) << what << ": <w2, out>";
      }
  };
  if (v.single) run(float{});
  else run(double{});
}

std::vector<Variant> variants() {
  std::vector<Variant> v;
  for (bool single : {false, true})
    for (KernelFamily k : {KernelFamily::Naive, KernelFamily::Mrhs, KernelFamily::Vnode})
      for (Dispatch d : {Dispatch::Range, Dispatch::MDRange}) v.push_back({k, d, single});
  return v;
}

INSTANTIATE_TEST_SUITE_P(EveryFamily, CudaHaloDslashTest, ::testing::ValuesIn(variants()),
                         [](const auto& param_info) { return describe(param_info.param, "_"); });

}  // namespace
}  // namespace dslash::mpi

int main(int argc, char** argv) { return dslash::test::run_mpi_tests(argc, argv, dslash::mpi::g_grid); }
