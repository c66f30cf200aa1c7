#!/usr/bin/python3
"""bad_npy.py SOURCE T Z Y X SPIN COLOUR: writes, in the current folder, SOURCE's spinors with one bad
value at that element, for the readers' refusals: nan.npy (its real part NaN), inf.npy (its
imaginary part Inf), and huge.npy (every value times 1e300: finite in double, past single)."""
import sys

import numpy as np

source = np.load(sys.argv[1])
element = tuple(int(i) for i in sys.argv[2:8])
for name, value in (("nan", np.nan), ("inf", complex(0.5, np.inf))):
    bad = source.copy()
    bad[element] = value
    np.save(f"{name}.npy", bad)
np.save("huge.npy", source * 1e300)
