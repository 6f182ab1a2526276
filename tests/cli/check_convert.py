"""check_convert.py: `qkv convert` on every Hugging Face fixture folder (tests/fixtures/hf) in
each dtype (CTest entry "cli_convert"). The converted file is read back by `qkv trace --model`:
in f32 its traces equal `qkv trace --hf` on the folder exactly (every field but the model card's
dtype and file size); in f16 and int8 every layer's every head's weights on the test sentence
(its ids, cut to the model's positions, as convert printed them) differ from the folder's by at most the max_weight_change convert printed, and that bound is
reached; the printed size is the file's, and int8 < f16 < f32. Other sentences are checked to
trace. Not the format's edge cases (tests/core/test_real_model_file.cpp, tests/cli/run.sh).
usage: /usr/bin/python3 tests/cli/check_convert.py PATH/TO/qkv
"""

import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures", "hf")
SENTENCES = ["the cat sat, it was tired.", "小猫吃鱼", "the 猫 was tired"]


def run(qkv, *args):
    p = subprocess.run([qkv, *args], capture_output=True, text=True)
    if p.returncode != 0 or p.stderr:
        raise AssertionError(f"qkv {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def weight_change(a, b):
    worst = 0.0
    assert len(a["layers"]) == len(b["layers"])
    for la, lb in zip(a["layers"], b["layers"]):
        for ha, hb in zip(la["heads"], lb["heads"]):
            for ra, rb in zip(ha["weights"], hb["weights"]):
                for x, y in zip(ra, rb):
                    if x is None or y is None:
                        assert x is None and y is None
                        continue
                    worst = max(worst, abs(x - y))
    return worst


def main():
    qkv = sys.argv[1]
    folders = sorted(d for d in os.listdir(FIXTURES) if os.path.isdir(os.path.join(FIXTURES, d)))
    assert len(folders) >= 6, folders
    failures = 0
    checks = 0
    with tempfile.TemporaryDirectory() as tmp:
        for folder in folders:
            src = os.path.join(FIXTURES, folder)
            sizes = {}
            for dtype in ("f32", "f16", "int8"):
                what = f"{folder} {dtype}"
                try:
                    out = os.path.join(tmp, f"{folder}-{dtype}.apm")
                    report = run(qkv, "convert", src, out, "--dtype", dtype)
                    assert report["dtype"] == dtype, report
                    assert report["bytes"] == os.path.getsize(out), "printed size is not the file's"
                    sizes[dtype] = report["bytes"]
                    ids = ",".join(str(i) for i in report["ids"])
                    assert len(report["ids"]) == report["tokens"] > 1, report
                    for layer in ("0", "1"):
                        folder_trace = run(qkv, "trace", "--hf", src, "--ids", ids, "--layer", layer)
                        file_trace = run(qkv, "trace", "--model", out, "--ids", ids, "--layer", layer)
                        assert file_trace["model"]["file_bytes"] == report["bytes"]
                        assert file_trace["model"]["dtype"] == dtype.upper()
                        change = weight_change(folder_trace, file_trace)
                        if dtype == "f32":
                            for t in (folder_trace, file_trace):
                                del t["model"]["dtype"], t["model"]["file_bytes"]
                            assert folder_trace == file_trace, "f32 traces differ from the folder's"
                            assert report["max_weight_change"] == 0, report
                        else:
                            bound = report["max_weight_change"]
                            assert change <= bound, f"change {change} past the printed {bound}"
                            assert change == bound, f"change {change}, printed {bound}"
                    for text in SENTENCES:
                        a = run(qkv, "trace", "--model", out, text, "--head", "1")
                        b = run(qkv, "trace", "--hf", src, text, "--head", "1")
                        assert a["ids"] == b["ids"] and a["tokens"] == b["tokens"], text
                    checks += 1
                except AssertionError as e:
                    failures += 1
                    print(f"FAIL: {what}: {e}")
            if not sizes["int8"] < sizes["f16"] < sizes["f32"]:
                failures += 1
                print(f"FAIL: {folder}: sizes {sizes}")
    print(f"cli_convert: {checks} conversions checked, {failures} failed")
    return 1 if failures or checks == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
