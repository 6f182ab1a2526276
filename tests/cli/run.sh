#!/usr/bin/env bash
# run.sh: end-to-end checks of the qkv CLI (CTest entry "cli"). Fixture cases through `qkv attend`
# must match NumPy; every bad input must exit 2 with exactly one line on stderr and nothing on
# stdout. Not the core's unit tests (tests/core). usage: tests/cli/run.sh PATH/TO/qkv
set -u

qkv=${1:?usage: tests/cli/run.sh PATH/TO/qkv}
here=$(cd "$(dirname "$0")" && pwd)
fixture="$here/../fixtures/attention_v1.json"
py=/usr/bin/python3  # Debian's interpreter; `python3` on PATH may lack what we need
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

passed=0
failed=0
pass() { passed=$((passed + 1)); }
fail() {
  failed=$((failed + 1))
  echo "FAIL: $*"
}

# expect_error DESCRIPTION STDIN_FILE ARGS...: qkv ARGS < STDIN_FILE must exit 2, print nothing
# on stdout and exactly one non-empty line on stderr.
expect_error() {
  local desc=$1 input=$2
  shift 2
  "$qkv" "$@" <"$input" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  local lines
  lines=$(wc -l <"$tmp/err")
  if [[ $rc -ne 2 ]]; then
    fail "$desc: exit status $rc, want 2 (stderr: $(head -c 300 "$tmp/err"))"
  elif [[ $lines -ne 1 || $(wc -c <"$tmp/err") -lt 10 || $(tail -c 1 "$tmp/err") != "" ]]; then
    fail "$desc: stderr has $lines lines, want exactly 1: $(head -c 300 "$tmp/err")"
  elif [[ -s $tmp/out ]]; then
    fail "$desc: wrote to stdout on error: $(head -c 100 "$tmp/out")"
  else
    pass
  fi
}

# expect_ok DESCRIPTION STDIN_FILE ARGS...: exit 0, empty stderr, JSON on stdout.
expect_ok() {
  local desc=$1 input=$2
  shift 2
  "$qkv" "$@" <"$input" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [[ $rc -ne 0 || -s $tmp/err ]]; then
    fail "$desc: exit status $rc, stderr: $(head -c 300 "$tmp/err")"
  elif ! "$py" -c 'import json,sys; json.load(sys.stdin)' <"$tmp/out" 2>/dev/null; then
    fail "$desc: stdout is not JSON"
  else
    pass
  fi
}

if [[ ! -x $qkv ]]; then
  echo "FAIL: $qkv is not an executable"
  echo "cli: 0 passed, 1 failed"
  exit 1
fi

null=/dev/null
printf 'a\000b' >"$tmp/nul.txt"
printf 'a\001b' >"$tmp/soh.txt"
printf '\355\240\200' >"$tmp/surrogate.txt"
: >"$tmp/empty.txt"
printf '{"X": [[1, 2]' >"$tmp/cut.json"
printf '[1, 2]' >"$tmp/list.json"
printf '{"X": [[1, 2], [3]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]}' >"$tmp/ragged.json"
printf '{"X": [[1e400]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]}' >"$tmp/huge.json"
printf '{"X": [[1, 2]], "W_Q": [[1, 0], [0, 1]], "W_K": [[1, 0], [0, 1]], "W_V": [[1, 0], [0, 1]], "heads": 3}' >"$tmp/heads3.json"
printf '{"X": [[1, 2]], "W_Q": [[1, 0], [0, 1]], "W_K": [[1, 0], [0, 1]], "W_V": [[1, 0], [0, 1]], "temperature": 0}' >"$tmp/temp0.json"
printf '{"X": [[1, 2]], "W_Q": [[1, 0], [0, 1]], "W_K": [[1, 0], [0, 1]], "W_V": [[1, 0], [0, 1]], "bogus": 1}' >"$tmp/unknown.json"
printf '{"X": [[1, 2]], "W_Q": [[1, 0], [0, 1]], "W_K": [[1, 0], [0, 1]], "W_V": [[1, 0], [0, 1]], "temperature": 1e300}' >"$tmp/temp1e300.json"
printf '{"X": [[1e20, 1e20], [1, 2]], "W_Q": [[1, 0], [0, 1]], "W_K": [[1, 0], [0, 1]], "W_V": [[1, 0], [0, 1]]}' >"$tmp/overflow.json"
"$py" -c 'import sys; sys.stdout.write("[" * 100000)' >"$tmp/deep.json"
"$py" -c 'import sys; sys.stdout.write("[" * 100000 + "]" * 100000)' >"$tmp/deep_closed.json"
words65=$(for i in $(seq 65); do printf 'a '; done)
han513=$(for i in $(seq 513); do printf '鱼'; done)

