// bert-files.mjs: a small BERT tokenizer folder written for a test: a WordPiece vocabulary grown
// from the test strings (whole words, pieces with "##", single characters, some characters left
// out so [UNK] happens), as tokenizer.json and as vocab.txt + tokenizer_config.json.
// Not BERT's real vocabulary (that would be a download): the check is that two implementations
// agree on the same files, whatever the files hold.
import fs from 'node:fs';
import path from 'node:path';

import { makeRng } from './strings.mjs';

const SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];

// A rough split into words, only to choose vocabulary entries (the tokenizers under test do the
// real splitting).
function roughWords(s, lowercase, stripAccents) {
  let t = s;
  if (lowercase) t = t.toLowerCase();
  if (stripAccents ?? lowercase) t = t.normalize('NFD').replace(/\p{Mn}/gu, '');
  t = t.replace(/([\u4e00-\u9fff])/gu, ' $1 ');
  return t.split(/[\s\p{P}\p{S}\p{C}]+/u).filter(Boolean);
}

// The vocabulary, in id order.
export function bertVocab(strings, { lowercase, stripAccents = null }, seed = 7) {
  const rng = makeRng(seed);
  const counts = new Map();
  const chars = new Set();
  for (const s of strings) {
    for (const w of roughWords(s, lowercase, stripAccents)) {
      counts.set(w, (counts.get(w) ?? 0) + 1);
      for (const c of w) chars.add(c);
    }
    for (const c of s) if (/[\p{P}\p{S}]/u.test(c)) chars.add(c);
  }
  const vocab = [...SPECIALS];
  const seen = new Set(vocab);
  const add = (t) => {
    if (!seen.has(t) && [...t].length <= 40) {
      seen.add(t);
      vocab.push(t);
    }
  };
  const sortedChars = [...chars].sort();
  for (const c of sortedChars) {
    // about one character in twenty has no entry at all: its words become [UNK]
    if (!/[a-z]/i.test(c) && rng.int(20) === 0) continue;
    add(c);
    if (rng.int(4) !== 0) add(`##${c}`);
  }
  const words = [...counts.keys()].sort();
  for (const w of words) {
    const n = [...w].length;
    if (counts.get(w) >= 3 && rng.int(3) !== 0) add(w);
    if (n >= 4) {
      const cs = [...w];
      add(cs.slice(0, 2 + rng.int(3)).join(''));
      add(`##${cs.slice(n - 2 - rng.int(3)).join('')}`);
      if (n >= 7) add(`##${cs.slice(2, 5).join('')}`);
    }
  }
  return vocab;
}

export function writeBertFolder(dir, vocab, { lowercase, stripAccents = null }) {
  fs.mkdirSync(dir, { recursive: true });
  const ids = Object.fromEntries(vocab.map((t, i) => [t, i]));
  const special = (id) => ({
    id: ids[id],
    content: id,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIALS.map(special),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: stripAccents,
      lowercase,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [ids['[CLS]']], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [ids['[SEP]']], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: ids,
    },
  };
  const config = {
    do_lower_case: lowercase,
    strip_accents: stripAccents,
    tokenize_chinese_chars: true,
    unk_token: '[UNK]',
    sep_token: '[SEP]',
    pad_token: '[PAD]',
    cls_token: '[CLS]',
    mask_token: '[MASK]',
    tokenizer_class: 'BertTokenizer',
  };
  const json = path.join(dir, 'json');
  const txt = path.join(dir, 'txt');
  fs.mkdirSync(json, { recursive: true });
  fs.mkdirSync(txt, { recursive: true });
  fs.writeFileSync(path.join(json, 'tokenizer.json'), JSON.stringify(tokenizer));
  fs.writeFileSync(path.join(txt, 'vocab.txt'), `${vocab.join('\n')}\n`);
  fs.writeFileSync(path.join(txt, 'tokenizer_config.json'), JSON.stringify(config));
  return { tokenizer, config, json, txt };
}
