"""check_attend.py: runs `qkv attend` on every case of tests/fixtures/attention_v1.json and
compares every stage with the NumPy reference (|got - want| <= 1e-5 * max(1, |want|); null,
meaning -inf, exactly where NumPy has null). Also `qkv trace` properties on a Chinese sentence.
Not the error-path checks (run.sh does those).

usage: /usr/bin/python3 check_attend.py QKV FIXTURE
Prints one line per failure and a last line "check_attend: N checks, M failed"; exits 1 on failure.
"""

import json
import os
import subprocess
import sys
import tempfile

TOL = 1e-5
STAGES = ["Q", "K", "V", "scores", "scaled", "masked", "weights", "output"]


class Checker:
    def __init__(self):
        self.checks = 0
        self.failures = []

    def check(self, ok, what):
        self.checks += 1
        if not ok:
            self.failures.append(what)
            print("FAIL: " + what)
        return ok


def close(got, want):
    if want is None:
        return got is None
    if got is None or isinstance(got, bool) or not isinstance(got, (int, float)):
        return False
    return abs(got - want) <= TOL * max(1.0, abs(want))


def first_mismatch(got, want):
    """None when matrices match, else a description of the first difference."""
    if not isinstance(got, list) or len(got) != len(want):
        return "row count %s != %d" % (len(got) if isinstance(got, list) else "?", len(want))
    for r, (grow, wrow) in enumerate(zip(got, want)):
        if not isinstance(grow, list) or len(grow) != len(wrow):
            return "row %d has the wrong length" % r
        for c, (g, w) in enumerate(zip(grow, wrow)):
            if not close(g, w):
                return "(%d,%d): got %r, NumPy %r" % (r, c, g, w)
    return None


def run_qkv(qkv, args, stdin=None):
    p = subprocess.run([qkv] + args, input=stdin, capture_output=True, timeout=30)
    return p.returncode, p.stdout, p.stderr


def check_attend(chk, qkv, fixture, tmpdir):
    for i, case in enumerate(fixture["cases"]):
        name = case["name"]
        path = os.path.join(tmpdir, "case%d.json" % i)
        with open(path, "w") as f:
            json.dump(case["inputs"], f)
        # every other case goes through standard input, to cover `attend -`
        if i % 2:
            rc, out, err = run_qkv(qkv, ["attend", "-"], stdin=json.dumps(case["inputs"]).encode())
        else:
            rc, out, err = run_qkv(qkv, ["attend", path])
        if not chk.check(rc == 0 and err == b"", "%s: qkv attend exit %d, stderr %r" % (name, rc, err)):
            continue
        got = json.loads(out)
        exp = case["expected"]
        inp = case["inputs"]
        chk.check(got["config"]["heads"] == inp["heads"], name + ": config.heads")
        chk.check(got["config"]["d_k"] == exp["d_k"], name + ": config.d_k")
        chk.check(got["config"]["causal"] == inp["causal"], name + ": config.causal")
        chk.check(got["config"]["scale"] == inp["scale"], name + ": config.scale")
        chk.check(close(got["config"]["scale_factor"], exp["scale_factor"]), name + ": scale_factor")
        chk.check(close(got["config"]["temperature"], inp["temperature"]), name + ": temperature")
        chk.check(first_mismatch(got["X"], inp["X"]) is None, name + ": X round trip")
        if not chk.check(len(got["heads"]) == inp["heads"], name + ": number of heads"):
            continue
        for h, (gh, eh) in enumerate(zip(got["heads"], exp["heads"])):
            for stage in STAGES:
                m = first_mismatch(gh[stage], eh[stage])
                chk.check(m is None, "%s head %d %s %s" % (name, h, stage, m))
        for stage in ["concat", "output"]:
            m = first_mismatch(got[stage], exp[stage])
            chk.check(m is None, "%s %s %s" % (name, stage, m))


def check_trace(chk, qkv):
    sentence = "小猫吃鱼，它很开心"
    for extra in ([], ["--causal"], ["--model", "random", "--heads", "4", "--d-model", "16", "--temperature", "0.5"]):
        rc, out, err = run_qkv(qkv, ["trace", sentence] + extra)
        label = "trace %s" % " ".join(extra)
        if not chk.check(rc == 0 and err == b"", "%s: exit %d, stderr %r" % (label, rc, err)):
            continue
        t = json.loads(out)
        chk.check(t["tokens"] == ["小猫", "吃", "鱼", "，", "它", "很", "开心"],
                  "%s: tokens %r" % (label, t["tokens"]))
        n = len(t["tokens"])
        chk.check(t["config"]["n"] == n, label + ": config.n")
        for h, head in enumerate(t["heads"]):
            w = head["weights"]
            chk.check(len(w) == n and all(len(row) == n for row in w), "%s head %d: weights shape" % (label, h))
            for i, row in enumerate(w):
                chk.check(all(isinstance(v, float) and v >= 0 for v in row),
                          "%s head %d row %d: weights not all non-negative numbers" % (label, h, i))
                s = sum(row)
                chk.check(abs(s - 1.0) <= 1e-5, "%s head %d row %d sums to %r" % (label, h, i, s))
                if "--causal" in extra:
                    chk.check(all(v == 0 for v in row[i + 1:]),
                              "%s head %d row %d: looks ahead" % (label, h, i))
                    chk.check(all(v is None for v in head["masked"][i][i + 1:]),
                              "%s head %d row %d: masked cells are not null" % (label, h, i))


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    qkv, fixture_path = sys.argv[1], sys.argv[2]
    with open(fixture_path, encoding="utf-8") as f:
        fixture = json.load(f)
    chk = Checker()
    chk.check(fixture.get("format_version") == 1, "fixture format_version")
    chk.check(len(fixture.get("cases", [])) > 0, "fixture has cases")
    with tempfile.TemporaryDirectory() as tmpdir:
        check_attend(chk, qkv, fixture, tmpdir)
    check_trace(chk, qkv)
    print("check_attend: %d checks, %d failed" % (chk.checks, len(chk.failures)))
    return 1 if chk.failures else 0


if __name__ == "__main__":
    sys.exit(main())
