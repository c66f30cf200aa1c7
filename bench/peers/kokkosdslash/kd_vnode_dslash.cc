// kd_vnode_dslash.cc -- stand-alone timing driver (no QDP++, no googletest) for
// KokkosDslash's (github bjoo/KokkosDslash) vectorised "virtual node" Wilson Dslash:
//   MG::KokkosVDslash<VNode<MGComplex<REAL>,VL>, ...>  (include/kokkos_vdslash.h)
// using its own field types (KokkosCBFineVSpinor, KokkosFineVGaugeField,
// KokkosCBFineVGaugeFieldDoubleCopy + import()) exactly as test/test_kokkos_vperf.cpp does,
// with random (reunitarised) gauge and gaussian spinor fields filled directly (no QDP++).
//
// Single precision: VNode<MGComplex<float>,8>  -> SIMDComplex<float,8> = one __m512 (16 float
//   lanes), KokkosDslash's AVX-512 intrinsics specialisation (MG_USE_AVX512).
// Double precision: VNode<MGComplex<double>,4> -> generic SIMDComplex<double,4> (8 doubles =
//   512 bit) via KokkosDslash's generic vector-loop code (no hand-written intrinsics exist
//   for double in KokkosDslash).
//
// Checkerboarded operator: one parity out (target cb EVEN, input spinor ODD), 1320 flops per
// output site, GFLOP/s = 1320 * (V/2) / t / 1e9.
// Correctness: compared against a plain double-precision reference Wilson Dslash
// (Chroma/QDP++ convention of KokkosDslash's test/dslashm_w.cpp, DeGrand-Rossi gammas),
// for both isign and both target checkerboards.
//
// Usage: kd_vnode_dslash [--lattice 32x32x32x32] [--prec single|double|both] [--warmup 10]
//                        [--nrep 5] [--ncall 20] [--isign 1] [--check 1]
// Threads: OMP_NUM_THREADS / OMP_PROC_BIND / OMP_PLACES (Kokkos OpenMP backend).

#include "kokkos_dslash_config.h"
#include "lattice/constants.h"
#include "lattice/lattice_info.h"
#include "lattice/geometry_utils.h"
#include "utils/print_utils.h"
#include "kokkos_defaults.h"
#include "kokkos_vectype.h"
#include "kokkos_vnode.h"
#include "kokkos_vtypes.h"
#include "kokkos_vspinproj.h"
#include "kokkos_vmatvec.h"
#include "kokkos_vdslash.h"

#include <Kokkos_Core.hpp>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace MG;
using cd = std::complex<double>;

struct Opts {
  int L[4] = {32, 32, 32, 32};
  std::string prec = "both";
  int warmup = 10, nrep = 5, ncall = 20, isign = 1, check = 1;
};

// ---------------- host-side full-lattice fields (double) ----------------
struct HostFields {
  int L[4];
  long V;
  std::vector<cd> U;    // [mu][site][3][3]  row,col
  std::vector<cd> psi;  // [site][4][3]
  long idx(int x, int y, int z, int t) const {
    return x + (long)L[0] * (y + (long)L[1] * (z + (long)L[2] * t));
  }
  cd& u(int mu, long s, int a, int b) { return U[(((long)mu * V + s) * 3 + a) * 3 + b]; }
  const cd& u(int mu, long s, int a, int b) const { return U[(((long)mu * V + s) * 3 + a) * 3 + b]; }
  cd& p(long s, int sp, int c) { return psi[(s * 4 + sp) * 3 + c]; }
  const cd& p(long s, int sp, int c) const { return psi[(s * 4 + sp) * 3 + c]; }
};

