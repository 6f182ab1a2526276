#!/usr/bin/env python3
"""generate.py: writes the bilingual lexicon and the template corpus the default model trains on.

  model/generate.py [--out DIR]     DIR defaults to src/data (model/test_generate.py: a temporary one)

Inputs: the word lists and templates (model/words/, read by model/lexicon.py) and the hand-written
training sentences (model/sentences/train/). Outputs (plain UTF-8 text, byte for byte the same on
every machine):
  src/data/lexicon.tsv        word<TAB>lang<TAB>category; drives Chinese segmentation and the
                              model's vocabulary (one embedding row per line, in file order).
  src/data/corpus/train.tsv   training sentences
  src/data/corpus/test.tsv    the generated dev split (no text appears in both files)

Not a linguistic resource: the word lists and templates are small and hand-written, chosen so that
a small layered model can learn readable patterns. Besides the category-rule templates there are
templates whose antecedent only meaning decides (minimal pairs, two candidates of the same kind,
pronouns as objects, plurals, relative clauses); see model/words/pair-templates.tsv. No sentence
of the hand-written sets (model/sentences/{dev,heldout}/*.tsv) ever enters the corpus, their example
sentences included. Pure Python 3 standard library; deterministic (our own splitmix64 generator,
the same algorithm as ap::Rng, so no dependence on `random`'s version).

Corpus format (one sentence a line, '#' lines are comments, five TAB-separated columns):
  lang      zh or en
  template  the id of the template that made it (z01.., e01..; "seed" for the examples)
  text      the sentence as a learner would type it
  tokens    the tokens the C++ tokenizer must produce, joined by '|' (checked by a unit test)
  targets   space-separated "kind:i>j" (0-based token indices): the output at token i must name
            token j. kind is pron (pronoun -> its antecedent) or verb (verb -> its object, or its
            subject when the verb takes no object). '-' when the sentence has no target.

How the sentences make attention necessary: the target of a pronoun or verb is another word of the
same sentence, so the only way to predict it is to look at it. Every pronoun sentence holds
distractor nouns, and the antecedent is the unique noun that fits the pronoun best:
  他/he/him: male person, else a person of unmarked gender;  她/she/her: likewise for female;
  它/it: an animal, else an object or food, else a place (people never);  他们/they/them: the
  plural noun. A checker below recomputes this for every generated sentence and rejects any
  sentence where the template's antecedent is not the unique best fit.
Chinese segmentation is checked too: each sentence is re-segmented by longest match over the
lexicon (the same rule as src/core/tokenizer.cpp) and must give the template's tokens.
"""

import argparse
import json
import os
import re
import sys
import zlib

import lexicon

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SEED = 20240607
N_TRAIN = 32000
N_TEST = 1500
MIN_TRAIN_USES = 2  # every lexicon word must appear at least this often in train.tsv

# --------------------------------------------------------------------------------------------
# Deterministic generator: splitmix64, the same stream as ap::Rng::next_u64.
MASK = (1 << 64) - 1


class Rng:
    def __init__(self, seed):
        self.state = seed & MASK

    def next_u64(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n):
        """Uniform integer in [0, n) by rejection (no modulo bias)."""
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next_u64()
            if x < limit:
                return x % n

    def chance(self, p):
        return (self.next_u64() >> 11) * (1.0 / 9007199254740992.0) < p

    def pick(self, seq):
        return seq[self.below(len(seq))]

    def shuffle(self, seq):
        for i in range(len(seq) - 1, 0, -1):
            j = self.below(i + 1)
            seq[i], seq[j] = seq[j], seq[i]



# --------------------------------------------------------------------------------------------
# The word lists and templates: model/words/*.tsv and phrases.json (lexicon.py reads the lists).

LANG = lexicon.LANG
PRONOUN_FIT = lexicon.PRONOUN_FIT
EN_FORMS = {base: {"base": base, "3sg": s3, "past": past}
            for base, s3, past in lexicon.read_tsv("verb-forms-en.tsv", 3)}