# --- happy paths -------------------------------------------------------------------------------
expect_ok "tokenize Chinese" $null tokenize "小猫吃鱼，它很开心"
expect_ok "trace Chinese" $null trace "小猫吃鱼，它很开心"
expect_ok "trace from stdin" <(printf '小猫吃鱼') trace -
expect_ok "65 tokens with --max-tokens 512" $null tokenize "$words65" --max-tokens 512
expect_ok "trace 65 tokens with --max-tokens 512" $null trace "$words65" --max-tokens 512
expect_ok "explicit --d-k with heads not dividing d_model" $null trace "I love you" --model random --heads 3 --d-k 4
expect_error "shaping flags with the trained model" $null trace "I love you" --heads 4
expect_error "a model file that is not one" $null trace "I love you" --model "$0"
expect_error "a model file that does not exist" $null trace "I love you" --model /nonexistent.apm
if "$qkv" --help 2>&1 | grep -q '^usage: qkv'; then pass; else fail "--help prints no usage"; fi

# the trained model's trace exposes every layer; "heads" is the last layer's
"$qkv" trace "小猫吃鱼，它很开心" >"$tmp/layers.json" 2>&1
if "$py" - "$tmp/layers.json" <<'PY' 2>"$tmp/layers.err"; then pass; else fail "trace layers: $(head -c 300 "$tmp/layers.err")"; fi
import json, sys
t = json.load(open(sys.argv[1]))
L = t["layers"]
assert len(L) >= 2, "fewer than 2 layers"
assert L[-1]["heads"] == t["heads"], "heads is not the last layer's"
assert L[0]["heads"] != t["heads"], "the first layer equals the last"
X0 = [[a + b for a, b in zip(e, p)] for e, p in zip(t["embeddings"], t["positions"])]
assert all(abs(x - y) < 1e-6 for r, s in zip(L[0]["input"], X0) for x, y in zip(r, s)), "X_0 != E + P"
for l in L:
    for h in l["heads"]:
        for row in h["weights"]:
            assert abs(sum(row) - 1) < 1e-5
    assert len(l["hidden"]) == len(t["tokens"]) and len(l["stream"]) == len(t["tokens"])
notes = t["model"]["notes"]
assert len(notes) == len(L) and all(len(n) == len(l["heads"]) for n, l in zip(notes, L))
assert all("role" in h and isinstance(h["numbers"], dict) for n in notes for h in n)
assert len(t["readout"]) == len(t["tokens"])
PY

# tokens of the example sentence
out=$("$qkv" tokenize "小猫吃鱼，它很开心" 2>&1)
if "$py" -c 'import json,sys; t=json.loads(sys.argv[1])["tokens"]; sys.exit(t != ["小猫","吃","鱼","，","它","很","开心"])' "$out" 2>/dev/null; then
  pass
else
  fail "tokenize 小猫吃鱼，它很开心: $out"
fi

# a byte order mark on standard input (files saved by some editors) is not a token
out=$(printf '\357\273\277小猫吃鱼' | "$qkv" tokenize - 2>&1)
if "$py" -c 'import json,sys; t=json.loads(sys.argv[1])["tokens"]; sys.exit(t != ["小猫","吃","鱼"])' "$out" 2>/dev/null; then
  pass
else
  fail "tokenize with a BOM: $out"
fi

# --- fixtures through `qkv attend`, and trace properties ----------------------------------------
if "$py" "$here/check_attend.py" "$qkv" "$fixture" >"$tmp/check.txt" 2>&1; then
  pass
else
  fail "check_attend.py:"
  cat "$tmp/check.txt"
fi
tail -n 1 "$tmp/check.txt"

# --- the article's NumPy program against `qkv trace --model numpy` --------------------------
if "$py" "$here/check_numpy.py" "$qkv" "$here/../../src/data/numpy_example.py" >"$tmp/numpy.txt" 2>&1; then
  pass
