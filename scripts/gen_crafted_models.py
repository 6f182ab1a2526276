"""gen_crafted_models.py: hostile .apm files for the model reader's tests and fuzz corpus.

Writes tests/fuzz/corpus/model_file/: a version 4 and a version 3 file of about 3 KB whose header
claims a large network (d_model 1024, 16 heads of d_k 64, d_ff 4096, 8 layers: about 100 million
parameters) over a 2-word vocabulary, holding its head notes and its 2 x 1024 E and nothing more;
and a small valid-looking file for the fuzzer to start from. A reader that shapes the network
before checking that the file holds its bytes allocates hundreds of MB for these before it refuses
them. Format: src/core/model_file.hpp.

Writes tests/fuzz/corpus/real_model_file/: a version 5 file (a converted real model,
src/core/real_model_file.hpp) of under 1 KB whose config.json claims GPT-2 small (124 million
parameters, about 500 MB in f32) and holds no weights; and a valid tiny BERT in int8 (every weight
zero) for the fuzzer to start from, written here from the format's description rather than by
qkv convert. Not a test itself: the doctest, the CLI test and the module's budget test read these
files.
"""

import json
import os
import struct
import zlib

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fuzz", "corpus")
OUT = os.path.join(CORPUS, "model_file")
REAL_OUT = os.path.join(CORPUS, "real_model_file")
MAGIC = b"APMODEL\0"


def u32(v):
    return struct.pack("<I", v)


def string(s):
    b = s.encode("utf-8")
    return u32(len(b)) + b


def header(version, d_model, heads, d_k, d_ff, layers, words, buckets):
    out = MAGIC + u32(version)
    for v in (d_model, heads, d_k, d_ff, layers, len(words), buckets):
        out += u32(v)
    out += u32(0)  # no info
    for w in words:
        out += string(w)
    for _ in range(layers * heads):
        out += string("") + u32(0)  # a head note: empty role, no numbers
    return out


def matrix(version, rows, cols):
    """rows x cols zeros: int8 rows with scale 1.0 (half 0x3C00), or halves."""
    if version == 4:
        return struct.pack("<H", 0x3C00) * rows + bytes(rows * cols)
    return bytes(rows * cols * 2)


def crafted(version):
    d_model, heads, d_k, d_ff, layers = 1024, 16, 64, 4096, 8
    words = ["a", "<unk0>"]
    body = header(version, d_model, heads, d_k, d_ff, layers, words, 1)
    return body + matrix(version, len(words), d_model)  # E, then nothing: no parameters, no CRC


def small_valid(version):
    """d_model 2, 1 head of d_k 2, d_ff 2, 1 layer, 2 words, every matrix zero, a good CRC."""
    d = 2
    body = header(version, d, 1, d, d, 1, ["a", "<unk0>"], 1)
    body += matrix(version, 2, d)  # E
    shapes = [(1, d), (1, d), (d, d), (d, d), (d, d), (d, d), (1, d), (1, d), (d, d), (1, d),
              (d, d), (1, d), (1, d), (1, d)]  # parameters(Network) of one layer, then out
    for rows, cols in shapes:
        body += matrix(version, rows, cols)
    return body + u32(zlib.crc32(body) & 0xFFFFFFFF)


def blob(b):
    return u32(len(b)) + b


def real_header(dtype, config, files):
    """magic, version 5, dtype (0 f32, 1 f16, 2 int8), config.json, tokenizer files, no info."""
    out = MAGIC + u32(5) + u32(dtype) + blob(json.dumps(config).encode("utf-8"))
    out += u32(len(files))
    for name, text in files:
        out += blob(name.encode("utf-8")) + blob(text.encode("utf-8"))
    return out + u32(0)


BERT_VOCAB = "\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "##s"]) + "\n"


def real_crafted():
    config = {"model_type": "gpt2", "n_layer": 12, "n_embd": 768, "n_head": 12,
              "n_positions": 1024, "vocab_size": 50257}
    return real_header(0, config, [("vocab.txt", BERT_VOCAB)])  # then no weights, no CRC


def real_small_bert_int8():
    """hidden 4, 2 heads, 1 layer, 8 tokens, 4 positions, d_ff 8: every weight zero."""
    d, ff, vocab, positions = 4, 8, 8, 4
    config = {"model_type": "bert", "num_hidden_layers": 1, "hidden_size": d,
              "num_attention_heads": 2, "max_position_embeddings": positions,
              "vocab_size": vocab, "intermediate_size": ff, "type_vocab_size": 1}
    body = real_header(2, config, [("vocab.txt", BERT_VOCAB)])

    def vector(cols):
        return bytes(4 * cols)  # f32 zeros

    def int8(rows, cols):
        return struct.pack("<H", 0x3C00) * rows + bytes(rows * cols)  # scale 1.0, zeros

    body += int8(vocab, d) + int8(positions, d) + vector(d) + vector(d) + vector(d)
    body += vector(d) + vector(d)  # attention LayerNorm (after attention in BERT)
    for _ in range(4):  # W_Q b_Q, W_K b_K, W_V b_V, W_O b_O
        body += int8(d, d) + vector(d)
    body += vector(d) + vector(d)  # feed-forward LayerNorm
    body += int8(d, ff) + vector(ff) + int8(ff, d) + vector(d)
    return body + u32(zlib.crc32(body) & 0xFFFFFFFF)


def main():
    os.makedirs(OUT, exist_ok=True)
    files = {
        "regress-header-claims-100m-parameters-v4": crafted(4),
        "regress-header-claims-100m-parameters-v3": crafted(3),
        "small-v4": small_valid(4),
    }
    for name, data in files.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
        print(f"{name}: {len(data)} bytes")
    os.makedirs(REAL_OUT, exist_ok=True)
    real = {
        "regress-header-claims-gpt2-small": real_crafted(),
        "small-bert-int8": real_small_bert_int8(),
    }
    for name, data in real.items():
        with open(os.path.join(REAL_OUT, name), "wb") as f:
            f.write(data)
        print(f"real_model_file/{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
