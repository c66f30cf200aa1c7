#!/usr/bin/python3
"""Read bench results (a `dslash bench --json` file or a sweep.py file) as flat rows, one a variant.

    /usr/bin/python3 scripts/results.py run.json [sweep.json ...]

Run as a script it checks each file and lists its results, one line a variant: kernel, dispatch,
precision, SIMD, right-hand sides, lattice, parity, layout, compression, threads, GFLOP/s and the
share of the roofline. compare.py, plot.py and ab.py read files through load_rows(), so a file this
lists is one they read, and a file it refuses (a solve JSON, a scaling.py file, a truncated run)
they refuse with the same one-line error.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exitcodes import BAD_INPUT, BadInput, Parser, run_script  # noqa: E402

WHAT = "a `dslash bench --json` file or a sweep.py file"


def _read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        raise BadInput(f"'{path}': no such file") from None
    except IsADirectoryError:
        raise BadInput(f"'{path}' is a directory, not {WHAT}") from None
    except OSError as e:
        raise BadInput(f"cannot read '{path}': {e.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise BadInput(f"'{path}' is not JSON ({e}), not {WHAT}") from None


def _kind_hint(data):
    if isinstance(data, dict) and "solves" in data and "config" in data:
        return " (it is a `dslash solve --json` file)"
    if isinstance(data, dict) and "points" in data and "mode" in data:
        return " (it is a scaling.py file: each of its points holds one bench run, under \"run\")"
    return ""


def load_rows(path):
    """One dict per result, with the run's threads, ceilings and volume added. A file that is not a
    bench result raises BadInput, saying which."""
    data = _read_json(path)
    if not isinstance(data, dict) or not ("runs" in data or "results" in data):
        raise BadInput(f"'{path}' is not {WHAT}: it has no \"results\" or \"runs\"{_kind_hint(data)}")
    runs = data["runs"] if "runs" in data else [data]
    rows = []
    where = "the run"
    try:
        for i, run in enumerate(runs, 1):
            where = f"run {i}" if "runs" in data else "the run"
            threads, bandwidth = run["meta"]["threads"], run["ceilings"]["bandwidth_GBs"]
            for j, res in enumerate(run["results"], 1):
                where = (f"run {i}, " if "runs" in data else "") + f"result {j}"
                row = dict(res)
                row["threads"] = threads
                row["bandwidth_GBs"] = bandwidth
                lat = res["lattice"]
                row["volume"] = lat[0] * lat[1] * lat[2] * lat[3]
                variant_key(row)  # every field a variant is known by
                if not isinstance(row["gflops"], (int, float)):
                    raise TypeError(f"gflops is {row['gflops']!r}")
                rows.append(row)
    except KeyError as e:
        raise BadInput(f"'{path}' is not {WHAT}: {where} has no {e}") from None
    except (TypeError, IndexError, AttributeError, ValueError) as e:
        raise BadInput(f"'{path}' is not {WHAT}: {where} is malformed ({e})") from None
    return rows


def variant_key(row):
    """What identifies a variant across runs and machines (not its timings)."""
    return (row["kernel"], row["dispatch"], row["prec"], row["simd"], row["nrhs"], "x".join(map(str, row["lattice"])),
            row["parity"], row["dagger"], row.get("layout", "right"), row.get("compress", 18), row["threads"])


def variant_name(k):
    """A variant key in words, as compare.py and this script print it."""
    return (f"{k[0]} {k[1]} {k[2]} {k[3]} nrhs={k[4]} {k[5]} {k[6]}{' dag' if k[7] else ''} {k[8]}"
            f"{f' r{k[9]}' if k[9] != 18 else ''} t={k[10]}")


def main():
    p = Parser(__doc__, codes=(BAD_INPUT,))
    p.add_argument("files", nargs="+", metavar="FILE", help=WHAT)
    a = p.parse_args()
    tables = [(path, load_rows(path)) for path in a.files]  # every file checked before any is listed
    for path, rows in tables:
        print(f"{path}: {len(rows)} result(s)")
        for r in rows:
            roof = f" {r['percent_of_roofline']:5.1f}% of roofline" if isinstance(r.get("percent_of_roofline"), (int, float)) else ""
            print(f"  {variant_name(variant_key(r)):60s} {r['gflops']:9.2f} GFLOP/s{roof}")


if __name__ == "__main__":
    run_script(main)