else
  fail "check_numpy.py:"
  cat "$tmp/numpy.txt"
fi
tail -n 1 "$tmp/numpy.txt"

# --- bad inputs: exit 2, one line on stderr ------------------------------------------------------
expect_error "empty text" $null tokenize ""
expect_error "empty text (trace)" $null trace ""
expect_error "whitespace only" $null tokenize "   "
expect_error "whitespace and tabs only" $null trace "$(printf ' \t ')"
expect_error "invalid UTF-8 argument (surrogate)" $null tokenize "$(printf '\355\240\200')"
expect_error "invalid UTF-8 argument (lone continuation)" $null trace "$(printf 'ab\200')"
expect_error "invalid UTF-8 argument (overlong)" $null tokenize "$(printf '\300\257')"
expect_error "invalid UTF-8 argument (F5)" $null tokenize "$(printf '\365\200\200\200')"
expect_error "invalid UTF-8 on stdin" "$tmp/surrogate.txt" tokenize -
expect_error "NUL byte on stdin" "$tmp/nul.txt" tokenize -
expect_error "NUL byte on stdin (trace)" "$tmp/nul.txt" trace -
expect_error "control character U+0001 on stdin" "$tmp/soh.txt" tokenize -
expect_error "over the token cap (65 > 64)" $null tokenize "$words65"
expect_error "over the token cap (trace)" $null trace "$words65"
expect_error "over the raised cap (513 > 512)" $null tokenize "$han513" --max-tokens 512
expect_error "--max-tokens 513" $null tokenize "a" --max-tokens 513
expect_error "--max-tokens 0" $null tokenize "a" --max-tokens 0
expect_error "unknown option" $null trace "hi" --bogus
expect_error "unknown option for tokenize" $null tokenize "hi" --heads 2
expect_error "unknown command" $null frobnicate "hi"
expect_error "two texts" $null trace "a" "b"
expect_error "no text" $null trace
expect_error "option without value" $null trace "hi" --heads
expect_error "--heads 0" $null trace "hi" --heads 0
expect_error "--heads 17" $null trace "hi" --heads 17
expect_error "--heads abc" $null trace "hi" --heads abc
expect_error "--heads 2.5" $null trace "hi" --heads 2.5
expect_error "--heads 99999999999999999999" $null trace "hi" --heads 99999999999999999999
expect_error "--d-model 0" $null trace "hi" --d-model 0
expect_error "--temperature 0" $null trace "hi" --temperature 0
expect_error "--temperature -1" $null trace "hi" --temperature -1
expect_error "--temperature nan" $null trace "hi" --temperature nan
expect_error "--temperature inf" $null trace "hi" --temperature inf
expect_error "--temperature 1e999" $null trace "hi" --temperature 1e999
expect_error "--temperature abc" $null trace "hi" --temperature abc
expect_error "--seed -1" $null trace "hi" --seed -1
expect_error "--seed abc" $null trace "hi" --seed abc
expect_error "--seed 2^64" $null trace "hi" --seed 18446744073709551616
expect_error "heads not dividing d_model" $null trace "I love you" --model random --d-model 8 --heads 3
expect_error "numpy model with 2 heads" $null trace "I love you" --model numpy --heads 2
expect_error "numpy model, seed 2^32" $null trace "I love you" --model numpy --seed 4294967296
expect_error "attend: malformed JSON" "$tmp/cut.json" attend -
expect_error "attend: not an object" "$tmp/list.json" attend -
expect_error "attend: ragged rows" "$tmp/ragged.json" attend -
expect_error "attend: 1e400" "$tmp/huge.json" attend -
expect_error "attend: unknown key" "$tmp/unknown.json" attend -
expect_error "attend: heads not dividing the columns" "$tmp/heads3.json" attend -
expect_error "attend: temperature 0" "$tmp/temp0.json" attend -
expect_error "attend: temperature 1e300" "$tmp/temp1e300.json" attend -
expect_error "attend: scores overflow float32" "$tmp/overflow.json" attend -
expect_error "--temperature 1e300" $null trace "hi" --temperature 1e300
expect_error "attend: 100000 '['" "$tmp/deep.json" attend -
expect_error "attend: 100000 '[' closed" "$tmp/deep_closed.json" attend "$tmp/deep_closed.json"
expect_error "attend: empty stdin" "$tmp/empty.txt" attend -
expect_error "attend: empty file" $null attend "$tmp/empty.txt"
expect_error "tokenize: empty stdin" "$tmp/empty.txt" tokenize -
expect_error "trace: empty stdin" "$tmp/empty.txt" trace -
expect_error "attend: missing file" $null attend "$tmp/does-not-exist.json"
expect_error "attend: a directory" $null attend "$tmp"
expect_error "attend: no file" $null attend
expect_error "attend: two files" $null attend "$tmp/cut.json" "$tmp/cut.json"