EN_NAMES = {w for w, t in LANG["en"]["words"]["person"] if "nm" in t}
ARTICLES = ("the", "a", "his", "her", "their", "its", "my", "your", "this")
with open(os.path.join(lexicon.WORDS, "phrases.json"), encoding="utf-8") as _f:
    _PHRASES = json.load(_f)
PREFIXES = _PHRASES["prefixes"]      # PREFIX_RATE of the sentences start with one of these
PREDICATES = _PHRASES["predicates"]
PRONOUN_FOR = _PHRASES["pronouns"]
for _lang, _rows in lexicon.by_lang(lexicon.read_tsv("templates.tsv", 4)).items():
    LANG[_lang]["templates"] = [tuple(r) for r in _rows]
PAIR_TEMPLATES, VERB_PAIR_TEMPLATES = [], []
for _kind, *_row in lexicon.read_tsv("pair-templates.tsv", 7):
    {"pair": PAIR_TEMPLATES, "verb-pair": VERB_PAIR_TEMPLATES}[_kind].append(tuple(_row))
# the page's preset sentences and the course text's, always in train.tsv
EXAMPLES = [(lang, tid, tokens.split("|"), targets)
            for lang, tid, tokens, targets in lexicon.read_tsv("examples.tsv", 4)]
GENERIC_WEIGHT = 3  # generic templates are drawn this many times as often
PAIR_WEIGHT = 3  # each pair template is drawn this many times as often as a plain one

noun_kind = lexicon.noun_kind
check_pronoun = lexicon.check_pronoun
squash = lexicon.squash
segment_zh = lexicon.segment_zh
token_spans = lexicon.token_spans
locate_word = lexicon.locate_word
EN_TOKEN = lexicon.EN_TOKEN

# --------------------------------------------------------------------------------------------
# Rendering


def render(lang, tokens):
    if lang == "zh":
        return "".join(tokens)
    out = ""
    for t in tokens:
        if out and not re.fullmatch(r"[,.!?;:]", t):
            out += " "
        out += t
    return out


NOUN_TYPES = {"pm", "pf", "pn", "p", "ppl", "a", "apl", "f", "fd", "o", "ord", "owr", "ofr", "ohd",
              "ogp", "ohi", "l", "n", "an", "in"}
ADJ_FOR = {"person": ("ja", "jp"), "animal": ("ja", "jp"), "object": ("jo",), "food": ("jf",),
           "place": ("jl",)}
PLURAL_VERB = {"was": "were", "is": "are"}  # a predicate about a plural noun (they were tired)
COMPOSE_RATE = 0.6  # a sentence gets a distractor clause (distractor, compose)
PREFIX_RATE = 0.25  # a sentence starts with a time or place phrase
ADJ_RATE = 0.15     # a noun gets an adjective in front of it


def pronoun_for(lang, form, tokens, i, rng):
    kinds = noun_kind(lang, tokens, i)
    key = next((k for k in ("plural", "m", "f", "n") if k in kinds), "thing")
    table = PRONOUN_FOR["zh" if lang == "zh" else "en-" + form]
    return rng.pick(table[key])


def case_en(tokens):
    """English, in place: articles agree; names, "I", the first word and the word after a full
    stop are capitalised (and every other word is not)."""
    for i, t in enumerate(tokens):
        if t != "I":
            tokens[i] = t.lower()
    for i in range(len(tokens) - 1):
        if tokens[i] in ("a", "an"):
            tokens[i] = "an" if tokens[i + 1][0] in "aeiou" else "a"
    for i, t in enumerate(tokens):
        if t in EN_NAMES:
            tokens[i] = t.capitalize()
        if (i == 0 or tokens[i - 1] in (".", "!", "?")) and t[0].islower():
            tokens[i] = t[0].upper() + t[1:]


CLAUSE_END = {"zh": "，", "en": ","}


