"""check_numpy.py: runs the article's NumPy program (src/data/numpy_example.py, unchanged but
for its four sizes and an added print of the results) with NumPy for several seeds and sizes, and
compares its X, W_Q, W_K, W_V, weights and output with `qkv trace --model numpy`. Also runs the
program text that qkv itself hands out (the page shows the same text) and checks it prints the same.

usage: /usr/bin/python3 check_numpy.py QKV PROGRAM.py
Prints one line per failure and a last line "check_numpy: N checks, M failed"; exits 1 on failure.
"""

import json
import re
import subprocess
import sys

import numpy as np

TOL = 1e-5  # weights and output: float32 (the core) against float64 (NumPy), at the small sizes
MARK = "#### qkv-check ####"
# (seed, text, tokens, d_model, d_k): the article's own case first, then other seeds and sizes
CASES = [
    (42, "小猫爱吃鱼", 4, 8, 4),
    (0, "我爱你", 3, 6, 3),
    (1, "The animal didn't cross the street", 6, 8, 4),
    (7, "小猫吃鱼，它很开心", 7, 16, 8),
    (12345, "a b", 2, 5, 5),
    (4294967295, "one two three four five", 5, 12, 6),
]
# Larger sizes, where the article's unscaled randn draws make scores of several hundred: there the
# float32 rounding of X and the weights alone moves the float64 result by more than TOL (NumPy's
# own float32 run of the program differs from its float64 run as much as the core does). Checked
# against that float32 run instead, and against float64 as "no further than NumPy in float32".
LARGE = [
    (1, "w " * 8, 8, 32, 16),
    (3, "w " * 32, 32, 64, 64),
    (42, "w " * 8, 8, 256, 64),
]
REL32 = 1e-5  # against NumPy in float32: relative to the largest entry (1 for the weights)


class Checker:
    def __init__(self):
        self.checks = 0
        self.failed = 0

    def check(self, ok, what):
        self.checks += 1
        if not ok:
            self.failed += 1
            print("FAIL: " + what)
        return ok


def set_sizes(program, seed, n, d_model, d_k):
    """The article's program with its four values changed, and a print of every result."""
    subs = [(r"^np\.random\.seed\(\d+\)", "np.random.seed(%d)" % seed),
            (r"^seq_len = \d+", "seq_len = %d" % n),
            (r"^d_model = \d+", "d_model = %d" % d_model),
            (r"^d_k = \d+", "d_k = %d" % d_k)]
    for pattern, repl in subs:
        program, count = re.subn(pattern, repl, program, flags=re.M)
        if count != 1:
            raise SystemExit("check_numpy: %r found %d times in the program" % (pattern, count))
    return program + with_results()


def in_float32(program):
    """The program with X and the weights cast to float32 before Q, K, V: NumPy then computes
    every later step in float32, as the core does."""
    cast = "X, W_Q, W_K, W_V = (a.astype(np.float32) for a in (X, W_Q, W_K, W_V))\n"
    program, count = re.subn(r"^(Q = X @ W_Q)", lambda m: cast + m.group(1), program, flags=re.M)
    if count != 1:
        raise SystemExit("check_numpy: 'Q = X @ W_Q' found %d times in the program" % count)
    return program


def with_results():
    names = ["X", "W_Q", "W_K", "W_V", "weights", "output"]
    return "\nimport json as _json\nprint(%r)\nprint(_json.dumps({%s}))\n" % (
        MARK, ", ".join("%r: %s.tolist()" % (k, k) for k in names))


def run_python(source):
    r = subprocess.run([sys.executable, "-"], input=source.encode(), capture_output=True)
    if r.returncode != 0:
        raise SystemExit("check_numpy: the program failed: " + r.stderr.decode()[-500:])
    out = r.stdout.decode()
    printed, _, results = out.partition(MARK + "\n")
    return printed, json.loads(results)