# --- bounded memory: endless or huge inputs stop at the documented cap ---------------------------
# expect_capped DESCRIPTION STDIN WORD ARGS...: like expect_error, under a 400 MB memory limit
# and a 120 s timeout (reading everything first would run out or never end), and the one line
# must contain WORD (so "out of memory" does not count as the cap). The limit is an address-space
# limit (ulimit -v), or, for a binary built with AddressSanitizer (which reserves terabytes of
# shadow address space at start), ASan's hard limit on resident memory, set higher (ASan's
# redzones and quarantine multiply what a capped read holds; an uncapped one still runs past it).
if grep -q __asan_init "$qkv"; then
  limited() { ASAN_OPTIONS="${ASAN_OPTIONS:-}:hard_rss_limit_mb=1500" "$@"; }
else
  limited() { (ulimit -v 400000; "$@"); }
fi
expect_capped() {
  local desc=$1 input=$2 word=$3
  shift 3
  limited timeout 120 "$qkv" "$@" <"$input" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [[ $rc -ne 2 ]]; then
    fail "$desc: exit status $rc, want 2 (stderr: $(head -c 300 "$tmp/err"))"
  elif [[ $(wc -l <"$tmp/err") -ne 1 ]] || ! grep -q -- "$word" "$tmp/err"; then
    fail "$desc: want one line containing \"$word\": $(head -c 300 "$tmp/err")"
  elif [[ -s $tmp/out ]]; then
    fail "$desc: wrote to stdout on error"
  else
    pass
  fi
}
truncate -s 1G "$tmp/sparse.bin"
expect_capped "trace - < /dev/zero" /dev/zero "more than 100000 bytes" trace -
expect_capped "tokenize - < /dev/zero" /dev/zero "more than 100000 bytes" tokenize -
expect_capped "attend - < /dev/zero" /dev/zero "more than 67108864 bytes" attend -
expect_capped "attend /dev/zero" $null "more than 67108864 bytes" attend /dev/zero
expect_capped "attend a 1 GB sparse file" $null "more than 67108864 bytes" attend "$tmp/sparse.bin"
expect_capped "trace --model /dev/zero" $null "larger than" trace x --model /dev/zero
expect_capped "trace --model a 1 GB sparse file" $null "larger than" trace x --model "$tmp/sparse.bin"
rm -f "$tmp/sparse.bin"
# a model file whose header claims about 100 million parameters in 3 KB (v4) or 5 KB (v3)
# (scripts/gen_crafted_models.py): refused from its header, before the network is allocated. Its
# peak resident memory is held to a normal trace's plus 16 MiB.
peak_mib() {
  "$py" -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], capture_output=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)' "$@"
}
normal=$(peak_mib "$qkv" trace x)
# expect_small_peak DESCRIPTION ARGS...: qkv ARGS peaks within a normal trace's memory + 16 MiB
expect_small_peak() {
  local desc=$1 peak
  shift
  peak=$(peak_mib "$qkv" "$@")
  if ((peak <= normal + 16)); then
    pass
  else
    fail "$desc: peak memory $peak MiB, a normal trace $normal MiB"
  fi
}
for v in v4 v3; do
  crafted="$here/../fuzz/corpus/model_file/regress-header-claims-100m-parameters-$v"
  expect_capped "trace --model crafted $v" $null "the model's parameters" trace x --model "$crafted"
  expect_small_peak "trace --model crafted $v" trace x --model "$crafted"
