"""gen_unicode_tables.py: writes src/core/unicode_data.cpp, the Unicode character tables the
Hugging Face tokenizers need (hf_tokenizer.cpp), from Python's unicodedata.

  /usr/bin/python3 scripts/gen_unicode_tables.py           (rewrites the file; commit the result)
  /usr/bin/python3 scripts/gen_unicode_tables.py --check   (exit 1 when the file differs; CTest)

Tables (each a sorted list of inclusive code point ranges unless said otherwise):
  letter        general category L*           GPT-2's \\p{L}
  number        general category N*           GPT-2's \\p{N}
  white_space   the White_Space property      GPT-2's \\s (as Oniguruma and Rust read it)
  other         general category C* (Cc Cf Cs Co Cn)   BERT drops these (control characters)
  punctuation   general category P*           BERT splits these off
  nonspacing    general category Mn           BERT's accent stripping removes these
  cased, case_ignorable   the properties that decide a final sigma when lower-casing
  lower         simple lower-case mappings as runs (first, last, delta, stride)
  ccc           canonical combining class as ranges (first, last, class), class > 0 only
  nfd           full canonical decompositions (Hangul syllables excepted: they are algorithmic)

Not a Unicode library: only what the tokenizers use. The Unicode version is unicodedata's
(unidata_version), written into the file as kUnicodeVersion.
"""

import os
import subprocess
import sys
import unicodedata

MAX = 0x110000
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "src", "core", "unicode_data.cpp")


def ranges(pred):
    out = []
    start = None
    for cp in range(MAX):
        if pred(cp):
            if start is None:
                start = cp
        elif start is not None:
            out.append((start, cp - 1))
            start = None
    if start is not None:
        out.append((start, MAX - 1))
    return out


def cat(cp):
    return unicodedata.category(chr(cp))


def is_surrogate(cp):
    return 0xD800 <= cp <= 0xDFFF


def white_space(cp):
    # str.isspace() is bidi class WS, B or S, or category Zs; White_Space (PropList.txt) is that
    # set without U+001C..U+001F (information separators: bidi B/S, not White_Space).
    return (not is_surrogate(cp)) and chr(cp).isspace() and not (0x1C <= cp <= 0x1F)


# Word_Break MidLetter, MidNumLet and Single_Quote: with Mn Me Cf Lm Sk they make Case_Ignorable
# (DerivedCoreProperties.txt).
MID = {0x27, 0x2E, 0x3A, 0xB7, 0x387, 0x55F, 0x5F4, 0x2018, 0x2019, 0x2024, 0x2027, 0xFE13,
       0xFE52, 0xFE55, 0xFF07, 0xFF0E, 0xFF1A}


def case_ignorable(cp):
    return cp in MID or cat(cp) in ("Mn", "Me", "Cf", "Lm", "Sk")


def cased(cp):
    # Cased = Lu + Ll + Lt + Other_Lowercase + Other_Uppercase; unicodedata has neither Other_
    # property, so a letter or symbol that has a case mapping or is marked lower/upper stands in.
    if is_surrogate(cp):
        return False
    c = chr(cp)
    return cat(cp) in ("Lu", "Ll", "Lt") or c.lower() != c or c.upper() != c or c.islower() or c.isupper()


def lower_runs():
    pairs = []
    for cp in range(MAX):
        if is_surrogate(cp):
            continue
        low = chr(cp).lower()
        if len(low) == 1 and ord(low) != cp:
            pairs.append((cp, ord(low) - cp))
    runs = []  # (first, last, delta, stride)
    i = 0
    while i < len(pairs):
        first, delta = pairs[i]
        last = first
        stride = 1
        j = i + 1
        if j < len(pairs) and pairs[j][1] == delta and pairs[j][0] - first in (1, 2):
            stride = pairs[j][0] - first
            while j < len(pairs) and pairs[j][1] == delta and pairs[j][0] - last == stride:
                last = pairs[j][0]
                j += 1
        else:
            j = i + 1
        runs.append((first, last, delta, stride))
        i = j
    return runs


def ccc_ranges():
    out = []
    for cp in range(MAX):
        if is_surrogate(cp):
            continue
        c = unicodedata.combining(chr(cp))
        if c == 0:
            continue
        if out and out[-1][1] == cp - 1 and out[-1][2] == c:
            out[-1] = (out[-1][0], cp, c)
        else:
            out.append((cp, cp, c))
    return out


def nfd_table():
    entries = []
    for cp in range(MAX):
        if is_surrogate(cp) or 0xAC00 <= cp <= 0xD7A3:
            continue
        d = unicodedata.normalize("NFD", chr(cp))
        if d != chr(cp):
            entries.append((cp, [ord(x) for x in d]))
    return entries


def hexr(v):
    return "0x%X" % v


def range_table(name, rs):
    body = ", ".join("{%s, %s}" % (hexr(a), hexr(b)) for a, b in rs)
    return "const Range k%s[] = {%s};\n" % (name, body)


