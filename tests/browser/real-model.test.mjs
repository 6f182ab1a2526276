// real-model.test.mjs: web/real-model.js in Chromium under the page's CSP: it loads attention-real
// with a classic script beside the page's module (whose factory it leaves alone), opens a fixture
// folder's files (tests/fixtures/hf) with progress, and its trace's weights equal `qkv trace --hf`.
// Not the loader's refusals and memory (tests/hf/real-model.test.mjs, in Node) and not the page's
// controls for a real model.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { root, startServer, launch, collectErrors } from './harness.mjs';

const qkv = process.env.AP_QKV || path.join(root, 'build/native/qkv');
const FOLDERS = ['gpt2_f16_prefixed', 'bert_f32_prefixed'];
const TEXT = 'the 猫 was tired';

// each fixture file at /fixtures/<folder>/<name>, beside web/
const routes = {};
for (const folder of FOLDERS) {
  const dir = path.join(root, 'tests/fixtures/hf', folder);
  for (const name of fs.readdirSync(dir))
    routes[`/fixtures/${folder}/${name}`] = {
      body: fs.readFileSync(path.join(dir, name)),
      type: 'application/octet-stream',
    };
}
const srv = await startServer({ routes });
const browser = await launch();
after(async () => {
  await browser.close();
  await new Promise((r) => srv.server.close(r));
});

test('openRealModel in Chromium: the weights of every head equal qkv trace --hf, no error', async () => {
  const page = await browser.newPage();
  const errors = collectErrors(page);
  await page.goto(`${srv.base}index.html`);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  for (const folder of FOLDERS) {
    const names = Object.keys(routes)
      .filter((r) => r.startsWith(`/fixtures/${folder}/`))
      .map((r) => r.split('/').pop());
    const got = await page.evaluate(
      async ({ folder, names, text }) => {
        const { openRealModel } = await import('./real-model.js');
        const pageFactory = globalThis.createAttentionModule;
        const files = [];
        for (const name of names) {
          const bytes = await (await fetch(`fixtures/${folder}/${name}`)).arrayBuffer();
          files.push(new File([bytes], name));
        }
        const progress = [];
        const model = await openRealModel(files, {
          moduleUrl: new URL('wasm/attention-real.js', location.href).href,
          sliceBytes: 8192,
          onProgress: (p) => progress.push(p),
        });
        const t = model.trace(text, { layer: 1, head: 2 });
        model.dispose();
        return {
          factoryKept: globalThis.createAttentionModule === pageFactory,
          progress,
          tokens: t.tokens,
          weights: t.layers.map((L) => L.heads.map((h) => Array.from(h.weights.data))),
          Q: Array.from(t.heads[2].Q.data),
        };
      },
      { folder, names, text: TEXT },
    );
    const ref = JSON.parse(
      execFileSync(
        qkv,
        [
          'trace',
          '--hf',
          path.join(root, 'tests/fixtures/hf', folder),
          TEXT,
          '--layer',
          '1',
          '--head',
          '2',
        ],
        { encoding: 'utf8' },
      ),
    );
    assert.ok(got.factoryKept, 'the page keeps its own module factory');
    const total = fs.statSync(
      path.join(root, 'tests/fixtures/hf', folder, 'model.safetensors'),
    ).size;
    assert.equal(got.progress.at(-1).loaded, total);
    assert.ok(got.progress.length > 1, 'several slices');
    assert.deepEqual(got.tokens, ref.tokens);
    const close = (name, want, have) => {
      const flat = want.flat();
      assert.equal(have.length, flat.length, name);
      flat.forEach((v, i) =>
        assert.ok(Math.abs(v - have[i]) <= 1e-5, `${name}[${i}]: ${have[i]} vs ${v}`),
      );
    };
    ref.layers.forEach((L, l) =>
      L.heads.forEach((h, i) =>
        close(`${folder} layer ${l} head ${i}`, h.weights, got.weights[l][i]),
      ),
    );
    close(`${folder} Q`, ref.heads[2].Q, got.Q);
  }
  assert.deepEqual(errors, []);
  await page.close();
});
