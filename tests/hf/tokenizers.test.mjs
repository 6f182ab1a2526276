// tokenizers.test.mjs: the core's Hugging Face tokenizers (qkv tokenize --hf) against
// implementations that are not ours, on the same seeded strings (strings.mjs):
//   GPT-2: js-tiktoken's r50k_base encoder (GPT-2's own ranks), and @huggingface/tokenizers
//          reading the tokenizer.json that scripts/gen-gpt2-tokenizer.mjs builds from those ranks;
//          the core reads that tokenizer.json, and vocab.json + merges.txt.
//   BERT:  @huggingface/tokenizers reading a tokenizer.json this test writes (bert-files.mjs),
//          lower-cased and cased; the core reads it, and vocab.txt + tokenizer_config.json.
// Needs AP_QKV (the qkv binary; CTest sets it).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { Tokenizer } from '@huggingface/tokenizers';
import { Tiktoken } from 'js-tiktoken/lite';
import r50k from 'js-tiktoken/ranks/r50k_base';

import { writeGpt2Files } from '../../scripts/gen-gpt2-tokenizer.mjs';
import { writeBertFolder, bertVocab } from './bert-files.mjs';
import { testStrings } from './strings.mjs';

const COUNT = 10000;
const qkv = process.env.AP_QKV;
const strings = testStrings(COUNT);
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-hf-tok-'));
const jsonl = path.join(work, 'strings.jsonl');
fs.writeFileSync(jsonl, strings.map((s) => JSON.stringify(s)).join('\n') + '\n');

// qkv's encodings of every string, read from `dir`
function ours(dir) {
  const out = execFileSync(qkv, ['tokenize', '--hf', dir, '--jsonl', jsonl], {
    maxBuffer: 1 << 30,
    encoding: 'utf8',
  });
  const lines = out
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  assert.equal(lines.length, strings.length, 'one result per string');
  return lines;
}

// every mismatch, with the string, for the message
function compare(name, got, want) {
  const bad = [];
  for (let i = 0; i < strings.length; i++) {
    if (JSON.stringify(got[i]) !== JSON.stringify(want[i])) bad.push(i);
  }
  const show = bad
    .slice(0, 5)
    .map(
      (i) =>
        `${JSON.stringify(strings[i])}\n  ours ${JSON.stringify(got[i])}\n  want ${JSON.stringify(want[i])}`,
    )
    .join('\n');
  assert.equal(
    bad.length,
    0,
    `${name}: ${bad.length} of ${strings.length} strings differ\n${show}`,
  );
}

// the tokens' byte ranges lie in the input, in order; with `disjoint`, without overlapping (a
// WordPiece token may end inside a character that normalizing made into several, e.g. Hangul)
function checkOffsets(results, { addsSpecials, disjoint }) {
  for (let i = 0; i < strings.length; i++) {
    const d = results[i].token_details.filter(
      (t) => !(addsSpecials && t.special && t.byte_end === 0),
    );
    let begin = 0;
    let end = 0;
    for (const t of d) {
      const ok =
        t.byte_begin >= (disjoint ? end : begin) && t.byte_end >= Math.max(end, t.byte_begin);
      assert.ok(ok, `offsets in order: ${JSON.stringify(strings[i])}`);
      begin = t.byte_begin;
      end = t.byte_end;
    }
    assert.ok(end <= Buffer.byteLength(strings[i]));
  }
}

test('the strings cover the kinds of text asked for', () => {
  assert.equal(strings.length, COUNT);
  const has = (re) => strings.filter((s) => re.test(s)).length;
  assert.ok(has(/\p{Script=Han}/u) > 1000, 'Chinese');
  assert.ok(has(/\p{Extended_Pictographic}/u) > 500, 'emoji');
  assert.ok(has(/\d/) > 1000, 'digits');
  assert.ok(has(/ {2,}|\n{2,}/) > 500, 'runs of spaces and newlines');
  assert.ok(has(/[a-z]'(s|t|re|ve|m|ll|d)\b/) > 500, 'contractions');
  assert.ok(has(/[А-я]|[α-ω]|[\u0600-\u06ff]|[\u0900-\u097f]/u) > 300, 'other scripts');
  assert.ok(has(/\p{L}{101,}/u) > 10, 'words longer than 100 characters');
});

test(`GPT-2: ids equal js-tiktoken r50k_base and @huggingface/tokenizers on ${COUNT} strings`, () => {
  const jsonDir = path.join(work, 'gpt2-json');
  const oldDir = path.join(work, 'gpt2-old');
  writeGpt2Files(jsonDir, ['tokenizer.json']);
  writeGpt2Files(oldDir, ['vocab.json', 'merges.txt']);
  const enc = new Tiktoken(r50k);
  const tiktoken = strings.map((s) => enc.encode(s));
  const hfjs = new Tokenizer(
    JSON.parse(fs.readFileSync(path.join(jsonDir, 'tokenizer.json'), 'utf8')),
    {},
  );
  const hf = strings.map((s) => hfjs.encode(s).ids);
  compare('@huggingface/tokenizers against js-tiktoken', hf, tiktoken);
  const fromJson = ours(jsonDir);
  const fromOld = ours(oldDir);
  compare(
    'core (tokenizer.json) against js-tiktoken',
    fromJson.map((r) => r.ids),
    tiktoken,
  );
  compare(
    'core (vocab.json + merges.txt) against js-tiktoken',
    fromOld.map((r) => r.ids),
    tiktoken,
  );
  checkOffsets(fromJson, { addsSpecials: false, disjoint: true });
  // GPT-2 adds no token, and its pieces put the text back together (bytes split inside a
  // character show as \xHH, so only strings without such splits are compared)
  for (let i = 0; i < strings.length; i++) {
    const joined = fromJson[i].tokens.join('');
    if (!joined.includes('\\x')) assert.equal(joined, strings[i]);
  }
});

for (const [label, options] of [
  ['lower-cased', { lowercase: true }],
  ['cased', { lowercase: false }],
  ['cased, accents stripped', { lowercase: false, stripAccents: true }],
]) {
  test(`BERT WordPiece (${label}): ids equal @huggingface/tokenizers on ${COUNT} strings`, () => {
    const vocab = bertVocab(strings, options);
    const dir = path.join(work, `bert-${label.replace(/\W+/g, '-')}`);
    const { tokenizer, config, json, txt } = writeBertFolder(dir, vocab, options);
    const hfjs = new Tokenizer(tokenizer, config);
    const want = strings.map((s) => hfjs.encode(s).ids);
    const unk = vocab.indexOf('[UNK]');
    const unknowns = want.filter((ids) => ids.includes(unk)).length;
    assert.ok(unknowns > 100 && unknowns < strings.length / 2, `[UNK] in ${unknowns} strings`);
    const fromJson = ours(json);
    const fromTxt = ours(txt);
    compare(
      'core (tokenizer.json)',
      fromJson.map((r) => r.ids),
      want,
    );
    compare(
      'core (vocab.txt + tokenizer_config.json)',
      fromTxt.map((r) => r.ids),
      want,
    );
    const pieces = strings.map((s) => hfjs.encode(s).tokens);
    compare(
      'core pieces',
      fromJson.map((r) => r.tokens),
      pieces,
    );
    checkOffsets(fromJson, { addsSpecials: true, disjoint: false });
  });
}

test.after(() => fs.rmSync(work, { recursive: true, force: true }));
