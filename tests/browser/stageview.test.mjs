// stageview.test.mjs: the stage in view. Every animation step of every stage, at 1280×800 and
// 375×800, in English and Chinese, for the default sentence and a 20-token one: the elements the
// step is about (data-active, the walkthrough's per-step contract) are on screen, below the
// sticky player bar and inside any scroll box around them, and the narration names the cell
// shown: its query (row token), its key (column token, for the n × n matrices) and its value.
// Play is checked too: the narration follows the frames. On a phone the sticky bar stays at most
// PHONE_BAR_MAX px tall at every step, playing or stepping. Screenshots of every stage at both sizes
// go to tests/browser/screenshots/stage-*.png.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { setup, newPage, teardown, shotDir, renders, waitRender } from './harness.mjs';
import { STAGES, parse, coreSettings } from '../../web/state.js';

after(teardown);

const LONG = {
  en: "The animal didn't cross the street because it was too tired, so it stayed at home all day.",
  zh: '小猫吃鱼，它很开心，因为鱼很好吃，小狗看着它也想吃。',
};
const SIZES = [
  [1280, 800],
  [375, 800],
];
// On a phone the sticky bar (toolbar and narration) may take at most this much of the 800 px:
// one line of controls and three lines of narration with their margins; the rest is the
// stage's. Unfolded controls (⋯) or a fourth line of narration while playing would exceed it.
const PHONE_BAR_MAX = 104;

