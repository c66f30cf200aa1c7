#include "kernels/kernel_options.hpp"

#include <algorithm>
#include <stdexcept>

#include "simd/xsimd_shim.hpp"

namespace dslash {

const char* to_string(LinkPrefetch p) {
  switch (p) {
    case LinkPrefetch::Auto: return "auto";
    case LinkPrefetch::None: return "none";
    case LinkPrefetch::IntoL1: return "L1";
    case LinkPrefetch::IntoL2: return "L2";
  }
  return "?";
}

const char* to_string(KernelFamily k) {
  switch (k) {
    case KernelFamily::Naive: return "naive";
    case KernelFamily::Mrhs: return "mrhs";
    case KernelFamily::Vnode: return "vnode";
  }
  return "?";
}
const char* to_string(Dispatch d) {
  switch (d) {
    case Dispatch::Range: return "range";
    case Dispatch::Team: return "team";
    case Dispatch::MDRange: return "mdrange";
  }
  return "?";
}
const char* to_string(SimdIsa s) {
  switch (s) {
    case SimdIsa::Scalar: return "scalar";
    case SimdIsa::Sse2: return "sse2";
    case SimdIsa::Avx2: return "avx2";
    case SimdIsa::Avx512: return "avx512";
    case SimdIsa::Neon: return "neon";
    case SimdIsa::Emulated512: return "emulated512";
    case SimdIsa::Simt: return "simt";
  }
  return "?";
}

const char* to_string(SpinorLayout l) { return l == SpinorLayout::Right ? "right" : "left"; }

SpinorLayout parse_layout(std::string_view name) {
  if (name == "right") return SpinorLayout::Right;
  if (name == "left") return SpinorLayout::Left;
  throw std::invalid_argument("unknown layout '" + std::string(name) + "' (choose right or left)");
}

KernelFamily parse_kernel(std::string_view name) {
  for (KernelFamily k : {KernelFamily::Naive, KernelFamily::Mrhs, KernelFamily::Vnode})
    if (name == to_string(k)) return k;
  throw std::invalid_argument("unknown kernel '" + std::string(name) + "' (choose naive, mrhs or vnode)");
}
Dispatch parse_dispatch(std::string_view name) {
  for (Dispatch d : {Dispatch::Range, Dispatch::Team, Dispatch::MDRange})
    if (name == to_string(d)) return d;
  throw std::invalid_argument("unknown dispatch '" + std::string(name) + "' (choose range, team or mdrange)");
}
SimdIsa parse_simd(std::string_view name) {
  if (name == "auto") return best_isa();
  for (SimdIsa s : compiled_isas())
    if (name == to_string(s)) {
      if (!cpu_supports(s)) {
        std::string have;
        for (SimdIsa r : runnable_isas()) have += std::string(have.empty() ? "" : ", ") + to_string(r);
        throw std::invalid_argument("--simd " + std::string(name) + ": this CPU does not support it (runnable here: " + have + ")");
      }
      return s;
    }
  std::string all;
  for (SimdIsa s : compiled_isas()) all += std::string(all.empty() ? "" : ", ") + to_string(s);
  throw std::invalid_argument("unknown or not compiled --simd '" + std::string(name) + "' (this build has: " + all + ", auto)");
}

std::vector<SimdIsa> compiled_isas() {
  std::vector<SimdIsa> isas{SimdIsa::Scalar};
  if (DSLASH_BUILT_SSE2) isas.push_back(SimdIsa::Sse2);
  if (DSLASH_BUILT_AVX2) isas.push_back(SimdIsa::Avx2);
  if (DSLASH_BUILT_AVX512) isas.push_back(SimdIsa::Avx512);
  if (DSLASH_BUILT_NEON) isas.push_back(SimdIsa::Neon);
  if (DSLASH_BUILT_EMULATED512) isas.push_back(SimdIsa::Emulated512);
  return isas;
}

bool kernel_built(KernelFamily k, SimdIsa isa) {
  if (isa == SimdIsa::Scalar) return k != KernelFamily::Vnode || DSLASH_BUILT_SCALAR;
  const auto isas = compiled_isas();
  return k != KernelFamily::Naive && std::find(isas.begin(), isas.end(), isa) != isas.end();
}

bool half_built(KernelFamily k, SimdIsa isa) {
  if (isa == SimdIsa::Simt) return true;
  if (!kernel_built(k, k == KernelFamily::Naive ? SimdIsa::Scalar : isa)) return false;
  switch (k == KernelFamily::Naive ? SimdIsa::Scalar : isa) {
    case SimdIsa::Scalar: return DSLASH_BUILT_HALF_SCALAR;
    case SimdIsa::Sse2: return DSLASH_BUILT_HALF_SSE2;
    case SimdIsa::Avx2: return DSLASH_BUILT_HALF_AVX2;
    case SimdIsa::Avx512: return DSLASH_BUILT_HALF_AVX512;
    case SimdIsa::Emulated512: return DSLASH_BUILT_HALF_EMULATED512;
    case SimdIsa::Neon: return DSLASH_BUILT_HALF_NEON;
    default: return false;
  }
}

bool cpu_supports(SimdIsa isa) {
  static const simd::CpuFeatures cpu = simd::detect_cpu();
  bool compiled = false;
  for (SimdIsa s : compiled_isas()) compiled = compiled || s == isa;
  if (!compiled) return false;
  switch (isa) {
    case SimdIsa::Scalar:
    case SimdIsa::Emulated512: return true;
    case SimdIsa::Sse2: return cpu.sse2;
    case SimdIsa::Avx2: return cpu.avx2_fma;
    case SimdIsa::Avx512: return cpu.avx512f;
    case SimdIsa::Neon: return cpu.neon;
    case SimdIsa::Simt: return false;  // GPU lanes
  }
  return false;
}

std::vector<SimdIsa> runnable_isas() {
  std::vector<SimdIsa> r;
  for (SimdIsa s : compiled_isas())
    if (cpu_supports(s)) r.push_back(s);
  return r;
}

SimdIsa best_isa() {
  for (SimdIsa s : {SimdIsa::Avx512, SimdIsa::Avx2, SimdIsa::Neon, SimdIsa::Sse2})
    if (cpu_supports(s)) return s;
  return SimdIsa::Scalar;
}

int simd_lanes(SimdIsa isa, int bytes_per_real) {
  int bytes = 0;
  switch (isa) {
    case SimdIsa::Scalar: return 1;
    case SimdIsa::Sse2:
    case SimdIsa::Neon: bytes = 16; break;
    case SimdIsa::Avx2:
    case SimdIsa::Simt: bytes = 32; break;
    case SimdIsa::Avx512:
    case SimdIsa::Emulated512: bytes = 64; break;
  }
  return bytes / bytes_per_real;
}

}  // namespace dslash
