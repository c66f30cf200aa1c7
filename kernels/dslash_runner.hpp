#pragma once
// The boundary between the baseline code (packing, validation) and the per-ISA translation units:
// everything one launch needs, as plain data, and a function pointer per (family x ISA x precision).
#include <array>
#include <string>

#include "kernels/kernel_options.hpp"

namespace dslash {

template <class Real>
struct RunArgs {
  const Real* in;
  Real* out;
  const Real* links;
  std::array<index_t, 4> outer;  // outer lattice extents
  index_t t_begin, t_end;         // the slab of outer t this launch computes
  bool checkerboard;              // output is one parity of the outer lattice (else full)
  int out_parity;
  int blocks;
  // Spinor offset of (site, block, component 0..23), in vectors of W reals: site * site_stride +
  // block * block_stride + component * component_stride (kernels/kernel_layout.hpp).
  index_t site_stride, block_stride, component_stride;
  bool dagger;
  std::array<bool, 4> halo;       // directions split between domains (DslashConfig::halo)
  Dispatch dispatch;
  std::array<index_t, 4> tile;
  int team_size;
  index_t sites_per_team;
  const char* label;
};

template <class Real>
using DslashRunner = void (*)(const RunArgs<Real>&);

// The SIMD operations of one instruction set on plain arrays, so a baseline test can check them
// lane by lane against scalar code. Complex operands are split: W real parts, then W imaginary.
enum class SimdOp { Mul, MulAdd, ConjMulAdd, TimesI, TimesMinusI, StreamStore };
template <class Real>
struct SimdProbe {
  int lanes = 0;
  void (*permute)(int level, const Real* in, Real* out) = nullptr;          // out = permute<level>(in)
  void (*complex_op)(SimdOp op, const Real* a, const Real* b, const Real* c, Real* out) = nullptr;
};

// The roofline ceilings on one instruction set (kernels/machine_probe.hpp).
template <class Real>
struct MachineProbe {
  double (*stream_triad)(Real* a, const Real* b, const Real* c, index_t n, Real s) = nullptr;  // seconds
  double (*fma_peak)(index_t iterations) = nullptr;                                           // FLOP/s
};

// One runner per family for an instruction set (null where the family is not built for it), the
// probe of its SIMD type, and its roofline ceilings.
template <class Real>
struct RunnerTable {
  DslashRunner<Real> naive = nullptr, mrhs = nullptr, vnode = nullptr;
  SimdProbe<Real> probe;
  MachineProbe<Real> machine;
};

// Defined in each kernels/dslash_<isa>.cpp; call only when cpu_supports(isa).
template <class Real> RunnerTable<Real> scalar_runners();
template <class Real> RunnerTable<Real> emulated512_runners();
template <class Real> RunnerTable<Real> sse2_runners();
template <class Real> RunnerTable<Real> avx2_runners();
template <class Real> RunnerTable<Real> avx512_runners();
template <class Real> RunnerTable<Real> neon_runners();

}  // namespace dslash