static void make_fields(HostFields& F, const int L[4], unsigned seed) {
  for (int m = 0; m < 4; ++m) F.L[m] = L[m];
  F.V = (long)L[0] * L[1] * L[2] * L[3];
  F.U.assign(4 * F.V * 9, cd(0));
  F.psi.assign(F.V * 12, cd(0));
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0.0, 1.0);
  for (int mu = 0; mu < 4; ++mu)
    for (long s = 0; s < F.V; ++s) {
      cd m[3][3];
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) m[a][b] = cd(g(rng), g(rng));
      // Gram-Schmidt rows 0,1; row2 = conj(row0 x row1)  -> SU(3)
      double n0 = 0;
      for (int b = 0; b < 3; ++b) n0 += std::norm(m[0][b]);
      n0 = 1.0 / std::sqrt(n0);
      for (int b = 0; b < 3; ++b) m[0][b] *= n0;
      cd d = 0;
      for (int b = 0; b < 3; ++b) d += std::conj(m[0][b]) * m[1][b];
      for (int b = 0; b < 3; ++b) m[1][b] -= d * m[0][b];
      double n1 = 0;
      for (int b = 0; b < 3; ++b) n1 += std::norm(m[1][b]);
      n1 = 1.0 / std::sqrt(n1);
      for (int b = 0; b < 3; ++b) m[1][b] *= n1;
      m[2][0] = std::conj(m[0][1] * m[1][2] - m[0][2] * m[1][1]);
      m[2][1] = std::conj(m[0][2] * m[1][0] - m[0][0] * m[1][2]);
      m[2][2] = std::conj(m[0][0] * m[1][1] - m[0][1] * m[1][0]);
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) F.u(mu, s, a, b) = m[a][b];
    }
  for (long i = 0; i < F.V * 12; ++i) F.psi[i] = cd(g(rng), g(rng));
}

// Round host fields to precision T (so the reference sees exactly what the kernel sees)
template <typename T>
static void round_fields(HostFields& F) {
  for (auto& z : F.U) z = cd((T)z.real(), (T)z.imag());
  for (auto& z : F.psi) z = cd((T)z.real(), (T)z.imag());
}

// DeGrand-Rossi gamma matrices (QDP++/Chroma), mu = 0..3 = x,y,z,t
static cd gam[4][4][4];
static void init_gammas() {
  const cd I(0, 1), O(0, 0), one(1, 0);
  cd g0[4][4] = {{O, O, O, I}, {O, O, I, O}, {O, -I, O, O}, {-I, O, O, O}};
  cd g1[4][4] = {{O, O, O, -one}, {O, O, one, O}, {O, one, O, O}, {-one, O, O, O}};
  cd g2[4][4] = {{O, O, I, O}, {O, O, O, -I}, {-I, O, O, O}, {O, I, O, O}};
  cd g3[4][4] = {{O, O, one, O}, {O, O, O, one}, {one, O, O, O}, {O, one, O, O}};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      gam[0][i][j] = g0[i][j];
      gam[1][i][j] = g1[i][j];
      gam[2][i][j] = g2[i][j];
      gam[3][i][j] = g3[i][j];
    }
}

// chi(x) = sum_mu U_mu(x)(1 - isign g_mu) psi(x+mu) + U_mu(x-mu)^dag (1 + isign g_mu) psi(x-mu)
static void ref_dslash_site(const HostFields& F, int isign, const int c[4], cd out[4][3]) {
  for (int s = 0; s < 4; ++s)
    for (int a = 0; a < 3; ++a) out[s][a] = 0;
  for (int mu = 0; mu < 4; ++mu) {
    int cp[4] = {c[0], c[1], c[2], c[3]}, cm[4] = {c[0], c[1], c[2], c[3]};
    cp[mu] = (c[mu] + 1) % F.L[mu];
    cm[mu] = (c[mu] - 1 + F.L[mu]) % F.L[mu];
    long sx = F.idx(c[0], c[1], c[2], c[3]);
    long sp = F.idx(cp[0], cp[1], cp[2], cp[3]);
    long sm = F.idx(cm[0], cm[1], cm[2], cm[3]);
    for (int dir = 0; dir < 2; ++dir) {
      long sn = dir == 0 ? sp : sm;
      double sg = dir == 0 ? -isign : +isign;
      cd proj[4][3];
      for (int s = 0; s < 4; ++s)
        for (int a = 0; a < 3; ++a) {
          cd v = F.p(sn, s, a);
          for (int s2 = 0; s2 < 4; ++s2) v += sg * gam[mu][s][s2] * F.p(sn, s2, a);
          proj[s][a] = v;
        }
      for (int s = 0; s < 4; ++s)
        for (int a = 0; a < 3; ++a) {
          cd v = 0;
          for (int b = 0; b < 3; ++b)
            v += (dir == 0 ? F.u(mu, sx, a, b) : std::conj(F.u(mu, sm, b, a))) * proj[s][b];
          out[s][a] += v;
        }
    }
  }
}