def distractor(lang, plain, rng):
    """A clause with nouns and no pronoun: the first clause of a random plain sentence, or None."""
    got = fill(lang, plain[rng.below(len(plain))], rng)
    if got is None:
        return None
    tokens = got[0]
    cut = next((k for k, t in enumerate(tokens) if t in ("，", ",", ";", ".")), len(tokens))
    clause = tokens[:cut]
    nouns = [t for t in clause if t.lower() in LANG[lang]["nouns"]]
    if len(clause) < 2 or not nouns or any(t.lower() in PRONOUN_FIT for t in clause):
        return None
    return clause


def compose(lang, tokens, targets, clause, middle):
    """tokens with `clause` put in front of them, or after their first clause (middle), and the
    targets moved with it; None when a pronoun's antecedent would change. A target the category
    rule decides must still be the rule's; one decided by meaning must have no noun of the clause
    that the pronoun could refer to."""
    sep = CLAUSE_END[lang]
    first = next((k for k, t in enumerate(tokens) if t in ("，", ",", ";")), None)
    if middle and first is not None:
        at, piece = first + 1, clause + [sep]
    else:
        at, piece = 0, clause + [sep]
    out = tokens[:at] + piece + tokens[at:]
    if lang == "en":
        case_en(out)
    moved = []
    for t in targets:
        kind, ij = t.split(":")
        i, j = (int(x) for x in ij.split(">"))
        i2, j2 = (x + len(piece) if x >= at else x for x in (i, j))
        if kind == "pron":
            if check_pronoun(lang, tokens, i, j):
                if not check_pronoun(lang, out, i2, j2):
                    return None
            else:
                fit = PRONOUN_FIT[tokens[i].lower()]
                for k in range(at, at + len(clause)):
                    if out[k].lower() in LANG[lang]["nouns"] and any(
                            x in fit for x in noun_kind(lang, out, k)):
                        return None
        moved.append("%s:%d>%d" % (kind, i2, j2))
    return out, moved