def worst(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return float("inf")
    return float(np.max(np.abs(a - b)))


def main():
    qkv, program_path = sys.argv[1], sys.argv[2]
    with open(program_path, encoding="utf-8") as f:
        article = f.read()
    c = Checker()
    for (seed, text, n, d_model, d_k), large in [(c, False) for c in CASES] + [(c, True) for c in LARGE]:
        what = "seed %d, n %d, d_model %d, d_k %d" % (seed, n, d_model, d_k)
        r = subprocess.run([qkv, "trace", text, "--model", "numpy", "--seed", str(seed),
                            "--d-model", str(d_model), "--d-k", str(d_k), "--heads", "1"],
                           capture_output=True)
        if not c.check(r.returncode == 0, "%s: qkv failed: %s" % (what, r.stderr.decode())):
            continue
        t = json.loads(r.stdout)
        c.check(len(t["tokens"]) == n, "%s: %d tokens, want %d" % (what, len(t["tokens"]), n))
        c.check(t["config"]["weights"] == "numpy", what + ": config.weights is not numpy")
        program = "".join(line["text"] + "\n" for line in t["program"]["lines"])
        c.check(t["program"]["matches"] is True, what + ": program.matches is not true")
        c.check("positions" not in t, what + ": positions were added")
        printed, np_run = run_python(set_sizes(article, seed, n, d_model, d_k))
        h = t["heads"][0]
        ours = {"X": t["X"], "W_Q": h["W_Q"], "W_K": h["W_K"], "W_V": h["W_V"],
                "weights": h["weights"], "output": t["output"]}
        for k in ["X", "W_Q", "W_K", "W_V"]:
            # float32 rounding of NumPy's float64 draws: relative 2^-24
            want = np.asarray(np_run[k])
            d = worst(ours[k], want.astype(np.float32))
            c.check(d == 0.0, "%s: %s differs from NumPy's draws rounded to float32 by %g" % (what, k, d))
        _, np32 = run_python(in_float32(set_sizes(article, seed, n, d_model, d_k)))
        for k in ["weights", "output"]:
            d = worst(ours[k], np_run[k])
            d32 = worst(np32[k], np_run[k])  # NumPy in float32 against NumPy in float64
            if not large:
                c.check(d <= TOL, "%s: %s differs from NumPy by %g (limit %g)" % (what, k, d, TOL))
            c.check(d <= 2 * d32 + 1e-6, "%s: %s differs from NumPy by %g, NumPy in float32 by %g"
                    % (what, k, d, d32))
            scale = 1.0 if k == "weights" else max(1.0, float(np.max(np.abs(np32[k]))))
            e32 = worst(ours[k], np32[k])
            c.check(e32 <= REL32 * scale, "%s: %s differs from NumPy in float32 by %g (limit %g)"
                    % (what, k, e32, REL32 * scale))
            print("%s: %s worst |diff| %.3g (NumPy in float32: %.3g from float64, %.3g from qkv)"
                  % (what, k, d, d32, e32))
        # the program qkv hands out is the article's with these sizes: it prints the same
        printed2, np_run2 = run_python(program + with_results())
        c.check(printed2 == printed and np_run2 == np_run,
                what + ": the program qkv hands out does not print what the article's program prints")
        c.check(("np.random.seed(%d)\n" % seed) in program, what + ": the program's seed line")
    # other options: the program no longer computes the trace, and qkv says so
    for extra in (["--causal"], ["--no-scale"], ["--temperature", "2"], ["--tie-qk"]):
        r = subprocess.run([qkv, "trace", "小猫爱吃鱼", "--model", "numpy", "--d-k", "4"] + extra,
                           capture_output=True)
        ok = r.returncode == 0 and json.loads(r.stdout)["program"]["matches"] is False
        c.check(ok, "program.matches with %s should be false" % " ".join(extra))
    print("check_numpy: %d checks, %d failed" % (c.checks, c.failed))
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