// Vnode layout mapping (same as KokkosDslash's kokkos_qdp_vutils.h with QDP++ cb layout):
// coarse cb site i, lane l -> global cb coords g = c + p*coarse_cb_dims -> full coords
template <typename VN>
static void vnode_full_coords(int i, int lane, int cb, const IndexArray& cdims, int out[4]) {
  IndexArray c, p;
  IndexArray vn_dims = {VN::Dim0, VN::Dim1, VN::Dim2, VN::Dim3};
  IndexToCoords(i, cdims, c);
  IndexToCoords(lane, vn_dims, p);
  int g[4];
  for (int mu = 0; mu < 4; ++mu) g[mu] = c[mu] + p[mu] * cdims[mu];
  out[1] = g[1];
  out[2] = g[2];
  out[3] = g[3];
  out[0] = 2 * g[0] + ((g[1] + g[2] + g[3] + cb) & 1);
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Result {
  std::string prec;
  int veclen_cplx;
  double best_s, median_s, mean_s, gf_best, gf_median, max_rel_err;
  bool check_ok;
  int ncalls;
};

template <typename REAL, int VL>
static Result run(const Opts& o, const char* name) {
  using VN = VNode<MGComplex<REAL>, VL>;
  using SpinorType = KokkosCBFineVSpinor<MGComplex<REAL>, VN, 4>;
  using FullGaugeType = KokkosFineVGaugeField<MGComplex<REAL>, VN>;
  using GaugeType = KokkosCBFineVGaugeFieldDoubleCopy<MGComplex<REAL>, VN>;
  using VType = SIMDComplex<REAL, VN::VecLen>;

  IndexArray latdims = {(IndexType)o.L[0], (IndexType)o.L[1], (IndexType)o.L[2], (IndexType)o.L[3]};
  LatticeInfo info(latdims, 4, 3, NodeInfo());

  HostFields F;
  make_fields(F, o.L, 12345u);
  round_fields<REAL>(F);

  SpinorType spinor_even(info, EVEN), spinor_odd(info, ODD);
  FullGaugeType kgauge(info);
  const IndexArray cdims = spinor_even.GetInfo().GetCBLatticeDimensions();
  const int ncs = (int)spinor_even.GetInfo().GetNumCBSites();

  // Fill gauge (both cb) and both spinor checkerboards from host fields
  for (int cb = 0; cb < 2; ++cb) {
    auto hg = Kokkos::create_mirror_view(kgauge(cb).GetData());
    auto hs = Kokkos::create_mirror_view((cb == EVEN ? spinor_even : spinor_odd).GetData());
    for (int i = 0; i < ncs; ++i)
      for (int lane = 0; lane < VN::VecLen; ++lane) {
        int c[4];
        vnode_full_coords<VN>(i, lane, cb, cdims, c);
        long s = F.idx(c[0], c[1], c[2], c[3]);
        for (int mu = 0; mu < 4; ++mu)
          for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) {
              cd z = F.u(mu, s, a, b);
              hg(i, mu, a, b)(lane) = MGComplex<REAL>((REAL)z.real(), (REAL)z.imag());
            }
        for (int sp = 0; sp < 4; ++sp)
          for (int a = 0; a < 3; ++a) {
            cd z = F.p(s, sp, a);
            hs(i, sp, a)(lane) = MGComplex<REAL>((REAL)z.real(), (REAL)z.imag());
          }
      }
    Kokkos::deep_copy(kgauge(cb).GetData(), hg);
    Kokkos::deep_copy((cb == EVEN ? spinor_even : spinor_odd).GetData(), hs);
  }

  GaugeType gauge_even(info, EVEN), gauge_odd(info, ODD);
  import(gauge_even, kgauge(EVEN), kgauge(ODD));
  import(gauge_odd, kgauge(ODD), kgauge(EVEN));
  Kokkos::fence();

  KokkosVDslash<VN, MGComplex<REAL>, MGComplex<REAL>, VType, VType> D(spinor_even.GetInfo());
  IndexArray blocks = {4, 2, 2, 16};  // unused without MDRange (as in test_kokkos_vperf)

  Result R;
  R.prec = name;
  R.veclen_cplx = VN::VecLen;
  R.check_ok = true;
  R.max_rel_err = 0;

  if (o.check) {
    // Check both target checkerboards and both isign against the reference.
    SpinorType out_even(info, EVEN), out_odd(info, ODD);
    double tol = std::is_same<REAL, float>::value ? 2e-5 : 1e-12;
    for (int tcb = 0; tcb < 2; ++tcb)
      for (int isign = -1; isign <= 1; isign += 2) {
        SpinorType& in = (tcb == EVEN) ? spinor_odd : spinor_even;
        SpinorType& out = (tcb == EVEN) ? out_even : out_odd;
        GaugeType& gg = (tcb == EVEN) ? gauge_even : gauge_odd;
        D(in, gg, out, isign, blocks);
        Kokkos::fence();
        auto ho = Kokkos::create_mirror_view(out.GetData());
        Kokkos::deep_copy(ho, out.GetData());
        double maxdiff = 0, maxval = 0;
#pragma omp parallel for reduction(max : maxdiff, maxval)
        for (int i = 0; i < ncs; ++i)
          for (int lane = 0; lane < VN::VecLen; ++lane) {
            int c[4];
            vnode_full_coords<VN>(i, lane, tcb, cdims, c);
            cd r[4][3];
            ref_dslash_site(F, isign, c, r);
            for (int sp = 0; sp < 4; ++sp)
              for (int a = 0; a < 3; ++a) {
                MGComplex<REAL> k = ho(i, sp, a)(lane);
                double d = std::abs(cd(k.real(), k.imag()) - r[sp][a]);
                maxdiff = std::max(maxdiff, d);
                maxval = std::max(maxval, std::abs(r[sp][a]));
              }
          }
        double rel = maxdiff / maxval;
        bool ok = rel < tol;
        R.check_ok = R.check_ok && ok;
        R.max_rel_err = std::max(R.max_rel_err, rel);
        printf("[%s] check target_cb=%d isign=%+d : max|diff|=%.3e max|ref|=%.3e rel=%.3e  %s\n", name,
               tcb, isign, maxdiff, maxval, rel, ok ? "OK" : "FAIL");
      }
  }

  // Timing: input ODD -> output EVEN (target cb 0), gauge double-copy for EVEN
  SpinorType out_even(info, EVEN);
  for (int i = 0; i < o.warmup; ++i) {
    D(spinor_odd, gauge_even, out_even, o.isign, blocks);
    Kokkos::fence();
  }
  std::vector<double> all;
  std::vector<double> rep_best;
  for (int r = 0; r < o.nrep; ++r) {
    std::vector<double> ts;
    for (int c = 0; c < o.ncall; ++c) {
      auto t0 = std::chrono::steady_clock::now();
      D(spinor_odd, gauge_even, out_even, o.isign, blocks);
      Kokkos::fence();
      auto t1 = std::chrono::steady_clock::now();
      double t = std::chrono::duration<double>(t1 - t0).count();
      ts.push_back(t);
      all.push_back(t);
    }
    double b = *std::min_element(ts.begin(), ts.end()), m = median(ts);
    double half_v = 0.5 * (double)F.V;
    printf("[%s] rep %d: best %.6f ms (%.2f GFLOP/s)  median %.6f ms (%.2f GFLOP/s)\n", name, r, b * 1e3,
           1320.0 * half_v / b / 1e9, m * 1e3, 1320.0 * half_v / m / 1e9);
  }
  double half_v = 0.5 * (double)F.V;
  R.best_s = *std::min_element(all.begin(), all.end());
  R.median_s = median(all);
  double sum = 0;
  for (double t : all) sum += t;
  R.mean_s = sum / all.size();
  R.gf_best = 1320.0 * half_v / R.best_s / 1e9;
  R.gf_median = 1320.0 * half_v / R.median_s / 1e9;
  R.ncalls = (int)all.size();
  printf("[%s] RESULT lattice %dx%dx%dx%d  VNode<%s,%d>  calls=%d  best %.6f ms  median %.6f ms  "
         "GFLOP/s best %.2f  median %.2f\n",
         name, o.L[0], o.L[1], o.L[2], o.L[3], name, VN::VecLen, R.ncalls, R.best_s * 1e3, R.median_s * 1e3,
         R.gf_best, R.gf_median);
  return R;
}