def fill(lang, template, rng):
    """One sentence from a template: (tokens, targets) or None when a constraint failed."""
    L = LANG[lang]
    tid, spec, tspec = template
    if rng.chance(PREFIX_RATE):
        spec = rng.pick(PREFIXES[lang]) + " " + spec
    tokens, slots, literal_at = [], {}, {}
    used = set()

    def literal(w):
        if lang == "en" and w != "I":
            w = w.lower()
        literal_at.setdefault(w, len(tokens))
        tokens.append(w)

    for item in spec.split():
        if item.startswith("?") and len(item) > 1:
            if rng.chance(0.5):
                for w in item[1:].split("_"):
                    literal(w)
            continue
        if item.startswith("[") and item.endswith("]"):
            literal_at["$%d" % sum(1 for k in literal_at if k.startswith("$"))] = len(tokens)
            literal(rng.pick(item[1:-1].split("/")))
            continue
        m = re.fullmatch(r"\{(\w+):([\w.]+)(?:([/>])(\w+))?\}", item)
        if not m:
            literal(item)
            continue
        name, typ, sep, arg = m.groups()
        if sep == ">":  # a pronoun or an adjective that fits the word in slot `arg`
            if arg not in slots:
                raise SystemExit("template %s: %s refers to a later slot" % (tid, item))
            if typ in ("subj", "obj", "poss"):
                slots[name] = len(tokens)
                tokens.append(pronoun_for(lang, typ, tokens, slots[arg], rng))
                continue
            cat = L["nouns"][tokens[slots[arg]].lower()][0]
            if typ == "pred":
                group = "animate" if cat in ("person", "animal") else cat
                plural = "plural" in noun_kind(lang, tokens, slots[arg])
                for part in rng.pick(PREDICATES[lang][group]).split():
                    g = re.fullmatch(r"\{v\.(\w+)(?:/(\w+))?\}|\{(\w+)\}", part)
                    if not g:
                        literal(PLURAL_VERB.get(part, part) if lang == "en" and plural else part)
                    elif g.group(1):
                        v = rng.pick(L["verb"][g.group(1)])
                        literal(EN_FORMS[v][g.group(2)] if g.group(2) else v)
                    else:
                        literal(rng.pick(L["adj"][g.group(3)]))
                continue
            if typ != "adj":
                raise SystemExit("template %s: unknown %s" % (tid, item))
            pool = L["adj"][rng.pick(ADJ_FOR[cat])]
        elif typ.startswith("v."):
            pool = L["verb"][typ[2:]]
        elif typ in L["adj"]:
            pool = L["adj"][typ]
        else:
            pool = L["pools"][typ]
        for _ in range(50):
            w = rng.pick(pool)
            if w not in used:
                break
        else:
            return None
        used.add(w)
        if sep == "/":
            w = EN_FORMS[w][arg]
        if typ in NOUN_TYPES:
            name_word = lang == "en" and w in EN_NAMES
            if lang == "en":
                # names take no article; other nouns take "the" when the template gave none
                article = bool(tokens) and tokens[-1] in ARTICLES
                if name_word and article:
                    tokens.pop()
                elif not name_word and not article:
                    tokens.append("the")
            if not name_word and rng.chance(ADJ_RATE):
                adj = rng.pick(L["adj"][rng.pick(ADJ_FOR[L["nouns"][w][0]])])
                tokens.extend([adj] if lang == "en" else [adj, "的"])
        slots[name] = len(tokens)
        tokens.append(w)
    if lang == "en":
        case_en(tokens)
    targets = []
    if tspec != "-":
        for pair in tspec.split():
            by_meaning = pair.startswith("!")
            a, b = pair.lstrip("!").split(">")
            if lang == "en" and not a.startswith("$") and a not in slots:
                a = a.lower()
            i = slots.get(a, literal_at.get(a))
            j = slots.get(b, literal_at.get(b))
            if i is None or j is None:
                raise SystemExit("template %s: cannot resolve target %s" % (tid, pair))
            src = tokens[i].lower()
            kind = "pron" if src in PRONOUN_FIT else "verb"
            if kind == "pron" and not by_meaning and not check_pronoun(lang, tokens, i, j):
                return None
            targets.append("%s:%d>%d" % (kind, i, j))
    # a pronoun the template left without a target (her in "Anna and her dog") gets the category
    # rule's antecedent when that is unique and earlier; else it stays without one (我爱他)
    done = {int(t.split(":")[1].split(">")[0]) for t in targets}
    for i, t in enumerate(tokens):
        if i in done or t.lower() not in PRONOUN_FIT:
            continue
        for j in range(i):
            if tokens[j].lower() in LANG[lang]["nouns"] and check_pronoun(lang, tokens, i, j):
                targets.append("pron:%d>%d" % (i, j))
                break
    return tokens, targets


# --------------------------------------------------------------------------------------------
# Lexicon


def lexicon_rows():
    rows, seen = [], {}

    def add(word, lang, cat):
        key = (word, lang)
        if key in seen:
            if seen[key] != cat:
                raise SystemExit("word %r (%s) listed as %s and %s" % (word, lang, seen[key], cat))
            return
        seen[key] = cat
        rows.append((word, lang, cat))

    for lang in ("zh", "en"):
        L = LANG[lang]
        for cat in ("person", "animal", "food", "object", "place"):
            for w, _ in L["words"][cat]:
                add(w, lang, cat)
        verbs = []
        for group in L["verb"].values():
            verbs += group
        verbs += (["put", "told", "said", "find", "catch", "get", "fell", "broke"] if lang == "en"
                  else ["看见", "做", "说"])
        for v in verbs:
            add(v, lang, "verb")
        for group in L["adj"].values():
            for a in group:
                add(a, lang, "adj")
        for cat, words in L["other"]:
            for w in words.split():
                add(w, lang, cat)
    own = {(w, lang): cat for w, lang, cat in rows}
    # an English verb's other forms are read as its base form (attention needs no tense)
    forms = [(EN_FORMS[v][f], v) for group in LANG["en"]["verb"].values() for v in group
             for f in ("3sg", "past")] + [("eaten", "eat")]
    forms = [(w, v) for i, (w, v) in enumerate(forms)
             if (w, "en") not in own and (w, v) not in forms[:i]]
    for lang in ("zh", "en"):
        for w, target in LANG[lang]["read_as"] + (forms if lang == "en" else []):
            if (w, lang) in own or (w, lang) in seen:
                raise SystemExit("read-as word %r (%s) is listed twice or has a row" % (w, lang))
            if (target, lang) not in own:
                raise SystemExit("read-as target %r (%s) is not a vocabulary word" % (target, lang))
            seen[(w, lang)] = own[(target, lang)]
            rows.append((w, lang, "", target))  # its category is the target's
    # CMakeLists.txt drops every line from a '#' on when it compiles the lexicon in
    bad = [r[0] for r in rows if "#" in r[0]]
    if bad:
        raise SystemExit("lexicon words may not contain '#': %s" % " ".join(bad))
    return rows


