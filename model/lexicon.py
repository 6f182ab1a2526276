"""lexicon.py: the word lists (model/words/*.tsv) as the generator and model/eval use them, and
the rules both need: the kinds a noun counts as, which noun a pronoun fits best, the tokenizer's
tokens and where a word of a sentence is among them.

Not the generator (model/generate.py) and not a tokenizer for the page: src/core/tokenizer.cpp
is that; segment_zh follows its rule so the generator can check every sentence against it.
Pure Python 3 standard library.
"""

import os
import re

WORDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "words")
NOUN_KINDS = ("person", "animal", "food", "object", "place")


def read_tsv(name, columns):
    """The rows of model/words/NAME: '#' lines and empty lines skipped, each row `columns` cells."""
    rows = []
    path = os.path.join(WORDS, name)
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cells = line.split("\t")
            if len(cells) != columns:
                raise SystemExit("%s line %d: expected %d columns" % (path, number, columns))
            rows.append(cells)
    return rows


def by_lang(rows):
    """{lang: [row without its lang column]}, in file order."""
    out = {"zh": [], "en": []}
    for row in rows:
        out[row[0]].append(row[1:])
    return out


def groups(rows):
    """{group: [words]} from (group, space-separated words) rows, in file order."""
    return {g: words.split() for g, words in rows}


def noun_pools(words):
    """Template slot type -> the nouns it draws from (model/words/templates.tsv names the types)."""
    P = {}
    people = words["person"]
    sing = [w for w, t in people if "pl" not in t]
    P["pm"] = [w for w, t in people if "m" in t]
    P["pf"] = [w for w, t in people if "f" in t]
    P["pn"] = [w for w, t in people if not ({"m", "f", "pl"} & t)]
    P["p"] = sing
    P["ppl"] = [w for w, t in people if "pl" in t]
    P["a"] = [w for w, t in words["animal"] if "pl" not in t]
    P["apl"] = [w for w, t in words["animal"] if "pl" in t]
    P["f"] = [w for w, t in words["food"] if "d" not in t]
    P["fd"] = [w for w, t in words["food"] if "d" in t]
    P["o"] = [w for w, _ in words["object"]]
    P["ord"] = [w for w, t in words["object"] if "rd" in t]
    P["owr"] = [w for w, t in words["object"] if "wr" in t]
    for tag in ("fr", "hd", "gp", "hi"):
        P["o" + tag] = [w for w, t in words["object"] if tag in t]
    P["l"] = [w for w, _ in words["place"]]
    P["an"] = P["p"] + P["a"]
    P["in"] = P["f"] + P["fd"] + P["o"]
    P["n"] = P["an"] + P["in"]
    return P


def load():
    """{lang: the language's word lists, pools and noun table}."""
    nouns = by_lang(read_tsv("nouns.tsv", 4))
    adj = by_lang(read_tsv("adjectives.tsv", 3))
    verb = by_lang(read_tsv("verbs.tsv", 3))
    other = by_lang(read_tsv("function-words.tsv", 3))
    read_as = by_lang(read_tsv("read-as.tsv", 3))
    out = {}
    for lang in ("zh", "en"):
        words = {}
        for kind, word, tags in nouns[lang]:
            if kind not in NOUN_KINDS:
                raise SystemExit("nouns.tsv: %r is not a kind of noun (%s)" % (kind, word))
            words.setdefault(kind, []).append((word, set(tags.split(",")) if tags else set()))
        L = dict(words=words, adj=groups(adj[lang]), verb=groups(verb[lang]),
                 other=[(cat, ws) for cat, ws in other[lang]],
                 read_as=[(w, target) for target, ws in read_as[lang] for w in ws.split()])
        L["pools"] = noun_pools(words)
        # word -> (kind, tags) for nouns
        L["nouns"] = {w: (cat, t) for cat, items in words.items() for w, t in items}
        L["kind"] = {w: (cat, frozenset(t)) for cat, items in words.items() for w, t in items}
        # a read-as noun is, to the pronoun checks and the baselines, of its target's kind
        L["nouns"].update({w: L["nouns"][t] for w, t in L["read_as"] if t in L["nouns"]})
        out[lang] = L
    return out


LANG = load()

