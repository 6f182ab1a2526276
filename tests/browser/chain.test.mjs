// chain.test.mjs: one unbroken chain from the sentence to stage 3. On every layer stage 3 starts with "X for this layer", which follows the token's row from stage
// 2's X = E + P through each earlier layer's walk (LayerNorm, attention, residual, LayerNorm,
// feed-forward, residual) to the X that stage 3 multiplies. Every row shown is the core's (run
// here in Node), its first line is stage 2's row as stage 2 prints it, its last is stage 3's X
// row, and the links lead back to stage 2 and to an earlier layer's attention.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { newPage, setup, teardown } from './harness.mjs';
import { STAGES, coreSettings, defaults } from '../../web/state.js';
import { fmt } from '../../web/views/format.js';

after(teardown);

const printedRow = (m, i, k = 6) =>
  Array.from(m.data.subarray(i * m.cols, i * m.cols + Math.min(k, m.cols)), (v) => fmt(v));

// Stage 3's walk opens closed (its title alone, compact first); a learner's click opens it and it
// stays open while the page re-renders
async function openWalk(page) {
  await page.waitForSelector('body[data-stage="project"] .layer-input > summary');
  if (!(await page.$eval('#stage-body .layer-input', (d) => d.open)))
    await page.click('#stage-body .layer-input > summary');
  await page.waitForSelector('body[data-stage="project"] .layer-input .walk-step');
}

/** The panel's lines: [{layer, step, nums: [printed]}], the first being stage 2's X. */
const panelRows = (page) =>
  page.$$eval('#stage-body .layer-input .walk-step', (lis) =>
    lis.map((li) => ({
      layer: li.dataset.layer == null ? null : Number(li.dataset.layer),
      step: li.dataset.step == null ? null : Number(li.dataset.step),
      nums: [...li.querySelectorAll('.walk-nums .n')]
        .map((n) => n.textContent)
        .filter((s) => s !== '…'),
    })),
  );

for (const lang of ['en', 'zh'])
  test(`stage 3's X row traces back to stage 2 on layer 1 and layer 2 (${lang})`, async () => {
    const { core } = await setup();
    const res = core.trace(defaults().s, coreSettings(defaults()));
    assert.ok(res.layers.length >= 2, 'the shipped model has two layers or more');
    const { page, errors, open, context } = await newPage({
      locale: lang === 'zh' ? 'zh-CN' : 'en-US',
    });
    await open(`lang=${lang}&layer=0`);
    assert.equal(await page.$eval('#layer-picker', (e) => e.value), '0');
    const projectAt = STAGES.indexOf('project');
    for (const layer of [0, res.layers.length - 1]) {
      if (layer > 0) {
        await page.selectOption('#layer-picker', String(layer));
        await page.waitForFunction(() => new URL(location.href).searchParams.get('layer') === '-1');
      }
      await page.click(`#stage-nav li:nth-child(${projectAt + 1}) button`);
      await openWalk(page);
      const q = Number(await page.$eval('#stage-body .layer-input', (e) => e.dataset.row));
      const rows = await panelRows(page);
      // first: X = E + P as stage 2 has it
      assert.deepEqual(rows[0].nums, printedRow(res.input, q), "the first line is stage 2's X row");
      // then every step of every layer before this one, and this layer's steps up to its attention
      const want = [];
      for (let l = 0; l <= layer; l++) {
        const w = res.layers[l].walk;
        const last = l === layer ? w.attention_input : w.steps.length - 1;
        for (let s = 0; s <= last; s++) want.push({ l, s, out: w.steps[s].out });
      }
      assert.equal(rows.length - 1, want.length, `layer ${layer + 1}: one line per step`);
      want.forEach((w, n) => {
        const r = rows[n + 1];
        assert.equal(r.layer, w.l);
        assert.equal(r.step, w.s);
        assert.deepEqual(
          r.nums,
          printedRow(w.out, q),
          `layer ${w.l + 1} step ${w.s}: the core's row`,
        );
      });
      // the last line is the X stage 3 multiplies: its first cell, as the X matrix prints it
      const xCell = await page.$eval(
        `#stage-body td[data-matrix="X"][data-row="${q}"][data-col="0"]`,
        (td) => ({ text: td.textContent, value: Number(td.dataset.value) }),
      );
      assert.equal(xCell.value, res.layers[layer].X.data[q * res.layers[layer].X.cols]);
      assert.equal(rows[rows.length - 1].nums[0], fmt(xCell.value));
      assert.ok(xCell.text.startsWith(fmt(xCell.value)) || fmt(xCell.value).startsWith(xCell.text));
      // the LayerNorm lines name their mean and spread, the core's
      const stats = await page.$$eval('#stage-body .layer-input .walk-worked', (s) =>
        s.map((x) => x.textContent),
      );
      const norm = res.layers[layer].walk.steps[res.layers[layer].walk.attention_input];
      assert.ok(
        stats.some((s) => s.includes(fmt(norm.mean[q], 3)) && s.includes(fmt(norm.std[q], 3))),
      );
    }
    // the way back: an earlier layer's attention, then stage 2
    await page.click('#stage-body .layer-input .walk-step[data-layer="0"] button');
    await page.waitForSelector('body[data-stage="heads"]');
    assert.equal(await page.$eval('#layer-picker', (e) => e.value), '0');
    await page.click(`#stage-nav li:nth-child(${projectAt + 1}) button`);
    await openWalk(page);
    await page.click('#stage-body .layer-input .walk-step:first-child button');
    await page.waitForSelector('body[data-stage="embeddings"]');
    assert.deepEqual(errors, []);
    await context.close();
  });
