#!/usr/bin/python3
"""Plots from bench results (a `dslash bench --json` file or a sweep.py file).

    /usr/bin/python3 scripts/plot.py sweep.json --outdir docs/plots

Writes gflops_vs_volume_<prec>.png (GFLOP/s against lattice volume per kernel x dispatch, with each
kernel's roofline dashed) and variants_<lattice>_<prec>.png (a bar chart of every variant at the
largest lattice, its roofline marked). Exit status 2, with one line on stderr, when the file is
missing, unreadable or not a bench result, holds nothing to plot, or --outdir cannot be made
(exitcodes.py).
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exitcodes import BAD_INPUT, BadInput, Parser, run_script  # noqa: E402
from results import load_rows  # noqa: E402

COLOURS = {"naive": "tab:blue", "mrhs": "tab:orange", "vnode": "tab:green"}
STYLES = {"range": "-o", "team": "--s", "mdrange": ":^"}


def main():
    p = Parser(__doc__, codes=(BAD_INPUT,))
    p.add_argument("results", help="bench JSON (dslash bench --json, or sweep.py --out)")
    p.add_argument("--outdir", default=".", help="where the PNGs go (made if missing; default .)")
    p.add_argument("--threads", type=int, help="plot only runs with this many threads")
    a = p.parse_args()
    rows = load_rows(a.results)
    if a.threads:
        rows = [r for r in rows if r["threads"] == a.threads]
    if not rows:
        raise BadInput(f"'{a.results}': no results to plot" + (f" with --threads {a.threads}" if a.threads else ""))
    for field in ("roofline_gflops", "percent_of_roofline"):
        lacking = [r for r in rows if not isinstance(r.get(field), (int, float))]
        if lacking:
            raise BadInput(f"'{a.results}': {lacking[0]['kernel']} {lacking[0]['dispatch']} has no {field} to plot")
    try:
        os.makedirs(a.outdir, exist_ok=True)
    except OSError as e:
        raise BadInput(f"--outdir '{a.outdir}': {e.strerror}") from None
    if not os.access(a.outdir, os.W_OK):
        raise BadInput(f"--outdir '{a.outdir}': not writable")
    written = []
    for prec in sorted({r["prec"] for r in rows}):
        sel = [r for r in rows if r["prec"] == prec]
        fig, ax = plt.subplots(figsize=(8, 5))
        for kernel in ("naive", "mrhs", "vnode"):
            for dispatch in ("range", "team", "mdrange"):
                pts = sorted((r["volume"], r["gflops"]) for r in sel if r["kernel"] == kernel and r["dispatch"] == dispatch)
                if pts:
                    ax.plot(*zip(*pts), STYLES[dispatch], color=COLOURS[kernel], label=f"{kernel} {dispatch}")
            roof = sorted({(r["volume"], r["roofline_gflops"]) for r in sel if r["kernel"] == kernel})
            if roof:
                ax.plot(*zip(*roof), "-", color=COLOURS[kernel], alpha=0.35, linewidth=4, label=f"{kernel} roofline")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("lattice volume (sites)")
        ax.set_ylabel("GFLOP/s (1320 per site per RHS)")
        gpus = {r["gpu"]["name"] for r in sel if "gpu" in r}  # runs with --backend cuda name their GPU
        ax.set_title(f"Wilson Dslash, {prec} precision, checkerboarded" + (f", {', '.join(sorted(gpus))}" if gpus else ""))
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
        path = os.path.join(a.outdir, f"gflops_vs_volume_{prec}.png")
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

        biggest = max(r["volume"] for r in sel)
        at = [r for r in sel if r["volume"] == biggest]
        lattice = "x".join(map(str, at[0]["lattice"]))
        fig, ax = plt.subplots(figsize=(8, 4.5))
        labels = [f"{r['kernel']}\n{r['dispatch']}" for r in at]
        ax.bar(range(len(at)), [r["gflops"] for r in at], color=[COLOURS[r["kernel"]] for r in at])
        for i, r in enumerate(at):
            ax.hlines(r["roofline_gflops"], i - 0.4, i + 0.4, colors="black", linestyles="dashed")
            ax.text(i, r["gflops"], f"{r['percent_of_roofline']:.0f}%", ha="center", va="bottom", fontsize=8)
        ax.set_xticks(range(len(at)))
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_ylabel("GFLOP/s")
        ax.set_title(f"{lattice}, {prec}: bars = measured, dashes = roofline, labels = % of roofline")
        path = os.path.join(a.outdir, f"variants_{lattice}_{prec}.png")
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    for w in written:
        print(w)


if __name__ == "__main__":
    run_script(main)
