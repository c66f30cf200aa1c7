#!/usr/bin/python3
"""Compare two bench result files (before/after, or two machines): GFLOP/s ratio per variant.

    /usr/bin/python3 scripts/compare.py before.json after.json [--noise 0.05]

A variant is flagged REGRESSION (or faster) when its ratio leaves 1 by more than the noise: the
larger of --noise and the two runs' own timing spreads (median vs best). Exit status 1 if any
variant regressed, 0 otherwise.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results import load_rows, variant_key  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("before")
    p.add_argument("after")
    p.add_argument("--noise", type=float, default=0.05, help="smallest relative change that counts (default 0.05)")
    a = p.parse_args()
    before = {variant_key(r): r for r in load_rows(a.before)}
    after = {variant_key(r): r for r in load_rows(a.after)}
    common = [k for k in before if k in after]
    if not common:
        sys.exit("error: the two files share no variant (kernel, dispatch, prec, simd, nrhs, lattice, parity, dagger, layout, compress, threads)")
    print(f"{'variant':52s} {'before':>9s} {'after':>9s} {'ratio':>7s} {'noise':>6s}  verdict")
    regressions = 0
    for k in sorted(common):
        b, n = before[k], after[k]
        ratio = n["gflops"] / b["gflops"]
        noise = max(a.noise, b.get("spread", 0), n.get("spread", 0))
        verdict = "REGRESSION" if ratio < 1 - noise else "faster" if ratio > 1 + noise else "same"
        regressions += verdict == "REGRESSION"
        name = f"{k[0]} {k[1]} {k[2]} {k[3]} nrhs={k[4]} {k[5]} {k[6]}{' dag' if k[7] else ''} {k[8]}{f' r{k[9]}' if k[9] != 18 else ''} t={k[10]}"
        print(f"{name:52s} {b['gflops']:9.2f} {n['gflops']:9.2f} {ratio:7.3f} {noise:6.2f}  {verdict}")
    for k in sorted(set(before) ^ set(after)):
        print(f"only in {'before' if k in before else 'after'}: {k}")
    print(f"{len(common)} variants compared, {regressions} regression(s)")
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
