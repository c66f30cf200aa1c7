#!/usr/bin/env python3
"""npy_close.py REF TOL GOT...: every GOT .npy has REF's shape and max|got - ref| / max|ref| < TOL.

Standard library only (no numpy), so the end-to-end scripts check results on machines without
numpy too, such as the GPU host. GOT may be in another precision than REF. Reads the little-endian complex64/complex128 C-order files that
`dslash` writes (CONVENTIONS.md); exits 1 with one line per file that differs.
"""
import ast
import struct
import sys
from array import array


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:6] != b"\x93NUMPY":
        sys.exit(f"{path}: not a .npy file")
    major = raw[6]
    size_format, offset = ("<H", 10) if major == 1 else ("<I", 12)
    (header_len,) = struct.unpack(size_format, raw[8:offset])
    header = ast.literal_eval(raw[offset:offset + header_len].decode("latin1"))
    typecode = {"<c16": "d", "<c8": "f"}.get(header["descr"])
    if typecode is None or header["fortran_order"]:
        sys.exit(f"{path}: dtype {header['descr']} / fortran_order {header['fortran_order']} unsupported")
    reals = array(typecode)
    reals.frombytes(raw[offset + header_len:])
    return header["shape"], header["descr"], reals


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__.strip().splitlines()[0])
    ref_shape, _, ref = load(sys.argv[1])
    tol = float(sys.argv[2])
    scale = max(abs(complex(ref[i], ref[i + 1])) for i in range(0, len(ref), 2))
    failed = False
    for path in sys.argv[3:]:
        shape, _, got = load(path)
        if shape != ref_shape:
            print(f"{path}: shape {shape}, expected {ref_shape}")
            failed = True
            continue
        err = max(abs(complex(got[i] - ref[i], got[i + 1] - ref[i + 1])) for i in range(0, len(ref), 2)) / scale
        if not err < tol:
            print(f"{path}: relative error {err:.3e}, tolerance {tol:g}")
            failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