def write_lexicon(rows, path):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("# Generated by model/generate.py: do not edit by hand.\n")
        f.write("# word<TAB>lang<TAB>category[<TAB>read as]. Chinese entries drive longest-match\n")
        f.write("# segmentation. Every line without a fourth column is one row of the trained model's\n")
        f.write("# vocabulary, in this order; a line with one has no row: the model reads the word as\n")
        f.write("# that vocabulary word, whose category it has (left empty). English words are lower\n")
        f.write("# case (looked up lower-cased).\n")
        for row in rows:
            f.write("\t".join(row) + "\n")


# --------------------------------------------------------------------------------------------
# Hand-written training sentences

# model/sentences/train/*.tsv: sentences written by hand, with their pronouns' antecedents and some verbs'
# objects, in the test sets' format (id, lang, text, targets "pron:QUERY=ANSWER" and
# "verb:VERB=OBJECT", word#N for the N-th occurrence). They teach frames no template has; each goes
# into train.tsv NATURAL_REPEAT times (as written once, then with some nouns swapped: swap_nouns),
# with the template id "hand" (corpus.hpp: such a line may hold words outside the vocabulary).
NATURAL_DIR = os.path.join(ROOT, "model", "sentences", "train")
NATURAL_REPEAT = 4
# The dev and held-out sentences (model/eval says which is which): none of them enters the corpus.
EVAL_DIRS = [os.path.join(ROOT, "model", "sentences", role) for role in ("dev", "heldout")]


def overlap_units(lang, text):
    """What two sentences share when one is a near copy of the other: English words, Chinese
    character pairs."""
    t = squash(text) if lang == "zh" else text.lower()
    if lang == "en":
        return set(re.findall(r"[a-z']+", t))
    return {t[i:i + 2] for i in range(len(t) - 1)}


# A hand-written training sentence sharing this much (Jaccard) with a test sentence is refused:
# writers converge on the same everyday sentences and frames ("X could not lift Y because it was
# too heavy"), and a near copy would leak the test. At 0.5 only copies with a word or two changed
# were caught; 0.38 also catches the same frame with other nouns.
NEAR_COPY = 0.38


def natural_lines(zh_words, max_len, held, tests):
    """The hand-written training sentences as corpus rows (lang, "hand", text, tokens, targets).
    tests: (lang, text) of every test sentence. Stops naming every bad line, not just the first."""
    near = [(lang, overlap_units(lang, text)) for lang, text in tests]
    rows, bad = [], []
    if not os.path.isdir(NATURAL_DIR):
        return rows
    for name in sorted(os.listdir(NATURAL_DIR)):
        if not name.endswith(".tsv"):
            continue
        path = os.path.join(NATURAL_DIR, name)
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if not line or line.startswith("#"):
                    continue
                try:
                    rows += natural_row("%s line %d" % (path, number), line, zh_words, max_len,
                                        held, near)
                except SystemExit as e:
                    bad.append(str(e))
    if bad:
        raise SystemExit("\n".join(bad))
    return rows


