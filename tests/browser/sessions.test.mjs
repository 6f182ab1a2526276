// sessions.test.mjs: each <attention-playground> owns its core session. Two elements on one page
// train their own models and each keeps showing its own; mounting and removing 100 elements
// leaves the shared module's memory flat (a removed element frees its session). Serves dist/site
// (scripts/build dist), where the element finds the training worker next to it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, startServer, distDir, collectErrors } from './harness.mjs';

const site = path.join(distDir, 'site');
const ZH = '小猫吃鱼，它很开心';
const TWO = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>two trainers</title>
<script src="/embed/attention-playground.js" defer></script></head><body>
<attention-playground id="a" sentence="${ZH}" step="9"></attention-playground>
<attention-playground id="b" sentence="${ZH}" step="9"></attention-playground>
</body></html>`;
// one element stays (it reads the module's memory); the test adds and removes the others
const MANY = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>many</title>
<script src="/embed/attention-playground.js" defer></script></head><body>
<attention-playground id="anchor" sentence="我爱你"></attention-playground><div id="box"></div>
</body></html>`;

let browser = null;
let srv = null;

before(async () => {
  assert.ok(
    fs.existsSync(path.join(site, 'embed/attention-playground.js')),
    'dist/site is missing: run scripts/build dist',
  );
  const routes = {
    '/t/two.html': { body: TWO },
    '/t/many.html': { body: MANY },
    '/favicon.ico': { body: '<svg xmlns="http://www.w3.org/2000/svg"/>', type: 'image/svg+xml' },
  };
  srv = await startServer({ dir: site, routes });
  browser = await launch();
});

after(async () => {
  if (browser) await browser.close();
  if (srv) await new Promise((r) => srv.server.close(r));
});

const ready = (page, ids) =>
  page.waitForFunction(
    (l) => l.every((id) => document.getElementById(id)?.dataset.ready === '1'),
    ids,
    { timeout: 60000 },
  );

// the attention weights element `id` shows (heads stage: every head), in document order
const weights = (page, id) =>
  page
    .locator(`#${id} #stage-body td[data-matrix="weights"]`)
    .evaluateAll((tds) =>
      tds.map((td) => [td.dataset.head, td.dataset.row, td.dataset.col, Number(td.dataset.value)]),
    );

async function train(page, id, steps) {
  const el = page.locator(`#${id}`);
  await el.locator('#train-steps').fill(String(steps));
  await el.locator('#train-body .train-start').click();
  await el.locator('#train-body[data-status="done"]').waitFor({ timeout: 300000 });
  // the last snapshot is traced and shown, with this run's step count
  await page.waitForFunction(
    ([i, s]) => {
      const e = document.getElementById(i);
      const info = e.shadowRoot.querySelector('#model-info');
      return e.dataset.settled !== '0' && info && info.textContent.includes(`(${s} `);
    },
    [id, steps],
    { timeout: 60000 },
  );
  assert.equal(await el.locator('#set-model').inputValue(), 'custom');
}

test('two elements on one page each train their own model and keep showing it', async () => {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.goto(`${srv.base}t/two.html`);
  await ready(page, ['a', 'b']);
  const shipped = await weights(page, 'a');
  assert.ok(shipped.length > 0, 'the heads stage shows weights');

  await train(page, 'a', 40);
  const trainedA = await weights(page, 'a');
  assert.notDeepEqual(trainedA, shipped);
  assert.deepEqual(await weights(page, 'b'), shipped, 'training a changed nothing in b');
  assert.equal(await page.locator('#b #set-model').inputValue(), 'default');

  await train(page, 'b', 60);
  const trainedB = await weights(page, 'b');
  assert.notDeepEqual(trainedB, trainedA);

  // a traces again (a new seed: the trained weights do not depend on it) and still shows its own
  // model, not b's
  const renders = Number(await page.locator('#a').getAttribute('data-renders'));
  await page.evaluate(() => document.getElementById('a').setAttribute('seed', '8'));
  await page.waitForFunction(
    (r) => {
      const e = document.getElementById('a');
      return Number(e.dataset.renders) > r && e.dataset.settled !== '0';
    },
    renders,
    { timeout: 60000 },
  );
  assert.deepEqual(await weights(page, 'a'), trainedA);
  assert.match(await page.locator('#a #model-info').textContent(), /\(40 /);
  assert.match(await page.locator('#b #model-info').textContent(), /\(60 /);
  assert.deepEqual(errors, []);
  await context.close();
});

test("mounting and removing 100 elements leaves the module's memory flat", async () => {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.goto(`${srv.base}t/many.html`);
  await ready(page, ['anchor']);
  // each element traces random weights of 4 x 64 x 512 floats (512 KiB) that its session keeps
  const batch = (k, n) =>
    page.evaluate(
      async ([k0, count]) => {
        const box = document.getElementById('box');
        const els = Array.from({ length: count }, (_, i) => {
          const e = document.createElement('attention-playground');
          e.id = `m${k0 + i}`;
          for (const [a, v] of [
            ['sentence', 'a b c'],
            ['model', 'random'],
            ['dmodel', '64'],
            ['heads', '8'],
            ['dk', '64'],
            ['hide', 'panels,train'],
          ])
            e.setAttribute(a, v);
          box.append(e);
          return e;
        });
        await Promise.all(els.map((e) => e.ready));
        if (!els.every((e) => e.dataset.ready === '1')) throw new Error('an element did not mount');
        box.replaceChildren();
        await new Promise((r) => setTimeout(r, 0)); // removal is final after the microtasks
        return document.getElementById('anchor').app.core.module.HEAPU8.buffer.byteLength;
      },
      [k, n],
    );
  await batch(0, 10); // the heap reaches its working size
  const start = await batch(10, 10);
  let end = start;
  for (let k = 20; k < 110; k += 10) end = await batch(k, 10);
  assert.equal(end, start, `wasm memory grew from ${start} to ${end} bytes over 100 elements`);
  assert.equal(
    await page.evaluate(() => document.querySelectorAll('attention-playground').length),
    1,
  );
  assert.deepEqual(errors, []);
  await context.close();
});
