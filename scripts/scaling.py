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

--mpirun-flags and --bench each take one string of flags, a single flag included
(--mpirun-flags --report-bindings). With Open MPI's mpirun (told by `mpirun --version`) two flags
are added where needed, each said on stderr and kept in every point's "command":
--allow-run-as-root when running as root (Open MPI refuses root otherwise; not when --mpirun-flags
has it or OMPI_ALLOW_RUN_AS_ROOT and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM are set), and --oversubscribe
for a point with more ranks than this process's physical cores (Open MPI's slots; not when
--mpirun-flags or OMPI_MCA_rmaps_base_oversubscribe already oversubscribe). Flags that bind several
cores to a rank (--map-by slot:PE=2) need --oversubscribe named by hand once ranks x cores exceed
the cores.

Exit status 2, with one line on stderr, for bad arguments, an --out or --plot that cannot be
written (checked before the first run), an mpirun that is not there or bench flags dslash refuses;
3 when a run fails otherwise, with the line mpirun or dslash gave as the reason (not its banner).
"""
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exitcodes import BAD_INPUT, RUN_FAILED, BadInput, Parser, RunFailed, check_writable, failed_run, run_script, run_command  # noqa: E402


def parse_extents(text):
    parts = text.replace(".", "x").split("x")
    if len(parts) != 4 or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise BadInput(f"'{text}' is not four positive extents a.b.c.d")
    return [int(p) for p in parts]


def grid_for(ranks):
    """Ranks (a power of two) as a grid that doubles t, z, y, x in turn."""
    if ranks < 1 or ranks & (ranks - 1):
        raise BadInput(f"{ranks} ranks: --ranks takes powers of two (name other grids with --grids)")
    grid, mu = [1, 1, 1, 1], 3
    while grid[0] * grid[1] * grid[2] * grid[3] < ranks:
        grid[mu] *= 2
        mu = (mu - 1) % 4
    return grid


def physical_cores():
    """The physical cores this process may run on: the slots Open MPI counts by default."""
    cores = set()
    for cpu in os.sched_getaffinity(0):
        topology = f"/sys/devices/system/cpu/cpu{cpu}/topology/"
        try:
            with open(topology + "physical_package_id") as f, open(topology + "core_id") as g:
                cores.add((f.read().strip(), g.read().strip()))
        except OSError:
            cores.add(("cpu", cpu))
    return len(cores) or os.cpu_count() or 1


def is_open_mpi(mpirun):
    """Whether the launcher is Open MPI's (its --version names it), the one these flags are for."""
    r = run_command([mpirun, "--version"], stdout=subprocess.PIPE)
    return "Open MPI" in r.stdout + r.stderr or "OpenRTE" in r.stdout + r.stderr


def launcher_flags(open_mpi, flags, ranks, cores, as_root, env):
    """The flags added to mpirun's own for a point of `ranks` ranks, and why: see the docstring."""
    added = []
    if not open_mpi:
        return added
    if as_root and "--allow-run-as-root" not in flags and not (env.get("OMPI_ALLOW_RUN_AS_ROOT") and env.get("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM")):
        added.append(("--allow-run-as-root", "running as root"))
    oversubscribed = any("oversubscribe" in f.lower() for f in flags) or env.get("OMPI_MCA_rmaps_base_oversubscribe", "") not in ("", "0", "false")
    if ranks > cores and not oversubscribed:
        added.append(("--oversubscribe", f"{ranks} ranks on {cores} physical core(s)"))
    return added


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
    p = Parser(__doc__, codes=(BAD_INPUT, RUN_FAILED), flag_strings=("--mpirun-flags", "--bench"))
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
    if not (os.path.isfile(a.dslash) and os.access(a.dslash, os.X_OK)):
        raise BadInput(f"{a.dslash} is not an executable dslash binary (build first, or pass --dslash)")
    if (a.mode == "weak") != bool(a.local) or (a.mode == "strong") != bool(a.lattice):
        raise BadInput("--mode weak takes --local, --mode strong takes --lattice")
    grids = [grid_for(n) for n in a.ranks] if a.ranks else [parse_extents(t) for t in a.grids]
    parse_extents(a.local or a.lattice)
    check_writable(a.out, "--out")
    if a.plot:
        check_writable(a.plot, "--plot")
    mpirun = shutil.which(a.mpirun)
    if mpirun is None:
        raise BadInput(f"--mpirun '{a.mpirun}': no such program")
    flags = shlex.split(a.mpirun_flags)
    open_mpi, cores, as_root = is_open_mpi(mpirun), physical_cores(), os.geteuid() == 0

    points = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, grid in enumerate(grids, 1):
            ranks = grid[0] * grid[1] * grid[2] * grid[3]
            lattice = [l * g for l, g in zip(parse_extents(a.local), grid)] if a.mode == "weak" else parse_extents(a.lattice)
            print(f"[{n}/{len(grids)}] {ranks} rank(s), grid {text(grid, '.')}, lattice {text(lattice, 'x')}", file=sys.stderr, flush=True)
            out = os.path.join(tmp, f"run{n}.json")
            added = launcher_flags(open_mpi, flags, ranks, cores, as_root, os.environ)
            for flag, why in added:
                print(f"  mpirun {flag}: {why}", file=sys.stderr, flush=True)
            cmd = ([a.mpirun, "-np", str(ranks)] + [f for f, _ in added] + flags +
                   [a.dslash, "bench", "--lattice", text(lattice, "x"), "--mpi", text(grid, "."), "--json", out] + shlex.split(a.bench))
            r = run_command(cmd)
            if r.returncode != 0:
                error = failed_run("mpirun", cmd, r.returncode, r.stderr)
                if "as root" in r.stderr and "--allow-run-as-root" not in cmd:
                    error.args = (error.args[0] + "; Open MPI refuses root without --mpirun-flags --allow-run-as-root",)
                raise error
            try:
                with open(out) as f:
                    bench_run = json.load(f)
            except (OSError, ValueError) as e:
                raise RunFailed(f"mpirun exited 0 but dslash bench wrote no readable JSON ({e}): {shlex.join(cmd)}") from None
            points.append({"ranks": ranks, "grid": text(grid, "."), "lattice": text(lattice, "x"), "command": shlex.join(cmd),
                           "figures": point(grid, bench_run), "run": bench_run})

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
    run_script(main)
