// The cores' clock while they run AVX-512 FMAs (issue 18): to turn a kernel's time per site into
// cycles, and to see whether the clock falls as more cores run 512-bit code (Intel's AVX-512
// licences). Every thread runs a chain of dependent integer multiplies (3 cycles each on Intel
// cores since Skylake; an immediate add chain would not do: Golden Cove folds it at rename) with an
// independent 512-bit FMA beside each multiply (12 accumulators, a sixth of the FMA ports' rate),
// so the chain counts cycles while the core stays in its AVX-512 licence.
//   avx512_clock_probe [rounds of 12 multiplies, default 1e8]    one JSON line: GHz over the threads
// Exits 77 (ctest: skipped) on a CPU without AVX-512.
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr int kChainLatency = 3;  // imul r64, r64 (Intel: Skylake through Emerald Rapids)

// n rounds of 12 dependent multiplies, each beside an FMA on its own accumulator. The asm is
// volatile, so none of it is dropped though nothing reads its results.
__attribute__((target("avx512f"), noinline)) void spin(long n) {
  __m512 a0 = _mm512_set1_ps(1.0f), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0,
         a8 = a0, a9 = a0, a10 = a0, a11 = a0;
  const __m512 m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-7f);
  long r = 1, three = 3;
  asm volatile("" : "+r"(three));  // a register operand: the multiply cannot be folded
  for (long i = 0; i < n; ++i) {
#define CLOCK_STEP(A) asm volatile("imul %4, %0\n\tvfmadd213ps %3, %2, %1" : "+r"(r), "+v"(A) : "v"(m), "v"(c), "r"(three));
    CLOCK_STEP(a0) CLOCK_STEP(a1) CLOCK_STEP(a2) CLOCK_STEP(a3) CLOCK_STEP(a4) CLOCK_STEP(a5)
    CLOCK_STEP(a6) CLOCK_STEP(a7) CLOCK_STEP(a8) CLOCK_STEP(a9) CLOCK_STEP(a10) CLOCK_STEP(a11)
#undef CLOCK_STEP
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (!__builtin_cpu_supports("avx512f")) {
    std::fprintf(stderr, "avx512_clock_probe: this CPU has no AVX-512\n");
    return 77;
  }
  char* end = nullptr;
  const long rounds = argc > 1 ? std::strtol(argv[1], &end, 10) : 100000000;
  if (argc > 1 && (*end != '\0' || rounds <= 0)) {
    std::fprintf(stderr, "avx512_clock_probe: rounds must be a positive integer, not '%s'\n", argv[1]);
    return 2;
  }
  std::vector<double> ghz(static_cast<std::size_t>(omp_get_max_threads()));
  std::size_t threads = 0;  // the runtime may grant fewer than asked
#pragma omp parallel
  {
#pragma omp single
    threads = static_cast<std::size_t>(omp_get_num_threads());
    spin(rounds / 10);  // into the licence before the clock is read
#pragma omp barrier
    const auto start = std::chrono::steady_clock::now();
    spin(rounds);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ghz[static_cast<std::size_t>(omp_get_thread_num())] = 12.0 * kChainLatency * static_cast<double>(rounds) / s * 1e-9;
  }
  ghz.resize(threads);
  double sum = 0;
  for (double g : ghz) sum += g;
  std::printf("{\"threads\": %zu, \"ghz_min\": %.3f, \"ghz_max\": %.3f, \"ghz_mean\": %.3f}\n", threads,
              *std::min_element(ghz.begin(), ghz.end()), *std::max_element(ghz.begin(), ghz.end()),
              sum / static_cast<double>(threads));
}
