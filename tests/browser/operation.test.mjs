// operation.test.mjs: stages 3-9 show the operation, step by step, with the core's numbers: the
// first cell of Q taken apart (rows meet, products, sum, lands), then K's and V's in a step each,
// the products and sum of q·k, the row's dots before and after ÷√d_k, the cells turning −∞,
// softmax's exps and weights, the output row growing by w_j × V_j, the heads and their
// real-scale shapes.
// Also: reduced motion jumps to end states; the √d_k experiment's numbers are core.scaleDemo's;
// predict-then-reveal (flow, memory per sentence, URL key, off in embeds); the "no scaling"
// experiment's title, bars and narration; the plane's tick labels; aligned softmax bars.
// Screenshots at 1280×800 and 375×800 in en and zh while playing.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { newPage, setup, teardown, gotoStage, shot, webDir, shotDir } from './harness.mjs';
import { parse, coreSettings } from '../../web/state.js';
import { fmt, pct, rowOf, colOf } from '../../web/views/format.js';
import { productEquation } from '../../web/views/equation.js';
import { judge, verdictKey } from '../../web/views/predict.js';
import { taughtSentence } from '../../web/views/taught.js';
import { layerView } from '../../web/core.js';

after(teardown);

const en = JSON.parse(fs.readFileSync(path.join(webDir, 'locales/en.json'), 'utf8'));
const say = (key, p) => en[key].replace(/\{(\w+)\}/g, (m, k) => (k in p ? String(p[k]) : m));
const close = (a, b, label) => {
  if (b === -Infinity) assert.equal(a, -Infinity, label);
  else
    assert.ok(Math.abs(a - b) <= 1e-5 * Math.max(1, Math.abs(b)), `${label}: page ${a}, core ${b}`);
};

/** Trace for a URL search, as the page computes it. */
async function traceFor(search) {
  const { core } = await setup();
  const { state } = parse(search);
  // the layer the page shows (layer 1 unless the link says otherwise)
  const tr = layerView(core.trace(state.s, coreSettings(state)), state.layer);
  return { core, state, tr, tokens: tr.tokens };
}

/** Moves the player to step k of the shown stage (the scrubber) and waits for it. */
async function stepTo(page, k) {
  await page.$eval(
    '#player .scrub',
    (e, v) => {
      e.value = String(v);
      e.dispatchEvent(new Event('input', { bubbles: true }));
    },
    k,
  );
  await page.waitForSelector(`body[data-k="${k}"]`);
}

const values = (page, sel) =>
  page.$$eval(sel, (l) =>
    l.map((e) => ({
      row: Number(e.dataset.row),
      col: Number(e.dataset.col),
      value: Number(e.dataset.value),
      pending: e.classList.contains('pending'),
    })),
  );

