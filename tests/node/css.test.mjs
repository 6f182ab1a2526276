// css.test.mjs: static checks on the page's style sheets (web/*.css). A custom property whose value
// refers to itself, directly or through others, is invalid at computed-value time, and every rule
// that uses it silently loses its colour or border; no browser reports it. Not a layout test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const WEB = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'web');
const SHEETS = readdirSync(WEB).filter((f) => f.endsWith('.css'));

/** Every `--name: value;` declaration of a sheet, comments removed. */
function declarations(css) {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, '');
  const out = [];
  for (const m of text.matchAll(/(--[\w-]+)\s*:\s*([^;{}]*)/g)) out.push([m[1], m[2]]);
  return out;
}

/** The custom properties a value reads through var(). */
const reads = (value) => [...value.matchAll(/var\(\s*(--[\w-]+)/g)].map((m) => m[1]);

test('the style sheets are there to check', () => {
  assert.ok(SHEETS.includes('style.css'), `web/ has ${SHEETS.join(', ')}`);
});

test('no custom property refers to itself, directly or through a cycle', () => {
  const graph = new Map();
  for (const sheet of SHEETS) {
    for (const [name, value] of declarations(readFileSync(join(WEB, sheet), 'utf8'))) {
      const edges = graph.get(name) ?? new Set();
      for (const r of reads(value)) edges.add(r);
      graph.set(name, edges);
    }
  }
  assert.ok(graph.size > 20, `only ${graph.size} custom properties found`);
  const cycles = [];
  for (const start of graph.keys()) {
    const seen = new Set();
    const stack = [...(graph.get(start) ?? [])];
    while (stack.length) {
      const next = stack.pop();
      if (next === start) {
        cycles.push(start);
        break;
      }
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...(graph.get(next) ?? []));
    }
  }
  assert.deepEqual(cycles, [], `custom properties that refer to themselves: ${cycles.join(', ')}`);
});

test('the check finds a self-reference', () => {
  const d = declarations(':root { --a: light-dark(var(--a), #000); --b: #fff; }');
  assert.deepEqual(reads(d[0][1]), ['--a']);
  assert.deepEqual(reads(d[1][1]), []);
});
