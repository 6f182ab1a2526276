"""gen_hf_fixtures.py: small random GPT-2 and BERT models in Hugging Face's exact folder layout,
with a PyTorch reference of each architecture's forward pass, for the core's tests
(tests/core/test_hf_model.cpp). Run it through scripts/gen_hf_fixtures (Debian's python3-torch).
Not a test itself, and not Hugging Face's code: the reference below is written from the published
modeling_gpt2.py (GPT2Model: pre-LayerNorm blocks, Conv1D weights stored (in, out), gelu_new,
ln_f) and modeling_bert.py (BertModel: embeddings LayerNorm, post-LayerNorm blocks, nn.Linear
weights stored (out, in), erf GELU, token type 0), and the files are written by the small
safetensors writer below (8-byte little-endian header length, JSON header padded with spaces to
8 bytes, the tensors' bytes in header order), not by the safetensors package.

Writes tests/fixtures/hf/<name>/ for each model: config.json, model.safetensors, the tokenizer's
files (gpt2: vocab.json + merges.txt, a byte-level vocabulary of the 256 bytes and a few merges;
bert: vocab.txt + tokenizer_config.json), and reference.json: for each case (token ids) every
layer's every head's attention weights and every hidden state.

The reference runs in float64 on the weights exactly as stored (F16 and BF16 rounded), so the
C++ float32 forward is compared with the exact maths of its own weights.
"""

import json
import math
import os
import struct

import torch

FORMAT_VERSION = 1
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "hf")

DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16, "I64": torch.int64}


