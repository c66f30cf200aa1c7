#!/usr/bin/python3
"""Weak and strong scaling of the decomposed Dslash: `dslash bench --mpi GRID --json` under mpirun for
each rank count, one combined JSON, and a plot of the per-rank rate and the halo's share against ranks.

    # weak: every rank keeps a 16^4 block; the global lattice grows with the grid
    /usr/bin/python3 scripts/scaling.py --mode weak --local 16x16x16x16 --ranks 1 2 4 8 \\
        --mpirun-flags "--map-by slot:PE=2 --bind-to core -x OMP_NUM_THREADS=2 -x OMP_PROC_BIND=close -x OMP_PLACES=cores" \\
        --bench "--kernel vnode --dispatch range --prec single --iters 20" --out weak.json --plot weak.png
    # strong: one 32^4 lattice over more and more ranks
    /usr/bin/python3 scripts/scaling.py --mode strong --lattice 32x32x32x32 --ranks 1 2 4 8 ... --out strong.json

Rank counts become grids by doubling t, z, y, x in turn (2 -> 1.1.1.2, 8 -> 1.2.2.2); --grids names
them instead. Each point keeps the bench's whole JSON (meta, ceilings, results, skipped) under "run".
halo share: 1 - control call / decomposed call, where the control is the same local lattice with no
halo on every rank at once (the bench runs it); comm share: the comm stages / the decomposed call.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile


def parse_extents(text):
    parts = text.replace(".", "x").split("x")
    if len(parts) != 4 or not all(p.isdigit() and int(p) > 0 for p in parts):
        sys.exit(f"error: '{text}' is not four positive extents a.b.c.d")
    return [int(p) for p in parts]


def grid_for(ranks):
    """Ranks (a power of two) as a grid that doubles t, z, y, x in turn."""
    if ranks < 1 or ranks & (ranks - 1):
        sys.exit(f"error: {ranks} ranks: --ranks takes powers of two (name other grids with --grids)")
    grid, mu = [1, 1, 1, 1], 3
    while grid[0] * grid[1] * grid[2] * grid[3] < ranks:
        grid[mu] *= 2
        mu = (mu - 1) % 4
    return grid


def text(extents, sep):
    return sep.join(str(e) for e in extents)


def point(grid, run):
    """The figures the plot and the table need, per result of one bench run."""
    rows = []
    for r in run["results"]:
        control = r.get("control", {})
        call = r["time_min_s"]
        rows.append({
            "variant": f'{r["kernel"]} {r["dispatch"]}',
            "gflops_per_rank": r["gflops_per_rank"],
            "control_gflops_per_rank": control.get("gflops_per_rank"),
            "overhead": control.get("overhead"),
            "halo_share": 1 - control["time_min_s"] / call if control else None,
            "comm_share": r["comm_s"] / r["time_median_s"],
            "halo_GBs": r["halo_GBs"],
            "exchange_only_GBs": r["exchange_only_GBs"],
            "halo_percent_of_exchange_only": r["halo_percent_of_exchange_only"],
        })
    return rows


def plot(points, mode, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (rate, share) = plt.subplots(1, 2, figsize=(11, 4.2))
    variants = sorted({row["variant"] for p in points for row in p["figures"]})
    for v in variants:
        xs, gf, ctrl, halo, comm = [], [], [], [], []
        for p in points:
            for row in p["figures"]:
                if row["variant"] == v:
                    xs.append(p["ranks"])
                    gf.append(row["gflops_per_rank"])
                    ctrl.append(row["control_gflops_per_rank"])
                    halo.append(100 * row["halo_share"])
                    comm.append(100 * row["comm_share"])
        line = rate.plot(xs, gf, "o-", label=f"{v} decomposed")[0]
        rate.plot(xs, ctrl, "x--", color=line.get_color(), label=f"{v} no-halo control")
        share.plot(xs, halo, "o-", color=line.get_color(), label=f"{v} halo share (vs control)")
        share.plot(xs, comm, "x--", color=line.get_color(), label=f"{v} comm stages / call")
    ranks = sorted({p["ranks"] for p in points})
    for ax in (rate, share):
        ax.set_xscale("log", base=2)
        ax.set_xticks(ranks, [str(r) for r in ranks])
        ax.set_xlabel("MPI ranks")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    rate.set_ylabel("GFLOP/s per rank")
    rate.set_ylim(bottom=0)
    share.set_ylabel("% of the decomposed call")
    first = points[0]["run"]["meta"]
    fig.suptitle(f"{mode} scaling, {first.get('prec', '')} precision, {first.get('threads', '?')} threads per rank, host {first.get('host', '?')}")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dslash", default=os.path.join(here, "..", "build", "release", "src", "cli", "dslash"))
    p.add_argument("--mpirun", default="mpirun")
    p.add_argument("--mpirun-flags", default="", help="binding and environment flags for mpirun, one string")
    p.add_argument("--mode", choices=["weak", "strong"], required=True)
    p.add_argument("--local", help="weak: each rank's block, e.g. 16x16x16x16")
    p.add_argument("--lattice", help="strong: the global lattice, e.g. 32x32x32x32")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--ranks", nargs="+", type=int, help="rank counts (powers of two)")
    g.add_argument("--grids", nargs="+", help="process grids a.b.c.d")
    p.add_argument("--bench", default="--kernel vnode --dispatch range --iters 20", help="more flags for dslash bench, one string")
    p.add_argument("--out", required=True, help="combined JSON file")
    p.add_argument("--plot", help="PNG: per-rank rate and halo share against ranks")
    a = p.parse_args()
    if not os.access(a.dslash, os.X_OK):
        sys.exit(f"error: {a.dslash} is not an executable dslash binary (build first, or pass --dslash)")
    if (a.mode == "weak") != bool(a.local) or (a.mode == "strong") != bool(a.lattice):
        sys.exit("error: --mode weak takes --local, --mode strong takes --lattice")
    grids = [grid_for(n) for n in a.ranks] if a.ranks else [parse_extents(t) for t in a.grids]

    points = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, grid in enumerate(grids, 1):
            ranks = grid[0] * grid[1] * grid[2] * grid[3]
            lattice = [l * g for l, g in zip(parse_extents(a.local), grid)] if a.mode == "weak" else parse_extents(a.lattice)
            print(f"[{n}/{len(grids)}] {ranks} rank(s), grid {text(grid, '.')}, lattice {text(lattice, 'x')}", file=sys.stderr, flush=True)
            out = os.path.join(tmp, f"run{n}.json")
            cmd = ([a.mpirun, "-np", str(ranks)] + shlex.split(a.mpirun_flags) +
                   [a.dslash, "bench", "--lattice", text(lattice, "x"), "--mpi", text(grid, "."), "--json", out] + shlex.split(a.bench))
            r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if r.returncode != 0:
                last = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else f"exit {r.returncode}"
                sys.exit(f"error: {shlex.join(cmd)} failed: {last}")
            with open(out) as f:
                run = json.load(f)
            points.append({"ranks": ranks, "grid": text(grid, "."), "lattice": text(lattice, "x"), "command": shlex.join(cmd),
                           "figures": point(grid, run), "run": run})

    with open(a.out, "w") as f:
        json.dump({"mode": a.mode, "points": points}, f, indent=1)
    print(f"{'ranks':>5} {'grid':>8} {'lattice':>12} {'variant':>13} {'GF/s rank':>10} {'ctrl':>8} {'overhead':>9} {'halo % MPI':>10}")
    for pt in points:
        for row in pt["figures"]:
            over = f"{100 * row['overhead']:+.0f}%" if row["overhead"] is not None else "-"
            print(f"{pt['ranks']:>5} {pt['grid']:>8} {pt['lattice']:>12} {row['variant']:>13} {row['gflops_per_rank']:>10.2f} "
                  f"{row['control_gflops_per_rank'] or 0:>8.2f} {over:>9} {row['halo_percent_of_exchange_only']:>9.0f}%")
    if a.plot:
        plot(points, a.mode, a.plot)


if __name__ == "__main__":
    main()
