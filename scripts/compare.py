#!/usr/bin/python3
"""Compare two bench result files (before/after, or two machines): GFLOP/s ratio per variant.

    /usr/bin/python3 scripts/compare.py before.json after.json [--noise 0.05]

A variant is flagged REGRESSION (or faster) when its ratio leaves 1 by more than the noise: the
larger of --noise and the two runs' own timing spreads (median vs best). Exit status 1 if any
variant regressed; 2, with one line on stderr, when a file is missing, unreadable or not a bench
result (a solve JSON, say), or the two files share no variant: a script can tell "slower" from
"could not compare" (exitcodes.py).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exitcodes import BAD_INPUT, REGRESSION, BadInput, Parser, run_script  # noqa: E402
from results import load_rows, variant_key, variant_name  # noqa: E402


def main():
    p = Parser(__doc__, codes=(REGRESSION, BAD_INPUT))
    p.add_argument("before", help="bench JSON (dslash bench --json, or sweep.py --out)")
    p.add_argument("after", help="bench JSON to compare with it")
    p.add_argument("--noise", type=float, default=0.05, help="smallest relative change that counts (default 0.05)")
    a = p.parse_args()
    if not a.noise >= 0:
        raise BadInput(f"--noise {a.noise}: expected 0 or more")
    before = {variant_key(r): r for r in load_rows(a.before)}
    after = {variant_key(r): r for r in load_rows(a.after)}
    common = [k for k in before if k in after]
    if not common:
        raise BadInput(f"'{a.before}' and '{a.after}' share no variant (kernel, dispatch, prec, simd, nrhs, lattice, parity, dagger, layout, "
                       "compress, threads)")
    print(f"{'variant':52s} {'before':>9s} {'after':>9s} {'ratio':>7s} {'noise':>6s}  verdict")
    regressions = 0
    for k in sorted(common):
        b, n = before[k], after[k]
        if not b["gflops"] > 0:
            raise BadInput(f"'{a.before}': {variant_name(k)} ran at {b['gflops']} GFLOP/s: no ratio to it")
        ratio = n["gflops"] / b["gflops"]
        noise = max(a.noise, b.get("spread", 0), n.get("spread", 0))
        verdict = "REGRESSION" if ratio < 1 - noise else "faster" if ratio > 1 + noise else "same"
        regressions += verdict == "REGRESSION"
        print(f"{variant_name(k):52s} {b['gflops']:9.2f} {n['gflops']:9.2f} {ratio:7.3f} {noise:6.2f}  {verdict}")
    for k in sorted(set(before) ^ set(after)):
        print(f"only in {'before' if k in before else 'after'}: {k}")
    print(f"{len(common)} variants compared, {regressions} regression(s)")
    return REGRESSION if regressions else 0


if __name__ == "__main__":
    run_script(main)
