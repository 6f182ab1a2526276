"""gen_fixtures.py: NumPy float64 reference outputs for the attention core's tests.

Writes tests/fixtures/attention_v1.json, tests/fixtures/numpy_random_v1.json (NumPy's legacy
generator, np.random.seed + random_sample + randn, as exact float64 bit patterns) and
tests/fixtures/quantize_v1.json (the .apm format's row-wise int8 matrices, model_file.hpp). Run it through scripts/gen_fixtures (Debian's
/usr/bin/python3 has NumPy). Not a test itself: the doctest and CLI tests read its output.

Layout convention (the same as src/core/attention.hpp):
  X: n x d_model.  W_Q, W_K, W_V: d_model x (h*d_k); head i uses columns [i*d_k, (i+1)*d_k).
  W_O: (h*d_k) x d_model; absent means identity (output = concat).
Inputs are rounded to float32 first, and the reference is computed in float64 from those
float32 values, so the C++ float32 result is compared against the exact maths of its own inputs.
JSON null stands for -inf (masked cells).
"""

import json
import math
import os
import sys

import numpy as np

FORMAT_VERSION = 1
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures")
OUT = os.path.join(FIXTURES, "attention_v1.json")
OUT_RANDOM = os.path.join(FIXTURES, "numpy_random_v1.json")
RANDOM_FORMAT_VERSION = 1
OUT_QUANTIZE = os.path.join(FIXTURES, "quantize_v1.json")
QUANTIZE_FORMAT_VERSION = 1


def f32(a):
    """Round to float32, hand back float64 holding exactly those values."""
    return np.asarray(a, dtype=np.float32).astype(np.float64)


def to_list(m):
    """Matrix or vector to nested lists; -inf becomes None (JSON null)."""
    m = np.asarray(m, dtype=np.float64)
    if m.ndim == 1:
        return [None if v == -np.inf else float(v) for v in m]
    return [to_list(row) for row in m]


def softmax_rows(x, temperature):
    # the same stable form the core uses: subtract the row max, then divide by temperature
    m = np.max(x, axis=1, keepdims=True)
    e = np.exp((x - m) / temperature)
    return e / np.sum(e, axis=1, keepdims=True)


def reference(X, W_Q, W_K, W_V, W_O, heads, causal, scale, temperature):
    n = X.shape[0]
    hd = W_Q.shape[1]
    d_k = hd // heads
    scale_factor = 1.0 / math.sqrt(d_k) if scale else 1.0
    out_heads = []
    for i in range(heads):
        cols = slice(i * d_k, (i + 1) * d_k)
        Q = X @ W_Q[:, cols]
        K = X @ W_K[:, cols]
        V = X @ W_V[:, cols]
        scores = Q @ K.T
        scaled = scores / math.sqrt(d_k) if scale else scores.copy()
        masked = scaled.copy()
        if causal:
            masked[np.triu_indices(n, k=1)] = -np.inf
        weights = softmax_rows(masked, temperature)
        output = weights @ V
        out_heads.append({"Q": Q, "K": K, "V": V, "scores": scores, "scaled": scaled,
                          "masked": masked, "weights": weights, "output": output})
    concat = np.concatenate([h["output"] for h in out_heads], axis=1)
    output = concat @ W_O if W_O is not None else concat.copy()
    return {
        "d_k": d_k,
        "scale_factor": scale_factor,
        "heads": [{k: to_list(v) for k, v in h.items()} for h in out_heads],
        "concat": to_list(concat),
        "output": to_list(output),
    }


def make_case(name, X, W_Q, W_K, W_V, W_O=None, heads=1, causal=False, scale=True,
              temperature=1.0):
    X, W_Q, W_K, W_V = f32(X), f32(W_Q), f32(W_K), f32(W_V)
    W_O = f32(W_O) if W_O is not None else None
    temperature = float(np.float32(temperature))
    inputs = {"X": to_list(X), "W_Q": to_list(W_Q), "W_K": to_list(W_K), "W_V": to_list(W_V)}
    if W_O is not None:
        inputs["W_O"] = to_list(W_O)
    inputs.update({"heads": heads, "causal": causal, "scale": scale, "temperature": temperature})
    return {"name": name, "inputs": inputs,
            "expected": reference(X, W_Q, W_K, W_V, W_O, heads, causal, scale, temperature)}


def random_case(name, seed, n, d_model, heads, d_k=None, with_w_o=False, **opts):
    """Weights drawn like a real layer (N(0, 1/fan_in)) so scores stay near unit size."""
    rs = np.random.RandomState(seed)
    d_k = d_k if d_k is not None else d_model // heads
    hd = heads * d_k
    X = rs.randn(n, d_model)
    W_Q = rs.randn(d_model, hd) / math.sqrt(d_model)
    W_K = rs.randn(d_model, hd) / math.sqrt(d_model)
    W_V = rs.randn(d_model, hd) / math.sqrt(d_model)
    W_O = rs.randn(hd, d_model) / math.sqrt(hd) if with_w_o else None
    return make_case(name, X, W_Q, W_K, W_V, W_O, heads=heads, **opts)