# Pronoun -> rank of each noun kind (lower fits better; absent = cannot refer).
PRONOUN_FIT = {
    "他": {"m": 0, "n": 1}, "她": {"f": 0, "n": 1}, "它": {"animal": 0, "object": 1, "food": 1,
                                                         "place": 2},
    "he": {"m": 0, "n": 1}, "him": {"m": 0, "n": 1}, "she": {"f": 0, "n": 1},
    "her": {"f": 0, "n": 1}, "it": {"animal": 0, "object": 1, "food": 1, "place": 2},
    "他们": {"plural": 0}, "they": {"plural": 0}, "them": {"plural": 0},
    "它们": {"plural": 0, "animal": 1, "object": 2, "food": 2, "place": 3},
    "她们": {"plural": 0},
    "his": {"m": 0, "n": 1}, "its": {"animal": 0, "object": 1, "food": 1, "place": 2},
    "their": {"plural": 0},
}


def noun_kind(lang, tokens, i):
    """The kinds a noun token counts as, for the pronoun checker."""
    cat, tags = LANG[lang]["nouns"][tokens[i].lower()]
    kinds = {cat}
    if cat == "person":
        kinds.add("m" if "m" in tags else "f" if "f" in tags else "n")
    if "pl" in tags or (lang == "zh" and i + 1 < len(tokens) and tokens[i + 1] == "们"):
        kinds = {"plural"}
    return kinds


def check_pronoun(lang, tokens, i, j):
    """Whether token j is the unique noun that fits pronoun i best (the category rule)."""
    fit = PRONOUN_FIT[tokens[i].lower()]
    ranks = []
    for k, t in enumerate(tokens):
        if t.lower() in LANG[lang]["nouns"]:
            r = min((fit[x] for x in noun_kind(lang, tokens, k) if x in fit), default=None)
            if r is not None:
                ranks.append((r, k))
    if not ranks:
        return False
    best = min(r for r, _ in ranks)
    winners = [k for r, k in ranks if r == best]
    return winners == [j]


# --------------------------------------------------------------------------------------------
# Tokens


def is_han(ch):
    c = ord(ch)
    return (0x4E00 <= c <= 0x9FFF or 0x3400 <= c <= 0x4DBF or 0x20000 <= c <= 0x2FA1F or
            0xF900 <= c <= 0xFAFF)


def squash(text):
    """A sentence without spaces, punctuation or case: two spellings of one sentence compare equal."""
    return re.sub(r"[\s,.!?;:，。！？；：、]", "", text).lower()


def segment_zh(text, zh_words, max_len):
    """Longest match over Han runs, one token per other character (tokenizer.cpp's rule)."""
    out, p = [], 0
    while p < len(text):
        if not is_han(text[p]):
            out.append(text[p])
            p += 1
            continue
        e = p
        while e < len(text) and is_han(text[e]):
            e += 1
        while p < e:
            n = min(max_len, e - p)
            while n > 1 and text[p:p + n] not in zh_words:
                n -= 1
            out.append(text[p:p + n])
            p += n
    return out


EN_TOKEN = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)*|[0-9]+|[^\sA-Za-z0-9]")


def token_spans(lang, text, zh_words, max_len):
    """The tokenizer's tokens of text with their [start, end) character offsets."""
    if lang == "en":
        return [(m.group(0), m.start(), m.end()) for m in EN_TOKEN.finditer(text)]
    out, at = [], 0
    for t in segment_zh(text, zh_words, max_len):
        if not t.isspace():
            out.append((t, at, at + len(t)))
        at += len(t)
    return out


def locate_word(lang, text, spans, word, where):
    """The index of the last token covering word (word#k: its k-th occurrence), except a
    Chinese plural suffix 们 after a noun (小朋友们: the noun). spans: (token, start, end) in
    characters of text. model/eval locates the dev and held-out sets' words with it too."""
    k = 1
    m = re.fullmatch(r"(.+)#(\d+)", word)
    if m:
        word, k = m.group(1), int(m.group(2))
    pattern = re.escape(word)
    if lang == "en":
        pattern = r"(?<![A-Za-z'])" + pattern + r"(?![A-Za-z'])"
    found = list(re.finditer(pattern, text, flags=re.IGNORECASE if lang == "en" else 0))
    if len(found) < k:
        raise SystemExit("%s: %r is not in the text %d times" % (where, word, k))
    a, b = found[k - 1].start(), found[k - 1].end()
    covering = [i for i, (_, s, e) in enumerate(spans) if s < b and e > a]
    if not covering:
        raise SystemExit("%s: no token covers %r" % (where, word))
    if len(covering) > 1 and spans[covering[-1]][0] == "们":
        return covering[-2]
    return covering[-1]
