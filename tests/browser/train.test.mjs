// train.test.mjs: the trained model on the page (model key, head notes, the model's reading,
// unknown words), training in a Web Worker (progress, loss curve, pause/resume, resets, the page
// stays responsive), a failed run said in the locale with its code, and one example's gradient,
// each checked against the core run in Node. Training where no worker may start:
// train-anywhere.test.mjs.
// No timing asserts: speed lives in scripts/bench.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { newPage, setup, teardown, cells, gotoStage, shot, waitSettled } from './harness.mjs';
import { parse, coreSettings } from '../../web/state.js';
import zh from '../../web/locales/zh.json' with { type: 'json' };
import en from '../../web/locales/en.json' with { type: 'json' };

after(teardown);

const ZH = '小猫吃鱼，它很开心';
const EN = "The animal didn't cross the street because it was too tired";

// the largest key of row q in one head's shown weights cells
function argmaxRow(shown, head, q) {
  const row = shown.filter((c) => c.head === head && c.row === q);
  assert.ok(row.length > 0, `no weights cells for head ${head}, row ${q}`);
  return row.reduce((a, b) => (b.value > a.value ? b : a)).col;
}

async function weightsOf(page) {
  await gotoStage(page, 8, 'heads');
  return cells(page, 'weights');
}

