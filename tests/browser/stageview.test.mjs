// stageview.test.mjs: the stage in view. Every animation step of every stage, at 1280×800 and
// 375×800, in English and Chinese, for the default sentence and a 20-token one: the elements the
// step is about (data-active, the walkthrough's per-step contract) are on screen, below the
// sticky player bar and inside any scroll box around them, and the narration names the cell
// shown: its query (row token), its key (column token, for the n × n matrices) and its value.
// Play is checked too: the narration follows the frames. Screenshots of every stage at both sizes
// go to tests/browser/screenshots/stage-*.png.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { setup, newPage, teardown, shotDir, renders, waitRender } from './harness.mjs';
import { STAGES } from '../../web/state.js';

after(teardown);

const LONG = {
  en: "The animal didn't cross the street because it was too tired, so it stayed at home all day.",
  zh: '小猫吃鱼，它很开心，因为鱼很好吃，小狗看着它想吃。',
};
const SIZES = [
  [1280, 800],
  [375, 800],
];

// In the page (a self-contained function: Playwright sends its source). mode 'check': the current
// step; 'walk': step with |▶ from where the page is to the last step of the last stage, checking
// every step; 'play': check every animation frame of the current stage for `frames` frames.
function inPage({ names, mode, frames = 90 }) {
  function checkStep() {
    const problems = [];
    const { tokens, rowsAreTokens, colsAreTokens } = names;
    const body = document.body;
    const where = `${body.dataset.stage} k=${body.dataset.k}`;
    const active = [...document.querySelectorAll('[data-active]')];
    const out = active.filter((e) => e.dataset.active === 'out');
    if (out.length !== 1) problems.push(`${where}: ${out.length} elements are data-active="out"`);
    const top = Math.max(0, document.getElementById('stagebar').getBoundingClientRect().bottom);
    for (const e of active) {
      const r = e.getBoundingClientRect();
      const what = `${where}: ${e.tagName.toLowerCase()}${e.dataset.matrix ? `[${e.dataset.matrix} ${e.dataset.row},${e.dataset.col}]` : `.${e.className}`}`;
      if (r.width < 1 || r.height < 1) {
        problems.push(`${what} is not rendered`);
        continue;
      }
      if (
        r.top < top - 1 ||
        r.bottom > innerHeight + 1 ||
        r.left < -1 ||
        r.right > innerWidth + 1
      ) {
        problems.push(
          `${what} at ${Math.round(r.left)},${Math.round(r.top)}–${Math.round(r.right)},${Math.round(r.bottom)} is outside the view (${innerWidth}×${innerHeight}, bar bottom ${Math.round(top)})`,
        );
      }
      // inside every clipping box around it (a table's scroller)
      for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
        const st = getComputedStyle(p);
        if (st.overflowX === 'visible' && st.overflowY === 'visible') continue;
        const b = p.getBoundingClientRect();
        if (
          r.left < b.left - 1 ||
          r.right > b.right + 1 ||
          r.top < b.top - 1 ||
          r.bottom > b.bottom + 1
        ) {
          problems.push(`${what} is cut off by its scroll box .${p.className}`);
        }
      }
    }
    const text = document.getElementById('narration').textContent;
    if (!text) problems.push(`${where}: no narration`);
    const cell = out[0];
    if (cell && cell.dataset.matrix) {
      const m = cell.dataset.matrix;
      if (
        rowsAreTokens.includes(m) &&
        cell.dataset.row !== undefined &&
        !text.includes(tokens[+cell.dataset.row])
      ) {
        problems.push(
          `${where}: narration "${text}" does not name the query ${tokens[+cell.dataset.row]}`,
        );
      }
      if (
        colsAreTokens.includes(m) &&
        cell.dataset.col !== undefined &&
        !text.includes(tokens[+cell.dataset.col])
      ) {
        problems.push(
          `${where}: narration "${text}" does not name the key ${tokens[+cell.dataset.col]}`,
        );
      }
      if (cell.dataset.value !== undefined) {
        const v = Number(cell.dataset.value);
        // every number the sentence says, at its precision: one of them is the cell's value
        const said = [...text.replace(/−/g, '-').matchAll(/-?\d+(?:\.(\d+))?(%?)/g)].map((x) => {
          const digits = (x[1] || '').length + (x[2] ? 2 : 0);
          return { x: parseFloat(x[0]) / (x[2] ? 100 : 1), tol: 0.5 * 10 ** -digits + 1e-9 };
        });
        if (
          v === -Infinity ? !text.includes('−∞') : !said.some((s) => Math.abs(s.x - v) <= s.tol)
        ) {
          problems.push(
            `${where}: narration "${text}" does not say the value ${v} of ${m}[${cell.dataset.row}][${cell.dataset.col}]`,
          );
        }
      }
    }
    return problems;
  }
  if (mode === 'check') return checkStep();
  if (mode === 'walk') {
    const problems = [];
    const fwd = document.querySelector('#player .step-fwd');
    const pos = document.querySelector('#player .scrub');
    let steps = 0;
    for (;;) {
      problems.push(...checkStep());
      if (problems.length > 30) break;
      if (document.body.dataset.stage === 'heads' && +document.body.dataset.k >= +pos.max) break;
      fwd.click();
      if (++steps > 20000) {
        problems.push('the walk does not end');
        break;
      }
    }
    return { problems, steps };
  }
  // play: every frame for a while
  const stage = document.body.dataset.stage;
  return new Promise((resolve) => {
    const problems = [];
    const seen = new Set();
    let live = '';
    let n = 0;
    const tick = () => {
      if (document.body.dataset.stage === stage) {
        problems.push(...checkStep());
        seen.add(document.getElementById('narration').textContent);
        live = document.getElementById('narration').getAttribute('aria-live');
      }
      if (++n < frames && problems.length < 20) requestAnimationFrame(tick);
      else resolve({ problems, narrations: seen.size, live });
    };
    requestAnimationFrame(tick);
  });
}

