#pragma once
// The Dslash on the GPU: the one kernel body (kernels/dslash_body.hpp) with SIMT lanes
// (simd/simt.hpp) on the Cuda execution space, for every family and dispatch; the halo face kernels
// (kernels/face_body.hpp) the same way; the lane probes; and the roofline's ceilings measured on the
// device (BabelStream-style triad and copy, an FMA loop).
// Included by one .cu file per precision (dslash_cuda_f32.cu, dslash_cuda_f64.cu), as the CPU's
// runner_table.hpp is by the generated units of each instruction set: each compiles with its own flags, in parallel;
// naive and vnode each in a file of their own (in single precision their register caps and
// range-kernel forms differ from mrhs's: kernels/CMakeLists.txt).
#include "simd/simt.hpp"
#include "simd/simt_half.hpp"
// keep this order
#include "kernels/dslash_body.hpp"
#include "kernels/face_body.hpp"
#include "kernels/simd_probe.hpp"

namespace dslash {

namespace kernels {
// naive and vnode are compiled in units of their own (dslash_cuda_{naive,vnode}_f{32,64}.cu): in
// single precision each with its own register budget, and every unit beside the others on a core.
extern template void run_dslash<float, simd::SimtLane<float, 1>, false, Cuda>(const RunArgs<float>&);
extern template void run_dslash<float, simd::SimtLane<float, simd::kSimtLanes<float>>, true, Cuda>(const RunArgs<float>&);
extern template void run_dslash<double, simd::SimtLane<double, 1>, false, Cuda>(const RunArgs<double>&);
extern template void run_dslash<double, simd::SimtLane<double, simd::kSimtLanes<double>>, true, Cuda>(const RunArgs<double>&);
// Half precision storage, every family (dslash_cuda_half.cu).
extern template void run_dslash_half<simd::SimtLane<float, 1>, false, Cuda>(const RunArgs<float>&);
extern template void run_dslash_half<simd::SimtLane<float, simd::kSimtLanes<float>>, false, Cuda>(const RunArgs<float>&);
extern template void run_dslash_half<simd::SimtLane<float, simd::kSimtLanes<float>>, true, Cuda>(const RunArgs<float>&);
}  // namespace kernels

namespace {

template <class Real>
using DeviceArray = View<Real, 1, LayoutRight, CudaSpace>;

template <class Real>
DeviceArray<Real> to_device(const Real* p, std::size_t n) {
  DeviceArray<Real> d("probe", n);
  CudaSpace::copy(d.data(), p, n * sizeof(Real));
  return d;
}

// The lane permute of level `level` on W device lanes, as simd::permute does it in the kernels.
template <class Vec, int Level = 0>
void probe_permute(int level, const typename Vec::value_type* in, typename Vec::value_type* out) {
  using Real = typename Vec::value_type;
  constexpr int W = static_cast<int>(Vec::size);
  if constexpr ((1 << Level) < W) {
    if (level != Level) return probe_permute<Vec, Level + 1>(level, in, out);
    const DeviceArray<Real> src = to_device(in, W), dst("probe_out", W);
    parallel_for("probe_permute", RangePolicy<Cuda>(0, 1, W), DSLASH_LAMBDA(index_t) {
      simd::permute<Level>(Vec::load_aligned(src.data())).store_aligned(dst.data());
    });
    CudaSpace::copy(out, dst.data(), W * sizeof(Real));
  }
}

template <class Vec>
void probe_complex_op(SimdOp op, const typename Vec::value_type* a, const typename Vec::value_type* b, const typename Vec::value_type* c,
                      typename Vec::value_type* out) {
  using Real = typename Vec::value_type;
  constexpr int W = static_cast<int>(Vec::size);
  const DeviceArray<Real> da = to_device(a, 2 * W), db = to_device(b, 2 * W), dc = to_device(c, 2 * W), dout("probe_out", 2 * W);
  parallel_for("probe_complex_op", RangePolicy<Cuda>(0, 1, W), DSLASH_LAMBDA(index_t) {
    kernels::complex_op<Vec>(op, da.data(), db.data(), dc.data(), dout.data());
  });
  CudaSpace::copy(out, dout.data(), 2 * W * sizeof(Real));
}

// 16 bytes of reals, one load or store: with one float per thread the triad keeps too few bytes in
// flight, and the single-precision roofline would be set too low.
template <class Real>
struct alignas(16) Reals16 {
  static constexpr int kCount = static_cast<int>(16 / sizeof(Real));
  Real v[kCount];
};

// a = b + s c, 16 bytes per thread (n a multiple of 16 / sizeof(Real)), timed with CUDA events;
// returns seconds.
template <class Real>
double stream_triad(Real* a, const Real* b, const Real* c, index_t n, Real s) {
  using R16 = Reals16<Real>;
  R16* a16 = reinterpret_cast<R16*>(a);
  const R16 *b16 = reinterpret_cast<const R16*>(b), *c16 = reinterpret_cast<const R16*>(c);
  cuda::EventTimer timer;
  timer.start();
  parallel_for("gpu_triad", RangePolicy<Cuda>(n / R16::kCount), DSLASH_LAMBDA(index_t i) {
    const R16 x = b16[i], y = c16[i];
    R16 r;
    for (int k = 0; k < R16::kCount; ++k) r.v[k] = x.v[k] + s * y.v[k];
    a16[i] = r;
  });
  return timer.stop();
}

// a = b, as BabelStream's copy, 16 bytes per thread; returns seconds.
template <class Real>
double stream_copy(Real* a, const Real* b, index_t n) {
  using R16 = Reals16<Real>;
  R16* a16 = reinterpret_cast<R16*>(a);
  const R16* b16 = reinterpret_cast<const R16*>(b);
  cuda::EventTimer timer;
  timer.start();
  parallel_for("gpu_copy", RangePolicy<Cuda>(n / R16::kCount), DSLASH_LAMBDA(index_t i) { a16[i] = b16[i]; });
  return timer.stop();
}

// Every resident thread of the GPU runs kChains independent FMA chains (enough to hide the FMA
// latency); returns FLOP/s. Sized to the GPU, about a millisecond, whatever `iterations` says.
template <class Real>
double fma_peak(index_t) {
  constexpr int kChains = 8, kIterations = 4096;
  const index_t threads = Cuda::concurrency();
  DeviceArray<Real> sink("fma_sink", static_cast<std::size_t>(threads));
  Real* out = sink.data();
  const auto run = [&] {
    parallel_for("gpu_fma_peak", RangePolicy<Cuda>(threads), DSLASH_LAMBDA(index_t t) {
      Real acc[kChains];
      for (int k = 0; k < kChains; ++k) acc[k] = Real(0.5) + Real(0.01) * static_cast<Real>(k + t % 7);
      const Real m = Real(0.999999), add = Real(1e-7);
      for (int i = 0; i < kIterations; ++i)
        for (int k = 0; k < kChains; ++k) acc[k] = fma(acc[k], m, add);
      Real sum = 0;
      for (int k = 0; k < kChains; ++k) sum += acc[k];
      out[t] = sum;  // keeps the loop alive
    });
  };
  run();  // warm-up: clocks up, kernel loaded
  cuda::EventTimer timer;
  timer.start();
  run();
  return 2.0 * kChains * kIterations * static_cast<double>(threads) / timer.stop();
}

}  // namespace

template <class Real>
RunnerTable<Real> cuda_runners() {
  using Lanes = simd::SimtLane<Real, simd::kSimtLanes<Real>>;
  using OneLane = simd::SimtLane<Real, 1>;  // naive: one site per thread
  RunnerTable<Real> t;
  t.family[static_cast<int>(KernelFamily::Naive)] = {&kernels::run_dslash<Real, OneLane, false, Cuda>, &kernels::run_faces<Real, OneLane, false, Cuda>};
  t.family[static_cast<int>(KernelFamily::Mrhs)] = {&kernels::run_dslash<Real, Lanes, false, Cuda>, &kernels::run_faces<Real, Lanes, false, Cuda>};
  t.family[static_cast<int>(KernelFamily::Vnode)] = {&kernels::run_dslash<Real, Lanes, true, Cuda>, &kernels::run_faces<Real, Lanes, true, Cuda>};
  if constexpr (std::is_same_v<Real, float>) {
    kernels::set_half_runners<OneLane, false, Cuda>(t.family[static_cast<int>(KernelFamily::Naive)]);
    kernels::set_half_runners<Lanes, false, Cuda>(t.family[static_cast<int>(KernelFamily::Mrhs)]);
    kernels::set_half_runners<Lanes, true, Cuda>(t.family[static_cast<int>(KernelFamily::Vnode)]);
  }
  return t;
}

template <class Real>
ProbeTable<Real> cuda_probes() {
  using Lanes = simd::SimtLane<Real, simd::kSimtLanes<Real>>;
  ProbeTable<Real> t;
  t.probe = {static_cast<int>(Lanes::size), &probe_permute<Lanes>, &probe_complex_op<Lanes>};
  t.machine.stream_triad = &stream_triad<Real>;
  t.machine.stream_copy = &stream_copy<Real>;
  t.machine.fma_peak = &fma_peak<Real>;
  return t;
}

}  // namespace dslash