def write_safetensors(path, tensors, metadata=None):
    """tensors: list of (name, dtype name, tensor). The format: u64 little-endian header length N,
    N bytes of JSON, then each tensor's little-endian bytes at its data_offsets."""
    header = {}
    if metadata:
        header["__metadata__"] = metadata
    blobs = []
    offset = 0
    for name, dtype, t in tensors:
        t = t.detach().to(DTYPES[dtype]).contiguous()
        if dtype == "BF16":  # numpy has no bfloat16: its bits through int16
            raw = t.view(torch.int16).numpy().astype("<i2").tobytes()
        else:
            raw = t.numpy().astype(t.numpy().dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": dtype, "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for raw in blobs:
            f.write(raw)


def stored(t, dtype):
    """The float64 values a reader of the file sees: rounded to dtype."""
    return t.detach().to(DTYPES[dtype]).to(torch.float64)


# --- the reference architectures, float64 ------------------------------------------------------

def layer_norm(x, w, b, eps):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), w, b, eps)


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def gelu_erf(x):
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def split_heads(x, heads):  # (n, d) -> (heads, n, d_k)
    n, d = x.shape
    return x.view(n, heads, d // heads).permute(1, 0, 2)


def attention(q, k, v, heads, causal):
    """GPT2Attention._attn / BertSelfAttention: softmax(q k^T / sqrt(d_k) [+ mask]) v."""
    q, k, v = split_heads(q, heads), split_heads(k, heads), split_heads(v, heads)
    scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(v.shape[-1])
    n = scores.shape[-1]
    if causal:
        mask = torch.tril(torch.ones(n, n, dtype=torch.bool))
        scores = torch.where(mask, scores, torch.tensor(torch.finfo(scores.dtype).min, dtype=scores.dtype))
    weights = torch.softmax(scores, dim=-1)
    out = torch.matmul(weights, v)  # heads, n, d_k
    return out.permute(1, 0, 2).reshape(n, -1), weights


def gpt2_forward(p, cfg, ids):
    """GPT2Model.forward: hidden states as output_hidden_states gives them (the last after ln_f)."""
    heads, eps = cfg["n_head"], cfg["layer_norm_epsilon"]
    n = len(ids)
    h = p["wte.weight"][ids] + p["wpe.weight"][torch.arange(n)]
    hidden, weights = [h], []
    for l in range(cfg["n_layer"]):
        g = lambda s: p["h.%d.%s" % (l, s)]
        a_in = layer_norm(h, g("ln_1.weight"), g("ln_1.bias"), eps)
        qkv = a_in @ g("attn.c_attn.weight") + g("attn.c_attn.bias")  # Conv1D: x W + b
        q, k, v = qkv.split(cfg["n_embd"], dim=-1)
        ctx, w = attention(q, k, v, heads, causal=True)
        h = h + ctx @ g("attn.c_proj.weight") + g("attn.c_proj.bias")
        m_in = layer_norm(h, g("ln_2.weight"), g("ln_2.bias"), eps)
        h = h + gelu_new(m_in @ g("mlp.c_fc.weight") + g("mlp.c_fc.bias")) @ g("mlp.c_proj.weight") + g("mlp.c_proj.bias")
        weights.append(w)
        hidden.append(h)
    readout = layer_norm(h, p["ln_f.weight"], p["ln_f.bias"], eps)
    return hidden, weights, readout


def bert_forward(p, cfg, ids):
    """BertModel.forward with token_type_ids all 0 and no padding mask."""
    heads, eps = cfg["num_attention_heads"], cfg["layer_norm_eps"]
    n = len(ids)
    e = "embeddings."
    h = p[e + "word_embeddings.weight"][ids] + p[e + "position_embeddings.weight"][torch.arange(n)] \
        + p[e + "token_type_embeddings.weight"][torch.zeros(n, dtype=torch.long)]
    h = layer_norm(h, p[e + "LayerNorm.weight"], p[e + "LayerNorm.bias"], eps)
    hidden, weights = [h], []
    lin = lambda x, base: x @ p[base + ".weight"].T + p[base + ".bias"]  # nn.Linear: x W^T + b
    for l in range(cfg["num_hidden_layers"]):
        b = "encoder.layer.%d." % l
        ctx, w = attention(lin(h, b + "attention.self.query"), lin(h, b + "attention.self.key"),
                           lin(h, b + "attention.self.value"), heads, causal=False)
        a = layer_norm(lin(ctx, b + "attention.output.dense") + h,
                       p[b + "attention.output.LayerNorm.weight"], p[b + "attention.output.LayerNorm.bias"], eps)
        inter = gelu_erf(lin(a, b + "intermediate.dense"))
        h = layer_norm(lin(inter, b + "output.dense") + a, p[b + "output.LayerNorm.weight"],
                       p[b + "output.LayerNorm.bias"], eps)
        weights.append(w)
        hidden.append(h)
    return hidden, weights, h


# --- random models --------------------------------------------------------------------------------

def gpt2_params(cfg, gen):
    d, ff, V, P = cfg["n_embd"], cfg["n_inner"] or 4 * cfg["n_embd"], cfg["vocab_size"], cfg["n_positions"]
    r = lambda *shape, s=0.3: torch.randn(*shape, generator=gen, dtype=torch.float64) * s
    p = {"wte.weight": r(V, d, s=0.7), "wpe.weight": r(P, d, s=0.3)}
    for l in range(cfg["n_layer"]):
        h = "h.%d." % l
        p[h + "ln_1.weight"] = 1 + r(d, s=0.2)
        p[h + "ln_1.bias"] = r(d, s=0.1)
        p[h + "attn.c_attn.weight"] = r(d, 3 * d, s=0.5)
        p[h + "attn.c_attn.bias"] = r(3 * d, s=0.1)
        p[h + "attn.c_proj.weight"] = r(d, d)
        p[h + "attn.c_proj.bias"] = r(d, s=0.1)
        p[h + "ln_2.weight"] = 1 + r(d, s=0.2)
        p[h + "ln_2.bias"] = r(d, s=0.1)
        p[h + "mlp.c_fc.weight"] = r(d, ff)
        p[h + "mlp.c_fc.bias"] = r(ff, s=0.1)
        p[h + "mlp.c_proj.weight"] = r(ff, d, s=0.2)
        p[h + "mlp.c_proj.bias"] = r(d, s=0.1)
    p["ln_f.weight"] = 1 + r(d, s=0.2)
    p["ln_f.bias"] = r(d, s=0.1)
    return p


def bert_params(cfg, gen):
    d, ff, V, P = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"], cfg["max_position_embeddings"]
    r = lambda *shape, s=0.3: torch.randn(*shape, generator=gen, dtype=torch.float64) * s
    e = "embeddings."
    p = {e + "word_embeddings.weight": r(V, d, s=0.7), e + "position_embeddings.weight": r(P, d),
         e + "token_type_embeddings.weight": r(cfg["type_vocab_size"], d),
         e + "LayerNorm.weight": 1 + r(d, s=0.2), e + "LayerNorm.bias": r(d, s=0.1)}
    for l in range(cfg["num_hidden_layers"]):
        b = "encoder.layer.%d." % l
        for name, (o, i) in {"attention.self.query": (d, d), "attention.self.key": (d, d),
                             "attention.self.value": (d, d), "attention.output.dense": (d, d),
                             "intermediate.dense": (ff, d), "output.dense": (d, ff)}.items():
            p[b + name + ".weight"] = r(o, i, s=0.5 if "self" in name else 0.3)
            p[b + name + ".bias"] = r(o, s=0.1)
        for name in ("attention.output.LayerNorm", "output.LayerNorm"):
            p[b + name + ".weight"] = 1 + r(d, s=0.2)
            p[b + name + ".bias"] = r(d, s=0.1)
    return p


# --- tokenizer files -------------------------------------------------------------------------------

def bytes_to_unicode():
    """GPT-2's printable stand-in for each byte (encoder.py's bytes_to_unicode)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs]))


GPT2_MERGES = [("Ġ", "t"), ("h", "e"), ("Ġt", "he"), ("Ġ", "a"), ("a", "t"), ("Ġ", "c"), ("Ġc", "at"),
               ("Ġ", "s"), ("Ġs", "at"), ("i", "t"), ("Ġ", "it")]


def gpt2_tokenizer_files(folder):
    vocab = {}
    for b, ch in sorted(bytes_to_unicode().items()):
        vocab[ch] = len(vocab)
    for a, b in GPT2_MERGES:
        vocab[a + b] = len(vocab)
    vocab["<|endoftext|>"] = len(vocab)
    with open(os.path.join(folder, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(os.path.join(folder, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n" + "".join("%s %s\n" % m for m in GPT2_MERGES))
    return len(vocab)


BERT_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "it", "was", "tired",
              "animal", "street", "because", "didn", "'", "t", "cross", ".", ",", "!", "un", "##believ",
              "##able", "小", "猫", "吃", "鱼", "它", "很", "累", "a", "##s", "##ed"]


def bert_tokenizer_files(folder, lower=True):
    with open(os.path.join(folder, "vocab.txt"), "w", encoding="utf-8") as f:
        f.write("".join(w + "\n" for w in BERT_VOCAB))
    with open(os.path.join(folder, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump({"do_lower_case": lower, "tokenize_chinese_chars": True}, f)
    return len(BERT_VOCAB)


# --- the fixtures ----------------------------------------------------------------------------------

def cases(vocab, positions, gen):
    lengths = [1, 5, positions]
    return [torch.randint(0, vocab, (n,), generator=gen).tolist() for n in lengths]


def to_list(t):
    return [[float(x) for x in row] for row in t.tolist()] if t.dim() == 2 else [to_list(s) for s in t]


def write_model(name, arch, dtype, prefix, extras, old_names=False, n_inner=None, layers=2, seed=1):
    folder = os.path.join(OUT, name)
    os.makedirs(folder, exist_ok=True)
    gen = torch.Generator().manual_seed(seed)
    if arch == "gpt2":
        vocab = gpt2_tokenizer_files(folder)
        cfg = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "_name_or_path": "test/" + name,
               "n_layer": layers, "n_embd": 16, "n_head": 4, "n_positions": 16, "n_ctx": 16,
               "vocab_size": vocab, "n_inner": n_inner, "activation_function": "gelu_new",
               "layer_norm_epsilon": 1e-5, "bos_token_id": vocab - 1, "eos_token_id": vocab - 1}
        params = gpt2_params(cfg, gen)
        forward = gpt2_forward
    else:
        vocab = bert_tokenizer_files(folder)
        cfg = {"model_type": "bert", "architectures": ["BertModel"], "hidden_size": 16,
               "num_hidden_layers": layers, "num_attention_heads": 4, "intermediate_size": 40,
               "max_position_embeddings": 16, "type_vocab_size": 2, "vocab_size": vocab,
               "hidden_act": "gelu", "layer_norm_eps": 1e-12, "position_embedding_type": "absolute"}
        params = bert_params(cfg, gen)
        forward = bert_forward
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    tensors = []
    for key, t in params.items():
        stored_name = key
        if old_names and key.endswith("LayerNorm.weight"):
            stored_name = key[: -len("weight")] + "gamma"
        if old_names and key.endswith("LayerNorm.bias"):
            stored_name = key[: -len("bias")] + "beta"
        tensors.append((prefix + stored_name, dtype, t))
    tensors += extras(cfg, gen)
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors, {"format": "pt"})
    seen = {k: stored(t, dtype) for k, t in params.items()}
    out = {"format_version": FORMAT_VERSION, "model_type": arch, "dtype": dtype, "cases": []}
    for ids in cases(vocab, 16, gen):
        hidden, weights, readout = forward(seen, cfg, ids)
        out["cases"].append({"ids": ids, "weights": [to_list(w) for w in weights],
                             "hidden": [to_list(h) for h in hidden], "readout": to_list(readout)})
    with open(os.path.join(folder, "reference.json"), "w") as f:
        json.dump(out, f)
    print("gen_hf_fixtures: wrote", folder)


def gpt2_buffers(prefix):
    """What a GPT2LMHeadModel checkpoint carries beside the weights: lm_head (tied to wte) and the
    causal-mask buffers, all of which a reader must skip."""
    def extras(cfg, gen):
        n, P = cfg["n_embd"], cfg["n_positions"]
        out = [("lm_head.weight", "F32", torch.randn(cfg["vocab_size"], n, generator=gen))]
        for l in range(cfg["n_layer"]):
            out.append((prefix + "h.%d.attn.bias" % l, "F32", torch.tril(torch.ones(1, 1, P, P))))
            out.append((prefix + "h.%d.attn.masked_bias" % l, "F32", torch.tensor(-1e4)))
        return out
    return extras


def bert_heads(cfg, gen):
    """BertForPreTraining's extra tensors: the pooler, the cls heads and position_ids."""
    d = cfg["hidden_size"]
    return [("bert.pooler.dense.weight", "F32", torch.randn(d, d, generator=gen)),
            ("bert.pooler.dense.bias", "F32", torch.randn(d, generator=gen)),
            ("cls.predictions.bias", "F32", torch.randn(cfg["vocab_size"], generator=gen)),
            ("cls.predictions.transform.dense.weight", "F32", torch.randn(d, d, generator=gen)),
            ("bert.embeddings.position_ids", "I64", torch.arange(cfg["max_position_embeddings"]).unsqueeze(0))]


def fuzz_seeds():
    """Seed inputs for tests/fuzz: tiny models of the fuzz targets' fixed configs, and configs."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fuzz", "corpus")
    gen = torch.Generator().manual_seed(7)
    gpt2 = {"model_type": "gpt2", "n_layer": 1, "n_embd": 4, "n_head": 2, "n_positions": 4,
            "vocab_size": 8, "n_inner": 8, "layer_norm_epsilon": 1e-5}
    bert = {"model_type": "bert", "num_hidden_layers": 1, "hidden_size": 4, "num_attention_heads": 2,
            "max_position_embeddings": 4, "vocab_size": 8, "intermediate_size": 8, "type_vocab_size": 1,
            "layer_norm_eps": 1e-12}
    os.makedirs(os.path.join(root, "safetensors"), exist_ok=True)
    os.makedirs(os.path.join(root, "hf_config"), exist_ok=True)
    write_safetensors(os.path.join(root, "safetensors", "gpt2.safetensors"),
                      [(k, "F32", t) for k, t in gpt2_params(gpt2, gen).items()])
    write_safetensors(os.path.join(root, "safetensors", "bert_f16.safetensors"),
                      [("bert." + k, "F16", t) for k, t in bert_params(bert, gen).items()])
    for name, cfg in (("gpt2.json", gpt2), ("bert.json", bert)):
        with open(os.path.join(root, "hf_config", name), "w") as f:
            json.dump(cfg, f)


def main():
    fuzz_seeds()
    none = lambda cfg, gen: []
    write_model("gpt2_f32", "gpt2", "F32", "", none, seed=1)
    write_model("gpt2_f16_prefixed", "gpt2", "F16", "transformer.", gpt2_buffers("transformer."),
                n_inner=24, layers=3, seed=2)
    write_model("gpt2_bf16", "gpt2", "BF16", "", gpt2_buffers(""), seed=3)
    write_model("bert_f32_prefixed", "bert", "F32", "bert.", bert_heads, layers=3, seed=4)
    write_model("bert_f16_old_names", "bert", "F16", "", none, old_names=True, seed=5)
    write_model("bert_bf16", "bert", "BF16", "", none, seed=6)


if __name__ == "__main__":
    main()