const scrubTo = (page, where) =>
  page.$eval(
    '#player .scrub',
    (s, w) => {
      s.value = String(w === 'half' ? Math.max(1, Math.floor(+s.max / 2)) : w);
      s.dispatchEvent(new Event('input', { bubbles: true }));
    },
    where,
  );

async function namesFor(text) {
  const { core } = await setup();
  const { tokens } = core.tokenize(text);
  return {
    tokens,
    rowsAreTokens: ['X', 'E', 'P', 'Q', 'K', 'V', 'scores', 'scaled', 'masked', 'weights'],
    colsAreTokens: ['scores', 'scaled', 'masked', 'weights'],
  };
}

for (const lang of ['en', 'zh']) {
  for (const [width, height] of SIZES) {
    for (const which of ['default', 'long']) {
      test(`every step in view and narrated: ${lang}, ${width}×${height}, ${which} sentence`, async () => {
        const { page, errors, open, context } = await newPage({ width, height });
        const text = which === 'long' ? LONG[lang] : '小猫吃鱼，它很开心';
        await open(`lang=${lang}&s=${encodeURIComponent(text)}`);
        const names = await namesFor(text);
        if (which === 'long')
          assert.equal(names.tokens.length, 20, 'the long sentence has 20 tokens');
        // stage 1 from its first step, through the stage list and the scrubber
        await page.click('#stage-nav li:nth-child(1) button');
        await page.waitForSelector('body[data-stage="tokens"]');
        await scrubTo(page, 0);
        const { problems, steps } = await page.evaluate(inPage, { names, mode: 'walk' });
        assert.deepEqual(problems, [], `${problems.length} problems in ${steps} steps`);
        assert.ok(steps > 9 * 4, `${steps} steps walked`);
        // each stage half way through its animation, as the learner sees it
        for (const [i, id] of STAGES.entries()) {
          await page.click(`#stage-nav li:nth-child(${i + 1}) button`);
          await page.waitForSelector(`body[data-stage="${id}"]`);
          await scrubTo(page, 'half');
          assert.deepEqual(
            await page.evaluate(inPage, { names, mode: 'check' }),
            [],
            `${id} after scrubbing`,
          );
          // compact first: nothing in the stage scrolls sideways, on a phone too (a label that
          // ends in … clips, it does not scroll)
          const wide = await page.$$eval('#stage-body *', (list) =>
            list
              .filter((e) => {
                const x = getComputedStyle(e).overflowX;
                return (x === 'auto' || x === 'scroll') && e.scrollWidth > e.clientWidth + 1;
              })
              .map((e) => `${e.firstElementChild?.className}: ${e.scrollWidth} > ${e.clientWidth}`),
          );
          assert.deepEqual(wide, [], `${id}: parts wider than their box`);
          assert.ok(
            await page.evaluate(
              () => document.documentElement.scrollWidth <= document.documentElement.clientWidth,
            ),
            `${id}: the page scrolls sideways`,
          );
          await page.screenshot({
            path: path.join(shotDir, `stage-${lang}-${width}-${which}-${i + 1}-${id}.png`),
          });
        }
        assert.deepEqual(errors, []);
        await context.close();
      });
    }
  }
}

