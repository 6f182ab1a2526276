// support.test.mjs: the "Browser support" table of docs/embedding.md says what web/support.js
// checks (the one home of the feature list): the same features, kinds and first versions, and the
// summary sentence names the versions that run everything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FEATURES, KINDS, minimumVersions, missingFeatures } from '../../web/support.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const doc = fs.readFileSync(path.join(root, 'docs/embedding.md'), 'utf8');
const start = doc.indexOf('## Browser support');
const section = doc.slice(start);

test("docs/embedding.md's browser table is support.js's feature list", () => {
  assert.ok(start >= 0, 'docs/embedding.md has a "## Browser support" section');
  const rows = [
    ...section.matchAll(/^\| .*\(`(\w+)`\) \| ([\w, ]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|$/gm),
  ];
  assert.deepEqual(
    rows.map((r) => ({
      id: r[1],
      kinds: r[2].split(', '),
      min: { chrome: Number(r[3]), firefox: Number(r[4]), safari: Number(r[5]) },
    })),
    FEATURES.map((f) => ({ id: f.id, kinds: [...f.kinds], min: f.min })),
  );
  const all = KINDS.map(minimumVersions).reduce((a, b) => ({
    chrome: Math.max(a.chrome, b.chrome),
    firefox: Math.max(a.firefox, b.firefox),
    safari: Math.max(a.safari, b.safari),
  }));
  assert.ok(
    section.includes(
      `Chrome or Edge ${all.chrome}, Firefox ${all.firefox}, Safari ${all.safari} and later run everything`,
    ),
  );
});

test('Node 20 has what the core API needs', () => {
  // the package's core in Node: WebAssembly with SIMD and exceptions, isWellFormed
  assert.deepEqual(missingFeatures('page'), []);
});