def natural_row(where, line, zh_words, max_len, held, near):
    """One hand-written line as NATURAL_REPEAT corpus rows (the line, then copies with nouns
    swapped); SystemExit saying what is wrong."""
    cols = line.split("\t")
    if len(cols) != 4 or cols[1] not in ("zh", "en"):
        raise SystemExit("%s: expected id, zh or en, text, targets" % where)
    _, lang, text, spec = cols
    if squash(text) in held:
        raise SystemExit("%s: the sentence is in a test set" % where)
    mine = overlap_units(lang, text)
    if any(lang == l2 and len(mine & u) >= NEAR_COPY * len(mine | u) for l2, u in near):
        raise SystemExit("%s: the sentence is a near copy of a test sentence" % where)
    spans = token_spans(lang, text, zh_words, max_len)
    targets = []
    for item in spec.split():
        kind, _, qa = item.partition(":")
        q, _, a = qa.partition("=")
        if kind not in ("pron", "verb") or not q or not a:
            raise SystemExit("%s: bad target %r" % (where, item))
        i = locate_word(lang, text, spans, q, where)
        j = locate_word(lang, text, spans, a, where)
        pronoun = spans[i][0].lower() in PRONOUN_FIT
        if i == j or pronoun != (kind == "pron"):
            raise SystemExit("%s: %r is not a %s of its own" %
                             (where, q, "pronoun" if kind == "pron" else "verb"))
        targets.append("%s:%d>%d" % (kind, i, j))
    row = (lang, "hand", text, "|".join(t for t, _, _ in spans), " ".join(targets) or "-")
    rng = Rng(SEED ^ zlib.crc32(text.encode("utf-8")))
    rows = [row]
    for _ in range(NATURAL_REPEAT - 1):
        other = swap_nouns(lang, text, spans, zh_words, max_len, rng)
        theirs = overlap_units(lang, other[0]) if other is not None else None
        fresh = other is not None and not any(
            lang == l2 and len(theirs & u) >= NEAR_COPY * len(theirs | u) for l2, u in near)
        rows.append((lang, "hand", other[0], other[1], row[4]) if fresh else row)
    return rows


# The copies of a hand-written line after its first: each noun with a row of its own is swapped,
# with this chance, for another noun of its kind and tags (a girl's name for a girl's name, a
# fragile object for a fragile object, never a noun already in the sentence), the same word
# everywhere it occurs. The targets stay on the same tokens, so the model sees the sentence's
# frame decide the antecedent with other nouns in it, not only the words its writer chose.
SWAP_RATE = 0.5
# Nouns that are also other words: English "home" is an adverb in "came home"; a one-character
# Chinese noun is part of many words (家 in 全家人, 人 in 大人), so neither is swapped or swapped in.
NOT_SWAPPED = {"home"} | {w for _, items in LANG["zh"]["words"].items() for w, _ in items
                          if len(w) == 1}


def swap_nouns(lang, text, spans, zh_words, max_len, rng):
    """(text, tokens joined by |) of a copy of a hand-written line with some nouns swapped; None
    when nothing was swapped or the copy would not tokenize into exactly those tokens (the
    targets' indices would then point elsewhere)."""
    words, kind = LANG[lang]["words"], LANG[lang]["kind"]
    present = {t.lower() for t, _, _ in spans}
    swap = {}
    for t, _, _ in spans:
        key = t.lower()
        if key in swap or key not in kind or key in NOT_SWAPPED or not rng.chance(SWAP_RATE):
            continue
        cat, tags = kind[key]
        pool = [w for w, tg in words[cat] if frozenset(tg) == tags and w not in present and
                w not in swap.values() and w not in NOT_SWAPPED]
        if pool:
            swap[key] = rng.pick(pool)
    if not swap:
        return None
    out, at, tokens = [], 0, []
    for i, (t, a, b) in enumerate(spans):
        new = swap.get(t.lower(), t)
        if new != t and t[:1].isupper():
            new = new[:1].upper() + new[1:]
        if lang == "en" and i + 1 < len(spans) and t.lower() in ("a", "an") and \
                spans[i + 1][0].lower() in swap:
            an = swap[spans[i + 1][0].lower()][:1] in "aeiou"
            new = ("an" if an else "a") if t.islower() else ("An" if an else "A")
        out.append(text[at:a] + new)
        tokens.append(new)
        at = b
    copy = "".join(out) + text[at:]
    if [t for t, _, _ in token_spans(lang, copy, zh_words, max_len)] != tokens:
        return None
    return copy, "|".join(tokens)