done
# within the per-flag limits, heads x d_k is capped (16 x 1024 would need gigabytes)
expect_capped "--heads 16 --d-k 1024" $null "heads x d_k" trace x --model random --d-model 1024 --heads 16 --d-k 1024
expect_capped "empty text with huge flags" $null "heads x d_k" trace "" --model random --d-model 1024 --heads 16 --d-k 1024
expect_error "empty text with the largest allowed flags" $null trace "" --model random --d-model 1024 --heads 16 --d-k 64
# n x n x heads is capped too: 512 tokens with 16 heads would be hundreds of MB of JSON
many=$(printf 'w %.0s' $(seq 512))
expect_capped "512 tokens x 16 heads" $null "attention weights; the limit is 2097152" trace "$many" --model random --d-model 1024 --heads 16 --d-k 64 --max-tokens 512
# a million tiny numbers: refused by count while parsing
"$py" -c 'import sys; sys.stdout.write("{\"X\": [[" + ",".join(["0"] * 6000000) + "]]}")' >"$tmp/many.json"
expect_capped "attend: 6 million numbers" "$tmp/many.json" "values" attend -

# --- messages: control characters escaped, one short line ---------------------------------------
# expect_clean DESCRIPTION STDIN ARGS...: exit 2, one line of at most 500 bytes, no byte below
# 0x20 but the final newline, no DEL.
expect_clean() {
  local desc=$1 input=$2
  shift 2
  "$qkv" "$@" <"$input" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [[ $rc -ne 2 ]]; then
    fail "$desc: exit status $rc, want 2"
  elif [[ $(wc -l <"$tmp/err") -ne 1 || $(wc -c <"$tmp/err") -gt 500 ]]; then
    fail "$desc: stderr is not one short line ($(wc -c <"$tmp/err") bytes)"
  elif LC_ALL=C grep -q $'[\x01-\x1f\x7f]' "$tmp/err" || [[ $(tr -d '\000' <"$tmp/err" | wc -c) -ne $(wc -c <"$tmp/err") ]]; then
    fail "$desc: raw control characters on stderr: $(od -c "$tmp/err" | head -3)"
  else
    pass
  fi
}
printf '{"\\u001b]0;PWNED\\u0007\\u001b[31mRED":1}' >"$tmp/esc.json"
printf '{"a\\u0000b":1}' >"$tmp/nulkey.json"
"$py" -c 'import sys; sys.stdout.write("{\"" + "k" * 1000000 + "\": 1}")' >"$tmp/bigkey.json"
"$py" -c 'import sys; sys.stdout.write("{\"X\": [[1" + "1" * 10000000 + "]]}")' >"$tmp/bignum.json"
expect_clean "attend: ESC and BEL in a key" "$tmp/esc.json" attend -
expect_clean "attend: NUL in a key" "$tmp/nulkey.json" attend -
if grep -q 'a\\u0000b' "$tmp/err"; then pass; else fail "NUL key message cut: $(cat "$tmp/err")"; fi
expect_clean "attend: a 1 MB key" "$tmp/bigkey.json" attend -
expect_clean "attend: a 10 MB number" "$tmp/bignum.json" attend -
expect_clean "an option with ESC" $null trace x $'--bog\e[31mus'
expect_clean "a model path with OSC" $null trace x --model $'/no\e]0;T\a'
expect_clean "a 100 KB unknown option" $null trace x "--$("$py" -c 'print("z" * 100000)')"
expect_clean "an unknown command with ESC" $null $'fro\ebnicate' x

# --- duplicate JSON keys ---------------------------------------------------------------------------
printf '{"X": [[1]], "X": [[1, 2]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]}' >"$tmp/dup.json"
expect_error "attend: a key given twice" "$tmp/dup.json" attend -
if grep -q '"X" appears twice' "$tmp/err"; then pass; else fail "duplicate key not named: $(cat "$tmp/err")"; fi

# --- tokenizer: invisible characters and ZWJ -------------------------------------------------------
out=$("$qkv" tokenize "$(printf 'x \u2060 y \u180e \u3164 \uffa0 \ufff9')" 2>&1)
if "$py" -c 'import json,sys; sys.exit(json.loads(sys.argv[1])["tokens"] != ["x", "y"])' "$out" 2>/dev/null; then
  pass
else
  fail "invisible characters became tokens: $out"
fi
out=$("$qkv" tokenize "$(printf '=\u200dcmd')" 2>&1)
if "$py" -c 'import json,sys; sys.exit(json.loads(sys.argv[1])["tokens"][1:] != ["cmd"])' "$out" 2>/dev/null; then
  pass
