#!/usr/bin/python3
"""Accuracy of the 16-bit storage formats for half precision (issue 76), on one Wilson Dslash.

    /usr/bin/python3 scripts/half_formats.py [--lattice 8] [--seed 1] [--json out.json]

The inputs (spinor and links) are stored in each format and read back as float32, D is applied in
float32, and the result is compared with D applied in float64 to the unrounded inputs: the relative
2-norm error ||D_fmt psi - D psi|| / ||D psi||, and the largest relative error of one output site.
Formats: float32 (single, the baseline), fixed16 (QUDA's: 16-bit fixed point, spinors scaled by a
per-site float norm = max |real| of the site, links by 1), binary16 (IEEE half), binary16 with the
same per-site norm, and bfloat16; all round to nearest, ties to even. D follows docs/CONVENTIONS.md.
"""
import argparse
import json
import sys

import numpy as np

# DeGrand-Rossi, as include/dslash/lattice/gamma.hpp.
I = 1j
GAMMA = [
    np.array([[0, 0, 0, I], [0, 0, I, 0], [0, -I, 0, 0], [-I, 0, 0, 0]]),
    np.array([[0, 0, 0, -1], [0, 0, 1, 0], [0, 1, 0, 0], [-1, 0, 0, 0]]),
    np.array([[0, 0, I, 0], [0, 0, 0, -I], [-I, 0, 0, 0], [0, I, 0, 0]]),
    np.array([[0, 0, 1, 0], [0, 0, 0, 1], [1, 0, 0, 0], [0, 1, 0, 0]]),
]
AXIS = [3, 2, 1, 0]  # fields are (t, z, y, x, ...): direction mu's array axis


def dslash(u, psi, ctype):
    """D psi on the full lattice in the precision of ctype; u: (4, T, Z, Y, X, 3, 3), psi: (T, Z, Y, X, 4, 3)."""
    u, psi = u.astype(ctype), psi.astype(ctype)
    out = np.zeros_like(psi)
    one = np.eye(4, dtype=ctype)
    for mu in range(4):
        g = GAMMA[mu].astype(ctype)
        fwd = np.roll(psi, -1, axis=AXIS[mu])  # psi(x + mu)
        hop = np.einsum("...ab,...sb->...sa", u[mu], fwd)
        out += np.einsum("st,...tc->...sc", one - g, hop)
        bwd_link = np.roll(u[mu], 1, axis=AXIS[mu])  # U_mu(x - mu)
        bwd = np.roll(psi, 1, axis=AXIS[mu])
        hop = np.einsum("...ba,...sb->...sa", bwd_link.conj(), bwd)
        out += np.einsum("st,...tc->...sc", one + g, hop)
    return out


def random_su3(rng, shape):
    z = rng.standard_normal(shape + (3, 3)) + 1j * rng.standard_normal(shape + (3, 3))
    q, r = np.linalg.qr(z)
    d = np.diagonal(r, axis1=-2, axis2=-1)
    q = q * (d / np.abs(d))[..., None, :]
    det = np.linalg.det(q)
    return q / (det ** (1.0 / 3.0))[..., None, None]


def reals(z):
    return np.stack([z.real, z.imag], axis=-1).astype(np.float32)


def to_complex(r):
    return r[..., 0].astype(np.complex64) + 1j * r[..., 1].astype(np.complex64)


def fixed16(x, norm):
    """Round x (float32) to 16-bit fixed point of step norm / 32767 and back; norm broadcast over x."""
    norm = np.asarray(norm, dtype=np.float32)
    inv = np.where(norm > 0, np.float32(32767) / np.where(norm > 0, norm, 1), 0).astype(np.float32)
    q = np.rint(np.clip(x * inv, -32767, 32767)).astype(np.int16)
    return q.astype(np.float32) * (norm * np.float32(1 / 32767))


def bfloat16(x):
    u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000  # round to nearest even in the top 16 bits
    return u.astype(np.uint32).view(np.float32)


def site_norm(r, site_axes):
    """max |real| over a site's reals (the last site_axes axes)."""
    return np.abs(r).max(axis=tuple(range(-site_axes, 0)), keepdims=True)


def binary16_site_norm(r):
    """binary16 of r / site norm, times the norm (float32): binary16 given the fixed-point format's range."""
    n = site_norm(r, 3)
    safe = np.where(n > 0, n, 1)
    return ((r / safe).astype(np.float16).astype(np.float32) * n).astype(np.float32)


def binary16(r):
    return r.astype(np.float16).astype(np.float32)