test('the default page shows the trained model: 它 -> 小猫, the head note, the model reads 它 as 小猫', async () => {
  const { core } = await setup();
  const { page, errors, open, context } = await newPage();
  await open('');
  const want = core.trace(ZH, {});
  assert.equal(want.model.name, 'default');
  const shown = await weightsOf(page);
  const w = want.heads[0].weights;
  assert.equal(shown.filter((c) => c.head === 0).length, w.rows * w.cols);
  for (const c of shown) {
    const m = want.heads[c.head].weights;
    assert.ok(
      Math.abs(c.value - m.data[c.row * m.cols + c.col]) < 1e-6,
      `${c.head} ${c.row} ${c.col}`,
    );
  }
  assert.equal(argmaxRow(shown, 0, 4), 0, '它 gives its largest weight to 小猫 in head 1');
  // the summary line and, on demand, every layer's heads by role with the numbers of the model file
  const last = want.model.layers - 1;
  // the visible line leads with the held-out (blind) numbers; the shape and the dev set inside
  const summary = await page.textContent('#model-info .model-line');
  assert.match(summary, /^Trained model\. On sentences it never saw/);
  assert.match(
    summary,
    new RegExp(`${(100 * Number(want.model.info.heldout_pronoun_coref_head)).toFixed(1)}%`),
  );
  const dev = await page.textContent('#model-info .model-dev');
  assert.match(dev, new RegExp(`${want.model.layers} layers × 2 heads`));
  assert.match(
    dev,
    new RegExp(`${(100 * Number(want.model.info.eval_pronoun_coref_head)).toFixed(1)}%`),
  );
  assert.equal(await page.$$eval('#model-info .head-note', (l) => l.length), want.model.layers * 2);
  const note = await page.textContent(
    `#model-info .head-note[data-layer="${last}"][data-head="0"]`,
  );
  assert.match(note, new RegExp(`Layer ${last + 1}, head 1:`));
  assert.match(note, /coreference/);
  assert.match(
    note,
    new RegExp(
      `${(100 * want.model.notes[last][0].numbers.pronoun).toFixed(1)}% of the hand-written`,
    ),
  );
  assert.match(note, /Taught: while training, an extra loss on this head's attention weights/);
  assert.match(
    await page.textContent('#model-info .model-reads'),
    /reads 它 as “小猫” \(p = (0\.9\d|1\.00)\)/,
  );
  // the shape controls are fixed by the trained model, with the reason
  await page.click('#whatif summary');
  assert.ok(await page.$eval('#set-dmodel', (e) => e.disabled));
  assert.ok(await page.$eval('#set-heads', (e) => e.disabled));
  assert.equal(await page.$eval('#set-dmodel', (e) => e.value), '32');
  assert.ok(await page.isVisible('#settings .model-fixed'));
  assert.match(await page.textContent('#settings .model-fixed'), /switch to random weights/);
  assert.equal(await page.$eval('#set-model', (e) => e.value), 'default');
  await shot(page, 'train-en-model-info', '#walkthrough');
  // switching to random enables them
  await page.selectOption('#set-model', 'random');
  await page.waitForFunction(() => !document.querySelector('#set-dmodel').disabled);
  assert.match(page.url(), /model=random/);
  assert.match(await page.textContent('#model-info'), /Random weights/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the English sentence: the coreference head sends it to animal, the verb head keeps it on itself; zh notes', async () => {
  const { page, errors, open, context } = await newPage({ locale: 'zh-CN' });
  await open(`s=${encodeURIComponent(EN)}`);
  const tokens = await page.$$eval('#stage-body .chip .tok', (l) => l.map((x) => x.textContent));
  const it = tokens.indexOf('it');
  assert.ok(it > 0);
  const shown = await weightsOf(page);
  // the heads have different jobs: head 1 links the pronoun, head 2 (verbs) leaves it on itself
  assert.equal(tokens[argmaxRow(shown, 0, it)], 'animal', 'head 1');
  assert.equal(tokens[argmaxRow(shown, 1, it)], 'it', 'head 2');
  assert.match(
    await page.textContent('#model-info .head-note[data-layer="1"][data-head="0"]'),
    /指代/,
  );
  assert.match(await page.textContent('#model-info .model-reads'), /把 it 读作“animal”/);
  await shot(page, 'train-zh-model-info', '#walkthrough');
  assert.deepEqual(errors, []);
  await context.close();
});

test('model=random in the URL gives the same numbers as the core with model random; model=custom falls back', async () => {
  const { core } = await setup();
  const { page, errors, open, context } = await newPage();
  await open('model=random&seed=7');
  const { state } = parse('model=random&seed=7');
  const want = core.trace(state.s, coreSettings(state));
  assert.equal(want.model, undefined); // as in the CLI: random weights have no model card
  assert.equal(want.config.weights, 'random');
  const shown = await weightsOf(page);
  assert.equal(shown.length, want.config.heads * want.config.n * want.config.n);
  for (const c of shown) {
    const m = want.heads[c.head].weights;
    assert.ok(Math.abs(c.value - m.data[c.row * m.cols + c.col]) < 1e-6);
  }
  assert.notDeepEqual(
    shown.map((c) => c.value),
    (
      await (async () => {
        const d = core.trace(state.s, {});
        return d.heads.flatMap((h) => Array.from(h.weights.data));
      })()
    ).slice(0, shown.length),
  );
  await context.close();

  const p = await newPage();
  await p.open('model=custom');
  const msgs = await p.page.$$eval('#messages li', (l) => l.map((x) => x.textContent));
  assert.ok(
    msgs.some((m) => /model=custom/.test(m)),
    msgs.join('\n'),
  );
  assert.match(p.page.url(), /model=default/);
  assert.match(await p.page.textContent('#model-info'), /Trained model/);
  assert.deepEqual(errors, []);
  assert.deepEqual(p.errors, []);
  await p.context.close();
});

test('unknown words are marked on the token chips and in the model line', async () => {
  const { page, errors, open, context } = await newPage();
  await open(`s=${encodeURIComponent('zorkle ate the cookies')}`);
  await gotoStage(page, 0, 'tokens');
  const marked = await page.$$eval('#stage-body .chip', (l) =>
    l.map((x) => [x.querySelector('.tok').textContent, x.dataset.unknown === '1', x.title]),
  );
  assert.deepEqual(
    marked.map((m) => m[1]),
    [true, true, false, true],
  );
  // zorkle has no known piece (a hashed row); ate is read as eat (a read-as word of the lexicon),
  // cookies through cookie
  assert.match(marked[0][2], /not in the vocabulary, and no known word inside it/);
  assert.match(marked[1][2], /uses the embedding of eat$/);
  assert.match(marked[3][2], /uses the embedding of cookie$/);
  assert.match(await page.textContent('#stage-body .unknown-legend'), /hashed row/);
  const line = await page.textContent('#model-info .unknown-legend');
  assert.ok(line.includes(en['model.hashed'].replace('{tok}', 'zorkle')), line);
  assert.match(line, /cookies → cookie/);
  assert.match(line, /ate → eat/);
  await shot(page, 'train-en-unknown', '#walkthrough');
  assert.deepEqual(errors, []);
  await context.close();
});

test('Train runs in a worker: progress, loss curve going down, responsive page, pause/resume, resets', async () => {
  const { core } = await setup();
  const { page, errors, open, context } = await newPage();
  await open('');
  await gotoStage(page, 8, 'heads');
  await waitSettled(page);
  const before = await cells(page, 'weights');
  // long enough that the pause below lands while it runs (a 200-step run can finish first)
  await page.fill('#train-steps', '600');
  // every step the panel shows, with the status it had then (a paused run must not move)
  await page.evaluate(() => {
    const body = document.querySelector('#train-body');
    window.stepsSeen = [];
    new MutationObserver(() =>
      window.stepsSeen.push({ step: Number(body.dataset.step), status: body.dataset.status }),
    ).observe(body, { attributes: true, attributeFilter: ['data-step'] });
  });
  await page.click('#train-body .train-start');
  // the page answers while the worker trains (a worker may start here, under the CSP): once the
  // worker reports 20 steps, an animation frame runs, and Pause is clicked inside it, in the page,
  // so the worker gets it within a chunk of that step whatever the machine's speed (a click from
  // the test, a round trip later, could come after all 600 steps)
  const beat = await page.evaluate(
    () =>
      new Promise((resolve) => {
        const body = document.querySelector('#train-body');
        const check = () => {
          if (Number(body.dataset.step) < 20) return;
          seen.disconnect();
          requestAnimationFrame(() => {
            body.querySelector('.train-pause').click();
            resolve('alive');
          });
        };
        const seen = new MutationObserver(check);
        seen.observe(body, { attributes: true, attributeFilter: ['data-step'] });
        check();
      }),
  );
  assert.equal(beat, 'alive');
  assert.equal(await page.getAttribute('#train-body', 'data-runner'), 'worker');
  // paused, then the step stays put; resume, then it moves on
  await page.waitForSelector('#train-body[data-status="paused"]', { timeout: 30000 });
  const pausedAt = Number(await page.getAttribute('#train-body', 'data-step'));
  assert.ok(pausedAt < 600, `paused at ${pausedAt}`);
  await page.click('#train-body .train-resume');
  await page.waitForSelector('#train-body[data-status="done"]', { timeout: 120000 });
  // no step while paused, and the run went on from where it paused: every chunk once, in order
  const seen = await page.evaluate(() => window.stepsSeen);
  assert.deepEqual(
    seen.filter((s) => s.status === 'paused' && s.step !== pausedAt),
    [],
    'the step moved while paused',
  );
  const steps = [...new Set(seen.map((s) => s.step))].filter((s) => s > 0);
  assert.deepEqual(
    steps,
    Array.from({ length: 30 }, (_, i) => 20 * (i + 1)),
    'one report per chunk, none skipped',
  );
  assert.equal(await page.$eval('#train-progress', (p) => p.value), 600);
  assert.equal(await page.$eval('#train-progress', (p) => p.max), 600);
  const points = await page.$$eval('#train-body .loss-point', (l) =>
    l.map((c) => ({ step: +c.dataset.step, loss: +c.dataset.value })),
  );
  assert.equal(points.length, 30);
  assert.equal(points[points.length - 1].step, 600);
  assert.ok(
    points[points.length - 1].loss < points[0].loss,
    `loss ${points[0].loss} -> ${points[points.length - 1].loss}`,
  );
  // the page shows the model trained here; its weights differ from the shipped one's
  assert.match(page.url(), /model=custom/);
  assert.equal(await page.$eval('#set-model', (e) => e.value), 'custom');
  assert.match(await page.textContent('#model-info'), /trained in this page \(600 steps\)/);
  // the stage is out of sight below the Train panel: its cells follow the model when idle
  await waitSettled(page);
  const trained = await cells(page, 'weights');
  assert.notDeepEqual(
    trained.map((c) => c.value),
    before.map((c) => c.value),
  );
  await shot(page, 'train-en-panel', '#train');
  // reset to random weights, then to the shipped model: exactly the default numbers again
  await page.click('#train-body .train-reset-random');
  await page.waitForFunction(() => /model=random/.test(location.search));
  await page.click('#train-body .train-reset-shipped');
  await page.waitForFunction(() => /model=default/.test(location.search));
  await waitSettled(page);
  const again = await cells(page, 'weights');
  assert.deepEqual(again, before);
  const want = core.trace(ZH, {});
  for (const c of again) {
    const m = want.heads[c.head].weights;
    assert.equal(c.value, m.data[c.row * m.cols + c.col]);
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test("with no worker the hosted page trains on its own thread, with the worker's module", async () => {
  const { page, errors, open, context } = await newPage({ own: true });
  await context.addInitScript(() => delete globalThis.Worker);
  const asked = [];
  page.on('request', (r) => asked.push(new URL(r.url()).pathname));
  await open('');
  await gotoStage(page, 8, 'heads');
  const before = await cells(page, 'weights');
  await page.fill('#train-steps', '100');
  await page.click('#train-body .train-start');
  await page.waitForSelector('#train-body[data-status="done"]', { timeout: 120000 });
  assert.equal(await page.getAttribute('#train-body', 'data-runner'), 'page');
  // the page's own module has no trainer: the worker's is loaded beside it, once
  assert.equal(asked.filter((p) => p.endsWith('/wasm/attention-train.js')).length, 1);
  const points = await page.$$eval('#train-body .loss-point', (l) =>
    l.map((c) => +c.dataset.value),
  );
  assert.equal(points.length, 5);
  assert.ok(points[4] < points[0], `loss ${points}`);
  assert.match(page.url(), /model=custom/);
  assert.notDeepEqual(
    (await cells(page, 'weights')).map((c) => c.value),
    before.map((c) => c.value),
  );
  // the page's own module still traces (the global factory is still the page's)
  await page.fill('#text', 'The cat sat.');
  await page.waitForFunction(() =>
    document.getElementById('token-count').textContent.startsWith('4 '),
  );
  assert.deepEqual(errors, []);
  await context.close();
});

test("a failure is said in the learner's language with its code, never as a raw exception", async () => {
  const { page, errors, open, context } = await newPage({ locale: 'zh-CN', own: true });
  // the training sentences cannot be fetched (a site deployed without them)
  await context.route('**/corpus-train.tsv', (r) => r.fulfill({ status: 404, body: 'not found' }));
  await open('');
  await page.fill('#train-steps', '100');
  await page.click('#train-body .train-start');
  await page.waitForSelector('#train-body[data-status="error"]', { timeout: 60000 });
  const said = await page.textContent('#train-body .train-status');
  assert.equal(
    said,
    zh['train.failed']
      .replace('{code}', 'no_corpus')
      .replace('{reason}', zh['train.error.no_corpus']),
  );
  assert.doesNotMatch(said, /HTTP|Error|404/);
  // the start button works again, and the page still shows the shipped model
  assert.equal(await page.$eval('#train-body .train-start', (b) => b.disabled), false);
  assert.equal(await page.$eval('#set-model', (e) => e.value), 'default');
  assert.deepEqual(
    errors.filter((e) => !/corpus-train\.tsv/.test(e)),
    [],
  );
  await context.close();
});

test("one example's gradient equals core.gradientRow, and the page says which way 小猫's score moves", async () => {
  const { core } = await setup();
  for (const locale of ['en-US', 'zh-CN']) {
    const { page, errors, open, context } = await newPage({ locale });
    await open('');
    await page.click('#gradient summary');
    await page.waitForSelector('#gradient-body [data-matrix="d_scores"]');
    assert.equal(
      await page.$eval('#grad-target', (s) => s.value),
      '0',
      'the default target is the antecedent 小猫',
    );
    const g = core.gradientRow(ZH, {}, 4, 0);
    const shown = await page.$$eval('#gradient-body [data-matrix="d_scores"]', (l) =>
      l.map((e) => ({
        head: +e.dataset.head,
        row: +e.dataset.row,
        col: +e.dataset.col,
        value: +e.dataset.value,
        up: e.classList.contains('up'),
        flat: e.classList.contains('flat'),
      })),
    );
    assert.equal(shown.length, g.heads.length * 7);
    for (const c of shown) {
      assert.equal(c.row, 4);
      assert.ok(Math.abs(c.value - g.heads[c.head].d_scores[c.col]) < 1e-6, `${c.head} ${c.col}`);
    }
    // a head pushes 小猫's score up when the loss falls as it rises (d_scores < 0); a push smaller
    // than a thousandth of the largest |d_scores| is shown as ~0, not as a direction
    const scale = Math.max(...g.heads.flatMap((h) => Array.from(h.d_scores, Math.abs)));
    const dirs = g.heads.map((h) =>
      Math.abs(h.d_scores[0]) < scale * 1e-3 ? 'flat' : h.d_scores[0] < 0 ? 'up' : 'down',
    );
    assert.ok(dirs.includes('up'), 'some head pushes the antecedent 小猫 up');
    for (const c of shown.filter((x) => x.col === 0)) {
      assert.equal(c.flat, dirs[c.head] === 'flat', `head ${c.head + 1}: 小猫's push as ~0 or not`);
      if (dirs[c.head] !== 'flat')
        assert.equal(c.up, dirs[c.head] === 'up', `head ${c.head + 1}: 小猫 pushed the core's way`);
    }
    assert.ok(
      Math.abs(Number(await page.getAttribute('#gradient-body .grad-loss', 'data-loss')) - g.loss) <
        1e-6,
    );
    const why = await page.textContent('#gradient-body .grad-why');
    const en = locale === 'en-US';
    if (!dirs.includes('down'))
      assert.match(why, en ? /pushes the score of 小猫 up,/ : /把 小猫 的分数往上推，/);
    else
      assert.match(
        why,
        en
          ? /pushes the score of 小猫 up in head \d+, .* down in head \d+/
          : /在第 \d+ 个头里把 小猫 的分数往上推.*在第 \d+ 个头/,
      );
    // a head whose push on 小猫 is ~0 is named as such, not as pushing it
    if (dirs.includes('flat'))
      assert.match(
        why,
        en ? /In head \d+ the push on 小猫 is ~0/ : /在第 \d+ 个头里，对 小猫 的推动约等于 0/,
      );
    await shot(page, `train-${locale.slice(0, 2)}-gradient`, '#train');
    // another target: the numbers follow
    await page.selectOption('#grad-target', '2');
    const g2 = core.gradientRow(ZH, {}, 4, 2);
    await page.waitForFunction(
      (v) =>
        Math.abs(
          +document.querySelector(
            '#gradient-body [data-matrix="d_scores"][data-head="0"][data-col="2"]',
          ).dataset.value - v,
        ) < 1e-6,
      g2.heads[0].d_scores[2],
    );
    // random weights: explained, not drawn
    await page.click('#whatif summary');
    await page.selectOption('#set-model', 'random');
    await page.waitForSelector('#gradient-body .grad-off');
    assert.equal(await page.$$eval('#gradient-body [data-matrix="d_scores"]', (l) => l.length), 0);
    assert.deepEqual(errors, []);
    await context.close();
  }
});
