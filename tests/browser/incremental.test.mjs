// incremental.test.mjs: typing refreshes the shown stage in place (tables are rewritten, not
// rebuilt), in a task after the keystroke's own frame, which paints the sentence box alone. After keystrokes that keep, add
// and remove tokens, the same table and canvas elements are still in the page and every shown
// number equals the core's trace of the new text (computed in Node with the same module).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { newPage, setup, teardown, cells, renders, waitRender } from './harness.mjs';
import { STAGES, coreSettings, parse } from '../../web/state.js';

after(teardown);

const WORDS = ['the', 'cat', 'sat', 'on', 'a', 'mat'];
const sentence = (n) => Array.from({ length: n }, (_, i) => WORDS[i % WORDS.length]).join(' ');

// the matrices each stage shows in full as table cells (head 0 unless said), by data-matrix name
const SHOWN = {
  embeddings: (r) => [
    ['X', r.X],
    ['E', r.embeddings],
    ['P', r.positions],
  ],
  project: (r) => [
    ['Q', r.heads[0].Q],
    ['W_Q', r.heads[0].W_Q],
  ],
  score: (r) => [
    ['Q', r.heads[0].Q],
    ['K', r.heads[0].K],
    ['scores', r.heads[0].scores],
  ],
  scale: (r) => [['scaled', r.heads[0].scaled]],
  mask: (r) => [['masked', r.heads[0].masked]],
  softmax: (r) => [['weights', r.heads[0].weights]],
  mix: (r) => [['head_output', r.heads[0].output]],
  heads: (r) => [
    ['concat', r.concat],
    ['output', r.output],
  ],
};

function assertShown(shown, m, label) {
  assert.equal(
    shown.length,
    m.rows * m.cols,
    `${label}: ${shown.length} cells shown for ${m.rows} x ${m.cols}`,
  );
  const seen = new Set();
  for (const c of shown) {
    assert.ok(
      c.row < m.rows && c.col < m.cols,
      `${label}: cell (${c.row}, ${c.col}) is outside the matrix`,
    );
    seen.add(c.row * m.cols + c.col);
    const v = m.data[c.row * m.cols + c.col];
    if (v === -Infinity) assert.equal(c.value, -Infinity, `${label}[${c.row}][${c.col}]`);
    else
      assert.ok(
        Math.abs(c.value - v) < 1e-6,
        `${label}[${c.row}][${c.col}]: shown ${c.value}, core ${v}`,
      );
  }
  assert.equal(seen.size, m.rows * m.cols, `${label}: every cell once`);
}

async function typeKeys(page, keys) {
  for (const k of keys) {
    const before = await renders(page);
    await page.keyboard.press(k);
    await waitRender(page, before);
  }
}

test("typing refreshes every stage in place: same elements, the new trace's numbers, shapes follow", async () => {
  const { core } = await setup();
  const { page, errors, open } = await newPage();
  const search = `model=random&heads=2&dmodel=8&s=${encodeURIComponent(sentence(10))}`;
  for (const [si, id] of STAGES.entries()) {
    if (!SHOWN[id]) continue;
    await open(`${search}&step=${si + 1}`);
    // tag what is on screen now: if a keystroke rebuilt the stage, the tags would be gone
    const tagged = await page.$$eval('#stage-body table.matrix', (ts) => {
      ts.forEach((t) => {
        t.dataset.kept = '1';
      });
      return ts.length;
    });
    assert.ok(tagged > 0, `${id}: a table is shown`);
    await page.focus('#text');
    await page.keyboard.press('End');
    // " dog" adds a token (10 -> 11), then Backspace x4 removes it again, then "x" changes the last word
    for (const [keys, text] of [
      [[' ', 'd', 'o', 'g'], `${sentence(10)} dog`],
      [['Backspace', 'Backspace', 'Backspace', 'Backspace'], sentence(10)],
      [['x'], `${sentence(10)}x`],
    ]) {
      await typeKeys(page, keys);
      const want = core.trace(text, coreSettings(parse(search).state));
      for (const [name, m] of SHOWN[id](want)) {
        const shown = (await cells(page, name)).filter((c) => c.head === null || c.head === 0);
        assertShown(shown, m, `${id} after typing "${text.slice(-5)}": ${name}`);
      }
      const shapes = await page.$$eval('#stage-body .mshape', (e) => e.map((x) => x.textContent));
      assert.ok(
        shapes.some((s) => s.startsWith(`${want.config.n} ×`)),
        `${id}: a shape line says ${want.config.n} rows (${shapes.join(', ')})`,
      );
    }
    const kept = await page.$$eval('#stage-body table.matrix[data-kept="1"]', (ts) => ts.length);
    assert.equal(kept, tagged, `${id}: the ${tagged} tables were refreshed in place, not rebuilt`);
  }
  assert.deepEqual(errors, []);
});

