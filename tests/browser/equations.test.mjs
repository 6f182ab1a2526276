// equations.test.mjs: every equation the page prints holds for the numbers it prints. On every
// stage and step, for each model and both languages, the visible text of the stage and the
// narration is searched for equations ("0.20 − 0.76 = −0.56", "(0.11 + 0.02) ÷ 0.81 × 1.12 +
// 0.05 = 0.23"), and the tables that spread one equation over cells (E + P = X columns, x × w
// columns, a q × k row and its sum) carry data-eq; each is worked out again from the printed
// parts alone. "=" must round to the printed total; "≈" is allowed only within the rounding of
// the printed parts. Also: no "+ −" anywhere; each stage's lesson sentence is checked against
// the trace of the default sentence and the four presets (the scale stage says a row does not
// show the lesson exactly when its scaled top weight is still all or nothing).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { newPage, setup, teardown } from './harness.mjs';
import { STAGES, PRESETS, coreSettings, defaults } from '../../web/state.js';

after(teardown);

const decimals = (/** @type {string} */ s) => (s.split('.')[1] || '').length;
const toNum = (/** @type {string} */ s) => Number(s.replace(/−/g, '-'));

/** Evaluates a printed expression of numbers, + − × ÷ and parentheses (standard precedence).
 *  -> {value, numbers: [printed number, ...]} or null when it is not such an expression. */
export function evaluate(src) {
  const toks = src.match(/\d+(?:\.\d+)?|[()+−×÷-]/g);
  if (!toks || toks.join('') !== src.replace(/\s+/g, '')) return null;
  let i = 0;
  const numbers = [];
  const peek = () => toks[i];
  function atom() {
    const t = toks[i++];
    if (t === '(') {
      const v = sum();
      if (toks[i++] !== ')') throw new Error('parenthesis');
      return v;
    }
    if (t === '−' || t === '-') return -atom();
    if (t === undefined || !/\d/.test(t)) throw new Error(`unexpected ${t}`);
    numbers.push(t);
    return Number(t);
  }
  function product() {
    let v = atom();
    while (peek() === '×' || peek() === '÷') v = toks[i++] === '×' ? v * atom() : v / atom();
    return v;
  }
  function sum() {
    let v = product();
    while (peek() === '+' || peek() === '−' || peek() === '-')
      v = toks[i++] === '+' ? v + product() : v - product();
    return v;
  }
  try {
    const value = sum();
    return i === toks.length ? { value, numbers } : null;
  } catch {
    return null;
  }
}

/** Checks value (worked out from printed parts) against a printed total. rel '=': it rounds to
 *  the total; '≈': within the rounding of the parts (each part off by at most half its last
 *  decimal, times the largest magnitude it is multiplied with). */
function agrees(value, numbers, rel, total) {
  const half = 0.5 * 10 ** -decimals(total);
  const gap = Math.abs(value - toNum(total));
  if (rel === '=') return gap <= half + 1e-9;
  const big = Math.max(1, ...numbers.map((n) => Math.abs(toNum(n))));
  const slack = numbers.reduce((a, n) => a + 0.5 * 10 ** -decimals(n), 0) * big;
  return gap <= half + slack + 1e-9;
}

/** Every inline equation in a line of text: [{expr, rel, total}]. The left side is the longest
 *  run of numbers, operators and parentheses before "=" or "≈" that parses. */
export function inlineEquations(line) {
  const out = [];
  const re = /([=≈])\s*(−?\d+(?:\.\d+)?)(?!\d|\.\d)/g;
  let m;
  while ((m = re.exec(line))) {
    let start = m.index;
    while (start > 0 && /[\d.()+−×÷\s]/.test(line[start - 1])) start--;
    let left = line.slice(start, m.index).trim();
    // a left side needs an operator between two numbers; drop what cannot start an expression
    while (left && !evaluate(left)) left = left.slice(1).trim();
    if (!left) continue;
    const ev = evaluate(left);
    if (!ev || ev.numbers.length < 2 || !/[+−×÷]/.test(left.replace(/^−/, ''))) continue;
    out.push({ expr: left, rel: m[1], total: m[2], ...ev });
  }
  return out;
}

