#!/usr/bin/python3
"""Run `dslash bench` over lattice sizes x precisions x thread counts and collect one JSON (and CSV).

    /usr/bin/python3 scripts/sweep.py --lattices 8x8x8x8 16x16x16x16 --prec single double \\
        --threads 1 2 --out sweep.json --csv sweep.csv

Each run's JSON (meta, ceilings, results) is kept whole under "runs"; progress goes to stderr.
Exit status 2, with one line on stderr, for a bad argument, an --out or --csv that cannot be written
(checked before the first run) or flags dslash bench refuses (--extra, a lattice); 3 when a run
fails otherwise; each run's JSON lives in a temporary directory, removed on every exit, Ctrl-C
included (exitcodes.py).
"""
import csv
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exitcodes import BAD_INPUT, RUN_FAILED, BadInput, Parser, RunFailed, check_writable, failed_run, run_script, run_command  # noqa: E402

FIELDS = ["kernel", "dispatch", "prec", "simd", "nrhs", "lattice", "parity", "dagger", "layout", "compress", "tile", "threads",
          "gflops", "gbytes_model", "roofline_gflops", "percent_of_roofline", "time_min_s", "time_median_s", "time_max_s"]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = Parser(__doc__, codes=(BAD_INPUT, RUN_FAILED), flag_strings=("--extra",))
    p.add_argument("--dslash", default=os.path.join(here, "..", "build", "release", "src", "cli", "dslash"))
    p.add_argument("--lattices", nargs="+", default=["8x8x8x8", "16x16x16x16", "24x24x24x24", "32x32x32x32"])
    p.add_argument("--prec", nargs="+", default=["single", "double"], choices=["single", "double"])
    p.add_argument("--threads", nargs="+", type=int, default=[0], help="0 = the default thread count")
    p.add_argument("--kernel", default="all")
    p.add_argument("--dispatch", default="all")
    p.add_argument("--iters", type=int, default=10)
    p.add_argument("--extra", default="", help="more flags for dslash bench, e.g. '--tile auto'")
    p.add_argument("--out", required=True, help="combined JSON file")
    p.add_argument("--csv", help="also write one CSV row per result")
    a = p.parse_args()
    if not (os.path.isfile(a.dslash) and os.access(a.dslash, os.X_OK)):
        raise BadInput(f"{a.dslash} is not an executable dslash binary (build first, or pass --dslash)")
    if a.iters < 1 or any(th < 0 for th in a.threads):
        raise BadInput("--iters takes 1 or more, --threads 0 (the default count) or more")
    check_writable(a.out, "--out")
    if a.csv:
        check_writable(a.csv, "--csv")

    combos = [(lat, prec, th) for lat in a.lattices for prec in a.prec for th in a.threads]
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, (lat, prec, th) in enumerate(combos, 1):
            print(f"[{n}/{len(combos)}] {lat} {prec} threads={th or 'default'}", file=sys.stderr, flush=True)
            out = os.path.join(tmp, "run.json")
            cmd = [a.dslash, "bench", "--lattice", lat, "--prec", prec, "--kernel", a.kernel, "--dispatch", a.dispatch,
                   "--iters", str(a.iters), "--json", out] + a.extra.split()
            if th:
                cmd += ["--threads", str(th)]
            r = run_command(cmd)
            if r.returncode != 0:
                raise failed_run("dslash bench", cmd, r.returncode, r.stderr)
            try:
                with open(out) as f:
                    runs.append(json.load(f))
            except (OSError, ValueError) as e:
                raise RunFailed(f"dslash bench wrote no readable JSON ({e}): {' '.join(cmd)}") from None

    with open(a.out, "w") as f:
        json.dump({"runs": runs}, f, indent=1)
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=FIELDS)
            w.writeheader()
            for run in runs:
                for res in run["results"]:
                    row = {k: res.get(k) for k in FIELDS}
                    row["lattice"] = "x".join(map(str, res["lattice"]))
                    row["tile"] = ".".join(map(str, res["tile"]))
                    row["threads"] = run["meta"]["threads"]
                    w.writerow(row)
    print(f"wrote {a.out}: {sum(len(r['results']) for r in runs)} results from {len(runs)} runs", file=sys.stderr)


if __name__ == "__main__":
    run_script(main)