test('64 tokens: heatmaps are redrawn in place and their focus row follows the new trace', async () => {
  const { core } = await setup();
  const { page, errors, open } = await newPage();
  const search = `model=random&heads=4&dmodel=64&step=7&s=${encodeURIComponent(sentence(64))}`;
  await open(search);
  const tagged = await page.$$eval('#stage-body canvas.heatmap-canvas', (cs) => {
    cs.forEach((c) => {
      c.dataset.kept = '1';
    });
    return cs.length;
  });
  assert.ok(tagged > 0, 'the weights are a heatmap at 64 tokens');
  await page.focus('#text');
  await page.keyboard.press('End');
  await typeKeys(page, ['Backspace', 'Backspace', 'd', 'o', 'g']); // "... sat on" -> "... sat dog"
  const text = `${sentence(63)} dog`;
  const want = core.trace(text, coreSettings(parse(search).state));
  const q = await page.$eval('#stage-body .heatmap-strip td[data-matrix="weights"]', (td) =>
    Number(td.dataset.row),
  );
  const strip = await cells(page, 'weights', '#stage-body .heatmap-strip');
  assert.equal(strip.length, want.config.n);
  for (const c of strip) {
    assert.equal(c.row, q);
    assert.ok(
      Math.abs(c.value - want.heads[0].weights.data[q * want.config.n + c.col]) < 1e-6,
      `weights[${q}][${c.col}]`,
    );
  }
  assert.equal(
    await page.$$eval('#stage-body canvas.heatmap-canvas[data-kept="1"]', (cs) => cs.length),
    tagged,
    'the canvases were kept',
  );
  // the mix stage lists the 8 heaviest keys, not 64 rows, and says how many are hidden
  await page.click('#stage-nav li:nth-child(8) button');
  await page.waitForSelector('body[data-stage="mix"]');
  const rows = await page.$$eval('#stage-body table.mix tbody tr:not(.more)', (trs) => trs.length);
  assert.equal(rows, 8);
  assert.match(await page.textContent('#stage-body table.mix tr.more'), /56 more keys/);
  await page.click('#stage-body table.mix tr.more button');
  assert.equal(
    await page.$$eval('#stage-body table.mix tbody tr:not(.more)', (trs) => trs.length),
    64,
  );
  assert.deepEqual(errors, []);
});

test('views out of sight are refreshed later, then show the same trace (body data-settled)', async () => {
  const { core } = await setup();
  const { page, errors, open } = await newPage({ height: 700 });
  const search = `model=random&heads=4&dmodel=64&step=9&s=${encodeURIComponent(sentence(64))}`;
  await open(search);
  // every change of data-settled, from now on
  await page.evaluate(() => {
    window.__settled = [];
    new MutationObserver(() => window.__settled.push(document.body.dataset.settled)).observe(
      document.body,
      { attributes: true, attributeFilter: ['data-settled'] },
    );
  });
  await page.focus('#text');
  await page.keyboard.press('End');
  await typeKeys(page, ['Backspace', 'Backspace', 'd', 'o', 'g']); // "... sat on" -> "... sat dog"
  const seen = await page.evaluate(() => window.__settled);
  assert.ok(
    seen.includes('0'),
    `some heads were out of sight and waited (data-settled went ${seen.join(' ')})`,
  );
  assert.equal(await page.getAttribute('body', 'data-settled'), '1');
  // the last head's weights (far below the fold) show the new trace in their focus row
  const want = core.trace(`${sentence(63)} dog`, coreSettings(parse(search).state));
  const strip = (await cells(page, 'weights', '#stage-body .heatmap-strip')).filter(
    (c) => c.head === 3,
  );
  assert.equal(strip.length, want.config.n);
  for (const c of strip) {
    assert.ok(
      Math.abs(c.value - want.heads[3].weights.data[c.row * want.config.n + c.col]) < 1e-6,
      `head 4 weights[${c.row}][${c.col}]`,
    );
  }
  assert.deepEqual(errors, []);
});

test("a keystroke's own frame paints the sentence box; the stage follows, and a burst of keys ends on the last text", async () => {
  const { core } = await setup();
  const { page, errors, open } = await newPage();
  const search = `model=random&heads=2&dmodel=8&step=4&s=${encodeURIComponent(sentence(10))}`;
  await open(search);
  // what data-renders says at the 'input' event and in the next animation frame (the key's own
  // frame: this callback is queued after the page's, so it runs after whatever the page did in it)
  await page.evaluate(() => {
    window.__keyFrames = [];
    window.addEventListener('input', () => {
      const atInput = document.body.dataset.renders;
      requestAnimationFrame(() =>
        window.__keyFrames.push({ atInput, inFrame: document.body.dataset.renders }),
      );
    });
  });
  await page.focus('#text');
  await page.keyboard.press('End');
  await typeKeys(page, [' ', 'd', 'o', 'g']);
  const frames = await page.evaluate(() => window.__keyFrames);
  assert.equal(frames.length, 4, 'one input event per key');
  for (const f of frames)
    assert.equal(f.inFrame, f.atInput, "the stage was not redrawn inside the key's own frame");
  // keys with no pause between them: the stage ends showing the text as typed last
  const before = await renders(page);
  await page.keyboard.type('sxyz', { delay: 0 });
  await waitRender(page, before);
  const text = `${sentence(10)} dogsxyz`;
  assert.equal(await page.inputValue('#text'), text);
  const want = core.trace(text, coreSettings(parse(search).state));
  assertShown(
    (await cells(page, 'scores')).filter((c) => c.head === null || c.head === 0),
    want.heads[0].scores,
    'scores after the burst',
  );
  assert.deepEqual(errors, []);
});
