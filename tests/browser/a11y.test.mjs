// a11y.test.mjs: accessibility of the walkthrough. axe (no serious or critical violations) on every
// step in English and Chinese, and none at all of the WCAG 2.0 A/AA, 2.1 AA and 2.2 AA rules at
// the tokens, score, softmax and mix steps; a keyboard-only walkthrough (logical Tab order, visible focus, every
// stage operable without a mouse, the shortcuts list); the live-region narration equals the numbers
// of a trace computed here in Node; every matrix has its values as a table (heatmaps on demand);
// targets of at least 24 x 24 px; reduced motion.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { newPage, setup, teardown, gotoStage, webDir, Axe } from './harness.mjs';
import { STAGES, parse, coreSettings } from '../../web/state.js';
import { taughtSentence } from '../../web/views/taught.js';
import { fmt, pct, rowOf } from '../../web/views/format.js';

after(teardown);

const en = JSON.parse(fs.readFileSync(path.join(webDir, 'locales/en.json'), 'utf8'));
const say = (key, p) => en[key].replace(/\{(\w+)\}/g, (m, k) => (k in p ? String(p[k]) : m));

async function axe(page) {
  // colours are judged at rest: wait until every finite animation (a stage's entrance) has ended
  await page.waitForFunction(() =>
    document
      .getAnimations()
      .every(
        (a) => a.playState !== 'running' || a.effect?.getComputedTiming().endTime === Infinity,
      ),
  );
  const res = await new Axe(page)
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'])
    .include('header')
    .include('#input')
    .include('#whatif')
    .include('#walkthrough')
    .analyze();
  return res.violations;
}

// The steps where axe finds no violation at all, of any impact, among the rules of these tags (a
// subset of axe()'s: the violations of one run are filtered, not a second run made).
const SPOTLESS = ['tokens', 'score', 'softmax', 'mix'];
const SPOTLESS_TAGS = ['wcag2a', 'wcag2aa', 'wcag21aa', 'wcag22aa'];

test('axe: no serious or critical violations on every step, in English and Chinese; none at all on four', async () => {
  const report = [];
  for (const locale of ['en-US', 'zh-CN']) {
    const { page, errors, open, context } = await newPage({ locale });
    await open('');
    for (const [si, id] of STAGES.entries()) {
      await gotoStage(page, si, id);
      const v = await axe(page);
      const bad = v
        .filter((x) => ['serious', 'critical'].includes(x.impact))
        .map(
          (x) =>
            `${x.id} (${x.impact}): ${x.nodes
              .slice(0, 3)
              .map((n) => n.target.join(' '))
              .join(' | ')}`,
        );
      report.push(
        `${locale.slice(0, 2)} ${si + 1}-${id}: ${v.length ? v.map((x) => `${x.id}/${x.impact}`).join(', ') : 'none'}`,
      );
      assert.deepEqual(bad, [], `${locale} step ${si + 1} ${id}`);
      if (SPOTLESS.includes(id))
        assert.deepEqual(
          v
            .filter((x) => x.tags.some((t) => SPOTLESS_TAGS.includes(t)))
            .map(
              (x) =>
                `${x.id}: ${x.nodes
                  .slice(0, 3)
                  .map((n) => n.target.join(' '))
                  .join(' | ')}`,
            ),
          [],
          `${locale} ${id}: no violation of any impact`,
        );
    }
    assert.deepEqual(errors, []);
    await context.close();
  }
  // and a heatmap (100 tokens) at the score and softmax steps
  const { page, errors, open, context } = await newPage();
  await open(`max=128&s=${encodeURIComponent('the cat ate a fish and it was happy '.repeat(12))}`);
  for (const [si, id] of [
    [3, 'score'],
    [6, 'softmax'],
  ]) {
    await gotoStage(page, si, id);
    // the softmax stage keeps its whole weights matrix (the heatmap) in a closed <details>
    if (id === 'softmax') await page.click('#stage-body details.whole-matrix > summary');
    await page.click('#stage-body .heatmap-table summary');
    const v = await axe(page);
    report.push(
      `en heatmap ${id}: ${v.length ? v.map((x) => `${x.id}/${x.impact}`).join(', ') : 'none'}`,
    );
    assert.deepEqual(
      v.filter((x) => ['serious', 'critical'].includes(x.impact)).map((x) => x.id),
      [],
      `heatmap ${id}`,
    );
  }
  assert.deepEqual(errors, []);
  await context.close();
  console.log(`axe violations per step (any impact):\n${report.join('\n')}`);
});

