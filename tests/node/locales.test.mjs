// locales.test.mjs: every language's locale file has the same keys, each a string with the same
// {name}s. A page loads one language with no other behind it (web/strings.js), so a key missing
// from one file would show as the bare key.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LANGS, localePath } from '../../web/lang.js';

const web = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web');
const load = (lang) => JSON.parse(fs.readFileSync(path.join(web, localePath(lang)), 'utf8'));
const names = (s) => [...new Set(s.match(/\{\w+\}/g) || [])].sort();

test('web/locales/ holds one file per language in lang.js, and no other', () => {
  const files = fs.readdirSync(path.join(web, 'locales')).filter((f) => f.endsWith('.json'));
  assert.deepEqual(files.sort(), LANGS.map((l) => path.basename(localePath(l))).sort());
});

test('every locale file has the keys the others have, each a string with the same {names}', () => {
  const [first, ...others] = LANGS;
  const base = load(first);
  assert.ok(Object.keys(base).length > 500, `${first}: ${Object.keys(base).length} keys`);
  for (const lang of others) {
    const strings = load(lang);
    const missing = Object.keys(base).filter((k) => !(k in strings));
    const extra = Object.keys(strings).filter((k) => !(k in base));
    assert.deepEqual(missing, [], `keys ${first} has and ${lang} lacks`);
    assert.deepEqual(extra, [], `keys ${lang} has and ${first} lacks`);
    for (const [key, s] of Object.entries(strings)) {
      assert.equal(typeof s, 'string', `${lang} ${key}`);
      assert.equal(typeof base[key], 'string', `${first} ${key}`);
      assert.deepEqual(names(s), names(base[key]), `${lang} ${key}: its {names}`);
    }
  }
});
