#!/usr/bin/python3
"""Interleaved A/B rounds of one `dslash bench` command under two builds (or one build with a
run-time switch or flag), summarised per variant: how this project's before/after figures are
measured on a host whose cores swing 20-30% from run to run, where only interleaved rounds compare.

    /usr/bin/python3 scripts/ab.py --a old/dslash --b new/dslash --rounds 8 --out ab.json \\
        [--mpirun "mpirun -np 8 --map-by slot:PE=2 --bind-to core -x OMP_NUM_THREADS=2"] \\
        -- bench --lattice 32x32x32x32 --mpi 1.2.2.2 --kernel vnode --dispatch range --iters 20

Round k runs A then B, or B then A when k is even, so neither side always runs first. Each run
writes its bench JSON (--json is added; the files stay in --keep DIR if given). --env-a/--env-b
VAR=VALUE set an environment variable for one side (repeatable; exported to the ranks with -x
when the launcher is Open MPI's mpirun or mpiexec); --args-a/--args-b "..." add dslash arguments
for one side (e.g. --args-a "--halo-complete faces": one build, two of its own options). The
summary, printed and in --out, gives per variant the median and range over the rounds of each
side's GFLOP/s and their ratio B/A; for runs over MPI also the overhead against the bench's no-halo
control and the median of each stage.

Without --keep the runs' JSON files live in a temporary directory, removed on every exit: success,
error, Ctrl-C or SIGTERM (a run in progress is stopped first). Exit status 2, with one line on
stderr, for bad arguments, an --out that cannot be written (checked before the first round) or a
bench command dslash refuses; 3 when a run fails otherwise (exitcodes.py).
"""
import argparse
import contextlib
import json
import os
import shlex
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exitcodes import BAD_INPUT, RUN_FAILED, BadInput, Parser, RunFailed, check_writable, failed_run, run_script, run_command  # noqa: E402
from results import load_rows, variant_key  # noqa: E402


def env_pairs(items, flag):
    pairs = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise BadInput(f"{flag} '{item}': expected VAR=VALUE")
        pairs[name] = value
    return pairs


def run_side(side, binary, env, extra, launcher, bench_args, json_path):
    command = list(launcher)
    if command and os.path.basename(command[0]) in ("mpirun", "mpiexec", "orterun"):
        for name in env:
            command += ["-x", name]
    command += [binary] + bench_args + extra + ["--json", json_path]
    result = run_command(command, env={**os.environ, **env})
    if result.returncode != 0:
        raise failed_run(f"side {side}", command, result.returncode, result.stderr)
    if not os.path.isfile(json_path):
        raise RunFailed(f"side {side} exited 0 but wrote no JSON (command: {shlex.join(command)})")


def pair_key(row):
    """A variant as both sides run it: its key without the thread count, which a side may change."""
    return variant_key(row)[:10]


def figures(row):
    """What a run says of one variant: GFLOP/s, threads and, over MPI, overhead and stage medians."""
    out = {"gflops": row["gflops"], "threads": row["threads"]}
    if "control" in row:
        out["overhead"] = row["control"]["overhead"]
        for stage in row.get("stages", []):
            out["stage " + stage["stage"]] = stage["median_s"]
    return out