test('keyboard only: logical Tab order, visible focus, every stage operable, shortcuts list', async () => {
  const { page, errors, open, context } = await newPage();
  await open('');
  // Tab through the top of the page and record where focus goes
  const seen = [];
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    const f = await page.evaluate(() => {
      const e = document.activeElement;
      const cs = getComputedStyle(e);
      const visible =
        (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 2) || cs.boxShadow !== 'none';
      const role =
        e.id === 'text'
          ? 'input'
          : e.classList.contains('preset')
            ? 'preset'
            : e.closest('#whatif')
              ? 'settings'
              : e.closest('#stage-nav')
                ? 'stages'
                : e.closest('#player')
                  ? 'player'
                  : e.id === 'head-picker'
                    ? 'heads'
                    : e.classList.contains('chip-main')
                      ? 'token'
                      : e.closest('#stage-body')
                        ? 'stage-body'
                        : e.tagName.toLowerCase();
      return { role, visible, what: `${e.tagName.toLowerCase()}#${e.id}.${e.className}` };
    });
    seen.push(f);
    if (f.role === 'token') break;
  }
  const first = (role) => seen.findIndex((x) => x.role === role);
  const order = ['input', 'preset', 'settings', 'stages', 'player', 'heads', 'token'].map((r) => [
    r,
    first(r),
  ]);
  for (const [r, i] of order)
    assert.ok(i >= 0, `Tab reaches ${r}: ${seen.map((x) => x.role).join(' ')}`);
  for (let k = 1; k < order.length; k++)
    assert.ok(order[k][1] > order[k - 1][1], `${order[k - 1][0]} before ${order[k][0]}`);
  const invisible = seen.filter((x) => !x.visible).map((x) => x.what);
  assert.deepEqual(invisible, [], 'every focused element shows a focus ring');
  // follow a token with Enter: the link says which, and focus stays on that token's chip
  const chipIndex = () =>
    page.evaluate(() => {
      const chip = document.activeElement.closest('.chip');
      return chip ? [...document.querySelectorAll('#stage-body .chip')].indexOf(chip) : -1;
    });
  const focused = await chipIndex();
  assert.ok(focused >= 0, 'Tab stopped on a token chip');
  await page.keyboard.press('Enter');
  await page.waitForFunction(
    (q) => new URL(location.href).searchParams.get('q') === q,
    String(focused),
  );
  assert.equal(await chipIndex(), focused, 'focus stays on the followed token');
  // every stage from the stage list with Enter, and one step forward with the player's button
  for (const [si, id] of STAGES.entries()) {
    await page.focus(`#stage-nav li:nth-child(${si + 1}) button`);
    await page.keyboard.press('Enter');
    await page.waitForSelector(`body[data-stage="${id}"]`);
    await page.focus('#player .step-back');
    const k = Number(await page.getAttribute('body', 'data-k'));
    await page.keyboard.press('Enter');
    if (k > 0)
      assert.equal(
        Number(await page.getAttribute('body', 'data-k')),
        k - 1,
        `${id}: step back by keyboard`,
      );
    // the stage's own controls are reachable with Tab from the player
    const inBody = [];
    await page.focus('#head-picker');
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Tab');
      inBody.push(
        await page.evaluate(() => !!document.activeElement.closest('#stage-body, #arcs')),
      );
    }
    assert.ok(inBody.some(Boolean), `${id}: Tab reaches the stage's content`);
  }
  // the next head by keyboard (H); the head picker itself is a native <select>
  await page.evaluate(() => document.activeElement.blur());
  const h0 = Number(new URL(page.url()).searchParams.get('head'));
  await page.keyboard.press('h');
  assert.notEqual(Number(new URL(page.url()).searchParams.get('head')), h0);
  // settings: open with Enter, change the causal mask with Space
  await page.focus('#whatif summary');
  await page.keyboard.press('Enter');
  await page.focus('#set-causal');
  assert.ok(await page.$eval('#whatif', (d) => d.open), 'Enter opens the settings');
  await page.keyboard.press('Space');
  await page.waitForFunction(
    () => new URLSearchParams(location.search).get('causal') === '1',
    null,
    { timeout: 5000 },
  );
  // the shortcuts list opens with ?, closes with Escape, and focus returns to the page
  await page.evaluate(() => document.activeElement.blur());
  await page.keyboard.press('?');
  assert.ok(await page.$eval('#shortcuts', (d) => d.open));
  assert.ok((await page.$$eval('#shortcuts kbd', (l) => l.length)) >= 10);
  await page.keyboard.press('Escape');
  assert.ok(!(await page.$eval('#shortcuts', (d) => d.open)));
  assert.deepEqual(errors, []);
  await context.close();
});