test("project: Q's first cell in four steps (rows meet, products, sum, lands), then its row, then the rest; K and V's first cell in one step, then the rest; the core's numbers", async () => {
  const search = 's=小猫吃鱼，它很开心';
  const { core, tr, tokens } = await traceFor(search);
  const { page, errors, open, context } = await newPage();
  await open(search);
  await gotoStage(page, 2, 'project');
  const { n, d_k: dK, d_model: d } = tr.config;
  // Q: the first cell's four steps, the rest of its row, the other rows; K and V: two each
  assert.equal(await page.$eval('#player .scrub', (e) => e.max), String(6 + 2 + 2));
  const calc = () =>
    page.$eval('#stage-body .calc', (c) => {
      const shown = (e) => !!e && getComputedStyle(e).visibility !== 'hidden';
      const products = [...c.querySelectorAll('tr.products td:not(.gap)')];
      return {
        phase: c.dataset.phase,
        products: products.map((td) => ({ text: td.textContent, shown: shown(td) })),
        sum: shown(c.querySelector('.calc-result')),
        sumValue: Number(c.querySelector('.calc-result').dataset.value),
      };
    });
  const cell = (m, i, c) =>
    page.$eval(`#stage-body td[data-matrix="${m}"][data-row="${i}"][data-col="${c}"]`, (e) => ({
      pending: e.classList.contains('pending'),
      value: Number(e.dataset.value),
    }));
  const head = tr.heads[0];
  const first = (r) => {
    const x = rowOf(tr.X, 0);
    const w = colOf(head[`W_${r}`], 0);
    return { dot: core.dotSteps(x, w), value: head[r].data[0], x, w };
  };
  // the products written in the box are the core's (the first ones and the last)
  const productsAreCore = (c, dot) => {
    const shownDims = [...Array(c.products.length).keys()].map((i) =>
      i < c.products.length - 1 ? i : d - 1,
    );
    // each printed with the decimals its column's x × w needs (equation.js): the core's value
    // rounded to what is printed
    c.products.forEach((e, i) => {
      const decimals = (e.text.split('.')[1] || '').length;
      assert.ok(decimals >= 2, e.text);
      assert.equal(e.text, fmt(dot.products[shownDims[i]], decimals));
    });
  };
  const allFilled = async (r) => {
    for (const [i, c] of [
      [1, 0],
      [n - 1, dK - 1],
    ])
      close((await cell(r, i, c)).value, head[r].data[i * dK + c], `${r}[${i}][${c}] filled`);
    assert.equal((await cell(r, n - 1, dK - 1)).pending, false, `${r}: every row is filled`);
  };
  // Q, taken apart
  {
    const r = 'Q';
    const { dot, value, x, w } = first(r);
    const phases = [
      ['meet', 'narr.projectMeet', { r, tok: tokens[0], c: 1, d }],
      [
        'multiply',
        'narr.projectMultiply',
        { d, eq: productEquation(x[0], w[0], dot.products[0]).text },
      ],
      ['sum', 'narr.projectSum', { r, tok: tokens[0], c: 1, d, v: fmt(value, 3) }],
    ];
    for (const [s, [phase, key, p]] of phases.entries()) {
      await stepTo(page, s);
      const c = await calc();
      assert.equal(c.phase, phase, `${r} step ${s}`);
      assert.equal(await page.textContent('#narration'), say(key, p), `${r} ${phase}`);
      // the products appear at 'multiply', the sum at 'sum'; the cell stays blank until it lands
      assert.ok(
        c.products.every((e) => e.shown === s >= 1),
        `${r} ${phase}: products shown`,
      );
      assert.equal(c.sum, s >= 2, `${r} ${phase}: sum shown`);
      assert.equal((await cell(r, 0, 0)).pending, true, `${r} ${phase}: cell (0, 0) still blank`);
      productsAreCore(c, dot);
      if (s >= 2) close(c.sumValue, dot.dot, `${r}: the sum is core.dotSteps'`);
    }
    await stepTo(page, 3);
    assert.equal((await calc()).phase, 'land');
    const landed = await cell(r, 0, 0);
    assert.equal(landed.pending, false, `${r}: the sum has landed in cell (0, 0)`);
    close(landed.value, value, `${r}[0][0]`);
    close(value, dot.dot, `${r}[0][0] is the sum of the products`);
    // the next step lands the rest of row 0, the one after every other row
    await stepTo(page, 4);
    assert.equal((await cell(r, 0, dK - 1)).pending, false, `${r}: row 0 is filled`);
    assert.equal((await cell(r, 1, 0)).pending, true, `${r}: row 1 is not yet`);
    assert.equal((await calc()).phase, 'land');
    await stepTo(page, 5);
    await allFilled(r);
  }
  // K and V: the same operation, their first cell whole in one step, then every other cell
  for (const [role, r] of [
    [1, 'K'],
    [2, 'V'],
  ]) {
    const { dot, value } = first(r);
    await stepTo(page, 6 + 2 * (role - 1));
    const c = await calc();
    assert.equal(c.phase, 'once', `${r}: its first cell in one step`);
    assert.ok(
      c.products.every((e) => e.shown),
      `${r}: the products are shown`,
    );
    assert.ok(c.sum, `${r}: the sum is shown`);
    productsAreCore(c, dot);
    close(c.sumValue, dot.dot, `${r}: the sum is core.dotSteps'`);
    const landed = await cell(r, 0, 0);
    assert.equal(landed.pending, false, `${r}: the sum has landed in cell (0, 0)`);
    close(landed.value, value, `${r}[0][0]`);
    assert.equal((await cell(r, 0, 1)).pending, true, `${r}: the other cells are not yet`);
    assert.equal(
      await page.textContent('#narration'),
      say('narr.projectOnce', { r, tok: tokens[0], c: 1, d, v: fmt(value, 3) }),
    );
    await stepTo(page, 7 + 2 * (role - 1));
    await allFilled(r);
    assert.match(await page.textContent('#narration'), new RegExp(`${n * dK - 1} more sums`));
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test('scores: each step puts q and k_j side by side, with their products and sum from the core', async () => {
  const search = 's=小猫吃鱼，它很开心';
  const { core, tr, tokens } = await traceFor(search);
  const { page, errors, open, context } = await newPage();
  await open(search);
  await gotoStage(page, 3, 'score');
  const q = 4; // 它, the followed pronoun
  const head = tr.heads[0];
  assert.equal(await page.$eval('#player .scrub', (e) => e.max), String(tr.config.n + 1));
  for (let k = 1; k <= tr.config.n; k++) {
    await stepTo(page, k);
    const j = k - 1;
    const d = core.dotSteps(rowOf(head.Q, q), rowOf(head.K, j));
    const products = await values(page, '#stage-body .op-dot td[data-matrix="products"]');
    assert.equal(products.length, 8, 'the first 8 of d_k = 16 products');
    for (const p of products) close(p.value, d.products[p.col], `products[${p.col}] at step ${k}`);
    // the other 8 products, summed by the core, and the whole sum
    const rest = await page.$eval('#stage-body .op-dot td[data-matrix="productsRest"]', (e) =>
      Number(e.dataset.value),
    );
    close(
      rest,
      core.dotSteps(rowOf(head.Q, q).subarray(8), rowOf(head.K, j).subarray(8)).dot,
      'rest',
    );
    const sum = await page.$eval('#stage-body .op-dot td[data-matrix="dot"]', (e) => ({
      v: Number(e.dataset.value),
      row: +e.dataset.row,
      col: +e.dataset.col,
    }));
    close(sum.v, d.dot, 'sum');
    assert.deepEqual([sum.row, sum.col], [q, j]);
    // the sum is the score cell (q, j), now shown and marked; the cells after it are still blank
    const cell = await page.$eval(
      `#stage-body td[data-matrix="scores"][data-row="${q}"][data-col="${j}"]`,
      (e) => ({
        v: Number(e.dataset.value),
        pending: e.classList.contains('pending'),
        marked: e.classList.contains('mark-cell'),
      }),
    );
    close(cell.v, head.scores.data[q * tr.config.n + j], 'score cell');
    assert.deepEqual([cell.pending, cell.marked], [false, true], `cell (${q}, ${j}) at step ${k}`);
    if (j + 1 < tr.config.n) {
      assert.ok(
        await page.$eval(
          `#stage-body td[data-matrix="scores"][data-row="${q}"][data-col="${j + 1}"]`,
          (e) => e.classList.contains('pending'),
        ),
      );
    }
    // the cell's rank in its row of the core's scores: the largest is called so, the others
    // say their rank
    const row = head.scores.data.subarray(q * tr.config.n, (q + 1) * tr.config.n);
    const value = row[j];
    const rank = 1 + [...row].filter((x) => x > value).length;
    assert.equal(
      await page.textContent('#narration'),
      say(rank === 1 ? 'narr.scoreTop' : 'narr.score', {
        q: tokens[q],
        k: tokens[j],
        v: fmt(value, 3),
        rank,
        n: row.length,
      }),
    );
    // the angle picture names the core's angle
    assert.equal(
      await page.getAttribute('#stage-body svg.angle', 'aria-label'),
      say('score.angle', { deg: fmt(d.angle_degrees, 1) }),
    );
  }
  await stepTo(page, tr.config.n + 1);
  const pending = await page.$$eval(
    '#stage-body td[data-matrix="scores"].pending',
    (l) => l.length,
  );
  assert.equal(pending, 0, 'the last step fills every row');
  assert.deepEqual(errors, []);
  await context.close();
});

test("scale: each row as dots before and after ÷√d_k, with the core's spreads; reduced motion shows the end at once", async () => {
  const search = 's=小猫吃鱼，它很开心';
  const { core, tr, tokens } = await traceFor(search);
  const { page, errors, open, context } = await newPage();
  await open(search);
  await gotoStage(page, 4, 'scale');
  const head = tr.heads[0];
  for (let k = 1; k <= tr.config.n; k++) {
    await stepTo(page, k);
    const r = k - 1;
    const raw = await values(page, '#stage-body svg.nline circle[data-matrix="scores"]');
    const sc = await values(page, '#stage-body svg.nline circle[data-matrix="scaled"]');
    assert.equal(raw.length, tr.config.n);
    for (const x of raw) {
      assert.equal(x.row, r);
      close(x.value, head.scores.data[r * tr.config.n + x.col], `scores[${r}][${x.col}]`);
    }
    for (const x of sc) {
      assert.equal(x.row, r);
      close(x.value, head.scaled.data[r * tr.config.n + x.col], `scaled[${r}][${x.col}]`);
    }
    const before = fmt(core.finiteRange(rowOf(head.scores, r)), 3);
    const after_ = fmt(core.finiteRange(rowOf(head.scaled, r)), 3);
    assert.equal(
      await page.textContent('#narration'),
      say('narr.scaleRow', { tok: tokens[r], before, after: after_ }),
    );
    const spans = await page.$$eval('#stage-body svg.nline .nl-spantext', (l) =>
      l.map((e) => e.textContent),
    );
    assert.deepEqual(spans, [
      say('scale.lineSpread', { s: before }),
      say('scale.lineSpread', { s: after_ }),
    ]);
    // the scaled dots are animating in (CSS) from where the unscaled ones are
    assert.notEqual(
      await page.$eval(
        '#stage-body svg.nline .nl-scaled',
        (e) => getComputedStyle(e).animationName,
      ),
      'none',
    );
  }
  assert.deepEqual(errors, []);
  await context.close();
  // reduced motion: Play opens the next stage fully drawn, and nothing animates
  const rm = await newPage({ reducedMotion: true });
  await rm.open(search);
  await gotoStage(rm.page, 3, 'score');
  await rm.page.click('#player .play');
  await rm.page.waitForSelector('body[data-stage="scale"]', { timeout: 10000 });
  assert.equal(
    await rm.page.getAttribute('body', 'data-k'),
    String(tr.config.n + 1),
    'the stage starts at its end state',
  );
  assert.equal(
    await rm.page.$eval(
      '#stage-body svg.nline .nl-scaled',
      (e) => getComputedStyle(e).animationName,
    ),
    'none',
  );
  await rm.page.click('#player .play');
  await gotoStage(rm.page, 3, 'score');
  await stepTo(rm.page, 2);
  assert.equal(
    await rm.page.$eval(
      '#stage-body .op-dot td[data-matrix="products"]',
      (e) => getComputedStyle(e).animationName,
    ),
    'none',
  );
  assert.deepEqual(rm.errors, []);
  await rm.context.close();
});

test("mask: each row's later keys turn into −∞; softmax: exps and weights from the core, bars start together", async () => {
  const search = 's=小猫吃鱼，它很开心&causal=1';
  const { core, tr, tokens } = await traceFor(search);
  const { page, errors, open, context } = await newPage();
  await open(search);
  await gotoStage(page, 5, 'mask');
  const head = tr.heads[0];
  for (let k = 1; k <= tr.config.n; k++) {
    await stepTo(page, k);
    const r = k - 1;
    const after_ = await values(page, '#stage-body table.mask-strip td[data-matrix="rowMasked"]');
    const before = await values(page, '#stage-body table.mask-strip td[data-matrix="rowScaled"]');
    assert.equal(after_.length, tr.config.n);
    for (const x of before)
      close(x.value, head.scaled.data[r * tr.config.n + x.col], `scaled[${r}][${x.col}]`);
    for (const x of after_) {
      close(x.value, head.masked.data[r * tr.config.n + x.col], `masked[${r}][${x.col}]`);
      assert.equal(
        x.value === -Infinity,
        x.col > r,
        `only later keys are −∞ (row ${r}, key ${x.col})`,
      );
    }
    assert.equal(
      await page.textContent('#narration'),
      say('narr.maskRow', { tok: tokens[r], i: r + 1, hidden: tr.config.n - 1 - r }),
    );
  }
  // softmax of the followed row: each phase a step
  await gotoStage(page, 6, 'softmax');
  const q = 4;
  const st = core.softmaxSteps(rowOf(head.masked, q), 1);
  for (let k = 0; k <= 4; k++) {
    await stepTo(page, k);
    assert.equal(await page.getAttribute('#stage-body', 'data-phase'), String(k));
    assert.equal(
      await page.textContent('#narration'),
      k < 4
        ? say(`narr.softmax${k}`, { tok: tokens[q], max: fmt(st.max, 3), sum: fmt(st.sum, 4) })
        : say('narr.softmax', {
            tok: tokens[q],
            p: pct(Math.max(...st.weights)),
            key: tokens[st.weights.indexOf(Math.max(...st.weights))],
          }) + taughtSentence(say, tr, 0),
    );
  }
  const exps = await page.$$eval('#stage-body .bval[data-matrix="exps"]', (l) =>
    l.map((e) => Number(e.dataset.value)),
  );
  exps.forEach((v, j) => close(v, st.exps[j], `exps[${j}]`));
  const w = await page.$$eval('#stage-body .bval[data-matrix="softmaxWeights"]', (l) =>
    l.map((e) => Number(e.dataset.value)),
  );
  w.forEach((v, j) => close(v, st.weights[j], `weights[${j}]`));
  close(await page.$eval('#stage-body .sm-sum', (e) => Number(e.dataset.value)), st.sum, 'sum');
  // every bar of a list starts at the same x (labels of different widths do not push them)
  const starts = await page.$$eval('#stage-body .phase .bars', (lists) =>
    lists.map((ul) =>
      [...ul.querySelectorAll('.track')].map((t) => Math.round(t.getBoundingClientRect().left)),
    ),
  );
  assert.equal(starts.length, 2);
  for (const s of starts) assert.equal(new Set(s).size, 1, `bars start at ${s.join(', ')}`);
  assert.deepEqual(errors, []);
  await context.close();
});

test("mix: each step adds w_j × V_j to the output row (the core's sums) until it is the trace's output", async () => {
  const search = 's=小猫吃鱼，它很开心';
  const { core, tr, tokens } = await traceFor(search);
  const { page, errors, open, context } = await newPage();
  await open(search);
  await gotoStage(page, 7, 'mix');
  const q = 4;
  const head = tr.heads[0];
  const w = rowOf(head.weights, q);
  for (let k = 1; k <= tr.config.n; k++) {
    await stepTo(page, k);
    const j = k - 1;
    const contrib = await values(
      page,
      `#stage-body table.mix tr.current td[data-matrix="contrib"]`,
    );
    assert.equal(contrib.length, 8, 'the first 8 components');
    for (const c of contrib) {
      assert.equal(c.row, j);
      close(c.value, core.dotSteps(w, colOf(head.V, c.col)).products[j], `w × V[${j}][${c.col}]`);
    }
    // so far = Σ_{j' <= j} w_j' V_j', the core's sum over the keys added
    const keys = Array.from({ length: k }, (_, x) => x);
    const soFar = await values(page, '#stage-body td[data-matrix="outputSoFar"]');
    for (const c of soFar) {
      const want = core.dotSteps(
        Float32Array.from(keys, (x) => w[x]),
        Float32Array.from(keys, (x) => head.V.data[x * tr.config.d_k + c.col]),
      ).dot;
      close(c.value, want, `so far[${c.col}] after ${k} keys`);
    }
    assert.equal(
      await page.textContent('#narration'),
      say('narr.mixStep', { tok: tokens[q], key: tokens[j], p: pct(w[j]) }),
    );
  }
  await stepTo(page, tr.config.n + 1);
  const out = await values(page, '#stage-body td[data-matrix="output"]');
  for (const c of out)
    close(c.value, head.output.data[q * tr.config.d_k + c.col], `output[${c.col}]`);
  assert.deepEqual(errors, []);
  await context.close();
});

test("heads: one map per step, then concat and W_O; the learner's shapes next to BERT-base and GPT-3", async () => {
  const search = 's=小猫吃鱼，它很开心';
  const { tr, tokens } = await traceFor(search);
  const { page, errors, open, context } = await newPage();
  await open(search);
  await gotoStage(page, 8, 'heads');
  const q = 4;
  for (let k = 1; k <= tr.config.heads; k++) {
    await stepTo(page, k);
    const w = rowOf(tr.heads[k - 1].weights, q);
    const b = w.indexOf(Math.max(...w));
    assert.equal(
      await page.textContent('#narration'),
      say('narr.headStep', { tok: tokens[q], h: k, key: tokens[b], p: pct(w[b]) }) +
        taughtSentence(say, tr, k - 1),
    );
    assert.equal(await page.$$eval('#stage-body .heads .mblock.current', (l) => l.length), 1);
  }
  await stepTo(page, tr.config.heads + 1);
  assert.equal(
    await page.textContent('#narration'),
    say('narr.headsConcat', {
      tok: tokens[q],
      n: tr.config.heads,
      dk: tr.config.d_k,
      w: tr.concat.cols,
    }),
  );
  const shapes = await page.$$eval('#stage-body td[data-matrix="shapes"]', (l) =>
    l.map((e) => [e.dataset.row, e.dataset.col, Number(e.dataset.value)]),
  );
  const get = (row, col) => shapes.find((s) => s[0] === row && s[1] === col)[2];
  assert.deepEqual(
    [get('yours', 'heads'), get('yours', 'dK'), get('yours', 'width'), get('yours', 'dModel')],
    [tr.config.heads, tr.config.d_k, tr.concat.cols, tr.config.d_model],
  );
  assert.deepEqual(
    [get('BERT-base', 'heads'), get('BERT-base', 'dK'), get('BERT-base', 'dModel')],
    [12, 64, 768],
  );
  assert.deepEqual(
    [get('GPT-3', 'heads'), get('GPT-3', 'dK'), get('GPT-3', 'dModel')],
    [96, 128, 12288],
  );
  assert.equal(
    await page.$$eval('#stage-body svg.hs-strip', (l) =>
      l.map((s) => s.querySelectorAll('rect').length).join(),
    ),
    `${tr.config.heads},12,96`,
  );
  assert.equal(
    await page.textContent('#stage-body .hs-slice'),
    say('shapes.slice', {
      h: 1,
      heads: tr.config.heads,
      dk: tr.config.d_k,
      d: tr.config.d_model,
      w: tr.concat.cols,
      a: 1,
      b: tr.config.d_k,
    }),
  );
  assert.deepEqual(errors, []);
  await context.close();
});

test("√d_k experiment: histogram and table are core.scaleDemo's draws, next to the learner's d_k", async () => {
  const search = 's=小猫吃鱼，它很开心';
  const { core, tr } = await traceFor(search);
  const { page, errors, open, context } = await newPage();
  await open(search);
  await gotoStage(page, 4, 'scale');
  await page.click('#stage-body details[data-extra="scaleDemo"] summary');
  await page.waitForSelector('#stage-body .scale-demo td[data-matrix="scaleDemo"][data-value]');
  const keys = +(await page.getAttribute('#stage-body .scale-demo', 'data-keys'));
  const rows = +(await page.getAttribute('#stage-body .scale-demo', 'data-rows'));
  assert.equal(keys, tr.config.n, 'rows as long as the sentence');
  const { scale_demo_dks: dks } = core.explainFacts();
  const runs = dks.map((dk) => core.scaleDemo(dk, keys, rows, '42', 41));
  const cells = await page.$$eval('#stage-body td[data-matrix="scaleDemo"]', (l) =>
    l.map((e) => [Number(e.dataset.row), e.dataset.col, Number(e.dataset.value)]),
  );
  assert.equal(cells.length, dks.length * 6);
  // the table's columns (data-col) and the fields of scaleDemo's result they show
  const FIELD = {
    dk: 'd_k',
    sqrtDk: 'sqrt_d_k',
    spread: 'spread',
    spreadScaled: 'spread_scaled',
    topRaw: 'top_raw',
    topScaled: 'top_scaled',
  };
  for (const [dk, col, v] of cells) close(v, runs[dks.indexOf(dk)][FIELD[col]], `d_k ${dk} ${col}`);
  // the spread grows like √d_k: from under 2 at d_k = 2 to about 32 at 1024 (the core's numbers)
  assert.ok(runs[0].spread < 2.5 && runs.at(-1).spread > 28);
  // "about 1, as in every row of the table" (sdemo.scaled)
  for (const r of runs)
    assert.ok(Math.abs(r.spread_scaled - 1) < 0.15, `d_k ${r.d_k}: ${r.spread_scaled}`);
  // the slider picks a d_k: the histogram bars are that run's counts
  for (const i of [0, dks.length - 1]) {
    await page.$eval(
      '#stage-body .sd-slider',
      (e, v) => {
        e.value = String(v);
        e.dispatchEvent(new Event('input', { bubbles: true }));
      },
      i,
    );
    await page.waitForSelector(`#stage-body .scale-demo[data-dk="${dks[i]}"]`);
    const raw = await page.$$eval('#stage-body .sd-raw', (l) =>
      l.map((e) => Number(e.dataset.count)),
    );
    const sc = await page.$$eval('#stage-body .sd-scaled', (l) =>
      l.map((e) => Number(e.dataset.count)),
    );
    assert.deepEqual(raw, [...runs[i].hist_raw]);
    assert.deepEqual(sc, [...runs[i].hist_scaled]);
    const facts = await page.$$eval('#stage-body .sd-facts li', (l) => l.map((e) => e.textContent));
    assert.equal(
      facts[0],
      say('sdemo.spread', {
        dk: runs[i].d_k,
        spread: fmt(runs[i].spread, 2),
        root: fmt(runs[i].sqrt_d_k, 2),
      }),
    );
    assert.equal(
      facts[2],
      say('sdemo.top', { keys, raw: pct(runs[i].top_raw), scaled: pct(runs[i].top_scaled) }),
    );
  }
  // the learner's own d_k (16) is the marked row
  assert.equal(
    await page.$eval('#stage-body .sd-table tr.yours td', (e) => e.textContent),
    String(tr.config.d_k),
  );
  await page.setViewportSize({ width: 1280, height: 800 });
  await shot(page, 'op-en-scale-demo', '#stage-body details[data-extra="scaleDemo"]');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the "no scaling" experiment: its own title, one bar chart, no "narrows", no suggestion of itself', async () => {
  const search = 's=小猫吃鱼，它很开心&model=random&heads=1&dmodel=64&dk=64&scale=0';
  const { core, tr, tokens } = await traceFor(search);
  const { page, errors, open, context } = await newPage();
  await open(search);
  await gotoStage(page, 4, 'scale');
  const titles = await page.$$eval('#stage-body .mtitle', (l) => l.map((e) => e.textContent));
  assert.ok(titles.includes(en['scale.titleOff']), titles.join(' | '));
  assert.ok(!titles.includes(en['scale.title']));
  assert.equal(
    await page.$$eval('#stage-body .compare .bars', (l) => l.length),
    1,
    'one bar chart',
  );
  const hint = await page.textContent('#stage-body');
  assert.ok(!hint.includes(en['exp.bigNoScale']), 'does not suggest the experiment it is');
  const q = 4;
  const raw = rowOf(tr.heads[0].scores, q);
  const w = core.softmaxSteps(raw, 1).weights;
  const narration = await page.textContent('#narration');
  assert.equal(
    narration,
    say('narr.scaleOff', {
      tok: tokens[q],
      before: fmt(core.finiteRange(raw), 3),
      top: pct(Math.max(...w)),
    }),
  );
  assert.ok(!/narrow/.test(narration));
  await stepTo(page, 2);
  assert.equal(
    await page.textContent('#narration'),
    say('narr.scaleRowOff', {
      tok: tokens[1],
      before: fmt(core.finiteRange(rowOf(tr.heads[0].scores, 1)), 3),
    }),
  );
  // one track: the dots do not move
  assert.equal(
    await page.textContent('#stage-body .scale-line h4'),
    say('scale.lineTitleOff', { tok: tokens[1], dk: 64 }),
  );
  assert.deepEqual(errors, []);
  await context.close();
});

test('predict, then reveal: guess, verdict from the trace, remembered per sentence; URL key; off in embeds', async () => {
  const search = 's=小猫吃鱼，它很开心&predict='; // the page's default: on
  const { tr, tokens } = await traceFor(search);
  const { page, errors, open, context } = await newPage();
  await open(search);
  await gotoStage(page, 6, 'softmax');
  assert.equal(await page.getAttribute('#stage-body .predict', 'data-state'), 'asking');
  assert.equal(await page.textContent('#narration'), say('narr.predict', { tok: '它' }));
  // the followed row's e^x, sum and weights are hidden while the learner may guess, even at the
  // last step: the question comes before e^x
  assert.equal(await page.getAttribute('#stage-body', 'data-phase'), '1');
  assert.ok(
    await page.$eval('#stage-body td[data-matrix="weights"][data-row="4"]', (e) =>
      e.classList.contains('pending'),
    ),
  );
  await shot(page, 'op-en-predict-asking', '#walkthrough');
  // guess 鱼 (column 2): the verdict sets the pick beside the model's top two, from the trace
  await page.click('#stage-body .predict-choice[data-col="2"]');
  await page.waitForSelector('#stage-body .predict[data-state="revealed"]');
  const w = rowOf(tr.heads[0].weights, 4);
  const v = judge(w, 2);
  assert.equal(
    await page.textContent('#stage-body .predict-result'),
    say(verdictKey(v, { guess: 2 }), {
      tok: '它',
      head: 1,
      top: tokens[v.top],
      pt: pct(v.topWeight),
      second: tokens[v.second],
      ps: pct(v.secondWeight),
      guess: '鱼',
      pg: pct(v.weight),
      rank: v.rank,
      n: tr.config.n,
    }),
  );
  assert.equal(await page.getAttribute('#stage-body .predict', 'data-rank'), String(v.rank));
  assert.equal(await page.getAttribute('#stage-body', 'data-phase'), '4');
  assert.ok(
    !(await page.$eval('#stage-body td[data-matrix="weights"][data-row="4"]', (e) =>
      e.classList.contains('pending'),
    )),
  );
  await shot(page, 'op-en-predict-revealed', '#walkthrough');
  // remembered: away and back, no question
  await gotoStage(page, 7, 'mix');
  await gotoStage(page, 6, 'softmax');
  assert.equal(await page.getAttribute('#stage-body .predict', 'data-state'), 'revealed');
  // another sentence asks again; Skip reveals with the top key
  await page.click('#presets button:nth-child(2)'); // 我爱你
  await page.waitForSelector('#stage-body .predict[data-state="asking"]');
  await page.click('#stage-body .predict-skip');
  await page.waitForSelector('#stage-body .predict[data-state="revealed"]');
  assert.match(await page.textContent('#stage-body .predict-result'), /^Skipped\./);
  // back to the first sentence: its guess is still there
  await page.click('#presets button:nth-child(1)'); // 小猫吃鱼，它很开心 (it follows 它 again)
  await page.waitForFunction(() => document.querySelector('#stage-body .predict').dataset.rank);
  // "stop asking" writes predict=0 into the link
  await page.click('#stage-body .predict-off');
  await page.waitForFunction(() => /[?&]predict=0/.test(location.search));
  assert.ok(await page.$eval('#stage-body .predict', (e) => e.hidden));
  assert.deepEqual(errors, []);
  await context.close();

  // predict=0: no question; in an iframe: off unless the link asks (predict=1)
  const { base } = await setup();
  const p2 = await newPage();
  await p2.open('s=小猫吃鱼，它很开心&predict=0&step=7');
  assert.ok(await p2.page.$eval('#stage-body .predict', (e) => e.hidden));
  for (const [ask, hidden] of [
    ['', true],
    ['&predict=1', false],
  ]) {
    await p2.page.setContent(
      `<iframe src="${base}?s=%E6%88%91%E7%88%B1%E4%BD%A0&step=7${ask}" width="900" height="700"></iframe>`,
    );
    const frame = await (await p2.page.waitForSelector('iframe')).contentFrame();
    await frame.waitForSelector('body[data-ready="1"]');
    assert.equal(
      await frame.$eval('#stage-body .predict', (e) => e.hidden),
      hidden,
      `iframe${ask || ' (default)'}`,
    );
  }
  await p2.context.close();
});

test('the 2-D plane inside the scores stage: arrow handles leave the "1" tick labels readable', async () => {
  const { page, errors, open, context } = await newPage();
  await open('');
  await gotoStage(page, 3, 'score');
  await page.click('#stage-body details[data-extra="plane"] summary');
  await page.waitForSelector('#stage-body .panel-plane .panel-handle');
  const overlaps = await page.$$eval('#stage-body .panel-plane svg', ([svgEl]) => {
    const ticks = [...svgEl.querySelectorAll('.panel-tick')]
      .filter((e) => e.textContent === '1')
      .map((e) => e.getBoundingClientRect());
    const rings = [...svgEl.querySelectorAll('.panel-handle .panel-ring')].map((e) =>
      e.getBoundingClientRect(),
    );
    const hit = (a, b) =>
      a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    return { ticks: ticks.length, hits: ticks.filter((t) => rings.some((r) => hit(t, r))).length };
  });
  assert.equal(overlaps.ticks, 2);
  assert.equal(overlaps.hits, 0);
  await shot(page, 'op-en-plane', '#stage-body details[data-extra="plane"]');
  assert.deepEqual(errors, []);
  await context.close();
});

// In the page: window.softmaxPhasesAt(why) checks the softmax stage at its step k (body data-k):
// every phase after k is invisible at once (its own or an ancestor's opacity 0), bars included,
// and the phase of step k, when it has bars, grows them (their ap-grow animation runs). It
// returns the problems, named by `why`.
function installSoftmaxCheck() {
  const opacity = (e) => {
    let o = 1;
    for (let p = e; p && p !== document.body; p = p.parentElement)
      o *= Number(getComputedStyle(p).opacity);
    return o;
  };
  /** @type {any} */ (window).softmaxPhasesAt = (why) => {
    const k = Number(document.body.dataset.k);
    const problems = [];
    document.querySelectorAll('#stage-body .phase').forEach((p, i) => {
      const fills = [...p.querySelectorAll('.fill')];
      const o = opacity(p);
      if (i > k && o > 0) problems.push(`${why}, step ${k}: phase ${i + 1} shows (opacity ${o})`);
      if (i === k && fills.length) {
        const growing = fills.every((f) =>
          f.getAnimations().some((a) => /** @type {any} */ (a).animationName === 'ap-grow'),
        );
        if (!growing) problems.push(`${why}, step ${k}: the bars of phase ${i + 1} do not grow`);
      }
    });
    return problems;
  };
}

test("softmax: a phase's bars show only from its step on, at 375 and 1280, en and zh (scrubbed back, stepped, played)", async () => {
  for (const [width, lang] of [
    [375, 'en'],
    [1280, 'en'],
    [375, 'zh'],
    [1280, 'zh'],
  ]) {
    const { page, errors, open, context } = await newPage({ width, height: 800 });
    await open(`lang=${lang}&s=小猫吃鱼，它很开心`);
    await gotoStage(page, 6, 'softmax'); // the stage opens whole: every phase and both bar lists
    await page.evaluate(installSoftmaxCheck);
    const problems = [];
    const look = async (why) =>
      problems.push(...(await page.evaluate((w) => window.softmaxPhasesAt(w), why)));
    // back from the whole stage to an early step, the way a learner scrubs
    for (const k of [2, 0, 3, 1]) {
      await stepTo(page, k);
      await look(`${width} ${lang} scrubbed`);
    }
    // forward one step at a time with |▶
    await stepTo(page, 0);
    for (let k = 1; k <= 4; k++) {
      await page.click('#player .step-fwd');
      await page.waitForSelector(`body[data-k="${k}"]`);
      await look(`${width} ${lang} stepped`);
    }
    // played from the start (↺ from the whole stage): checked as each step is drawn
    const played = page.evaluate((why) => {
      return new Promise((resolve) => {
        const seen = [];
        const obs = new MutationObserver(() => {
          if (document.body.dataset.stage !== 'softmax') return;
          seen.push(...window.softmaxPhasesAt(why));
          if (document.body.dataset.k === '4') {
            obs.disconnect();
            resolve(seen);
          }
        });
        obs.observe(document.body, { attributes: true, attributeFilter: ['data-k'] });
      });
    }, `${width} ${lang} played`);
    await page.evaluate(() => {
      const more = document.querySelector('#player .more');
      if (more && more.offsetParent) more.click(); // on a phone ↺ is under ⋯
      document.querySelector('#player .replay').click();
    });
    problems.push(...(await played));
    await page.click('#player .play'); // pause
    assert.deepEqual(problems, []);
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test('screenshots while playing: stages 4-9 at 1280×800 and 375×800, en and zh', async () => {
  for (const [width, locale] of [
    [1280, 'en-US'],
    [1280, 'zh-CN'],
    [375, 'en-US'],
    [375, 'zh-CN'],
  ]) {
    const { page, errors, open, context } = await newPage({ width, height: 800, locale });
    await open('s=小猫吃鱼，它很开心&predict=0');
    const tag = `${locale.slice(0, 2)}-${width}`;
    for (const [si, id, k] of [
      [3, 'score', 3],
      [4, 'scale', 3],
      [5, 'mask', 3],
      [6, 'softmax', 2],
      [7, 'mix', 3],
      [8, 'heads', 3],
    ]) {
      await gotoStage(page, si, id);
      await stepTo(page, k);
      await page.$eval('#stage-title', (e) => e.scrollIntoView());
      await page.click('#player .play');
      await page.waitForFunction(
        ([kk, sid]) =>
          document.body.dataset.k !== String(kk) || document.body.dataset.stage !== sid,
        [k, id],
        { timeout: 10000 },
      );
      await page.screenshot({ path: path.join(shotDir, `op-${tag}-${si + 1}-${id}-playing.png`) }); // the viewport
      if ((await page.getAttribute('#player .play', 'aria-pressed')) === 'true')
        await page.click('#player .play');
    }
    assert.deepEqual(errors, []);
    await context.close();
  }
});