static void usage(const char* a0) {
  printf("Usage: %s [--lattice LXxLYxLZxLT] [--prec single|double|both] [--warmup N] [--nrep N] "
         "[--ncall N] [--isign +1|-1] [--check 0|1]\n",
         a0);
}

int main(int argc, char** argv) {
  Opts o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto need = [&](void) -> const char* {
      if (i + 1 >= argc) { usage(argv[0]); exit(1); }
      return argv[++i];
    };
    if (a == "--lattice") {
      const char* s = need();
      if (sscanf(s, "%dx%dx%dx%d", &o.L[0], &o.L[1], &o.L[2], &o.L[3]) != 4) {
        int l;
        if (sscanf(s, "%d", &l) == 1) o.L[0] = o.L[1] = o.L[2] = o.L[3] = l;
        else { usage(argv[0]); return 1; }
      }
    } else if (a == "--prec") o.prec = need();
    else if (a == "--warmup") o.warmup = atoi(need());
    else if (a == "--nrep") o.nrep = atoi(need());
    else if (a == "--ncall") o.ncall = atoi(need());
    else if (a == "--isign") o.isign = atoi(need());
    else if (a == "--check") o.check = atoi(need());
    else if (a == "-h" || a == "--help") { usage(argv[0]); return 0; }
    else if (a.rfind("--kokkos", 0) == 0) { /* passed on to Kokkos */ }
    else { printf("unknown argument %s\n", a.c_str()); usage(argv[0]); return 1; }
  }
  // vnode geometry constraints: single VL=8 splits y,z,t by 2, double VL=4 splits z,t by 2; the
  // half-extents in the split dims must be even so that lanes share checkerboard parity.
  if (o.L[0] % 2 || o.L[1] % 4 || o.L[2] % 4 || o.L[3] % 4) {
    printf("lattice must have LX even and LY,LZ,LT multiples of 4\n");
    return 1;
  }
  if (o.isign != 1 && o.isign != -1) o.isign = 1;

  Kokkos::initialize(argc, argv);
  init_gammas();
  int nthr = Kokkos::OpenMP::concurrency();
  printf("KokkosDslash vnode Wilson Dslash driver: lattice %dx%dx%dx%d, Kokkos OpenMP threads %d, "
         "warmup %d, nrep %d x ncall %d, isign %d\n",
         o.L[0], o.L[1], o.L[2], o.L[3], nthr, o.warmup, o.nrep, o.ncall, o.isign);
  std::vector<Result> res;
  {
    if (o.prec == "single" || o.prec == "both") res.push_back(run<float, 8>(o, "single"));
    if (o.prec == "double" || o.prec == "both") res.push_back(run<double, 4>(o, "double"));
  }
  Kokkos::finalize();

  printf("JSON {\"benchmark\":\"KokkosDslash_vnode_wilson_dslash\",\"lattice\":[%d,%d,%d,%d],"
         "\"threads\":%d,\"warmup\":%d,\"nrep\":%d,\"ncall\":%d,\"isign\":%d,\"flops_per_site\":1320,"
         "\"sites_out\":%ld,\"results\":[",
         o.L[0], o.L[1], o.L[2], o.L[3], nthr, o.warmup, o.nrep, o.ncall, o.isign,
         (long)o.L[0] * o.L[1] * o.L[2] * o.L[3] / 2);
  for (size_t k = 0; k < res.size(); ++k) {
    const Result& R = res[k];
    printf("%s{\"prec\":\"%s\",\"vnode_complex_lanes\":%d,\"calls\":%d,\"best_s\":%.9g,\"median_s\":%.9g,"
           "\"mean_s\":%.9g,\"gflops_best\":%.4f,\"gflops_median\":%.4f,\"check\":\"%s\",\"max_rel_err\":%.3g}",
           k ? "," : "", R.prec.c_str(), R.veclen_cplx, R.ncalls, R.best_s, R.median_s, R.mean_s, R.gf_best,
           R.gf_median, o.check ? (R.check_ok ? "pass" : "FAIL") : "skipped", R.max_rel_err);
  }
  printf("]}\n");
  bool ok = true;
  for (auto& R : res) ok = ok && R.check_ok;
  return ok ? 0 : 2;
}