test('the live region narrates each step with the numbers of the trace', async () => {
  const { core } = await setup();
  const search = 'lang=en';
  const { state } = parse(search);
  const r = core.trace(state.s, coreSettings(state));
  const tr = r;
  const labels = r.tokens;
  const q = labels.findIndex((x) => x === '它');
  assert.ok(q >= 0);
  const best = (w) => {
    let b = 0;
    for (let j = 1; j < w.length; j++) if (w[j] > w[b]) b = j;
    return b;
  };
  const w = rowOf(tr.heads[0].weights, q);
  const order = [...w.keys()].sort((a, b) => w[b] - w[a]);
  const expect = {
    tokens: say('narr.tokens', { n: labels.length, list: labels.join(' · ') }),
    // the stage's last step: every score is in, and the followed row's highest is named
    score: (() => {
      const row = [...rowOf(tr.heads[0].scores, q)];
      const top = best(row);
      return say('narr.scoreAll', {
        nn: tr.config.n * tr.config.n,
        q: labels[q],
        k: labels[top],
        v: fmt(row[top], 3),
      });
    })(),
    mask: tr.config.causal ? null : say('narr.maskOff', { tok: labels[q] }),
    // the first sentence about where head 1 looks says whether it was taught to look there
    softmax:
      say('narr.softmax', { tok: labels[q], p: pct(w[best(w)]), key: labels[best(w)] }) +
      taughtSentence(say, r, 0),
    mix: say('narr.mix', {
      tok: labels[q],
      a: labels[order[0]],
      pa: pct(w[order[0]]),
      b: labels[order[1]],
      pb: pct(w[order[1]]),
    }),
    heads: say('narr.heads', {
      tok: labels[q],
      n: tr.config.heads,
      d: tr.config.d_model,
      parts: tr.heads
        .map((hd, h) => {
          const x = rowOf(hd.weights, q);
          const b = best(x);
          return say('narr.headPart', { h: h + 1, key: labels[b], p: pct(x[b]) });
        })
        .join(en['list.sep']),
    }),
  };
  const { page, errors, open, context } = await newPage();
  await open(search);
  assert.equal(await page.getAttribute('#narration', 'aria-live'), 'polite');
  for (const [si, id] of STAGES.entries()) {
    await gotoStage(page, si, id);
    const text = await page.textContent('#narration');
    if (expect[id]) assert.equal(text, expect[id], id);
    else assert.ok(text.length > 0, `${id} is narrated`);
  }
  assert.match(
    expect.softmax,
    /^Query 它 gives \d+(\.\d)?% of its attention to .+\. \(Head 1 was taught where to look\.\)$/,
  );
  assert.deepEqual(errors, []);
  await context.close();
});

test('every matrix has its values as a table; a heatmap gives them row by row on demand', async () => {
  const { core } = await setup();
  const { page, errors, open, context } = await newPage();
  await open('');
  for (const [si, id] of STAGES.entries()) {
    await gotoStage(page, si, id);
    const missing = await page.$$eval(
      '#stage-body figure.mblock',
      (figs) => figs.filter((f) => !f.querySelector('td[data-value]')).length,
    );
    assert.equal(missing, 0, `${id}: every matrix block has cells with values`);
  }
  // 100 tokens: the score matrix is a heatmap; its table alternative holds the trace's values
  const s = 'the cat ate a fish and it was happy '.repeat(12);
  const search = `max=128&s=${encodeURIComponent(s)}`;
  const { state } = parse(search);
  const tr = core.trace(state.s, coreSettings(state));
  await open(search);
  await gotoStage(page, 3, 'score');
  assert.ok(await page.$('#stage-body .heatmap canvas[role="img"][aria-label]'));
  // (Q and K, a row per token, are heatmaps at this length too: open the scores' table)
  await page.click('#stage-body .heatmap[data-heatmap="scores"] .heatmap-table summary');
  // the table fills on the <details> toggle event, which fires as a task after the click
  await page.waitForSelector('#stage-body .heatmap-page td[data-matrix="scores"]');
  const vals = await page.$$eval('#stage-body .heatmap-page td[data-matrix="scores"]', (l) =>
    l.map((td) => [+td.dataset.row, +td.dataset.col, +td.dataset.value]),
  );
  assert.equal(vals.length, 16 * tr.config.n);
  for (const [r, c, v] of vals)
    assert.ok(
      Math.abs(v - tr.heads[0].scores.data[r * tr.config.n + c]) < 1e-5,
      `scores[${r}][${c}]`,
    );
  assert.deepEqual(errors, []);
  await context.close();
});

test('targets are at least 24 x 24 px; reduced motion turns transitions off', async () => {
  const { page, errors, open, context } = await newPage({ reducedMotion: true, width: 375 });
  await open('step=7');
  const small = await page.$$eval(
    'header button, #input button, #input textarea, #walkthrough button, #walkthrough select, #walkthrough input, #whatif summary',
    (l) =>
      l
        .filter((e) => e.offsetParent !== null)
        .map((e) => [e, e.getBoundingClientRect()])
        .filter(([, r]) => r.width < 24 || r.height < 24)
        .map(
          ([e, r]) => `${e.tagName}.${e.className} ${r.width.toFixed(0)}x${r.height.toFixed(0)}`,
        ),
  );
  assert.deepEqual(small, []);
  const moving = await page.$$eval('.chip, .fill, .seg, .phase, .stage-btn', (l) =>
    l.map((e) => getComputedStyle(e).transitionDuration).filter((d) => !/^0s(, 0s)*$/.test(d)),
  );
  assert.deepEqual(moving, []);
  await page.click('#player .more'); // on a phone, replay is folded behind ⋯
  await page.click('#player .replay');
  const [k, units] = await page.evaluate(() => [
    document.body.dataset.k,
    document.querySelector('#player .scrub').max,
  ]);
  assert.equal(k, units, 'reduced motion: a replayed stage is shown whole');
  assert.deepEqual(errors, []);
  await context.close();
});
