"""gen_crafted_models.py: hostile .apm files for the model reader's tests and fuzz corpus.

Writes tests/fuzz/corpus/model_file/: a version 4 and a version 3 file of about 3 KB whose header
claims a large network (d_model 1024, 16 heads of d_k 64, d_ff 4096, 8 layers: about 100 million
parameters) over a 2-word vocabulary, holding its head notes and its 2 x 1024 E and nothing more;
and a small valid-looking file for the fuzzer to start from. A reader that shapes the network
before checking that the file holds its bytes allocates hundreds of MB for these before it refuses
them. Format: src/core/model_file.hpp. Not a test itself: the doctest, the CLI test and the
module's budget test read these files.
"""

import os
import struct
import zlib

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fuzz", "corpus",
                   "model_file")
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


if __name__ == "__main__":
    main()
