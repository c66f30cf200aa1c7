#!/usr/bin/env bash
# dslash solve as a user drives it: every solver x precision converges on a small random lattice, the
# written x solves M x = b (M x rebuilt with numpy from `dslash apply`'s reference D x), the JSON holds
# the figures; every bad input exits 2 with one line and writes nothing; non-convergence exits 1.
set -euo pipefail
dslash=$1
tests=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

fail() { echo "FAIL: $*" >&2; exit 1; }
have_numpy() { [ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import numpy" 2>/dev/null; }

# mrhs on 8 right-hand sides: a vector set whose lanes divide 8 (sse2, avx2), where the build has one.
runs=$("$dslash" --version | sed -n 's/^instruction sets this CPU runs: //p')
case ", $runs," in *", sse2,"*) vector_isa=sse2 ;; *", avx2,"*) vector_isa=avx2 ;; *) vector_isa=scalar ;; esac

L=8x4x4x8
"$dslash" gauge --lattice $L --random --seed 3 --out U.nersc > /dev/null
"$dslash" spinor --lattice $L --seed 5 --out b.npy > /dev/null
"$dslash" spinor --lattice $L --seed 5 --nrhs 8 --out b8.npy > /dev/null
"$dslash" spinor --lattice $L --seed 6 --nrhs 7 --out b7.npy > /dev/null

# solve --out x.npy, then D x with the reference kernel, for the numpy check below.
solve() {
  local name=$1; shift
  "$dslash" solve --gauge U.nersc --mass 0.1 --out "x_$name.npy" --json "$name.json" "$@" > "$name.txt" 2> "$name.err" ||
    fail "solve $name exited $?: $(cat "$name.err")"
  grep -q "^converged: " "$name.txt" || fail "solve $name: no 'converged' line: $(cat "$name.txt")"
  grep -q "true residual ||b - M x|| / ||b|| = " "$name.txt" || fail "solve $name: no true residual line"
  "$dslash" apply --gauge U.nersc --in "x_$name.npy" --out "dx_$name.npy" > /dev/null
}
for solver in cg bicgstab; do
  solve "${solver}_double" --in b.npy --solver $solver --prec double --tol 1e-10
  solve "${solver}_mixed" --in b.npy --solver $solver --prec mixed --tol 1e-12
  solve "${solver}_single" --in b.npy --solver $solver --prec single --tol 1e-5
done
solve vnode_mixed --in b.npy --prec mixed --tol 1e-10 --kernel vnode --dispatch mdrange --profile
grep -q "^profile: the solve's " vnode_mixed.txt || fail "--profile: no profile line"
grep -q "^  dslash_vnode_.*_f32_mdrange .* calls" vnode_mixed.txt || fail "--profile: no single-precision vnode Dslash line: $(cat vnode_mixed.txt)"
grep -q "^  blas_axpy_xpay .* calls" vnode_mixed.txt || fail "--profile: no CG update line"
solve mrhs_mixed --in b8.npy --prec mixed --tol 1e-10 --kernel mrhs --simd "$vector_isa" --solver bicgstab
solve naive_nrhs --in b8.npy --nrhs 8 --prec mixed --tol 1e-10 --reliable-delta 0.1
# QUDA's usual mixed solve: whole links in double, 12 reals a link in single.
solve sloppy12 --in b.npy --prec mixed --tol 1e-10 --compress-sloppy 12
grep -q "links 18 / 12 (single) reals" sloppy12.txt || fail "--compress-sloppy 12: not in the header: $(head -1 sloppy12.txt)"
solve both12 --in b.npy --prec double --tol 1e-10 --compress 12 --kernel vnode
# Double-half: the iterated operator in half precision storage, x to the double tolerance.
solve half_mixed --in b.npy --prec mixed --tol 1e-10 --sloppy half --kernel vnode
grep -q "mixed (double-half) precision" half_mixed.txt || fail "--sloppy half: not in the header: $(head -1 half_mixed.txt)"
grep -q '"sloppy": "half"' half_mixed.json || fail "--sloppy half: not in the JSON"
grep -q "8 right-hand sides in one solve" mrhs_mixed.txt || fail "mrhs: not one solve of 8"
# Block solves: 7 sources (a prime: no whole vector of lanes) in one block, each its own CG or
# BiCGStab; and the 12 spin-colour point sources of a site, one propagator file.
solve block7 --in b7.npy --prec mixed --tol 1e-10 --kernel mrhs --simd "$vector_isa"
solve block7_bicgstab --in b7.npy --prec mixed --tol 1e-10 --kernel mrhs --simd "$vector_isa" --solver bicgstab
for name in block7 block7_bicgstab; do
  grep -q "^per right-hand side: [0-9]* to [0-9]* iterations, .* s each (the block's time over its right-hand sides)$" $name.txt \
    || fail "$name: no per right-hand side line: $(cat $name.txt)"
