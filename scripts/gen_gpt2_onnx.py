"""gen_gpt2_onnx.py: one random GPT-2-shaped model written twice from the same float32 weights: as
a Hugging Face folder (config.json, model.safetensors, vocab.json + merges.txt), which the core
reads, and as model.onnx (a PyTorch export of the transformer body, ids in, the last hidden state
after ln_f out, no lm_head), which onnxruntime reads. For the ONNX benchmark (scripts/perf/onnx.mjs)
and its CTest (tests/hf/onnx.test.mjs). Run it through scripts/gen_gpt2_onnx (Debian's
python3-torch and python3-onnx). Not a test, and not Hugging Face's GPT2Model: the module below is
written from the published modeling_gpt2.py (pre-LayerNorm blocks, Conv1D weights stored (in, out),
causal mask by the largest negative float, gelu_new, ln_f).

  scripts/gen_gpt2_onnx [--shape small|tiny] [--out DIR] [--force]

small: GPT-2 small's body (12 layers, d_model 768, 12 heads, d_ff 3072, 1024 positions; about 340 MB
per file) into build/onnx/gpt2-small; tiny: 2 layers, d_model 64, 4 heads, 64 positions, into
build/onnx/gpt2-tiny. The vocabulary is the test fixtures' byte-level one (268 tokens): the body,
which is what is timed, is the real size. A folder already written by this format version and
shape is left as it is unless --force.

Also reference.json: for a few seeded id sequences, the last hidden state computed in float64 from
the stored float32 weights, and the exported graph's inputs and outputs; the graph is checked
with onnx.checker before anything is written.
"""

import argparse
import json
import math
import os
import sys

FORMAT_VERSION = 1
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SHAPES = {
    "small": {"n_layer": 12, "n_embd": 768, "n_head": 12, "n_positions": 1024},
    "tiny": {"n_layer": 2, "n_embd": 64, "n_head": 4, "n_positions": 64},
}
SEED = 34
# the lengths of the reference cases (each at most the model's positions)
CASE_LENGTHS = {"small": [1, 9, 32], "tiny": [1, 9, 64]}
INPUT, OUTPUT = "input_ids", "last_hidden_state"


def config_for(shape, vocab):
    s = SHAPES[shape]
    return {"model_type": "gpt2", "architectures": ["GPT2Model"],
            "_name_or_path": "bench/gpt2-%s-random" % shape, "n_layer": s["n_layer"],
            "n_embd": s["n_embd"], "n_head": s["n_head"], "n_positions": s["n_positions"],
            "n_ctx": s["n_positions"], "vocab_size": vocab, "n_inner": None,
            "activation_function": "gelu_new", "layer_norm_epsilon": 1e-5,
            "bos_token_id": vocab - 1, "eos_token_id": vocab - 1}


def up_to_date(folder, shape):
    try:
        with open(os.path.join(folder, "reference.json")) as f:
            ref = json.load(f)
    except (OSError, ValueError):
        return False
    return (ref.get("format_version") == FORMAT_VERSION and ref.get("shape") == shape
            and ref.get("seed") == SEED
            and all(os.path.exists(os.path.join(folder, n))
                    for n in ("config.json", "model.safetensors", "model.onnx", "vocab.json", "merges.txt")))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", choices=sorted(SHAPES), default="small")
    ap.add_argument("--out")
    ap.add_argument("--force", action="store_true")
    args = ap.parse_args()
    folder = os.path.abspath(args.out or os.path.join(ROOT, "build", "onnx", "gpt2-" + args.shape))
    if not args.force and up_to_date(folder, args.shape):
        print("gen_gpt2_onnx: %s is up to date" % folder)
        return
    write(folder, args.shape)


