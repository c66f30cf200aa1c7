// Peer benchmark driver: Grid Wilson Dslash DhopEO (even <- odd), timed per call.
// Usage: wilson_dhopeo --grid X.Y.Z.T [--ncall N] [--nrep R] [--prec single|double]
//                      [--threads T] [--dslash-generic|--dslash-unroll|--dslash-asm]
#include <Grid/Grid.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace Grid;

template <class FermionOp, class vComplexType>
static int run(const std::string &prec, int ncall, int nrep) {
  typedef typename FermionOp::FermionField FermionField;
  typedef typename FermionOp::GaugeField GaugeField;

  Coordinate latt = GridDefaultLatt();
  GridCartesian Grid(latt, GridDefaultSimd(Nd, vComplexType::Nsimd()), GridDefaultMpi());
  GridRedBlackCartesian RBGrid(&Grid);

  GridParallelRNG pRNG(&Grid);
  pRNG.SeedFixedIntegers(std::vector<int>({1, 2, 3, 4}));

  GaugeField U(&Grid);
  SU<Nc>::HotConfiguration(pRNG, U);

  RealD mass = 0.1;
  FermionOp Dw(U, Grid, RBGrid, mass);

  FermionField src(&Grid);
  random(pRNG, src);
  FermionField src_o(&RBGrid), res_e(&RBGrid);
  pickCheckerboard(Odd, src_o, src);
  res_e = Zero();

  for (int i = 0; i < 10; i++) Dw.DhopEO(src_o, res_e, DaggerNo);

  std::vector<double> all;
  all.reserve((size_t)ncall * nrep);
  for (int r = 0; r < nrep; r++) {
    std::vector<double> t(ncall);
    for (int i = 0; i < ncall; i++) {
      auto t0 = std::chrono::steady_clock::now();
      Dw.DhopEO(src_o, res_e, DaggerNo);
      auto t1 = std::chrono::steady_clock::now();
      t[i] = std::chrono::duration<double, std::micro>(t1 - t0).count();
      all.push_back(t[i]);
    }
    std::sort(t.begin(), t.end());
    printf("rep %d best_us %.3f median_us %.3f\n", r, t[0], t[ncall / 2]);
  }
  std::sort(all.begin(), all.end());
  size_t n = all.size();
  double best = all[0];
  double median = (n % 2) ? all[n / 2] : 0.5 * (all[n / 2 - 1] + all[n / 2]);

  double vol = 1.0;
  for (int mu = 0; mu < Nd; mu++) vol *= latt[mu];
  double flops = 1320.0 * vol / 2.0;
  double gf_best = flops / (best * 1e-6) / 1e9;
  double gf_med = flops / (median * 1e-6) / 1e9;
  double nrm = norm2(res_e);

  // Naive reference: full-lattice hopping term (as in Grid's Benchmark_wilson) applied to
  // the odd source embedded in a full field, even checkerboard compared with DhopEO.
  double relerr;
  {
    const Gamma::Algebra Gmu[] = {Gamma::Algebra::GammaX, Gamma::Algebra::GammaY,
                                  Gamma::Algebra::GammaZ, Gamma::Algebra::GammaT};
    FermionField sfull(&Grid), ref(&Grid), tmp(&Grid);
    sfull = Zero();
    setCheckerboard(sfull, src_o);
    ref = Zero();
    for (int mu = 0; mu < Nd; mu++) {
      auto Umu = PeekIndex<LorentzIndex>(U, mu);
      tmp = Umu * Cshift(sfull, mu, 1);
      ref = ref + tmp - Gamma(Gmu[mu]) * tmp;
      tmp = adj(Umu) * sfull;
      tmp = Cshift(tmp, mu, -1);
      ref = ref + tmp + Gamma(Gmu[mu]) * tmp;
    }
    ref = -0.5 * ref;
    FermionField ref_e(&RBGrid), diff(&RBGrid);
    pickCheckerboard(Even, ref_e, ref);
    diff = ref_e - res_e;
    relerr = std::sqrt(norm2(diff) / norm2(ref_e));
  }
  double nrm_src = norm2(src_o);
  int threads = GridThread::GetThreads();
  const char *kern = "unknown";
  switch (WilsonKernelsStatic::Opt) {
    case WilsonKernelsStatic::OptGeneric: kern = "generic"; break;
    case WilsonKernelsStatic::OptHandUnroll: kern = "unroll"; break;
    case WilsonKernelsStatic::OptInlineAsm: kern = "asm"; break;
  }
  char lat[128];
  snprintf(lat, sizeof(lat), "%d.%d.%d.%d", latt[0], latt[1], latt[2], latt[3]);
  double tol = (prec == "single") ? 1e-5 : 1e-12;
  bool ok = std::isfinite(nrm) && nrm > 0.0 && relerr < tol;

  printf("lattice %s\n", lat);
  printf("precision %s\n", prec.c_str());
  printf("threads %d\n", threads);
  printf("kernel %s\n", kern);
  printf("ncall %d\nnrep %d\n", ncall, nrep);
  printf("best_us %.3f\n", best);
  printf("median_us %.3f\n", median);
  printf("gflops_best %.3f\n", gf_best);
  printf("gflops_median %.3f\n", gf_med);
  printf("norm2_src_o %.10e\n", nrm_src);
  printf("norm2_res_e %.10e\n", nrm);
  printf("rel_err_vs_naive %.3e\n", relerr);
  printf("result_sane %s\n", ok ? "yes" : "NO");
  printf("JSON {\"lattice\":\"%s\",\"precision\":\"%s\",\"threads\":%d,\"kernel\":\"%s\","
         "\"ncall\":%d,\"nrep\":%d,\"best_us\":%.3f,\"median_us\":%.3f,"
         "\"gflops_best\":%.3f,\"gflops_median\":%.3f,\"flops_per_site\":1320,\"sites\":%.0f,"
         "\"norm2_res_e\":%.10e,\"rel_err_vs_naive\":%.3e,\"sane\":%s}\n",
         lat, prec.c_str(), threads, kern, ncall, nrep, best, median, gf_best, gf_med,
         vol / 2.0, nrm, relerr, ok ? "true" : "false");
  fflush(stdout);
  return ok ? 0 : 1;
}

int main(int argc, char **argv) {
  Grid_init(&argc, &argv);
  int ncall = 50, nrep = 5;
  std::string prec = "single";
  if (GridCmdOptionExists(argv, argv + argc, "--ncall"))
    ncall = std::stoi(GridCmdOptionPayload(argv, argv + argc, "--ncall"));
  if (GridCmdOptionExists(argv, argv + argc, "--nrep"))
    nrep = std::stoi(GridCmdOptionPayload(argv, argv + argc, "--nrep"));
  if (GridCmdOptionExists(argv, argv + argc, "--prec"))
    prec = GridCmdOptionPayload(argv, argv + argc, "--prec");
  if (ncall < 1 || nrep < 1) { fprintf(stderr, "bad --ncall/--nrep\n"); return 2; }
  int rc;
  if (prec == "single")
    rc = run<WilsonFermionF, vComplexF>(prec, ncall, nrep);
#ifndef SINGLE_ONLY
  else if (prec == "double")
    rc = run<WilsonFermionD, vComplexD>(prec, ncall, nrep);
#endif
  else { fprintf(stderr, "unsupported --prec %s\n", prec.c_str()); return 2; }
  Grid_finalize();
  return rc;
}
