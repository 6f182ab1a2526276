// walkthrough.test.mjs: each preset, every stage. The weights the page shows equal the core's
// trace for the same settings (computed in Node), rows sum to 1, and nothing logs an error.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  newPage,
  setup,
  teardown,
  gotoStage,
  cells,
  shot,
  renders,
  waitRender,
} from './harness.mjs';
import { PRESETS, STAGES, coreSettings, defaults } from '../../web/state.js';

after(teardown);

function assertMatrixShown(shown, m, head, label) {
  const want = head == null ? shown : shown.filter((c) => c.head === head);
  assert.equal(want.length, m.rows * m.cols, `${label}: every cell is shown`);
  for (const c of want) {
    const v = m.data[c.row * m.cols + c.col];
    if (v === -Infinity) assert.equal(c.value, -Infinity, `${label}[${c.row}][${c.col}]`);
    else
      assert.ok(
        Math.abs(c.value - v) < 1e-6,
        `${label}[${c.row}][${c.col}]: shown ${c.value}, core ${v}`,
      );
  }
}

test('every preset, every stage: shown numbers equal the core trace', async () => {
  const { core } = await setup();
  const { page, errors, open } = await newPage({ locale: 'en-US' });
  await open('');
  for (const [pi, text] of PRESETS.entries()) {
    const before = await renders(page);
    await page.click(`#presets button:nth-child(${pi + 1})`);
    await waitRender(page, before);
    const want = core.trace(text, coreSettings(defaults()));
    await gotoStage(page, 0, 'tokens');
    const tokens = await page.$$eval('#stage-body .chip .tok', (e) => e.map((x) => x.textContent));
    assert.deepEqual(tokens, want.tokens);
    for (const [si, id] of STAGES.entries()) {
      await gotoStage(page, si, id);
      const h = 0;
      const tr = want;
      if (id === 'embeddings') {
        // X = E + P is what the first layer reads (a layered model's later X is in stage 3)
        assertMatrixShown(
          await cells(page, 'X'),
          want.layers ? want.layers[0].input : tr.X,
          null,
          'X',
        );
        assertMatrixShown(await cells(page, 'E'), want.embeddings, null, 'E');
        assertMatrixShown(await cells(page, 'P'), want.positions, null, 'P');
      }
      if (id === 'project') assertMatrixShown(await cells(page, 'Q'), tr.heads[h].Q, h, 'Q');
      if (id === 'score')
        assertMatrixShown(await cells(page, 'scores'), tr.heads[h].scores, h, 'scores');
      if (id === 'scale')
        assertMatrixShown(await cells(page, 'scaled'), tr.heads[h].scaled, h, 'scaled');
      if (id === 'mask')
        assertMatrixShown(await cells(page, 'masked'), tr.heads[h].masked, h, 'masked');
      if (id === 'softmax') {
        const shown = await cells(page, 'weights');
        assertMatrixShown(shown, tr.heads[h].weights, h, 'weights');
        for (let r = 0; r < tr.config.n; r++) {
          const sum = shown.filter((c) => c.row === r).reduce((a, c) => a + c.value, 0);
          assert.ok(Math.abs(sum - 1) < 1e-5, `row ${r} sums to ${sum}`);
        }
      }
      if (id === 'heads') {
        const shown = await cells(page, 'weights');
        tr.heads.forEach((hd, i) => assertMatrixShown(shown, hd.weights, i, `head ${i} weights`));
        assertMatrixShown(await cells(page, 'output'), tr.output, null, 'output');
      }
      if (pi === 0) await shot(page, `en-${si + 1}-${id}`, '#walkthrough');
    }
    if (pi === 3) await shot(page, 'en-english-heads', '#walkthrough');
    await gotoStage(page, 0, 'tokens');
  }
  assert.deepEqual(errors, []);
});