def spread(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def main():
    p = Parser(__doc__, codes=(BAD_INPUT, RUN_FAILED), flag_strings=("--mpirun", "--args-a", "--args-b"))
    p.add_argument("--a", required=True, help="dslash binary of side A")
    p.add_argument("--b", help="dslash binary of side B (default: A's, with --env-b making the difference)")
    p.add_argument("--env-a", action="append", default=[], metavar="VAR=VALUE")
    p.add_argument("--env-b", action="append", default=[], metavar="VAR=VALUE")
    p.add_argument("--args-a", default="", metavar="'ARGS'", help="dslash arguments for side A alone, after the common ones")
    p.add_argument("--args-b", default="", metavar="'ARGS'", help="dslash arguments for side B alone")
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    p.add_argument("--mpirun", default="", help="launcher prefix, e.g. 'mpirun -np 8 --map-by slot:PE=2 --bind-to core'")
    p.add_argument("--out", help="write the runs and the summary as JSON")
    p.add_argument("--keep", help="keep each run's bench JSON in this folder (default: a temporary one, removed at the end)")
    p.add_argument("bench", nargs=argparse.REMAINDER, help="-- then the dslash arguments: bench ...")
    a = p.parse_args()
    bench_args = a.bench[1:] if a.bench[:1] == ["--"] else a.bench
    if not bench_args or bench_args[0] != "bench":
        raise BadInput("give the bench command after --, e.g. -- bench --lattice 16x16x16x16")
    # Each side: its binary, its environment and its own dslash arguments.
    sides = {"A": (a.a, env_pairs(a.env_a, "--env-a"), shlex.split(a.args_a)),
             "B": (a.b or a.a, env_pairs(a.env_b, "--env-b"), shlex.split(a.args_b))}
    if any(w == "--json" or w.startswith("--json=") for w in bench_args + sides["A"][2] + sides["B"][2]):
        raise BadInput("leave --json out of the bench command: ab.py writes one a run")
    if a.rounds < 1:
        raise BadInput(f"--rounds {a.rounds}: expected 1 or more")
    if a.b is None and sides["A"][1:] == sides["B"][1:]:
        raise BadInput("A and B are the same binary with the same environment and arguments: give --b, --env-a/--env-b or --args-a/--args-b")
    for side, (binary, _, _) in sides.items():
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            raise BadInput(f"side {side}: '{binary}' is not an executable file")
    if a.out:
        check_writable(a.out, "--out")
    if a.keep and os.path.exists(a.keep) and not os.path.isdir(a.keep):
        raise BadInput(f"--keep '{a.keep}': not a directory")
    launcher = shlex.split(a.mpirun)

    runs = []  # (round, side, variant key, figures)
    with contextlib.ExitStack() as stack:
        if a.keep:
            os.makedirs(a.keep, exist_ok=True)
            keep = a.keep
        else:  # removed however the rounds end
            keep = stack.enter_context(tempfile.TemporaryDirectory(prefix="dslash_ab_"))
        for k in range(1, a.rounds + 1):
            for side in ("A", "B") if k % 2 else ("B", "A"):
                binary, env, extra = sides[side]
                path = os.path.join(keep, f"r{k}_{side}.json")
                run_side(side, binary, env, extra, launcher, bench_args, path)
                try:
                    rows = load_rows(path)
                except BadInput as e:  # dslash's own output, not this script's input
                    raise RunFailed(f"side {side}: {e}") from None
                for row in rows:
                    runs.append((k, side, pair_key(row), figures(row)))
                print(f"[round {k}/{a.rounds}] {side} done", file=sys.stderr, flush=True)

    summary = []
    for key in dict.fromkeys(r[2] for r in runs):
        entry = {"variant": list(key)}
        names = [n for r in runs if r[2] == key for n in r[3]]
        for name in dict.fromkeys(names):
            for side in ("A", "B"):
                values = [r[3][name] for r in runs if r[2] == key and r[1] == side and name in r[3]]
                if values:
                    entry.setdefault(side, {})[name] = spread(values)
        if "A" in entry and "B" in entry:
            entry["gflops_ratio_b_over_a"] = entry["B"]["gflops"]["median"] / entry["A"]["gflops"]["median"]
        summary.append(entry)

    for entry in summary:
        k = entry["variant"]
        threads = "  ".join(f"{side} {entry[side]['threads']['median']:g} threads" for side in ("A", "B") if side in entry)
        print(f"{k[0]} {k[1]} {k[2]} {k[3]} nrhs={k[4]} {k[5]} {k[6]}{' dag' if k[7] else ''}{f' r{k[9]}' if k[9] != 18 else ''}, {threads}: "
              f"B/A {entry.get('gflops_ratio_b_over_a', float('nan')):.3f} (GFLOP/s medians over {a.rounds} rounds)")
        for name in entry.get("A", {}):
            if name == "threads":
                continue
            row = []
            for side in ("A", "B"):
                s = entry.get(side, {}).get(name)
                if s is None:
                    continue
                scale, unit = (100, "%") if name == "overhead" else (1e6, " us") if name.startswith("stage") else (1, "")
                row.append(f"{side} {s['median'] * scale:.1f}{unit} ({s['min'] * scale:.1f} to {s['max'] * scale:.1f})")
            print(f"  {name:28s} " + "   ".join(row))
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"command": bench_args, "launcher": launcher, "rounds": a.rounds,
                       "sides": {s: {"binary": b, "env": e, "args": x} for s, (b, e, x) in sides.items()},
                       "runs": [{"round": r[0], "side": r[1], "variant": list(r[2]), **r[3]} for r in runs],
                       "summary": summary}, f, indent=1)


if __name__ == "__main__":
    run_script(main)