else
  fail "ZWJ split a word: $out"
fi
expect_error "only ZWJ and variation selectors" $null tokenize "$(printf '\u200d\ufe0f\u200d')"

# --- qkv trace --hf: a Hugging Face folder (tests/fixtures/hf, scripts/gen_hf_fixtures) --------
hf="$here/../fixtures/hf"
for folder in gpt2_f16_prefixed bert_f32_prefixed; do
  ids=$("$py" -c 'import json,sys; print(",".join(map(str, json.load(open(sys.argv[1]))["cases"][1]["ids"])))' \
    "$hf/$folder/reference.json")
  "$qkv" trace --hf "$hf/$folder" --ids "$ids" --layer 1 --head 2 >"$tmp/hf.json" 2>"$tmp/err"
  if "$py" - "$tmp/hf.json" "$hf/$folder/reference.json" <<'PY' 2>"$tmp/pyerr"; then
import json, sys
t = json.load(open(sys.argv[1]))
ref = json.load(open(sys.argv[2]))["cases"][1]
assert t["config"]["layer"] == 1 and t["config"]["head"] == 2, t["config"]
assert t["ids"] == ref["ids"]
assert t["model"]["model_type"] in ("gpt2", "bert")
worst = 0.0
for l, layer in enumerate(t["layers"]):
    for h, head in enumerate(layer["heads"]):
        for row, want in zip(head["weights"], ref["weights"][l][h]):
            worst = max(worst, max(abs((a or 0.0) - b) for a, b in zip(row, want)))
for row, want in zip(t["heads"][2]["weights"], ref["weights"][1][2]):
    worst = max(worst, max(abs(a - b) for a, b in zip(row, want)))
assert worst < 1e-5, worst
assert "b_Q" in t["heads"][2] and "Q" in t["heads"][2]
# each layer's walk (the page's "X for this layer"): every LayerNorm step's mean, spread and
# output recompute from the step it reads, every add from its two, and the layer's last step is
# PyTorch's hidden state; BERT's embedding LayerNorm of embed_sum gives the first input
import math
hid = ref["hidden"]
rel = 0.0
def near(a, b):
    global rel
    rel = max(rel, abs(a - b) / max(1.0, abs(b)))
def check_norm(x, n, out, gain, bias, eps):
    for i, row in enumerate(x):
        mean = sum(row) / len(row)
        std = math.sqrt(sum((v - mean) ** 2 for v in row) / len(row) + eps)
        near(n["mean"][i], mean)
        near(n["std"][i], std)
        for c, v in enumerate(row):
            near(out[i][c], (v - mean) / std * gain[c] + bias[c])
if t["model"]["model_type"] == "bert":
    e = t["embed_norm"]
    check_norm(t["embed_sum"], e, t["input"], e["gain"], e["bias"], e["eps"])
    for row, want in zip(t["input"], hid[0]):
        for a, b in zip(row, want): near(a, b)
for l, layer in enumerate(t["layers"]):
    # the layers up to the one traced in full have their walk, the later ones none
    assert ("walk" in layer) == (l <= t["config"]["layer"]), l
    if l > t["config"]["layer"]:
        continue
    w = layer["walk"]
    steps = w["steps"]
    read = lambda f: (hid[l] if f < 0 else steps[f]["out"])
    assert [s["kind"] for s in steps].count("norm") == 2, [s["kind"] for s in steps]
    for s in steps:
        if s["kind"] == "norm":
            check_norm(read(s["from"][0]), s, s["out"], s["gain"], s["bias"], s["eps"])
        if s["kind"] == "add":
            a, b = (read(f) for f in s["from"])
            for i, row in enumerate(s["out"]):
                for c, v in enumerate(row): near(v, a[i][c] + b[i][c])
    for row, want in zip(steps[-1]["out"], hid[l + 1]):
        for a, b in zip(row, want): near(a, b)
    assert w["attention_input"] == (0 if t["model"]["model_type"] == "gpt2" else -1)
assert rel < 1e-5, ("walk", rel)
PY
    pass
  else
    fail "qkv trace --hf $folder: $(head -c 300 "$tmp/err") $(tail -c 300 "$tmp/pyerr")"
  fi
