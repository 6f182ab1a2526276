#!/usr/bin/env python3
"""test_generate.py: the committed lexicon and corpus are exactly what model/generate.py writes
(CTest model_regenerates). Regenerates them into a temporary folder and compares byte for byte,
naming the first line that differs; also checks the generator's rejection counter.

  python3 model/test_generate.py            (standard library only)

Not a test of the model: model/eval --check (CTest eval) checks the numbers stored in it.
"""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
sys.path.insert(0, HERE)
import generate  # noqa: E402

GENERATED = ("lexicon.tsv", os.path.join("corpus", "train.tsv"), os.path.join("corpus", "test.tsv"))


def first_difference(committed, fresh):
    """None when the two files are equal, else 'line N: committed ... / generated ...'."""
    with open(committed, "rb") as f:
        a = f.read()
    with open(fresh, "rb") as f:
        b = f.read()
    if a == b:
        return None
    la, lb = a.split(b"\n"), b.split(b"\n")
    for n, (x, y) in enumerate(zip(la, lb), 1):
        if x != y:
            return "line %d: committed %r, generated %r" % (n, x.decode("utf-8", "replace")[:120],
                                                             y.decode("utf-8", "replace")[:120])
    return "the committed file has %d lines, the generated one %d" % (len(la), len(lb))


class Regenerates(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="ap-generate-")
        run = subprocess.run([sys.executable, os.path.join(HERE, "generate.py"), "--out",
                              cls.tmp.name], capture_output=True, text=True)
        if run.returncode != 0:
            raise AssertionError("model/generate.py failed:\n" + run.stdout + run.stderr)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_committed_files_are_what_the_generator_writes(self):
        for name in GENERATED:
            with self.subTest(name=name):
                diff = first_difference(os.path.join(ROOT, "src", "data", name),
                                        os.path.join(self.tmp.name, name))
                self.assertIsNone(diff, "src/data/%s is not what model/generate.py writes (%s): "
                                  "regenerate it with model/generate.py, or revert the hand edit"
                                  % (name, diff))

    def test_a_changed_line_is_found(self):
        fresh = os.path.join(self.tmp.name, "corpus", "train.tsv")
        with open(fresh, encoding="utf-8") as f:
            lines = f.read().split("\n")
        lines[10] = lines[10].replace("\t", "\tX", 1)
        changed = os.path.join(self.tmp.name, "changed.tsv")
        with open(changed, "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(lines))
        self.assertIn("line 11:", first_difference(changed, fresh))


class Rejections(unittest.TestCase):
    def test_pair_templates_count_under_their_id(self):
        pair = generate.PAIR_TEMPLATES[0]
        plain = generate.LANG["zh"]["templates"][0]
        rejected = {}
        for _ in range(3):
            generate.count_rejection(rejected, pair)
        generate.count_rejection(rejected, plain)
        self.assertEqual(rejected, {pair[1]: 3, plain[0]: 1})

    def test_the_guard_can_fire_for_a_pair_template(self):
        pair = generate.VERB_PAIR_TEMPLATES[0]
        rejected = {}
        counts = [generate.count_rejection(rejected, pair)
                  for _ in range(generate.MAX_REJECTIONS + 1)]
        self.assertGreater(counts[-1], generate.MAX_REJECTIONS)


if __name__ == "__main__":
    unittest.main()