test('the evaluator and the search read equations as a learner would', () => {
  assert.deepEqual(
    inlineEquations('the first is 0.20 − 0.76 = −0.56.').map((e) => [e.expr, e.total]),
    [['0.20 − 0.76', '−0.56']],
  );
  const ln = inlineEquations('(0.11 + 0.02) ÷ 0.81 × 1.12 + 0.05 = 0.23');
  assert.equal(ln.length, 1);
  assert.ok(Math.abs(ln[0].value - ((0.13 / 0.81) * 1.12 + 0.05)) < 1e-12);
  assert.equal(inlineEquations('−2.47×(−0.16) ≈ 0.40')[0].value.toFixed(4), '0.3952');
  assert.deepEqual(inlineEquations('d_k = 64, 1/√d_k = 0.125, q · k = 1.23, Σ of 32 = 2'), []);
  // the check fails where the page once failed
  const bad = inlineEquations('0.20 + −0.76 = −0.55')[0];
  assert.equal(agrees(bad.value, bad.numbers, bad.rel, bad.total), false);
  const prod = inlineEquations('−2.47 × 0.16 = −0.38')[0];
  assert.equal(agrees(prod.value, prod.numbers, prod.rel, prod.total), false);
});

/** Everything on screen that is an equation, checked; returns how many were checked. */
async function checkScreen(page, where) {
  const { lines, tables } = await page.evaluate(() => {
    const shown = (/** @type {Element} */ e) =>
      /** @type {HTMLElement} */ (e).offsetParent !== null;
    const lines = [];
    for (const sel of ['#stage-body', '#narration'])
      for (const node of document.querySelectorAll(sel))
        // a table cell is a line of its own (an equation spread over cells carries data-eq)
        if (shown(node)) lines.push(.../** @type {HTMLElement} */ (node).innerText.split(/[\n\t]/));
    // cells of one equation share an id within their table or sum box
    const groups = new Map();
    for (const cell of document.querySelectorAll('#stage-body [data-eq]')) {
      if (!shown(cell)) continue;
      const scope = cell.closest('table, .calc') || document.body;
      if (!scope.dataset.eqScope) scope.dataset.eqScope = String(Math.random());
      for (const tag of cell.getAttribute('data-eq').split(' ')) {
        const [id, role] = tag.split(':');
        const key = `${scope.dataset.eqScope}|${id}`;
        if (!groups.has(key))
          groups.set(key, { part: [], factor: [], percent: [], rel: [], total: [] });
        groups.get(key)[role].push(cell.textContent.trim());
      }
    }
    return { lines, tables: [...groups.values()] };
  });
  let n = 0;
  for (const line of lines) {
    assert.ok(!/\+\s*−/.test(line), `${where}: "+ −" in "${line}"`);
    for (const e of inlineEquations(line)) {
      assert.ok(
        agrees(e.value, e.numbers, e.rel, e.total),
        `${where}: "${e.expr} ${e.rel} ${e.total}" does not hold for its printed parts (they give ${e.value}) in "${line}"`,
      );
      n++;
    }
  }
  for (const g of tables) {
    assert.equal(g.total.length, 1, `${where}: one total per equation ${JSON.stringify(g)}`);
    const rel = (g.rel[0] || g.total[0]).trim().startsWith('≈') ? '≈' : '=';
    const total = g.total[0].replace(/^[≈=]\s*/, '');
    // a part may carry its operator ("+ 0.12", "− 0.12"); a factor its parentheses; a weight is
    // a percentage
    const num = (/** @type {string} */ s) =>
      s
        .replace(/^≈\s*/, '')
        .replace(/^\+\s*/, '')
        .replace(/^−\s+/, '−')
        .replace(/[()]/g, '');
    const factors = [
      ...g.factor.map(num),
      ...g.percent.map((p) => String(toNum(p.replace('%', '')) / 100)),
    ];
    const numbers = [
      ...g.part.map(num),
      ...g.factor.map(num),
      ...g.percent.map((p) => p.replace('%', '')),
    ];
    const value = factors.length
      ? factors.reduce((a, s) => a * toNum(s), 1)
      : g.part.map(num).reduce((a, s) => a + toNum(s), 0);
    assert.ok(
      agrees(value, numbers, rel, total),
      `${where}: table equation ${factors.length ? factors.join(' × ') : g.part.join(' + ')} ${rel} ${total} does not hold (the parts give ${value})`,
    );
    n++;
  }
  return n;
}

