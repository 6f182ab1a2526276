// strings.mjs: the seeded test strings the Hugging Face tokenizer checks compare on: English,
// Chinese, emoji, digits, runs of spaces and newlines, contractions, accents, mixed scripts.
// Not a corpus: fragments are drawn at random and glued with random separators.
//
// Left out on purpose, because the reference implementations differ from Hugging Face's own
// (Rust) tokenizers there, not because ours fails: U+0085 and U+FEFF (JavaScript's \s differs from
// Unicode's White_Space), CJK ideographs outside the BMP (tokenizers.js spaces only BMP ones),
// code points unassigned in the Unicode version of our tables (unicode_data.cpp), and the text
// of special tokens (js-tiktoken refuses "<|endoftext|>" in text).

// splitmix32-style generator: the same strings on every machine and Node version
export function makeRng(seed) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  const int = (n) => next() % n;
  const pick = (list) => list[int(list.length)];
  return { next, int, pick };
}

const ENGLISH = `the animal didn't cross the street because it was too tired I love you she said
that they'll never know what we've done he's here You're right It's fine I'm sure we'd go
attention is all you need transformers read every word at once queries keys and values
The quick brown fox jumps over the lazy dog Hello World GPT BERT tokenizer playground
unbelievable internationalization antidisestablishmentarianism running jumped happily
McDonald's O'Neil rock'n'roll y'all ain't shan't DON'T WON'T It'S 'tis 'twas`.split(/\s+/);

const CHINESE = [
  ...'我爱你他她它们这是一个句子模型注意力机制动物没有过马路因为太累了天气很好学习中文老师学生猫狗鱼吃饭喝水北京上海人工智能自然语言处理深度学习',
];
const CJK_PUNCT = [...'，。！？、；：“”‘’（）《》【】…—'];
const EMOJI = [
  '😀',
  '🎉',
  '👍',
  '👍🏽',
  '❤️',
  '👨‍👩‍👧',
  '🇨🇳',
  '🇺🇸',
  '🔥',
  '🤖',
  '✨',
  '1️⃣',
  '🧠',
  '🙂',
  '☕',
  '⭐',
];
const DIGITS = [
  '0',
  '7',
  '42',
  '2024',
  '3.14159',
  '1,000,000',
  '007',
  '١٢٣',
  '٤٥',
  '१२३',
  '½',
  'Ⅻ',
  '²',
  '１２３',
  '9999999999999',
];
const WORDS_OTHER = [
  'café',
  'naïve',
  'Ångström',
  'résumé',
  'Über',
  'façade',
  'coöperate',
  'jalapeño',
  'Straße',
  'ΟΔΟΣ',
  'Σίσυφος',
  'ἄνθρωπος',
  'Москва',
  'ПРИВЕТ',
  'мир',
  'שלום',
  'مرحبا',
  'नमस्ते',
  'हिन्दी',
  'สวัสดี',
  'こんにちは',
  'カタカナ',
  '안녕하세요',
  '한국어',
  'Việt Nam',
  'Tiếng Việt',
  'İstanbul',
  'ǅemal',
  'ﬁne',
  'e\u0301',
  'a\u0308\u0323',
  'n\u0303o',
  'Ǆ',
  'ℌ',
  'Ω',
  'Å',
  'ﬀ',
  'ᾈ',
];
const PUNCT = [
  '.',
  ',',
  '!',
  '?',
  ';',
  ':',
  '"',
  "'",
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  '-',
  '--',
  '...',
  '/',
  '\\',
  '@',
  '#',
  '$',
  '%',
  '^',
  '&',
  '*',
  '_',
  '+',
  '=',
  '<',
  '>',
  '|',
  '~',
  '`',
  '’',
  '‘',
  '“',
  '”',
  '«',
  '»',
  '¿',
  '¡',
  '§',
  '©',
  '°',
  '€',
  '£',
  '¥',
  '→',
  '•',
  '·',
];
const SPACES = [
  ' ',
  ' ',
  ' ',
  '  ',
  '   ',
  '\n',
  '\n\n',
  '\r\n',
  '\t',
  ' \n ',
  '\u00a0',
  '\u3000',
  '\u2003',
  '\u2028',
  '    ',
  '\n   ',
  ' \t\t',
  '\u000b',
  '\u000c',
];
const CONTROLS = ['\u0001', '\u007f', '\u200b', '\u200d', '\u00ad', '\u2060', '\ue000', '\u0000'];

function fragment(rng) {
  switch (rng.int(12)) {
    case 0:
    case 1:
    case 2: {
      const n = 1 + rng.int(8);
      const ws = [];
      for (let i = 0; i < n; i++) ws.push(rng.pick(ENGLISH));
      let s = ws.join(' ');
      if (rng.int(3) === 0) s = s[0].toUpperCase() + s.slice(1);
      if (rng.int(8) === 0) s = s.toUpperCase();
      return s + (rng.int(2) ? rng.pick(PUNCT) : '');
    }
    case 3:
    case 4: {
      const n = 1 + rng.int(12);
      let s = '';
      for (let i = 0; i < n; i++) s += rng.int(6) === 0 ? rng.pick(CJK_PUNCT) : rng.pick(CHINESE);
      return s;
    }
    case 5: {
      const n = 1 + rng.int(4);
      let s = '';
      for (let i = 0; i < n; i++) s += rng.pick(EMOJI);
      return s;
    }
    case 6: {
      const n = 1 + rng.int(3);
      const ds = [];
      for (let i = 0; i < n; i++) ds.push(rng.pick(DIGITS));
      return ds.join(rng.pick(['', ' ', '-', '.', ',', 'x']));
    }
    case 7:
      return rng.pick(WORDS_OTHER);
    case 8: {
      const n = 1 + rng.int(4);
      let s = '';
      for (let i = 0; i < n; i++) s += rng.pick(PUNCT);
      return s;
    }
    case 9:
      return rng.pick(SPACES) + rng.pick(SPACES);
    case 10:
      return rng.int(4) === 0
        ? rng.pick(CONTROLS)
        : rng.pick(["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'LL", '’s', "''", "'"]);
    default: {
      // a long word: past max_input_chars_per_word (100) now and then
      const base = rng.pick(['a', 'ab', 'xyz', 'hello', 'é', '字', '😀']);
      return base.repeat(1 + rng.int(rng.int(4) === 0 ? 120 : 12));
    }
  }
}

// `count` strings; every one non-empty.
export function testStrings(count, seed = 33) {
  const rng = makeRng(seed);
  const out = [];
  while (out.length < count) {
    const parts = 1 + rng.int(6);
    let s = rng.int(10) === 0 ? rng.pick(SPACES) : '';
    for (let i = 0; i < parts; i++) {
      s += fragment(rng);
      if (i + 1 < parts) s += rng.int(3) === 0 ? '' : rng.pick(SPACES);
    }
    if (rng.int(10) === 0) s += rng.pick(SPACES);
    if (s.length > 0) out.push(s);
  }
  return out;
}
