"""Reading bench results: a `dslash bench --json` file or a sweep.py file, as flat rows."""
import json


def load_rows(path):
    """One dict per result, with the run's threads, ceilings and volume added."""
    with open(path) as f:
        data = json.load(f)
    runs = data["runs"] if "runs" in data else [data]
    rows = []
    for run in runs:
        for res in run["results"]:
            row = dict(res)
            row["threads"] = run["meta"]["threads"]
            row["bandwidth_GBs"] = run["ceilings"]["bandwidth_GBs"]
            lat = res["lattice"]
            row["volume"] = lat[0] * lat[1] * lat[2] * lat[3]
            rows.append(row)
    return rows


def variant_key(row):
    """What identifies a variant across runs and machines (not its timings)."""
    return (row["kernel"], row["dispatch"], row["prec"], row["simd"], row["nrhs"], "x".join(map(str, row["lattice"])),
            row["parity"], row["dagger"], row.get("layout", "right"), row.get("compress", 18), row["threads"])