test('while playing, the narration follows the frames and the computed cell stays in view', async () => {
  for (const [width, height] of SIZES) {
    const { page, errors, open, context } = await newPage({ width, height });
    const text = LONG.en;
    await open(`lang=en&s=${encodeURIComponent(text)}`);
    const names = await namesFor(text);
    await page.click('#stage-nav li:nth-child(3) button');
    await page.waitForSelector('body[data-stage="project"]');
    // at 4× the first cell's four held steps take 4 × 450 ms, then a cell goes by every frame or
    // so: 180 frames see both
    await page.selectOption('#player .speed select', '4');
    await page.click('#player .replay');
    const { problems, narrations, live } = await page.evaluate(inPage, {
      names,
      mode: 'play',
      frames: 180,
    });
    assert.deepEqual(problems, [], `${width}: problems while playing`);
    assert.ok(narrations >= 5, `${width}: the narration changed ${narrations} times while playing`);
    assert.equal(live, 'off', 'the live region is quiet while playing');
    await page.click('#player .play'); // pause
    assert.equal(await page.getAttribute('#narration', 'aria-live'), 'polite');
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test('a changed text follows its pronoun (as the core marks it) until the learner picks a token', async () => {
  const { page, errors, open, context } = await newPage({ width: 1280, height: 800 });
  await open('lang=en');
  const followed = () =>
    page.evaluate(() => document.querySelector('.chip.focus .tok')?.textContent);
  await page.click('#stage-nav li:nth-child(1) button');
  await page.waitForSelector('body[data-stage="tokens"]');
  assert.equal(await followed(), '它');
  // typed (not a preset): the followed token moves to the sentence's pronoun
  let before = await renders(page);
  await page.fill('#text', "The animal didn't cross the street because it was too tired.");
  await waitRender(page, before);
  assert.equal(await followed(), 'it');
  before = await renders(page);
  await page.fill('#text', '小狗看见了他们');
  await waitRender(page, before);
  assert.equal(await followed(), '他们');
  // I and you are not followed: no third-person pronoun, the first token
  before = await renders(page);
  await page.fill('#text', 'I love you');
  await waitRender(page, before);
  assert.equal(await followed(), 'I');
  // once the learner picks a token, typing keeps it
  before = await renders(page);
  await page.fill('#text', 'the cat saw her');
  await waitRender(page, before);
  assert.equal(await followed(), 'her');
  await page.click('#stage-body .chip:nth-child(2) .chip-main');
  before = await renders(page);
  await page.fill('#text', 'the cat saw her again');
  await waitRender(page, before);
  assert.equal(await followed(), 'cat');
  assert.deepEqual(errors, []);
  await context.close();
});