def main():
    if sys.version_info < (3, 8):
        sys.exit("gen_unicode_tables.py needs Python 3.8 or later")
    tables = [
        ("Letter", ranges(lambda cp: not is_surrogate(cp) and cat(cp).startswith("L"))),
        ("Number", ranges(lambda cp: not is_surrogate(cp) and cat(cp).startswith("N"))),
        ("WhiteSpace", ranges(white_space)),
        ("Other", ranges(lambda cp: cat(cp).startswith("C"))),
        ("Punctuation", ranges(lambda cp: not is_surrogate(cp) and cat(cp).startswith("P"))),
        ("Nonspacing", ranges(lambda cp: not is_surrogate(cp) and cat(cp) == "Mn")),
        ("Cased", ranges(cased)),
        ("CaseIgnorable", ranges(lambda cp: not is_surrogate(cp) and case_ignorable(cp))),
    ]
    runs = lower_runs()
    cccs = ccc_ranges()
    nfd = nfd_table()
    out = []
    out.append("// unicode_data.cpp: GENERATED by scripts/gen_unicode_tables.py from Python's unicodedata\n")
    out.append("// (Unicode %s); do not edit. The tables behind unicode_data.hpp.\n" % unicodedata.unidata_version)
    out.append('#include "unicode_data.hpp"\n\n#include <algorithm>\n#include <cstdint>\n\n')
    out.append("namespace ap::unicode {\n\n")
    out.append('const char* const kUnicodeVersion = "%s";\n\n' % unicodedata.unidata_version)
    out.append("namespace {\n\n")
    out.append("struct Range {\n  char32_t first, last;\n};\n\n")
    for name, rs in tables:
        out.append(range_table(name, rs))
        out.append("\n")
    out.append("struct LowerRun {\n  char32_t first, last;\n  std::int32_t delta;\n  std::uint8_t stride;\n};\n\n")
    out.append("const LowerRun kLower[] = {%s};\n\n" % ", ".join(
        "{%s, %s, %d, %d}" % (hexr(a), hexr(b), d, s) for a, b, d, s in runs))
    out.append("struct CccRange {\n  char32_t first, last;\n  std::uint8_t ccc;\n};\n\n")
    out.append("const CccRange kCcc[] = {%s};\n\n" % ", ".join(
        "{%s, %s, %d}" % (hexr(a), hexr(b), c) for a, b, c in cccs))
    flat = []
    index = []
    for cp, seq in nfd:
        index.append((cp, len(flat), len(seq)))
        flat.extend(seq)
    out.append("struct Decomposition {\n  char32_t cp;\n  std::uint16_t offset;\n  std::uint8_t length;\n};\n\n")
    assert len(flat) < 65536 and max(len(s) for _, s in nfd) < 256
    out.append("const Decomposition kNfd[] = {%s};\n\n" % ", ".join(
        "{%s, %d, %d}" % (hexr(cp), o, n) for cp, o, n in index))
    out.append("const char32_t kNfdFlat[] = {%s};\n\n" % ", ".join(hexr(x) for x in flat))
    out.append(TAIL_HELPERS)
    out.append("}  // namespace\n\n")
    for name, rs in tables:
        out.append("bool in_%s(char32_t c) { return in(kLowerCamel, c); }\n".replace(
            "kLowerCamel", "k" + name).replace("in_%s", "in_" + snake(name)))
    out.append(TAIL_PUBLIC)
    out.append("}  // namespace ap::unicode\n")
    text = "".join(out)
    # clang-format reads the style of the file's directory (the repository's .clang-format)
    text = subprocess.run(["clang-format", "--assume-filename=" + OUT], input=text, check=True,
                          capture_output=True, text=True).stdout
    if "--check" in sys.argv[1:]:
        with open(OUT, encoding="utf-8") as f:
            same = f.read() == text
        print("%s is %s" % (os.path.relpath(OUT, ROOT), "up to date" if same else
                            "out of date: run /usr/bin/python3 scripts/gen_unicode_tables.py"))
        sys.exit(0 if same else 1)
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    print("wrote %s (Unicode %s): %d lower runs, %d ccc ranges, %d decompositions" % (
        os.path.relpath(OUT, ROOT), unicodedata.unidata_version, len(runs), len(cccs), len(nfd)))


def snake(name):
    s = ""
    for ch in name:
        if ch.isupper() and s:
            s += "_"
        s += ch.lower()
    return s


TAIL_HELPERS = """template <std::size_t N>
bool in(const Range (&table)[N], char32_t c) {
  const Range* end = table + N;
  const Range* it = std::upper_bound(table, end, c, [](char32_t v, const Range& r) { return v < r.first; });
  return it != table && c <= (it - 1)->last;
}

"""

TAIL_PUBLIC = """
char32_t to_lower(char32_t c) {
  const LowerRun* end = kLower + sizeof kLower / sizeof kLower[0];
  const LowerRun* it = std::upper_bound(kLower, end, c, [](char32_t v, const LowerRun& r) { return v < r.first; });
  if (it == kLower) return c;
  --it;
  if (c > it->last || (c - it->first) % it->stride != 0) return c;
  return static_cast<char32_t>(static_cast<std::int32_t>(c) + it->delta);
}

int combining_class(char32_t c) {
  const CccRange* end = kCcc + sizeof kCcc / sizeof kCcc[0];
  const CccRange* it = std::upper_bound(kCcc, end, c, [](char32_t v, const CccRange& r) { return v < r.first; });
  if (it == kCcc || c > (it - 1)->last) return 0;
  return (it - 1)->ccc;
}

bool decompose(char32_t c, std::u32string& out) {
  const Decomposition* end = kNfd + sizeof kNfd / sizeof kNfd[0];
  const Decomposition* it = std::lower_bound(kNfd, end, c, [](const Decomposition& d, char32_t v) { return d.cp < v; });
  if (it == end || it->cp != c) return false;
  out.append(kNfdFlat + it->offset, kNfdFlat + it->offset + it->length);
  return true;
}

"""

if __name__ == "__main__":
    main()