# A template whose draws fail this often is broken (a slot no word can fill, a target the rule
# never picks); generation stops and names it rather than loop for ever.
MAX_REJECTIONS = 20000


def template_id(tpl):
    """A template's id: (id, text, targets) for a plain one, (lang, id, a, targets a, b,
    targets b) for a minimal pair."""
    return tpl[1] if len(tpl) == 6 else tpl[0]


def count_rejection(rejected, tpl):
    """Counts one failed draw of tpl under its id; returns the count so far."""
    key = template_id(tpl)
    rejected[key] = rejected.get(key, 0) + 1
    return rejected[key]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "src", "data"),
                    help="folder for lexicon.tsv and corpus/ (default src/data)")
    out_dir = ap.parse_args(argv).out
    rows = lexicon_rows()
    zh_words = {r[0] for r in rows if r[1] == "zh"}  # segmentation sees every lexicon word
    en_words = {r[0] for r in rows if r[1] == "en"}
    max_len = max(len(w) for w in zh_words)

    def tokens_ok(lang, tokens):
        if lang == "zh":
            return segment_zh(render(lang, tokens), zh_words, max_len) == tokens
        return (EN_TOKEN.findall(render(lang, tokens)) == tokens and
                all(t.lower() in en_words for t in tokens))

    for lang, _, tokens, _ in EXAMPLES:
        if not tokens_ok(lang, tokens):
            raise SystemExit("example sentence %s does not segment as intended" % tokens)

    rng = Rng(SEED)
    # the hand-written sets (dev and held-out: every file of model/sentences/dev and heldout;
    # model/eval says which is which) never enter the corpus, not even by chance
    held, tests = set(), []
    eval_paths = [os.path.join(d, n) for d in EVAL_DIRS for n in os.listdir(d) if n.endswith(".tsv")]
    for path in sorted(eval_paths):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    held.add(squash(line.split("\t")[2]))
                    tests.append((line.split("\t")[1], line.split("\t")[2]))
    seen = {render(lang, tokens) for lang, _, tokens, _ in EXAMPLES}  # the examples go to train.tsv only
    lines, rejected = [], {}
    templates = []
    for lang, group in (("zh", LANG["zh"]["templates"]), ("en", LANG["en"]["templates"])):
        for t in group:
            templates += [(lang, t)] * (GENERIC_WEIGHT if t[0][1] == "g" else 1)
    for pt in PAIR_TEMPLATES:
        templates += [(pt[0], pt)] * PAIR_WEIGHT
    templates += [(pt[0], pt) for pt in VERB_PAIR_TEMPLATES]
    plain = {lang: [t for t in group if t[2] != "-"]
             for lang, group in (("zh", LANG["zh"]["templates"]), ("en", LANG["en"]["templates"]))}
    want = N_TRAIN + N_TEST
    while len(lines) < want:
        lang, tpl = templates[rng.below(len(templates))]
        if len(tpl) == 6:  # a minimal pair: both halves from one random state
            state = rng.state
            a = fill(lang, (tpl[1] + "a", tpl[2], tpl[3]), rng)
            rng.state = state
            b = fill(lang, (tpl[1] + "b", tpl[4], tpl[5]), rng)
            made = [(tpl[1] + "a", a), (tpl[1] + "b", b)]
        else:
            made = [(tpl[0], fill(lang, tpl, rng))]
        if all(got is not None for _, got in made) and rng.chance(COMPOSE_RATE):
            clause = distractor(lang, plain[lang], rng)
            middle = rng.chance(0.5)
            if clause is not None:
                both = [(tid + "+", compose(lang, got[0], got[1], clause, middle))
                        for tid, got in made]
                if all(got is not None for _, got in both):
                    made = both
        if any(got is None or not tokens_ok(lang, got[0]) for _, got in made):
            if count_rejection(rejected, tpl) > MAX_REJECTIONS:
                raise SystemExit("template %s is rejected too often: fix it" % (tpl,))
            continue
        texts = [render(lang, got[0]) for _, got in made]
        if any(t in seen or squash(t) in held for t in texts):
            continue
        for (tid, (tokens, targets)), text in zip(made, texts):
            seen.add(text)
            lines.append((lang, tid, text, "|".join(tokens), " ".join(targets) or "-"))

    test, train = lines[:N_TEST], lines[N_TEST:]
    natural = natural_lines(zh_words, max_len, held, tests)
    train += natural
    for lang, tid, tokens, targets in EXAMPLES:
        if squash(render(lang, tokens)) not in held:
            train.insert(0, (lang, tid, render(lang, tokens), "|".join(tokens), targets))

    # every lexicon word should be seen in training, or its embedding would stay random
    uses = {}
    for lang, _, _, toks, _ in train:
        for t in toks.split("|"):
            uses[(t.lower(), lang)] = uses.get((t.lower(), lang), 0) + 1
    rare = [(r[0], r[1], uses.get((r[0], r[1]), 0)) for r in rows
            if len(r) == 3 and uses.get((r[0], r[1]), 0) < MIN_TRAIN_USES]
    if rare:
        raise SystemExit("lexicon words seen fewer than %d times in train.tsv: %s" %
                         (MIN_TRAIN_USES, ", ".join("%s/%s=%d" % r for r in rare)))

    os.makedirs(os.path.join(out_dir, "corpus"), exist_ok=True)
    write_lexicon(rows, os.path.join(out_dir, "lexicon.tsv"))
    header = (
        "# Generated by model/generate.py (RNG seed %d): do not edit.\n"
        "# lang<TAB>template<TAB>text<TAB>tokens (joined by |)<TAB>targets\n"
        "# targets: kind:i>j, 0-based token indices; the output at token i must name token j.\n"
        "# kind pron = pronoun -> antecedent; verb = verb -> object (or subject if none).\n" % SEED)
    for name, part in (("train", train), ("test", test)):
        with open(os.path.join(out_dir, "corpus", name + ".tsv"), "w",
                  encoding="utf-8", newline="\n") as f:
            f.write(header)
            for row in part:
                f.write("\t".join(row) + "\n")
    counts = {}
    for w, lang, cat in (r for r in rows if len(r) == 3):
        counts[(lang, cat)] = counts.get((lang, cat), 0) + 1
    read_as = {lang: sum(1 for r in rows if len(r) == 4 and r[1] == lang) for lang in ("zh", "en")}
    nouns = {lang: sum(v for (l2, c), v in counts.items() if l2 == lang and
                       c in ("person", "animal", "food", "object", "place"))
             for lang in ("zh", "en")}
    va = {lang: counts.get((lang, "verb"), 0) + counts.get((lang, "adj"), 0)
          for lang in ("zh", "en")}
    print("lexicon: %d entries, %d rows; nouns zh %d en %d; verbs+adjectives zh %d en %d; "
          "read as another word zh %d en %d" %
          (len(rows), len(rows) - read_as["zh"] - read_as["en"], nouns["zh"], nouns["en"],
           va["zh"], va["en"], read_as["zh"], read_as["en"]))
    print("corpus: %d train (%d of them hand-written, each %d times), %d test sentences; "
          "rejected while sampling: %s" %
          (len(train), len(natural) // NATURAL_REPEAT, NATURAL_REPEAT, len(test),
           ", ".join("%s=%d" % kv for kv in sorted(rejected.items()))))


if __name__ == "__main__":
    sys.exit(main())