def write(folder, shape):
    import torch  # after the up-to-date check: importing torch alone takes seconds
    import onnx
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gen_hf_fixtures import gpt2_tokenizer_files, write_safetensors

    class Block(torch.nn.Module):
        def __init__(self, p, l, cfg):
            super().__init__()
            g = lambda s: torch.nn.Parameter(p["h.%d.%s" % (l, s)], requires_grad=False)
            self.ln_1_w, self.ln_1_b = g("ln_1.weight"), g("ln_1.bias")
            self.attn_w, self.attn_b = g("attn.c_attn.weight"), g("attn.c_attn.bias")
            self.proj_w, self.proj_b = g("attn.c_proj.weight"), g("attn.c_proj.bias")
            self.ln_2_w, self.ln_2_b = g("ln_2.weight"), g("ln_2.bias")
            self.fc_w, self.fc_b = g("mlp.c_fc.weight"), g("mlp.c_fc.bias")
            self.out_w, self.out_b = g("mlp.c_proj.weight"), g("mlp.c_proj.bias")
            self.d, self.heads, self.eps = cfg["n_embd"], cfg["n_head"], cfg["layer_norm_epsilon"]

        def forward(self, h, causal):
            ln = torch.nn.functional.layer_norm
            b, n = h.shape[0], h.shape[1]
            d = self.d  # a constant of the graph (LayerNormalization needs it static)
            dk = d // self.heads
            qkv = ln(h, (d,), self.ln_1_w, self.ln_1_b, self.eps) @ self.attn_w + self.attn_b
            q, k, v = qkv.split(d, dim=-1)
            split = lambda x: x.view(b, n, self.heads, dk).permute(0, 2, 1, 3)  # b, heads, n, d_k
            q, k, v = split(q), split(k), split(v)
            scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(dk)
            scores = scores.masked_fill(~causal, torch.finfo(scores.dtype).min)
            ctx = torch.matmul(torch.softmax(scores, dim=-1), v).permute(0, 2, 1, 3).reshape(b, n, d)
            h = h + ctx @ self.proj_w + self.proj_b
            m = ln(h, (d,), self.ln_2_w, self.ln_2_b, self.eps) @ self.fc_w + self.fc_b
            m = 0.5 * m * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (m + 0.044715 * torch.pow(m, 3.0))))
            return h + m @ self.out_w + self.out_b

    class Body(torch.nn.Module):
        """GPT2Model's forward: ids (1 x n, int64) -> ln_f(last hidden state) (1 x n x d_model)."""

        def __init__(self, p, cfg):
            super().__init__()
            self.wte = torch.nn.Parameter(p["wte.weight"], requires_grad=False)
            self.wpe = torch.nn.Parameter(p["wpe.weight"], requires_grad=False)
            self.blocks = torch.nn.ModuleList(Block(p, l, cfg) for l in range(cfg["n_layer"]))
            self.ln_f_w = torch.nn.Parameter(p["ln_f.weight"], requires_grad=False)
            self.ln_f_b = torch.nn.Parameter(p["ln_f.bias"], requires_grad=False)
            P = cfg["n_positions"]
            self.register_buffer("bias", torch.tril(torch.ones(P, P, dtype=torch.bool)).view(1, 1, P, P))
            self.eps, self.d = cfg["layer_norm_epsilon"], cfg["n_embd"]

        def forward(self, ids):
            n = ids.shape[1]
            h = self.wte[ids] + self.wpe[torch.arange(n)].unsqueeze(0)
            causal = self.bias[:, :, :n, :n]
            for block in self.blocks:
                h = block(h, causal)
            return torch.nn.functional.layer_norm(h, (self.d,), self.ln_f_w, self.ln_f_b, self.eps)

    os.makedirs(folder, exist_ok=True)
    vocab = gpt2_tokenizer_files(folder)
    cfg = config_for(shape, vocab)
    d, L, P = cfg["n_embd"], cfg["n_layer"], cfg["n_positions"]
    ff = 4 * d
    gen = torch.Generator().manual_seed(SEED)
    # scales that keep every layer's numbers of order one at any width: projections N(0, 1/fan_in)
    # (so the scores' spread is about 1 and the attention neither uniform nor one-hot), small
    # biases, LayerNorm gains near 1
    r = lambda *shape, s: (torch.randn(*shape, generator=gen, dtype=torch.float64) * s).float()
    p = {"wte.weight": r(vocab, d, s=0.1), "wpe.weight": r(P, d, s=0.05)}
    for l in range(L):
        h = "h.%d." % l
        p[h + "ln_1.weight"] = 1 + r(d, s=0.1)
        p[h + "ln_1.bias"] = r(d, s=0.05)
        p[h + "attn.c_attn.weight"] = r(d, 3 * d, s=1 / math.sqrt(d))
        p[h + "attn.c_attn.bias"] = r(3 * d, s=0.02)
        p[h + "attn.c_proj.weight"] = r(d, d, s=1 / math.sqrt(d))
        p[h + "attn.c_proj.bias"] = r(d, s=0.02)
        p[h + "ln_2.weight"] = 1 + r(d, s=0.1)
        p[h + "ln_2.bias"] = r(d, s=0.05)
        p[h + "mlp.c_fc.weight"] = r(d, ff, s=1 / math.sqrt(d))
        p[h + "mlp.c_fc.bias"] = r(ff, s=0.02)
        p[h + "mlp.c_proj.weight"] = r(ff, d, s=1 / math.sqrt(ff))
        p[h + "mlp.c_proj.bias"] = r(d, s=0.02)
    p["ln_f.weight"] = 1 + r(d, s=0.1)
    p["ln_f.bias"] = r(d, s=0.05)

    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    write_safetensors(os.path.join(folder, "model.safetensors"), [(k, "F32", t) for k, t in p.items()],
                      {"format": "pt"})

    body = Body(p, cfg).eval()
    onnx_path = os.path.join(folder, "model.onnx")
    with torch.no_grad():
        # opset 17: LayerNormalization is one operator, as a current export of GPT-2 has it
        torch.onnx.export(body, (torch.zeros(1, 8, dtype=torch.int64),), onnx_path,
                          input_names=[INPUT], output_names=[OUTPUT],
                          dynamic_axes={INPUT: {1: "n"}, OUTPUT: {1: "n"}}, opset_version=17,
                          do_constant_folding=True)
    graph = onnx.load(onnx_path)
    onnx.checker.check_model(graph)
    ops = sorted({node.op_type for node in graph.graph.node})

    # the reference: the same module in float64 on the float32 weights as stored
    ref_body = Body({k: t.double() for k, t in p.items()}, cfg).eval()
    cases = []
    with torch.no_grad():
        for n in CASE_LENGTHS[shape]:
            ids = torch.randint(0, vocab, (1, n), generator=gen)
            y = ref_body(ids)[0]
            cases.append({"ids": ids[0].tolist(), "hidden": [[float(x) for x in row] for row in y.tolist()]})
    with open(os.path.join(folder, "reference.json"), "w") as f:
        json.dump({"format_version": FORMAT_VERSION, "shape": shape, "seed": SEED,
                   "input": INPUT, "output": OUTPUT, "onnx_opset": 17, "onnx_ops": ops,
                   "config": cfg, "cases": cases}, f)
    print("gen_gpt2_onnx: wrote", folder)


if __name__ == "__main__":
    main()