done
# a sentence through the folder's own tokenizer: the ids `qkv tokenize --hf` gives, and the
# weights of a trace of those ids
for folder in gpt2_f32 bert_bf16; do
  "$qkv" trace --hf "$hf/$folder" "the cat sat, it was tired" --layer 1 >"$tmp/text.json" 2>"$tmp/err"
  "$qkv" tokenize --hf "$hf/$folder" "the cat sat, it was tired" >"$tmp/tok.json" 2>>"$tmp/err"
  ids=$("$py" -c 'import json,sys; print(",".join(map(str, json.load(open(sys.argv[1]))["ids"])))' "$tmp/tok.json")
  "$qkv" trace --hf "$hf/$folder" --ids "$ids" --layer 1 >"$tmp/ids.json" 2>>"$tmp/err"
  if "$py" - "$tmp/text.json" "$tmp/tok.json" "$tmp/ids.json" <<'PY' 2>"$tmp/pyerr"; then
import json, sys
t, tok, i = (json.load(open(p)) for p in sys.argv[1:4])
assert t["ids"] == tok["ids"], (t["ids"], tok["ids"])
assert t["tokens"] == tok["tokens"], (t["tokens"], tok["tokens"])
assert t["layers"] == i["layers"] and t["heads"] == i["heads"]
PY
    pass
  else
    fail "qkv trace --hf $folder TEXT: $(head -c 300 "$tmp/err") $(tail -c 300 "$tmp/pyerr")"
  fi
done
mkdir -p "$tmp/mixed"
cp "$hf/bert_bf16/config.json" "$hf/bert_bf16/model.safetensors" "$hf/gpt2_f32/vocab.json" \
  "$hf/gpt2_f32/merges.txt" "$tmp/mixed/"
expect_error "--hf: a tokenizer larger than vocab_size" $null trace --hf "$tmp/mixed" "the cat"
if grep -q "vocab_size is 34" "$tmp/err"; then
  pass
else
  fail "tokenizer and vocab_size message: $(cat "$tmp/err")"
fi
expect_error "--hf: no such folder" $null trace --hf "$tmp/nowhere" --ids 1,2
expect_error "--hf: layer past the model's" $null trace --hf "$hf/gpt2_f32" --ids 1,2 --layer 2
expect_error "--hf: head past the model's" $null trace --hf "$hf/gpt2_f32" --ids 1,2 --head 4
expect_error "--hf: an id past the vocabulary" $null trace --hf "$hf/gpt2_f32" --ids 1,268
expect_error "--hf: more ids than positions" $null trace --hf "$hf/gpt2_f32" --ids 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1
expect_error "--ids without --hf" $null trace --ids 1,2
expect_error "--layer without --hf" $null trace "cat" --layer 1
mkdir -p "$tmp/llama"
echo '{"model_type": "llama", "hidden_size": 8}' >"$tmp/llama/config.json"
expect_error "--hf: an architecture not read" $null trace --hf "$tmp/llama" --ids 1
if grep -q "llama" "$tmp/err" && grep -q "gpt2 and bert" "$tmp/err"; then
  pass
else
  fail "unsupported model_type message: $(cat "$tmp/err")"
fi
mkdir -p "$tmp/cut"
cp "$hf/gpt2_f32/config.json" "$tmp/cut/"
head -c 3000 "$hf/gpt2_f32/model.safetensors" >"$tmp/cut/model.safetensors"
expect_error "--hf: a truncated model.safetensors" $null trace --hf "$tmp/cut" --ids 1
if grep -q "model.safetensors: tensor" "$tmp/err"; then
  pass
else
  fail "truncated file message names no file and tensor: $(cat "$tmp/err")"
fi

# --- qkv convert and trace --model REAL.apm: bad input (the round trips: check_convert.py) ------
expect_ok "convert gpt2_f32 int8" $null convert "$hf/gpt2_f32" "$tmp/real.apm" --dtype int8
expect_ok "trace --model a converted file" $null trace --model "$tmp/real.apm" "the cat" --head 3
expect_error "convert: an unknown dtype" $null convert "$hf/gpt2_f32" "$tmp/x.apm" --dtype bf16
expect_error "convert: no OUT" $null convert "$hf/gpt2_f32"
expect_error "convert: no such folder" $null convert "$tmp/nowhere" "$tmp/x.apm"
expect_error "convert: an unwritable OUT" $null convert "$hf/gpt2_f32" "$tmp/no/such/dir/x.apm"
expect_error "convert: a truncated model.safetensors" $null convert "$tmp/cut" "$tmp/x.apm"
if [[ -e $tmp/x.apm ]]; then fail "convert wrote OUT after a refusal"; else pass; fi
expect_error "trace --model REAL.apm: head past the model's" $null trace --model "$tmp/real.apm" x --head 4
head -c 9000 "$tmp/real.apm" >"$tmp/real-cut.apm"
expect_error "trace --model a truncated converted file" $null trace --model "$tmp/real-cut.apm" x
if grep -q "ends early (while reading layer 0 W_" "$tmp/err"; then
  pass