// In the page (a self-contained function: Playwright sends its source). mode 'check': the current
// step; 'walk': step with |▶ from where the page is to the last step of the last stage, checking
// every step; 'watch': check every step of the current stage while it plays.
function inPage({ names, mode }) {
  function checkStep() {
    const problems = [];
    const { tokens, rowsAreTokens, colsAreTokens } = names;
    const body = document.body;
    const where = `${body.dataset.stage} k=${body.dataset.k}`;
    const active = [...document.querySelectorAll('[data-active]')];
    const out = active.filter((e) => e.dataset.active === 'out');
    if (out.length !== 1) problems.push(`${where}: ${out.length} elements are data-active="out"`);
    const bar = document.getElementById('stagebar').getBoundingClientRect();
    const top = Math.max(0, bar.bottom);
    if (names.barMax && bar.height > names.barMax)
      problems.push(`${where}: the sticky bar is ${Math.round(bar.height)} px tall`);
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
    const narration = document.getElementById('narration');
    const text = narration.textContent;
    if (!text) problems.push(`${where}: no narration`);
    if (names.wholeNarration && narration.scrollHeight > narration.clientHeight + 1)
      problems.push(`${where}: the narration "${text}" is cut at ${narration.clientHeight} px`);
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
  if (mode === 'watch') {
    // from a replay about to be pressed: the step shown after every change of the player's step
    // (body[data-k], written once the step is drawn and revealed), until the stage hands over to
    // the next one or play stops
    const stage = document.body.dataset.stage;
    const play = document.querySelector('#player .play');
    return new Promise((resolve) => {
      const problems = [];
      const said = new Set();
      const live = new Set(); // the narration's aria-live while playing
      let steps = 0;
      const obs = new MutationObserver(() => {
        if (document.body.dataset.stage === stage) {
          steps++;
          problems.push(...checkStep());
          said.add(document.getElementById('narration').textContent);
          if (play.getAttribute('aria-pressed') === 'true')
            live.add(document.getElementById('narration').getAttribute('aria-live'));
        }
        const playing = play.getAttribute('aria-pressed') === 'true';
        if (document.body.dataset.stage !== stage || (steps && !playing) || problems.length > 20) {
          obs.disconnect();
          resolve({ problems, steps, narrations: said.size, live: [...live] });
        }
      });
      obs.observe(document.body, { attributes: true, attributeFilter: ['data-k', 'data-stage'] });
    });
  }
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
  return null;
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
        // on a phone the bar stays compact; the default sentence's narrations are all whole (the
        // long one's list of 20 tokens scrolls inside the narration, under the chips it lists)
        const names = {
          ...(await namesFor(text)),
          barMax: width < 600 ? PHONE_BAR_MAX : 0,
          wholeNarration: width < 600 && which === 'default',
        };
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

// On a phone the secondary controls (speed, replay, layer, head) fold behind ⋯ (player-bar.js):
// opens them when they are folded, runs `fn`, folds them again unless `fn` did (play folds them).
async function withControls(page, fn) {
  const folded = await page.isVisible('#player .more');
  if (folded) await page.click('#player .more');
  await fn();
  if (folded && (await page.getAttribute('#player .more', 'aria-expanded')) === 'true')
    await page.click('#player .more');
}

for (const lang of ['en', 'zh']) {
  for (const [width, height] of SIZES) {
    test(`play on every stage: each step in view and narrated while playing, ${lang}, ${width}×${height}`, async () => {
      const { page, errors, open, context } = await newPage({ width, height });
      const text = '小猫吃鱼，它很开心';
      await open(`lang=${lang}&s=${encodeURIComponent(text)}`);
      // on a phone the bar stays compact while playing, ↺ pressed from under ⋯ included
      const names = {
        ...(await namesFor(text)),
        barMax: width < 600 ? PHONE_BAR_MAX : 0,
        wholeNarration: width < 600,
      };
      // 4×: the stages' held steps still come one by one, in a quarter of the time
      await withControls(page, () => page.selectOption('#player .speed select', '4'));
      for (const [i, id] of STAGES.entries()) {
        await page.click(`#stage-nav li:nth-child(${i + 1}) button`);
        await page.waitForSelector(`body[data-stage="${id}"]`);
        const units = Number(await page.$eval('#player .scrub', (e) => e.max));
        const watching = page.evaluate(inPage, { names, mode: 'watch' });
        await withControls(page, () => page.click('#player .replay'));
        const { problems, steps, narrations, live } = await watching;
        assert.deepEqual(problems, [], `${id}: problems while playing`);
        // every step of the stage was seen, and the narration changed with them
        assert.ok(steps >= Math.min(units, 2), `${id}: ${steps} of ${units} steps seen`);
        if (units >= 2)
          assert.ok(narrations >= 2, `${id}: ${narrations} narrations in ${steps} steps`);
        assert.deepEqual(live, ['off'], `${id}: the live region is quiet while playing`);
        if (i < STAGES.length - 1) await withControls(page, () => page.click('#player .play')); // pause
      }
      assert.equal(
        await page.getAttribute('#narration', 'aria-live'),
        'polite',
        'the live region speaks once play stops',
      );
      assert.deepEqual(errors, []);
      await context.close();
    });
  }
}

test('on a phone the sticky toolbar is one line (at most 64 px), in en and zh, with the layer picker', async () => {
  for (const lang of ['en', 'zh']) {
    const { page, errors, open, context } = await newPage({ width: 375, height: 800 });
    await open(`lang=${lang}`);
    await page.waitForSelector('.layer-pick:not([hidden])', { state: 'attached' });
    const height = () => page.$eval('#toolbar', (e) => e.getBoundingClientRect().height);
    const tall = await height();
    assert.ok(tall <= 64, `${lang}: the toolbar is ${tall} px tall`);
    // the folded controls are one click away, and fold again
    assert.equal(await page.isVisible('#head-picker'), false, `${lang}: head picker folded`);
    await page.click('#player .more');
    assert.equal(await page.getAttribute('#player .more', 'aria-expanded'), 'true');
    for (const sel of ['#head-picker', '#layer-picker', '#player .speed select', '#player .replay'])
      assert.ok(await page.isVisible(sel), `${lang}: ${sel} shown after ⋯`);
    await page.click('#player .more');
    assert.ok((await height()) <= 64, `${lang}: folded again`);
    // ↺ under ⋯ starts play and folds them, with the focus on ⋯ (↺ is not shown any more)
    await page.click('#player .more');
    await page.click('#player .replay');
    await page.waitForSelector('#player .play[aria-pressed="true"]');
    assert.equal(await page.getAttribute('#player .more', 'aria-expanded'), 'false');
    assert.ok((await height()) <= 64, `${lang}: folded while playing`);
    assert.ok(
      await page.$eval('#player .more', (e) => document.activeElement === e),
      `${lang}: the focus is on ⋯`,
    );
    await page.click('#player .play'); // pause
    // every control in the bar has a name a screen reader can say
    const unnamed = await page.$$eval('#toolbar button, #toolbar select, #toolbar input', (list) =>
      list
        .filter((e) => !e.getAttribute('aria-label') && !e.closest('label')?.textContent.trim())
        .map((e) => e.outerHTML.slice(0, 60)),
    );
    assert.deepEqual(unnamed, [], `${lang}: controls without a name`);
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test('compact first: at 1280×800 each stage, from its title to the end of its main content, fits one screen', async () => {
  for (const lang of ['en', 'zh']) {
    const { page, errors, open, context } = await newPage({ width: 1280, height: 800 });
    await open(`lang=${lang}`); // the default sentence and the default trained model
    for (const [i, id] of STAGES.entries()) {
      await page.click(`#stage-nav li:nth-child(${i + 1}) button`);
      await page.waitForSelector(`body[data-stage="${id}"]`);
      // closed <details> (the stage's inputs, its pictures, the whole matrix) are not counted
      const { height, parts } = await page.evaluate(() => {
        const top = document.getElementById('stage-title').getBoundingClientRect().top;
        let bottom = top;
        const parts = [];
        for (const e of document.querySelectorAll('#stage-body > *')) {
          if (e.matches('details:not([open]), .stage-extras:not(:has(details[open]))')) continue;
          const r = e.getBoundingClientRect();
          if (!r.height) continue;
          bottom = Math.max(bottom, r.bottom);
          parts.push(`${e.className || e.tagName.toLowerCase()} ${Math.round(r.height)}`);
        }
        return { height: Math.round(bottom - top), parts };
      });
      assert.ok(height <= 800, `${lang} ${id}: ${height} px tall (${parts.join(', ')})`);
    }
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test("a matrix's Show all shows every one of the core's cells with data-matrix/row/col/value", async () => {
  const { core } = await setup();
  const search = 'lang=en';
  const { state } = parse(search);
  const tr = core.trace(state.s, coreSettings(state));
  const { page, errors, open, context } = await newPage({ width: 1280, height: 800 });
  await open(search);
  await page.click(`#stage-nav li:nth-child(${STAGES.indexOf('heads') + 1}) button`);
  await page.waitForSelector('body[data-stage="heads"]');
  const shownCells = () =>
    page.$$eval('#stage-body td[data-matrix="W_O"]', (tds) =>
      tds
        .filter((td) => td.getBoundingClientRect().width > 0)
        .map((td) => [+td.dataset.row, +td.dataset.col, +td.dataset.value]),
    );
  const m = tr.W_O;
  assert.ok((await shownCells()).length < m.rows * m.cols, 'compact first: a window of W_O');
  const block = page.locator('#stage-body figure.mblock', {
    has: page.locator('td[data-matrix="W_O"]'),
  });
  await block.locator('.mmore-btn').click();
  await page.waitForFunction(
    (n) =>
      [...document.querySelectorAll('#stage-body td[data-matrix="W_O"]')].filter(
        (td) => td.getBoundingClientRect().width > 0,
      ).length === n,
    m.rows * m.cols,
  );
  const cellsShown = await shownCells();
  assert.equal(cellsShown.length, m.rows * m.cols);
  for (const [r, c, v] of cellsShown)
    assert.ok(Math.abs(v - m.data[r * m.cols + c]) <= 1e-6, `W_O[${r}][${c}]: ${v}`);
  assert.equal(new Set(cellsShown.map(([r, c]) => `${r},${c}`)).size, m.rows * m.cols);
  assert.deepEqual(errors, []);
  await context.close();
});

test("each stage links to the seeds' pictures under it: the link opens the picture and brings it into view", async () => {
  const pictures = {
    project: ['analogy'],
    score: ['analogy', 'plane'],
    scale: ['scaleDemo'],
    softmax: ['softmaxLab'],
  };
  for (const [lang, [width, height]] of [
    ['en', SIZES[0]],
    ['zh', SIZES[1]],
  ]) {
    const { page, errors, open, context } = await newPage({ width, height });
    await open(`lang=${lang}`);
    for (const [id, kinds] of Object.entries(pictures)) {
      for (const kind of kinds) {
        await page.click(`#stage-nav li:nth-child(${STAGES.indexOf(id) + 1}) button`);
        await page.waitForSelector(`body[data-stage="${id}"]`);
        const details = `#stage-body details[data-extra="${kind}"]`;
        assert.equal(await page.$eval(details, (d) => d.open), false, `${id} ${kind}: closed`);
        await page.click(`#stage-body .extra-links button[data-extra="${kind}"]`);
        await page.waitForSelector(`${details}[open] .extra-body > *`);
        const where = await page.$eval(details, (d) => {
          const r = d.querySelector('summary').getBoundingClientRect();
          const bar = document.getElementById('stagebar').getBoundingClientRect().bottom;
          return {
            top: r.top,
            bottom: r.bottom,
            bar,
            focused: document.activeElement === d.querySelector('summary'),
          };
        });
        assert.ok(
          where.top >= where.bar - 1 && where.bottom <= height,
          `${lang} ${width}: ${id} ${kind} summary at ${where.top}–${where.bottom}, bar ${where.bar}`,
        );
        assert.ok(where.focused, `${id} ${kind}: the summary has the focus`);
        // the picture drew something from this sentence
        assert.ok(
          (await page.$eval(details, (d) => d.querySelector('.extra-body').textContent.length)) >
            20,
          `${id} ${kind}: the picture is drawn`,
        );
      }
    }
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