done
solve point --point-source 1.2.3.0 --prec mixed --tol 1e-10 --kernel mrhs --simd "$vector_isa"
grep -q "12 right-hand sides in one solve" point.txt || fail "point source: not one block of 12: $(head -1 point.txt)"
# On a GPU: the same solves with the vectors in device memory.
gpu=0
if nvidia-smi -L > /dev/null 2>&1; then
  gpu=1
  solve gpu_mixed --in b.npy --prec mixed --tol 1e-10 --backend cuda --profile
  solve gpu_vnode --in b.npy --solver bicgstab --prec double --tol 1e-10 --kernel vnode --backend cuda
  solve gpu_sloppy12 --in b.npy --prec mixed --tol 1e-10 --compress-sloppy 12 --backend cuda --profile
  # 12-real links keep naive's epilogue on the GPU (M_ee_hat's last pass in the second hop's kernel):
  # no more BLAS passes than with whole links (checked below).
fi
# No files: a random gauge field and a point source, one source at a time on the naive kernel.
"$dslash" solve --random --lattice 4x4x4x4 --seed 2 --point-source 3.0.1.2 --mass 0.2 --out xp.npy > point_naive.txt || fail "point source solve"
[ -e xp.npy ] || fail "point source: no x"

if have_numpy; then
  GPU=$gpu /usr/bin/python3 - <<'PY'
import json
import os
import numpy as np
m = 0.1
def check(name, b_file, tol):
    b, x, dx = (np.load(f) for f in (b_file, f"x_{name}.npy", f"dx_{name}.npy"))
    assert x.shape == b.shape, (name, x.shape, b.shape)
    mx = (4 + m) * x - 0.5 * dx  # M = (4 + m) - D/2
    axes = tuple(range(x.ndim - 6, x.ndim))
    res = np.sqrt(np.sum(np.abs(b - mx) ** 2, axis=axes) / np.sum(np.abs(b) ** 2, axis=axes))
    assert np.all(res <= tol), f"{name}: residual {res} > {tol}"
    j = json.load(open(f"{name}.json"))
    for key in ("config", "converged", "iterations", "reliable_updates", "time_s", "time_per_iteration_s", "dslash_applications",
                "dslash_gflops", "dslash_s", "solve_over_dslash", "true_residual", "true_residuals", "reference_confirms", "solves"):
        assert key in j, f"{name}: no {key} in the JSON"
    assert j["converged"] is True and j["iterations"] > 0 and j["time_s"] > 0 and j["dslash_gflops"] > 0, name
    assert j["true_residual"] <= tol and j["reference_confirms"] is True, (name, j["true_residual"])
    # The JSON's reference residual is the one numpy finds.
    assert abs(j["true_residual"] - res.max()) <= 1e-2 * res.max() + 1e-15, (name, j["true_residual"], res.max())
    s = j["solves"][0]
    assert len(s["history"]) == s["iterations"] + 1 and s["reliable_updates"], name
    return j
for solver in ("cg", "bicgstab"):
    check(f"{solver}_double", "b.npy", 1e-10)
    j = check(f"{solver}_mixed", "b.npy", 1e-12)
    assert j["reliable_updates"] >= 3 and j["dslash_applications"]["single"] > j["dslash_applications"]["double"] > 0, j
    j = check(f"{solver}_single", "b.npy", 2e-5)
    assert j["dslash_applications"]["double"] == 0 and np.load(f"x_{solver}_single.npy").dtype == np.complex64