else
  fail "a truncated converted file's message names no parameter: $(cat "$tmp/err")"
fi
cp "$tmp/real.apm" "$tmp/real-flip.apm"
printf '\x55' | dd of="$tmp/real-flip.apm" bs=1 seek=12000 conv=notrunc 2>/dev/null
expect_error "trace --model a converted file with a changed byte" $null trace --model "$tmp/real-flip.apm" x
grep -q "checksum" "$tmp/err" && pass || fail "a changed byte: $(cat "$tmp/err")"
# a converted file whose config claims GPT-2 small (about 500 MB) in under 1 KB: refused from the
# config before the tokenizer or a weight is made, within a normal trace's memory plus 16 MiB
crafted="$here/../fuzz/corpus/real_model_file/regress-header-claims-gpt2-small"
expect_capped "trace --model crafted real" $null "the token rows" trace x --model "$crafted"
expect_small_peak "trace --model crafted real" trace x --model "$crafted"

# --- qkv-train: the file it writes records the project version that trained it -----------------
train=$(dirname "$qkv")/qkv-train
data="$here/../../src/data"
head -n 60 "$data/corpus/train.tsv" >"$tmp/small.tsv"
if "$train" --lexicon "$data/lexicon.tsv" --train "$tmp/small.tsv" --test "$tmp/small.tsv" \
  --steps 2 --batch 4 --out "$tmp/small.apm" >"$tmp/train.out" 2>"$tmp/train.err"; then
  version=$("$qkv" --version | sed 's/^qkv //')
  got=$("$qkv" trace "小猫" --model "$tmp/small.apm" 2>&1 |
    "$py" -c 'import json,sys; print(json.load(sys.stdin)["model"]["info"].get("project_version"))')
  if [[ -n $version && $got == "$version" ]]; then
    pass
  else
    fail "qkv-train's model records project_version $got, qkv --version says $version"
  fi
else
  fail "qkv-train on 60 sentences: $(head -c 300 "$tmp/train.err")"
fi

# --- qkv tokenize --hf: a Hugging Face tokenizer folder (ids checked against other
# implementations in tests/hf; here the CLI's paths) ---------------------------------------------
mkdir -p "$tmp/bert"
printf '[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\n##s\n,\n' >"$tmp/bert/vocab.txt"
expect_ok "tokenize --hf vocab.txt" $null tokenize --hf "$tmp/bert" "Hellos, x"
if "$py" -c 'import json,sys; d=json.load(sys.stdin); assert d["tokens"]==["[CLS]","hello","##s",",","[UNK]","[SEP]"], d' <"$tmp/out"; then
  pass
else
  fail "tokenize --hf: pieces"
fi
printf '"hello"\n"Hellos, hello"\n' >"$tmp/lines.jsonl"
if [[ $("$qkv" tokenize --hf "$tmp/bert" --jsonl "$tmp/lines.jsonl" | wc -l) -eq 2 ]]; then
  pass
else
  fail "tokenize --hf --jsonl: one line out per line in"
fi
expect_error "tokenize --hf: no such folder" $null tokenize --hf "$tmp/nowhere" "x"
expect_error "tokenize --hf: no text" $null tokenize --hf "$tmp/bert"
printf '{"do_lower_case": 3}' >"$tmp/bert/tokenizer_config.json"
expect_error "tokenize --hf: a bad tokenizer_config.json" $null tokenize --hf "$tmp/bert" "x"
printf '{"model": [' >"$tmp/bert/tokenizer.json"
expect_error "tokenize --hf: a broken tokenizer.json" $null tokenize --hf "$tmp/bert" "x"

echo "cli: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
