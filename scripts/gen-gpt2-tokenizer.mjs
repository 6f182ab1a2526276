// gen-gpt2-tokenizer.mjs: GPT-2's tokenizer files (vocab.json, merges.txt, tokenizer.json) built
// from js-tiktoken's r50k_base ranks (GPT-2's own encoder, an npm dev dependency), so tests check
// the core's byte-level BPE against ids that are not ours without downloading anything.
//   node scripts/gen-gpt2-tokenizer.mjs OUT_DIR
// Not a converter for other encodings: r50k_base only.
//
// How merges come from ranks: a token of rank r is what byte-level BPE makes when it may use
// only the tokens ranked below r; that run must end in exactly two parts, which are the merge
// (ranked r). Tokens are written in the byte-to-character code GPT-2's files use.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import r50k from 'js-tiktoken/ranks/r50k_base';

// GPT-2's printable stand-in for each byte (bytes_to_unicode in its encoder.py).
export function byteChars() {
  const map = new Array(256);
  let next = 256;
  for (let b = 0; b < 256; b++) {
    const printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
    map[b] = String.fromCodePoint(printable ? b : next++);
  }
  return map;
}

// bytes (base64) -> rank, from the package's compressed rank list
function ranksOf(encoding) {
  const ranks = new Map();
  for (const line of encoding.bpe_ranks.split('\n')) {
    if (!line) continue;
    const [, offset, ...tokens] = line.split(' ');
    tokens.forEach((t, i) =>
      ranks.set(Buffer.from(t, 'base64').toString('latin1'), Number(offset) + i),
    );
  }
  return ranks;
}

// Byte-level BPE of `bytes` (a latin1 string) using only tokens ranked below maxRank.
function bpeParts(ranks, bytes, maxRank) {
  let parts = [...bytes];
  for (;;) {
    let best = -1;
    let bestRank = Infinity;
    for (let i = 0; i + 1 < parts.length; i++) {
      const r = ranks.get(parts[i] + parts[i + 1]);
      if (r !== undefined && r < maxRank && r < bestRank) {
        bestRank = r;
        best = i;
      }
    }
    if (best < 0) return parts;
    parts = [...parts.slice(0, best), parts[best] + parts[best + 1], ...parts.slice(best + 2)];
  }
}

// { vocab: {token: id}, merges: ["a b", ...], specials: {text: id} } in GPT-2's file code.
export function gpt2Tables() {
  const ranks = ranksOf(r50k);
  const chars = byteChars();
  const code = (latin1) => [...latin1].map((ch) => chars[ch.charCodeAt(0)]).join('');
  const byRank = [...ranks.entries()].sort((a, b) => a[1] - b[1]);
  const vocab = {};
  const merges = [];
  for (const [bytes, rank] of byRank) {
    vocab[code(bytes)] = rank;
    if (bytes.length < 2) continue;
    const parts = bpeParts(ranks, bytes, rank);
    if (parts.length !== 2) throw new Error(`rank ${rank} does not split into one merge`);
    merges.push(`${code(parts[0])} ${code(parts[1])}`);
  }
  for (const [text, id] of Object.entries(r50k.special_tokens)) vocab[text] = id;
  return { vocab, merges, specials: r50k.special_tokens };
}

// The three files' text.
export function gpt2Files() {
  const { vocab, merges, specials } = gpt2Tables();
  const added = Object.entries(specials).map(([content, id]) => ({
    id,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: true,
    special: true,
  }));
  const byteLevel = {
    type: 'ByteLevel',
    add_prefix_space: false,
    trim_offsets: true,
    use_regex: true,
  };
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: added,
    normalizer: null,
    pre_tokenizer: byteLevel,
    post_processor: { ...byteLevel, trim_offsets: false },
    decoder: byteLevel,
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: '',
      end_of_word_suffix: '',
      fuse_unk: false,
      byte_fallback: false,
      vocab,
      merges,
    },
  };
  return {
    'vocab.json': JSON.stringify(vocab),
    'merges.txt': `#version: 0.2\n${merges.join('\n')}\n`,
    'tokenizer.json': JSON.stringify(tokenizer),
  };
}

export function writeGpt2Files(dir, names = ['vocab.json', 'merges.txt', 'tokenizer.json']) {
  fs.mkdirSync(dir, { recursive: true });
  const files = gpt2Files();
  for (const name of names) fs.writeFileSync(path.join(dir, name), files[name]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = process.argv[2];
  if (!out) {
    console.error('usage: node scripts/gen-gpt2-tokenizer.mjs OUT_DIR');
    process.exit(2);
  }
  writeGpt2Files(out);
  console.log(`wrote vocab.json, merges.txt and tokenizer.json to ${out}`);
}
