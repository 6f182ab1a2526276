// locales.test.mjs: every language's locale file has the same keys, each a string with the same
// {name}s. A page loads one language with no other behind it (web/strings.js), so a key missing
// from one file would show as the bare key.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LANGS, LATER_KEYS, localePath } from '../../web/lang.js';

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

// The modules the hosted page fetches with itself: web/main.js and what it imports statically
// (an import() is fetched on demand, with the later part of the strings).
function firstModules() {
  const seen = new Set();
  const todo = [path.join(web, 'main.js')];
  while (todo.length) {
    const f = todo.pop();
    if (seen.has(f)) continue;
    seen.add(f);
    const src = fs.readFileSync(f, 'utf8');
    for (const m of src.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+\.js)'/gms))
      todo.push(path.resolve(path.dirname(f), m[1]));
    for (const m of src.matchAll(/^\s*import\s+'(\.[^']+\.js)'/gm))
      todo.push(path.resolve(path.dirname(f), m[1]));
  }
  return [...seen];
}

test("the code and page fetched first use no key of the strings' later part", () => {
  const keys = Object.keys(load(LANGS[0]));
  const later = keys.filter((k) => LATER_KEYS.test(k));
  assert.ok(later.length > 50 && later.length < keys.length / 2, `${later.length} later keys`);
  const modules = firstModules();
  assert.ok(
    modules.some((f) => f.endsWith('playground.js')),
    'the walk reached the page',
  );
  assert.ok(!modules.some((f) => f.endsWith('export.js')), 'the walk stopped at import()');
  const used = [];
  for (const f of [...modules, path.join(web, 'index.html')]) {
    const src = fs.readFileSync(f, 'utf8');
    const rel = path.relative(web, f);
    // a key written out, or the fixed start of one built from a template (`panel.${kind}`)
    for (const m of src.matchAll(/['"`]([A-Za-z]\w*\.[\w.]+)['"`]/g))
      if (LATER_KEYS.test(m[1]) && keys.includes(m[1])) used.push(`${rel}: ${m[1]}`);
    for (const m of src.matchAll(/`([A-Za-z]\w*\.[\w.]*)\$\{/g))
      if (later.some((k) => k.startsWith(m[1]))) used.push(`${rel}: ${m[1]}\${…}`);
  }
  assert.deepEqual(used, []);
});
