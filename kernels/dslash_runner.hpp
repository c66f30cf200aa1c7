#pragma once
// The boundary between the baseline code (packing, validation) and the per-ISA translation units:
// everything one launch needs, as plain data, and a function pointer per (family x ISA x precision).
#include <array>
#include <cstdint>
#include <string>

#include "dslash/core/reducer.hpp"
#include "kernels/kernel_options.hpp"

namespace dslash {

// The halo as the kernel reads it itself, when the messages are in before it runs (a CPU rank that
// waits for its halo first: src/mpi/halo_dslash.hpp). Per split direction and hop (0 forward,
// 1 backward): the received message and the face's links (U_mu(x) forward, U_mu(x - mu)^dagger backward), as
// DslashFaces::complete reads them; per split direction, each output site's place in its faces.
// Null messages: the kernel leaves the hops out, and DslashFaces::complete adds them later.
// neighbour_in instead of a message: the neighbour domain's own input spinors, mapped here (CPU ranks
// of one node whose inputs live in a shared window: mpi/shared_spinors.hpp). The kernel projects the
// face vector itself, from the neighbour's vector at the index its own wrapped hop reads, as the
// neighbour's projection into the message would: the same bits, with no projection launch.
template <class Real>
struct ReceivedHalo {
  std::array<std::array<const Real*, 2>, 4> message{}, links{}, neighbour_in{};
  std::array<const std::int32_t*, 4> slot{};  // [mu][output site index]: its face vector, or -1
  std::array<index_t, 4> items{};              // [mu]: the face vectors of a message (FaceLanes::message_offset)
  // Whether the hop's halo is here, as a message or as the neighbour's own input.
  DSLASH_INLINE_FUNCTION bool has_hop(std::size_t mu, std::size_t hop) const { return message[mu][hop] != nullptr || neighbour_in[mu][hop] != nullptr; }
};

// What the epilogue of a launch sums over its sites, in double: ||out||^2, Re and Im <w, out>, Re
// and Im <w2, out>.
using EpilogueSums = std::array<double, 5>;
// The epilogue a kernel is built with: none, a x + b D in with its norm, and with <w, out> and
// <w2, out> too.
enum class Epilogue { None, Norm, NormDot };

// What one launch reads, by concern: plain values copied by value into the body (and into the
// GPU's lambda), no pointers to host structs.
// The buffers and their strides. Spinor offset of (site, block, component 0..23), in vectors of W
// reals: site * site_stride + block * block_stride + component * component_stride
// (kernels/kernel_layout.hpp). Links: site-major when component_stride is 1, else component-major
// with link_stride = outer sites between a link's stored components.
// Half precision storage (DslashConfig::storage, float kernels only; docs/CONVENTIONS.md): the
// spinors and links as 16-bit codes at the offsets the Real ones would have, and each spinor's norm,
// one vector of W lanes per (site, block) at site * norm_site_stride + block * norm_block_stride
// vectors. Null where the fields are Real.
struct RunFixed16 {
  const std::int16_t* in = nullptr;
  const float* in_norm = nullptr;
  std::int16_t* out = nullptr;
  float* out_norm = nullptr;
  const std::int16_t* links = nullptr;
  index_t norm_site_stride = 0, norm_block_stride = 0;
};

template <class Real>
struct RunFields {
  const Real* in;
  Real* out;
  const Real* links;
  index_t site_stride, block_stride, component_stride;
  index_t link_stride;
  int reals_per_link;  // gauge compression: 18, 12 or 8 stored reals per link (kernels/link_compression.hpp)
  RunFixed16 half{};
};

// The output sites of the launch.
struct RunSites {
  std::array<index_t, 4> outer;  // outer lattice extents
  index_t t_begin, t_end;        // the slab of outer t this launch computes
  bool checkerboard;             // output is one parity of the outer lattice (else full)
  int out_parity;
  int blocks;
};

// How the sites are launched and what the body asks of the caches.
struct RunLaunch {
  Dispatch dispatch;
  std::array<index_t, 4> tile;
  int team_size;
  index_t sites_per_team;
  index_t block_z;              // team launches: z-planes a traversal block (outer z: index order)
  LinkPrefetch link_prefetch;   // CPU, 512-bit vectors, site-major links (DslashConfig::link_prefetch)
  const char* label;
};

// The directions split between domains (DslashConfig::halo), and on a CPU their hops from the
// received messages, in this launch.
template <class Real>
struct RunHalo {
  std::array<bool, 4> split;
  ReceivedHalo<Real> received;
};

// The epilogue (DslashKernel::apply_xpay), when x is set: out = a x + b D in, written in place of
// D in, and *sums = ||out||^2 and, when w is set, <w, out> and <w2, out> (w2 is then set too).
// Instead of *sums, where set: ||out||^2 at norm_into (Norm), or all five sums at sums_into
// (NormDot), left in memory of the kernel's space, the launch returning before they are in.
template <class Real>
struct RunEpilogue {
  const Real* x;
  const Real* w;
  const Real* w2;
  Real a, b;
  EpilogueSums* sums;
  ReduceInto<double> norm_into;
  ReduceInto<EpilogueSums> sums_into;
};

template <class Real>
struct RunArgs {
  RunFields<Real> fields;
  RunSites sites;
  RunLaunch launch;
  RunHalo<Real> halo;
  RunEpilogue<Real> epilogue;
  bool dagger;
};

template <class Real>
using DslashRunner = void (*)(const RunArgs<Real>&);

// One face launch of kernels/dslash_faces.hpp: the face's vectors (W lanes of the kernel's spinor
// layout, all blocks) in message order, and what to do with them.
//   project : psi -> h = P psi -> the message
//   complete: the message -> h -> U h (backward hop: U^dagger h) -> reconstructed and added to the output
// The message: per face vector, per block, 6 complex numbers (2 spins x 3 colours) as (re, im) of
// the vector's face lanes: all W, or W/2 in a direction folded into the lanes (one virtual node).
// A completion that also finishes the even-odd operator's last pass on the vectors it completes
// (a GPU rank's xpay split linearly: mpi/halo_dslash.hpp, HaloDslash::apply_xpay): each becomes
// a x + b (the kernel's hops it held + the halo's), all its lanes, and ||.||^2 over them is left at
// norm; or, where w and w2 are set, ||.||^2, <w, .> and <w2, .> (EpilogueSums) at sums. x, w and
// w2 are in the output's layout.
template <class Real>
struct FaceXpay {
  const Real* x = nullptr;
  Real a = 1, b = 1;
  ReduceInto<double> norm;
  const Real *w = nullptr, *w2 = nullptr;
  ReduceInto<EpilogueSums> sums;
};

template <class Real>
struct FaceArgs {
  const Real* in;          // project: the kernel's input spinors
  Real* out;               // complete: the kernel's output spinors
  Real* message;           // project: the message it writes
  const Real* received;    // complete: the message it reads
  const index_t* vectors;  // offset, in reals, of each face vector's block 0 in the spinor buffer
  index_t count;
  const Real* links;       // per face vector one link in the kernel's link layout, or null
  int blocks;
  index_t block_stride, component_stride;  // in vectors of W reals, as RunFields
  int mu;
  bool forward, dagger, complete;
  const char* label;
  FaceXpay<Real> xpay;     // complete: where xpay.x is set (the GPU's face kernels only)
};

template <class Real>
// One launch of a face stage: `first`, and where not null `second`, the other hop of its direction.
using FaceRunner = void (*)(const FaceArgs<Real>& first, const FaceArgs<Real>* second);

// One launch projecting every face of every split direction (DslashFaces::project_all): each face
// vector is read once, however many faces it lies on (a vector on an edge or corner of the rank's
// block lies on 2 or 3: with y, z and t split, an 8 x 2 rank reads 2368 vectors where one launch a
// direction read 3072). faces[mu][hop] as for project (hop 0 forward, 1 backward), set where mu is
// split; items[j][2 mu + hop], the j-th vector's place in that face, or -1. The items run in memory
// order, so every face's message is written in order too.
template <class Real>
struct FacesProjectArgs {
  std::array<std::array<FaceArgs<Real>, 2>, 4> faces{};
  const std::array<std::int32_t, 8>* items = nullptr;
  index_t count = 0;
  bool dagger = false;
};
template <class Real>
using FacesProjectRunner = void (*)(const FacesProjectArgs<Real>&);

// The SIMD operations of one instruction set on plain arrays, so a baseline test can check them
// lane by lane against scalar code. Complex operands are split: W real parts, then W imaginary.
enum class SimdOp { Mul, MulAdd, ConjMulAdd, TimesI, TimesMinusI, StreamStore };
template <class Real>
struct SimdProbe {
  int lanes = 0;
  void (*permute)(int level, const Real* in, Real* out) = nullptr;          // out = permute<level>(in)
  void (*complex_op)(SimdOp op, const Real* a, const Real* b, const Real* c, Real* out) = nullptr;
  // CPU: out = expand_half<level>(in, node), or (expand false) out[0, W/2) = compress_half<level>(in, node).
  void (*half)(bool expand, int level, int node, const Real* in, Real* out) = nullptr;
  void (*keep_half)(int level, int node, const Real* in, Real* out) = nullptr;  // CPU: out = keep_half<level>(in, node)
  // Half precision storage (Real = float; simd/xsimd_shim.hpp): out = load_fixed16(codes, scale);
  // codes = store_fixed16(x, store_scale); and a site's scales, norm = fixed16_site_norm(max_abs(m, x)).
  void (*load_fixed16)(const std::int16_t* codes, const Real* scale, Real* out) = nullptr;
  void (*store_fixed16)(const Real* x, const Real* store_scale, std::int16_t* codes) = nullptr;
  void (*fixed16_scales)(const Real* m, const Real* x, Real* norm, Real* load_scale, Real* store_scale) = nullptr;
};

// The roofline ceilings on one instruction set, and the Dslash body's own rate with its data in
// cache (kernels/machine_probe.hpp).
// On the GPU (cuda_runners) the arrays are in device memory, the times come from CUDA events, the
// FMA loop sizes itself to the GPU (it ignores `iterations`), and there is a copy (BabelStream's a = b).
template <class Real>
struct MachineProbe {
  double (*stream_triad)(Real* a, const Real* b, const Real* c, index_t n, Real s) = nullptr;  // seconds
  double (*fma_peak)(index_t iterations) = nullptr;                                           // FLOP/s
  double (*mrhs_body)(int repeats) = nullptr, (*vnode_body)(int repeats) = nullptr;          // FLOP/s, one thread
  double (*stream_copy)(Real* a, const Real* b, index_t n) = nullptr;                         // seconds; GPU only
};

// A family's runners on one instruction set: the Dslash, its halo faces, every face in one launch
// (CPU only) and its traffic alone (kernels/machine_probe.hpp; CPU only). Null where not built.
template <class Real>
struct FamilyRunners {
  DslashRunner<Real> dslash = nullptr;
  FaceRunner<Real> faces = nullptr;
  FacesProjectRunner<Real> project_all = nullptr;
  DslashRunner<Real> traffic = nullptr;
  DslashRunner<Real> dslash_half = nullptr;  // half precision storage (Real = float; RunFixed16)
  // Its conversions in the family's layout: floats at fields.in -> fields.half.out, and
  // fields.half.in -> floats at fields.out.
  DslashRunner<Real> encode_half = nullptr, decode_half = nullptr;
};

// What one instruction set's build provides to a kernel: the runners of each family, indexed by KernelFamily.
template <class Real>
struct RunnerTable {
  std::array<FamilyRunners<Real>, 3> family{};
};
// And to the tests and the bench: the probe of its SIMD type, and its roofline ceilings.
template <class Real>
struct ProbeTable {
  SimdProbe<Real> probe;
  MachineProbe<Real> machine;
};

// Defined in each generated table unit (kernels/isa_table.cpp.in); call only when cpu_supports(isa).
#define DSLASH_DECLARE_ISA_TABLES(isa)                   \
  template <class Real> RunnerTable<Real> isa##_runners(); \
  template <class Real> ProbeTable<Real> isa##_probes();
DSLASH_DECLARE_ISA_TABLES(scalar)
DSLASH_DECLARE_ISA_TABLES(emulated512)
DSLASH_DECLARE_ISA_TABLES(sse2)
DSLASH_DECLARE_ISA_TABLES(avx2)
DSLASH_DECLARE_ISA_TABLES(avx512)
DSLASH_DECLARE_ISA_TABLES(neon)
// kernels/cuda_runners.cuh (a build with CUDA): the GPU's, SIMT lanes on the Cuda execution space;
// its runners take device pointers.
DSLASH_DECLARE_ISA_TABLES(cuda)
#undef DSLASH_DECLARE_ISA_TABLES

}  // namespace dslash