j = check("vnode_mixed", "b.npy", 1e-10)
# --profile: every Dslash application is a launch of its label, and the launches fit in the solve.
launches = {e["label"]: e for e in j["profile"]["launches"]}
dslash_calls = sum(e["calls"] for label, e in launches.items() if label.startswith("dslash_vnode_"))
assert dslash_calls == j["dslash_applications"]["single"] + j["dslash_applications"]["double"], (dslash_calls, j["dslash_applications"])
assert sum(e["seconds"] for e in launches.values()) <= j["time_s"] * 1.001 and j["profile"]["outside_launches_s"] >= -1e-3, j["profile"]
# Each label's fastest and slowest call bracket its mean.
for e in launches.values():
    assert 0 < e["min_seconds"] <= e["seconds"] / e["calls"] * (1 + 1e-9) and e["seconds"] / e["calls"] <= e["max_seconds"] * (1 + 1e-9), e
assert check("cg_double", "b.npy", 1e-10)["profile"] is None
j = check("mrhs_mixed", "b8.npy", 1e-10)
assert len(j["solves"]) == 1 and j["solves"][0]["rhs"] == 8 and len(j["true_residuals"]) == 8
for name, links in (("sloppy12", (18, 12)), ("both12", (12, 12)), ("cg_mixed", (18, 18))):
    j = check(name, "b.npy", 1e-10 if name != "cg_mixed" else 1e-12)
    assert (j["config"]["compress"], j["config"]["compress_sloppy"]) == links, (name, j["config"])
# The blocks: one solver call of 7; each right-hand side its iterations, residuals and time.
for name in ("block7", "block7_bicgstab"):
    j = check(name, "b7.npy", 1e-10)
    assert len(j["solves"]) == 1 and j["solves"][0]["rhs"] == 7 and len(j["per_rhs"]) == 7, j["solves"]
    for k, r in enumerate(j["per_rhs"]):
        assert r["rhs"] == k and r["converged"] and 0 < r["iterations"] <= j["iterations"] and r["true_residual"] <= 1e-10, r
        assert abs(r["time_s"] - j["time_s"] / 7) <= 1e-9 + 1e-6 * j["time_s"] and r["true_residual"] == j["true_residuals"][k], r
    assert abs(j["time_per_rhs_s"] - j["time_s"] / 7) <= 1e-12 + 1e-9 * j["time_s"], j["time_per_rhs_s"]
