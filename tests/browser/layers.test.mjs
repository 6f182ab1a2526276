// layers.test.mjs: the layer picker. A layered model's stages show the chosen layer's matrices
// (the trace's layers[l], compared cell by cell with the core run in Node), the URL key `layer`
// round-trips (the last layer is written -1, the default), stage 3 labels X as that layer's
// normalised input, and the heads stage explains the residual stream in both languages. Random
// weights (one layer) hide the picker.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  setup,
  newPage,
  teardown,
  cells,
  gotoStage,
  waitRender,
  renders,
  root,
} from './harness.mjs';
import { STAGES, coreSettings, defaults } from '../../web/state.js';

after(teardown);

const TEXT = '小猫吃鱼，它很开心';
const locale = (lang) => JSON.parse(fs.readFileSync(path.join(root, `web/locales/${lang}.json`)));
const fill = (s, vars) => s.replace(/\{(\w+)\}/g, (_, k) => String(vars[k]));

/** Every shown cell of `matrix` equals the core's layers[l] value (head h when per head). */
async function sameAsLayer(page, res, l, matrix) {
  const shown = await cells(page, matrix);
  assert.ok(shown.length > 0, `${matrix} cells are shown`);
  const L = res.layers[l];
  for (const c of shown) {
    const m = c.head == null ? L[matrix] : L.heads[c.head][matrix];
    const want = m.data[c.row * m.cols + c.col];
    assert.ok(
      Math.abs(c.value - want) <= 1e-6 * Math.max(1, Math.abs(want)),
      `layer ${l + 1} ${matrix}[${c.head ?? ''}](${c.row}, ${c.col}): shown ${c.value}, core ${want}`,
    );
  }
  return shown.length;
}

test('the layer picker shows each layer through the same stages; the URL keeps the layer', async () => {
  const { core } = await setup();
  const res = core.trace(TEXT, coreSettings({ ...defaults(), s: TEXT }));
  assert.ok(res.layers.length >= 2, 'the shipped model has layers');
  const { page, errors, open, context } = await newPage();
  await open(`s=${encodeURIComponent(TEXT)}&layer=0&lang=en`);
  assert.equal(await page.$eval('.layer-pick', (e) => e.hidden), false);
  assert.equal(await page.$$eval('#layer-picker option', (o) => o.length), res.layers.length);
  assert.equal(await page.$eval('#layer-picker', (e) => e.value), '0');
  // stage 7 (the weights) and stage 9 (every head, concat, output): layer 1's numbers
  const weightsAt = STAGES.indexOf('softmax');
  await gotoStage(page, weightsAt, 'softmax');
  await sameAsLayer(page, res, 0, 'weights');
  // the weights of layer 1 differ from the last layer's somewhere (else this test could not fail)
  const last = res.layers.length - 1;
  const w0 = res.layers[0].heads[0].weights.data;
  const wl = res.layers[last].heads[0].weights.data;
  assert.ok(
    w0.some((v, i) => Math.abs(v - wl[i]) > 1e-3),
    'layer 1 and the last layer look differently',
  );
  // stage 3: X is layer 1's normalised input, and labelled so
  await gotoStage(page, STAGES.indexOf('project'), 'project');
  await sameAsLayer(page, res, 0, 'X');
  const en = locale('en');
  assert.match(
    await page.textContent('#stage-body'),
    new RegExp(fill(en['project.xLayer'], { l: 1 }).replace(/[()]/g, '\\$&')),
  );
  // the heads stage: the residual stream, and where layer 1's sum goes
  await gotoStage(page, STAGES.indexOf('heads'), 'heads');
  await sameAsLayer(page, res, 0, 'output');
  const note = await page.textContent('#stage-body .residual-note');
  assert.ok(note.includes(fill(en['heads.residual'], { l: 1, n: res.layers.length })), note);
  assert.ok(note.includes(fill(en['heads.residualNext'], { next: 2 })), note);
  // picking the last layer: its numbers, and the URL writes -1 (the last, whatever the model)
  const before = await renders(page);
  await page.selectOption('#layer-picker', String(last));
  await waitRender(page, before);
  await sameAsLayer(page, res, last, 'output');
  assert.ok(
    (await page.textContent('#stage-body .residual-note')).includes(en['heads.residualLast']),
  );
  assert.equal(new URL(page.url()).searchParams.get('layer'), '-1');
  // and back to layer 1: the URL carries it
  const again = await renders(page);
  await page.selectOption('#layer-picker', '0');
  await waitRender(page, again);
  assert.equal(new URL(page.url()).searchParams.get('layer'), '0');
  assert.deepEqual(errors, []);
  await context.close();
});

test('in Chinese the picker and the residual note speak Chinese; random weights hide the picker', async () => {
  const { core } = await setup();
  const res = core.trace(TEXT, coreSettings({ ...defaults(), s: TEXT }));
  const zh = locale('zh');
  const { page, errors, open, context } = await newPage({ locale: 'zh-CN' });
  await open(`s=${encodeURIComponent(TEXT)}&layer=0&lang=zh&step=${STAGES.indexOf('heads') + 1}`);
  await page.waitForSelector('body[data-stage="heads"]');
  assert.equal(
    await page.textContent('#layer-picker option:first-child'),
    fill(zh['walk.layerOption'], { l: 1, n: res.layers.length }),
  );
  const note = await page.textContent('#stage-body .residual-note');
  assert.ok(note.includes(fill(zh['heads.residual'], { l: 1, n: res.layers.length })), note);
  // a layer the model does not have: a notice, and the last layer
  const bad = await newPage({ locale: 'en-US' });
  await bad.open(`s=${encodeURIComponent(TEXT)}&layer=7&lang=en`);
  const notices = await bad.page.$$eval('li.msg.notice', (l) => l.map((x) => x.textContent));
  assert.ok(
    notices.includes(
      fill(locale('en')['notice.clamped'], { key: 'layer', used: res.layers.length - 1 }),
    ),
    notices.join(' | '),
  );
  assert.equal(
    await bad.page.$eval('#layer-picker', (e) => e.value),
    String(res.layers.length - 1),
  );
  await bad.context.close();
  // random weights: one layer, no picker
  await page.click('#whatif summary');
  const before = await renders(page);
  await page.selectOption('#set-model', 'random');
  await waitRender(page, before);
  assert.equal(await page.$eval('.layer-pick', (e) => e.hidden), true);
  assert.equal(await page.$eval('#stage-body .residual-note', (e) => e.hidden), true);
  assert.deepEqual(errors, []);
  await context.close();
});