async function scrubTo(page, k) {
  await page.$eval(
    '#player .scrub',
    (e, v) => {
      e.value = String(v);
      e.dispatchEvent(new Event('input'));
    },
    k,
  );
  await page.waitForFunction((v) => document.body.dataset.k === String(v), k);
}

for (const lang of ['en', 'zh'])
  test(`every printed equation holds for its printed parts: every stage and step, each model (${lang})`, async () => {
    const { core } = await setup();
    const models = core
      .models()
      .map((/** @type {any} */ m) => m.name)
      // a model trained or loaded here has none until then (the train and real-page tests check theirs)
      .filter((m) => m !== 'custom' && m !== 'real');
    assert.ok(models.length >= 3, `models: ${models}`);
    for (const model of models) {
      const { page, errors, open, context } = await newPage({
        locale: lang === 'zh' ? 'zh-CN' : 'en-US',
      });
      await open(`model=${model}&lang=${lang}`);
      let checked = 0;
      for (const [si, id] of STAGES.entries()) {
        await page.click(`#stage-nav li:nth-child(${si + 1}) button`);
        await page.waitForSelector(`body[data-stage="${id}"]`);
        // every term of stage 3's sum, one click away
        if (id === 'project')
          await page.$eval('#stage-body details.calc-all', (d) => (d.open = true));
        const units = Number(await page.$eval('#player .scrub', (e) => e.max));
        for (let k = 0; k <= units; k++) {
          await scrubTo(page, k);
          checked += await checkScreen(page, `${model} ${lang} stage ${id} step ${k}`);
        }
      }
      assert.ok(checked > 50, `${model} ${lang}: ${checked} equations checked`);
      assert.deepEqual(errors, []);
      await context.close();
    }
  });

test("each stage's lesson holds on the numbers shown: the default sentence and the four presets, each model", async () => {
  const { core } = await setup();
  const models = core
    .models()
    .map((/** @type {any} */ m) => m.name)
    // a model trained or loaded here has none until then (the train and real-page tests check theirs)
    .filter((m) => m !== 'custom' && m !== 'real');
  const scaleAt = STAGES.indexOf('scale');
  let saturatedSeen = 0;
  for (const model of models)
    for (const text of [...new Set([defaults().s, ...PRESETS])]) {
      const state = { ...defaults(), s: text, model };
      const res = core.trace(text, coreSettings(state));
      const { page, errors, open, context } = await newPage();
      await open(`model=${model}&lang=en&s=${encodeURIComponent(text)}&step=${scaleAt + 1}`);
      await page.waitForSelector('body[data-stage="scale"]');
      await scrubTo(page, Number(await page.$eval('#player .scrub', (e) => e.max)));
      // the row the stage sums up: the narration names it (head, q) with its numbers
      const said = JSON.parse(await page.$eval('#narration', (e) => e.dataset.says));
      const lesson = await page.$eval('#stage-body [data-lesson]', (e) => ({
        kind: e.dataset.lesson,
        text: e.textContent,
      }));
      // the layer the page shows (the last unless the link says otherwise): the trace's own
      const layer = res;
      const w = layer.heads[said.head].weights;
      const top = Math.max(...w.data.subarray(said.q * w.cols, (said.q + 1) * w.cols));
      const where = `${model} "${text}" head ${said.head + 1}, row ${said.q}: top weight ${top}`;
      assert.ok(Math.abs(said.topScaled - top) < 1e-6, `${where}: the page's row is the core's`);
      if (top >= 0.99) {
        saturatedSeen++;
        assert.equal(lesson.kind, 'saturated', where);
        assert.equal(said.key, 'narr.scaleSaturated', where);
        assert.match(lesson.text, /does not show the lesson/, where);
        // the experiment that does show it, its numbers the core's
        const demo = core.scaleDemo(64, Math.max(2, res.config.n), 200, res.config.seed);
        assert.ok(demo.top_raw - demo.top_scaled > 0.1, 'the experiment shows the lesson');
        assert.ok(
          lesson.text.includes(`${(demo.top_scaled * 100).toFixed(0)}%`) ||
            lesson.text.includes(`${(demo.top_scaled * 100).toFixed(1)}%`),
          where,
        );
      } else {
        assert.equal(lesson.kind, 'shown', where);
        assert.equal(said.key, 'narr.scale', where);
      }
      assert.deepEqual(errors, []);
      await context.close();
    }
  assert.ok(saturatedSeen > 0, 'the shipped model has a saturated row among these sentences');
});