# Each source's own BiCGStab takes fewer iterations than its own CGNR.
assert json.load(open("block7_bicgstab.json"))["iterations"] < json.load(open("block7.json"))["iterations"]
# The propagator: source 3 spin + colour is 1 at (x, y, z, t) = (1, 2, 3, 0), shape (12, L3, L2, L1, L0, 4, 3).
b = np.zeros((12, 8, 4, 4, 8, 4, 3), np.complex128)
for r in range(12):
    b[r, 0, 3, 2, 1, r // 3, r % 3] = 1
np.save("bp.npy", b)
j = check("point", "bp.npy", 1e-10)
assert np.load("x_point.npy").shape == (12, 8, 4, 4, 8, 4, 3) and j["config"]["point_source"] == [1, 2, 3, 0] and len(j["per_rhs"]) == 12, j["config"]
assert np.load("xp.npy").shape == (12, 4, 4, 4, 4, 4, 3)
j = check("naive_nrhs", "b8.npy", 1e-10)
assert len(j["solves"]) == 8 and j["config"]["nrhs"] == 8 and j["config"]["reliable_delta"] == 0.1
if os.environ["GPU"] == "1":
    for name in ("gpu_mixed", "gpu_vnode", "gpu_sloppy12"):
        assert check(name, "b.npy", 1e-10)["config"]["backend"] == "cuda", name
    # CG makes 4 hops and one axpby_norm2 (r -= alpha q) an iteration; unfused, each of its two M_ee_hat
    # also ends in an axpby(_norm2) pass: 3 passes an iteration against 1 (and one a reliable update).
    for name in ("gpu_mixed", "gpu_sloppy12"):
        j = json.load(open(f"{name}.json"))
        calls = {e["label"]: e["calls"] for e in j["profile"]["launches"]}
        passes = calls.get("blas_axpby", 0) + calls.get("blas_axpby_norm2", 0)
        assert passes < j["dslash_applications"]["single"] / 2, (name, passes, j["dslash_applications"])
PY
fi

# dslash "$@" exits with status $1 and prints exactly one line on stderr (kept in err.txt).
expect_exit() {
  local want=$1; shift
  set +e
  "$dslash" "$@" > /dev/null 2> err.txt
  local rc=$?
  set -e
  [ "$rc" -eq "$want" ] || fail "'$*' exited $rc, expected $want"
  [ "$(wc -l < err.txt)" -eq 1 ] || fail "'$*' printed $(wc -l < err.txt) lines on stderr: $(cat err.txt)"
}
# Every error: exit status 2, exactly one line on stderr, no output file and no temporary left.
expect_error() {
  expect_exit 2 "$@"
  [ ! -e x.npy ] && [ ! -e x.json ] || fail "'$*' left an output file behind"
  ls | grep -q '\.tmp\.' && fail "'$*' left a temporary file" || true
}
expect_message() {
  local pattern=$1; shift
  expect_error "$@"
  grep -q -- "$pattern" err.txt || fail "'$*' said '$(cat err.txt)', expected '$pattern'"
}
ok=(solve --gauge U.nersc --in b.npy --out x.npy --json x.json)
expect_message "4 + m must be positive" "${ok[@]}" --mass -4
expect_message "4 + m must be positive" "${ok[@]}" --mass -5.5
expect_message "--mass abc: not a finite number" "${ok[@]}" --mass abc
expect_message "error: --tile applies to --dispatch mdrange$" "${ok[@]}" --mass 0.1 --tile 2.2.2.2
expect_message "error: --tile '2.2.2.two': expected four sizes a.b.c.d" "${ok[@]}" --mass 0.1 --dispatch mdrange --tile 2.2.2.two
expect_message "--mass nan: not a finite number" "${ok[@]}" --mass nan
expect_message "--tol must be positive" "${ok[@]}" --mass 0.1 --tol 0
expect_message "error: --sloppy applies to --prec mixed$" "${ok[@]}" --mass 0.1 --sloppy half
expect_message "--tol must be positive" "${ok[@]}" --mass 0.1 --tol -1e-10
expect_message "--maxiter 0: too small" "${ok[@]}" --mass 0.1 --maxiter 0
expect_message "--reliable-delta must be in (0, 1)" "${ok[@]}" --mass 0.1 --reliable-delta 1
expect_message "--reliable-delta must be in (0, 1)" "${ok[@]}" --mass 0.1 --reliable-delta 0
expect_message "gmres" "${ok[@]}" --mass 0.1 --solver gmres
expect_message "half" "${ok[@]}" --mass 0.1 --prec half
expect_message "--mass" solve --gauge U.nersc --in b.npy --out x.npy
expect_message "--compress-sloppy applies to --prec mixed" "${ok[@]}" --mass 0.1 --compress-sloppy 12
expect_message "--compress" "${ok[@]}" --mass 0.1 --compress 10
if [ "$gpu" -eq 0 ]; then
  expect_message "--backend cuda: \(no usable CUDA device\|no CUDA device\|this dslash was built without CUDA\)" "${ok[@]}" --mass 0.1 --backend cuda
else
  expect_message "--simd does not apply to --backend cuda" "${ok[@]}" --mass 0.1 --backend cuda --simd avx2
fi
expect_message "give the gauge field" solve --in b.npy --out x.npy --mass 0.1
expect_message "--random needs --lattice" solve --random --out x.npy --mass 0.1
expect_message "excludes" "${ok[@]}" --mass 0.1 --source random
expect_message "point not in {random}" solve --gauge U.nersc --source point --out x.npy --mass 0.1
expect_message "excludes" "${ok[@]}" --mass 0.1 --point-source 1.1.1.1
expect_message "excludes" solve --gauge U.nersc --point-source 1.1.1.1 --nrhs 3 --out x.npy --mass 0.1
expect_message "--point-source 8.0.0.0: outside the lattice 8x4x4x8" solve --gauge U.nersc --point-source 8.0.0.0 --out x.npy --mass 0.1
expect_message "--point-source 0.0.0.9: outside the lattice 4x4x4x4" solve --random --lattice 4x4x4x4 --point-source 0.0.0.9 --out x.npy --mass 0.1
expect_message "--point-source '1.2.3': expected a site x.y.z.t" solve --gauge U.nersc --point-source 1.2.3 --out x.npy --mass 0.1
expect_message "--point-source '1.-2.3.0': " solve --gauge U.nersc --point-source 1.-2.3.0 --out x.npy --mass 0.1
expect_message "--seed does not apply" "${ok[@]}" --mass 0.1 --seed 4
expect_message "--nrhs 2 but b8.npy holds 8" solve --gauge U.nersc --in b8.npy --nrhs 2 --out x.npy --mass 0.1
"$dslash" spinor --lattice 8x4x4x4 --out wrong.npy > /dev/null
expect_error solve --gauge U.nersc --in wrong.npy --out x.npy --mass 0.1
head -c 5000 U.nersc > truncated.nersc
expect_error solve --gauge truncated.nersc --in b.npy --out x.npy --mass 0.1
head -c 100 b.npy > truncated.npy
expect_error solve --gauge U.nersc --in truncated.npy --out x.npy --mass 0.1
mkdir adir
expect_message "--out" solve --gauge U.nersc --in b.npy --out adir --mass 0.1
expect_message "--json" solve --gauge U.nersc --in b.npy --json adir --mass 0.1
if have_numpy; then
  # A zero source is solved at once (x = 0, no iteration), one by one and in a block beside others.
  /usr/bin/python3 -c "import numpy as np; np.save('zero.npy', np.zeros((8, 4, 4, 8, 4, 3), np.complex128))"
  "$dslash" solve --gauge U.nersc --in zero.npy --out x0.npy --json x0.json --mass 0.1 > /dev/null || fail "a zero source was refused"
  /usr/bin/python3 -c "
import numpy as np; b = np.load('b7.npy'); b[3] = 0; np.save('b7zero.npy', b)"
  "$dslash" solve --gauge U.nersc --in b7zero.npy --out x7.npy --json x7.json --mass 0.1 --kernel mrhs --simd "$vector_isa" > /dev/null \
    || fail "a block with a zero source failed"
  /usr/bin/python3 -c "
import json, numpy as np
assert not np.load('x0.npy').any() and json.load(open('x0.json'))['iterations'] == 0
j = json.load(open('x7.json')); x = np.load('x7.npy')
assert not x[3].any() and all(x[k].any() for k in (0, 1, 2, 4, 5, 6)), 'x'
assert j['converged'] and [r['iterations'] == 0 for r in j['per_rhs']] == [k == 3 for k in range(7)], j['per_rhs']"
  rm x0.npy x0.json x7.npy x7.json
fi

# Non-convergence: exit 1, one line on stderr, no x; the JSON written with converged = false and the history.
expect_unconverged() {
  expect_exit 1 "$@"
  grep -q "did not converge" err.txt || fail "'$*' said '$(cat err.txt)'"
  [ ! -e x.npy ] || fail "'$*' wrote x although it did not converge"
  [ -e x.json ] || fail "'$*' wrote no JSON"
}
expect_unconverged "${ok[@]}" --mass 0.1 --maxiter 3
if have_numpy; then
  /usr/bin/python3 -c "
import json; j = json.load(open('x.json'))
assert j['converged'] is False and j['iterations'] == 3 and len(j['solves'][0]['history']) == 4, j"
fi
rm x.json
# Single precision cannot reach 1e-12: it stops at its rounding floor.
expect_unconverged "${ok[@]}" --mass 0.1 --prec single --tol 1e-12
grep -q "stopped decreasing" err.txt || fail "single precision at 1e-12: $(cat err.txt)"
rm x.json
# A singular system: the free field at m = 0 has a zero mode (p = 0) that a random source excites.
"$dslash" gauge --lattice 4x4x4x4 --unit --out unit.nersc > /dev/null
"$dslash" spinor --lattice 4x4x4x4 --out b4.npy > /dev/null
expect_unconverged solve --gauge unit.nersc --in b4.npy --out x.npy --json x.json --mass 0 --maxiter 300
rm -f x.json
# A residual that is NaN or Inf, or grown 1e6 times past its lowest, ends the solve at once: exit 1,
# one line naming the cause, and the JSON's stop says how (CGNR's norms overflow double at 4 + m =
# 1e300; BiCGStab diverges on the free field's doublers at m = -2, in every precision).
expect_stopped() {
  local stop=$1 pattern=$2; shift 2
  expect_unconverged "$@"
  grep -q -- "($stop: $pattern" err.txt || fail "'$*' said '$(cat err.txt)', expected '($stop: $pattern'"
  if have_numpy; then
    STOP=$stop /usr/bin/python3 -c "
import json, os; j = json.load(open('x.json'))
assert j['converged'] is False and j['stop'] == os.environ['STOP'] and j['solves'][0]['stop'] == os.environ['STOP'], j
assert j['iterations'] < 1000, j['iterations']"
  fi
  rm x.json
}
expect_stopped breakdown "the residual is nan at iteration 1: the operator: its diagonal 4 + m = 1e+300 makes ||M r||^2 overflow double" \
  solve --random --lattice 4x4x4x4 --mass 1e300 --maxiter 100000 --out x.npy --json x.json
for prec in double single mixed; do
  expect_stopped diverged "the residual rose over 1e+06 times its lowest by iteration [0-9]*: M is singular or too ill-conditioned for bicgstab" \
    solve --gauge unit.nersc --in b4.npy --out x.npy --json x.json --solver bicgstab --prec $prec --mass -2 --maxiter 100000
done
# A double solve below double's reach stalls there, and says so (no sloppy precision to blame).
expect_stopped breakdown "the true residual stopped decreasing: double precision's rounding floor" "${ok[@]}" --mass 0.1 --tol 1e-18
grep -q sloppy err.txt && fail "a double solve blamed a sloppy precision: $(cat err.txt)"
# A diagonal past single precision is refused before any work.
expect_message "4 + mass = 1e+300 overflows single precision" "${ok[@]}" --mass 1e300 --prec single
# Sources a solve cannot trust: a NaN or an Inf (named by its element), a norm past double's range,
# values past single precision's for --prec single or mixed. Exit 2, one line, nothing written.
if have_numpy; then
  /usr/bin/python3 "$tests/bad_npy.py" b.npy 7 3 2 1 2 1  # b: (t, z, y, x, spin, colour) = (8, 4, 4, 8, 4, 3)
  /usr/bin/python3 -c "import numpy as np; b = np.load('b.npy'); b[0, 1, 2, 3, 0, 2] = 1e39; np.save('big.npy', b)"
  expect_message "nan.npy: element \[7, 3, 2, 1, 2, 1\] (t, z, y, x, spin, colour), real part, is nan, not a finite number" \
    solve --gauge U.nersc --in nan.npy --out x.npy --json x.json --mass 0.1
  expect_message "inf.npy: element \[7, 3, 2, 1, 2, 1\] (t, z, y, x, spin, colour), imaginary part, is inf" \
    solve --gauge U.nersc --in inf.npy --out x.npy --json x.json --mass 0.1 --solver bicgstab
  expect_message "spinor 0 of huge.npy: ||b||^2 overflows double" solve --gauge U.nersc --in huge.npy --out x.npy --json x.json --mass 0.1
  expect_message "huge.npy: element \[0, 0, 0, 0, 0, 0\] .* past single precision's range (largest 3.40282e+38) (--prec single)" \
    solve --gauge U.nersc --in huge.npy --out x.npy --json x.json --mass 0.1 --prec single
  expect_message "big.npy: element \[0, 1, 2, 3, 0, 2\] (t, z, y, x, spin, colour), real part, is 1e+39, past single precision's range" \
    solve --gauge U.nersc --in big.npy --out x.npy --json x.json --mass 0.1 --prec mixed
fi
# Unit links lose reconstruct-8's phase: refused in words (a reason, not an error of nan), blamed on
# the option that asked for 8 reals.
expect_message "^dslash: error: --compress-sloppy 8: link (x,y,z,t,mu) = (0,0,0,0,0) does not survive the 8-real parametrisation: its |U00| = 1 (as on unit links), where rows 2 and 3 cannot be rebuilt; use --compress-sloppy 12 or 18$" \
  solve --gauge unit.nersc --in b4.npy --out x.npy --json x.json --mass 0.1 --prec mixed --compress-sloppy 8
expect_message "^dslash: error: --compress 8: link (x,y,z,t,mu) = (0,0,0,0,0) does not survive the 8-real parametrisation: its |U00| = 1" \
  solve --gauge unit.nersc --in b4.npy --out x.npy --json x.json --mass 0.1 --prec single --compress 8
# A CPU team larger than the threads: warned about, and the solve still converges.
solve team_over --in b.npy --solver cg --prec double --tol 1e-8 --dispatch team --team-size 3 --threads 2
grep -q "warning: --team-size 3 is more than the 2 OpenMP thread(s)" team_over.err || fail "solve: no team oversubscription warning: $(cat team_over.err)"
echo "solve end-to-end: all checks passed"