def seed_article_inputs():
    # The seed article's example, verbatim: one head, no W_O, scaled.
    np.random.seed(42)
    X = np.random.randn(4, 8)
    W_Q = np.random.randn(8, 4)
    W_K = np.random.randn(8, 4)
    W_V = np.random.randn(8, 4)
    return X, W_Q, W_K, W_V


def softmax_entry(row, temperature=1.0):
    x = f32(row)  # None -> nan after asarray; map it to -inf explicitly below
    x = np.array([-np.inf if r is None else v for r, v in zip(row, x)], dtype=np.float64)
    t = float(np.float32(temperature))
    m = np.max(x)
    shifted = (x - m) / t
    exps = np.exp(shifted)
    total = np.sum(exps)
    return {"input": to_list(x), "temperature": t, "max": float(m), "shifted": to_list(shifted),
            "exps": to_list(exps), "sum": float(total), "weights": to_list(exps / total)}


def positional_encoding(n, d_model):
    pe = np.zeros((n, d_model))
    for pos in range(n):
        for c in range(d_model):
            angle = pos / 10000.0 ** ((2.0 * (c // 2)) / d_model)
            pe[pos, c] = math.sin(angle) if c % 2 == 0 else math.cos(angle)
    return pe


def numpy_random_doc():
    """NumPy's legacy RandomState, seeded as np.random.seed(seed), for several seeds and shapes.

    Doubles are written with float.hex() so the core can be checked bit for bit. Each sequence
    starts from a fresh seed; shapes with an odd number of entries leave a cached normal that the
    next randn call must start with. "long" draws 800 normals (about 4,000 32-bit words, several
    MT19937 regenerations and polar-method rejections) and keeps the last 16.
    """
    seeds = [0, 1, 42, 12345, 2**31, 2**32 - 1]
    sequences = [[(4, 8), (8, 4), (8, 4), (8, 4)], [(3, 5), (5, 3), (5, 3), (5, 3)], [(1, 1), (1, 3), (2, 1)]]
    entries = []
    for seed in seeds:
        rs = np.random.RandomState()
        rs.seed(seed)
        samples = [float(v).hex() for v in rs.random_sample(10)]
        seqs = []
        for shapes in sequences:
            np.random.seed(seed)  # the module-level generator, exactly as the article calls it
            seqs.append({"shapes": [list(sh) for sh in shapes],
                         "values": [[float(v).hex() for v in np.random.randn(*sh).ravel()]
                                    for sh in shapes]})
        np.random.seed(seed)
        long_tail = [float(v).hex() for v in np.random.randn(40, 20).ravel()[-16:]]
        entries.append({"seed": seed, "random_sample": samples,
                        "sequences": seqs, "long_randn_40x20_last16": long_tail})
    return {
        "format_version": RANDOM_FORMAT_VERSION,
        "generator": "scripts/gen_fixtures (NumPy %s, np.random legacy RandomState)" % np.__version__,
        "values": "float64 as float.hex()",
        "seeds": entries,
    }


def quantize_rows(m):
    """The .apm format's int8 matrix (model_file.hpp), in NumPy: per row, the scale s is the
    smallest binary16 value >= 2^-14 with s * 127 >= max |row| (products and comparisons in
    float32), and q = rint(row / s) in float32 (ties to even). Returns (scale bits, q)."""
    m = np.asarray(m, dtype=np.float32)
    smallest = np.float16(2.0 ** -14)
    scales, qs = [], []
    for row in m:
        amax = np.max(np.abs(row))
        s = max(np.float16(amax / np.float32(127)), smallest)
        while np.float32(s) * np.float32(127) < amax:
            s = np.nextafter(s, np.float16(np.inf))
        while s > smallest and np.float32(np.nextafter(s, np.float16(0))) * np.float32(127) >= amax:
            s = np.nextafter(s, np.float16(0))
        q = np.rint(row / np.float32(s))
        assert np.all(np.abs(q) <= 127)
        scales.append(int(np.array(s, dtype="<f2").view("<u2")))
        qs.append([int(v) for v in q])
    return scales, qs


def quantize_doc():
    """Matrices and their int8 rows: random rows of several magnitudes, rows below the smallest
    scale, a zero row, exact ties, and a row whose largest magnitude is negative."""
    rs = np.random.RandomState(7)
    cases = []

    def case(name, m):
        m = np.asarray(m, dtype=np.float32)
        scales, q = quantize_rows(m)
        cases.append({"name": name, "rows": int(m.shape[0]), "cols": int(m.shape[1]),
                      "values": [[float(v).hex() for v in row] for row in m],
                      "scale_bits": scales, "q": q})

    case("normal_4x9", rs.randn(4, 9))
    case("wide_magnitudes_3x16", rs.randn(3, 16) * np.array([[1e-3], [0.25], [300.0]]))
    case("below_smallest_scale_2x5", rs.randn(2, 5) * 1e-4)
    case("zero_row_and_negative_max_2x4", [[0, 0, 0, 0], [-5.0, 1.0, 2.5, -0.01]])
    # largest 127 / 128: the scale is exactly 2^-7, so k + 1/2 steps are exact ties (to even)
    case("ties_1x6", [[127 / 128, 0.5 / 128, 1.5 / 128, 2.5 / 128, -0.5 / 128, -3.5 / 128]])
    case("embedding_like_6x32", rs.randn(6, 32) * 0.1)
    return {
        "format_version": QUANTIZE_FORMAT_VERSION,
        "generator": "scripts/gen_fixtures (NumPy %s, float32 and float16 arithmetic)"
                     % np.__version__,
        "values": "float32 as float.hex(); scale_bits: binary16 bit patterns; q: int8 row-major",
        "cases": cases,
    }


def dumps(value, indent=0):
    """JSON with one matrix row (any list of scalars) per line, so diffs stay readable."""
    pad = " " * indent
    if isinstance(value, dict):
        items = ['%s "%s": %s' % (pad, k, dumps(v, indent + 1)) for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list) and any(isinstance(v, (list, dict)) for v in value):
        items = [pad + " " + dumps(v, indent + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(value, allow_nan=False)


def write_fixture(path, doc, what):
    """Writes one fixture file (dumps, then a newline) and says what it holds."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(dumps(doc))
        f.write("\n")
    print("wrote %s: %s" % (os.path.relpath(path), what), file=sys.stderr)


def main():
    seed_X, seed_W_Q, seed_W_K, seed_W_V = seed_article_inputs()
    cases = [
        make_case("seed_article", seed_X, seed_W_Q, seed_W_K, seed_W_V),
        make_case("seed_article_causal", seed_X, seed_W_Q, seed_W_K, seed_W_V, causal=True),
        random_case("n5_d8_h2", 1, 5, 8, 2),
        random_case("n7_d12_h3_wo", 2, 7, 12, 3, with_w_o=True),
        random_case("n16_d32_h4_wo", 3, 16, 32, 4, with_w_o=True),
        random_case("causal_n5_d8_h2", 5, 5, 8, 2, causal=True),
        random_case("causal_n16_d32_h4_wo", 6, 16, 32, 4, with_w_o=True, causal=True),
        random_case("noscale_n5_d8_h2", 7, 5, 8, 2, scale=False),
        random_case("noscale_causal_n7_d12_h3_wo", 8, 7, 12, 3, with_w_o=True, scale=False,
                    causal=True),
        random_case("temp0.5_n7_d12_h3", 9, 7, 12, 3, temperature=0.5),
        random_case("temp3_n7_d12_h3_wo_causal", 10, 7, 12, 3, with_w_o=True, causal=True,
                    temperature=3.0),
        random_case("dk4_n5_d6_h2_wo", 11, 5, 6, 2, d_k=4, with_w_o=True),
        random_case("n1_d4_h1", 12, 1, 4, 1, causal=True),
    ]
    softmax = [
        softmax_entry([3.2, 1.8, 0.4]),
        softmax_entry([8.0, 1.2, 3.5, 2.0, 0.5, 1.0]),
        softmax_entry([3.2, 1.8, 0.4], 0.5),
        softmax_entry([3.2, 1.8, 0.4], 3.0),
        softmax_entry([2.0, None, 1.0, None]),
        softmax_entry([1.0, 1.0, 1.0, 1.0]),
    ]
    pe_n, pe_d = 6, 8
    doc = {
        "format_version": FORMAT_VERSION,
        "generator": "scripts/gen_fixtures (NumPy %s, float64 from float32 inputs)"
                     % np.__version__,
        "layout": "W_Q/W_K/W_V: d_model x (h*d_k), head i = columns [i*d_k,(i+1)*d_k); "
                  "W_O: (h*d_k) x d_model, absent = identity; null = -inf",
        "cases": cases,
        "softmax": softmax,
        "positional_encoding": {"n": pe_n, "d_model": pe_d,
                                "values": to_list(positional_encoding(pe_n, pe_d))},
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    write_fixture(OUT, doc, "%d cases, %d softmax rows" % (len(cases), len(softmax)))
    random_doc = numpy_random_doc()
    write_fixture(OUT_RANDOM, random_doc, "%d seeds" % len(random_doc["seeds"]))
    quantize = quantize_doc()
    write_fixture(OUT_QUANTIZE, quantize, "%d matrices" % len(quantize["cases"]))

if __name__ == "__main__":
    main()