# Each format: (spinor reals -> stored and read back, link reals -> stored and read back).
FORMATS = {
    "float32": (lambda r: r, lambda r: r),
    "fixed16": (lambda r: fixed16(r, site_norm(r, 3)), lambda r: fixed16(r, 1.0)),
    "binary16": (binary16, binary16),
    "binary16+norm": (binary16_site_norm, binary16),
    "bfloat16": (bfloat16, bfloat16),
}


def errors(exact, approx):
    diff = approx.astype(np.complex128) - exact
    site = lambda z: np.sqrt((np.abs(z) ** 2).sum(axis=(-2, -1)))  # noqa: E731
    norm = site(exact)
    mask = norm > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = np.linalg.norm(diff) / np.linalg.norm(exact)
        site_rel = (site(diff)[mask] / norm[mask]).max() if mask.any() else 0.0
    return {"rel": finite(rel), "max_site_rel": finite(site_rel)}


def finite(x):
    """x as a float, or None (JSON null) where it overflowed to inf or NaN."""
    return float(x) if np.isfinite(x) else None


def show(x, width=13):
    return f"{x:{width}.2e}" if x is not None else f"{'overflow':>{width}s}"


def spinors(rng, shape):
    g = lambda: rng.standard_normal(shape) + 1j * rng.standard_normal(shape)  # noqa: E731
    out = {"gaussian": g()}
    p = np.zeros(shape, dtype=complex)
    p[1, 2, 3, 3, 0, 0] = 1.0
    out["point"] = p
    big = np.zeros(shape, dtype=complex)
    big[1, 2, 3, 3, 2, 1] = 1e4 - 3e3j  # one large component, zeros elsewhere
    big[0, 0, 0, 0] = g()[0, 0, 0, 0]  # a gaussian site elsewhere
    out["one_large_component"] = big
    mixed = g()
    mixed[1, 2, 3, 3, 2, 1] = 1e3  # one large component among gaussian ones at the same site
    out["large_among_gaussian"] = mixed
    # A solver's vectors: gaussian, scaled to a residual's size and to a large one.
    for s in (1e-3, 1e-6, 1e-10, 1e6):
        out[f"gaussian_x{s:g}"] = s * g()
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lattice", type=int, default=8, help="L for an L^4 lattice (default 8)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", help="write the numbers here")
    a = p.parse_args()
    rng = np.random.default_rng(a.seed)
    L = a.lattice
    u = random_su3(rng, (4, L, L, L, L))
    ur = reals(u)
    print(f"# {L}^4, random SU(3); max |U U^+ - 1| = {np.abs(u @ np.conj(np.swapaxes(u, -1, -2)) - np.eye(3)).max():.1e}")
    results = {"lattice": L, "seed": a.seed, "cases": {}}
    names = list(FORMATS)
    print(f"{'spinor':24s}" + "".join(f"{n:>26s}" for n in names))
    print(f"{'':24s}" + "".join(f"{'rel':>13s}{'max site':>13s}" for _ in names))
    for case, psi in spinors(rng, (L, L, L, L, 4, 3)).items():
        exact = dslash(u, psi, np.complex128)
        row = {}
        for name, (fs, fl) in FORMATS.items():
            with np.errstate(over="ignore", invalid="ignore"):
                psi_q = to_complex(fs(reals(psi)))
                u_q = to_complex(fl(ur))
                row[name] = errors(exact, dslash(u_q, psi_q, np.complex64))
        results["cases"][case] = row
        print(f"{case:24s}" + "".join(f"{show(row[n]['rel'])}{show(row[n]['max_site_rel'])}" for n in names))
    # The stored spinor alone (float32 is exact here: the input is float32).
    print("# round trip of a gaussian spinor alone: max |x_q - x| / site norm, and the share of reals lost (x != 0, x_q == 0)")
    r = reals(spinors(rng, (L, L, L, L, 4, 3))["gaussian"])
    for s in (1.0, 1e-6, 1e-10, 1e6):
        for name, (fs, _) in FORMATS.items():
            with np.errstate(over="ignore", invalid="ignore"):
                q = fs(r * np.float32(s))
            n = site_norm(r * np.float32(s), 3)
            err = np.abs(q - r * np.float32(s)) / n
            lost = float(np.mean((q == 0) & (r != 0)))
            results.setdefault("round_trip", {}).setdefault(f"x{s:g}", {})[name] = {"max_err_over_norm": finite(np.max(err)), "zeroed": lost}
        print(f"  x{s:<6g}" + "".join(f"  {n}: {show(results['round_trip'][f'x{s:g}'][n]['max_err_over_norm'], 0).strip()} ({results['round_trip'][f'x{s:g}'][n]['zeroed']:.0%} zeroed)" for n in names))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
