// stress.test.mjs: layout under stress. Very long tokens, 512 tokens (cap raised), both languages,
// a 375 px phone and a 320 px iframe in a host page: the page never scrolls sideways and sibling
// controls never overlap. Large matrices are heatmaps with the focus row as real cells.
// Saves screenshots (tests/browser/screenshots/stress-*) for people to look at.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { newPage, setup, teardown, shot, startServer } from './harness.mjs';
import { STAGES } from '../../web/state.js';

after(teardown);

/** A text of exactly `n` tokens, mixing Chinese and English words. */
async function textOf(n) {
  const { core } = await setup();
  const words = [
    'the',
    'cat',
    'ate',
    'fish',
    '小猫',
    '吃',
    '鱼',
    'and',
    'it',
    'was',
    '很',
    '开心',
    'happy',
    'river',
    'sun',
    '它',
  ];
  const out = [];
  for (let i = 0; out.length < n; i++) out.push(words[(i * 7 + Math.floor(i / 16)) % words.length]);
  const s = out.join(' ');
  assert.equal(core.tokenize(s, 512).tokens.length, n);
  return s;
}

// In the page: horizontal overflow of the document, and pairs of overlapping sibling boxes.
function layoutProblems() {
  const problems = [];
  const de = document.documentElement;
  if (de.scrollWidth - de.clientWidth > 1) {
    const wide = [...document.querySelectorAll('body *')]
      .filter((e) => !e.closest('svg') && e.getBoundingClientRect().right > de.clientWidth + 1)
      .slice(0, 3)
      .map((e) => `${e.tagName.toLowerCase()}.${e.className}`);
    problems.push(
      `page scrolls sideways by ${de.scrollWidth - de.clientWidth}px (${wide.join(', ')})`,
    );
  }
  const groups = [
    '.top-actions',
    '#presets',
    '#player',
    '#stage-nav',
    '#toolbar',
    '.heatmap-tools',
    '.chips',
    '.fields',
    '.checks',
    '.experiments',
    '.tabs',
    '.row-blocks',
    '#input .presets-row',
  ];
  for (const sel of groups) {
    for (const parent of document.querySelectorAll(sel)) {
      const boxes = [...parent.children]
        .filter((c) => c.offsetParent !== null)
        .map((c) => [c, c.getBoundingClientRect()])
        .filter(([, r]) => r.width > 0 && r.height > 0);
      for (let a = 0; a < boxes.length; a++) {
        for (let b = a + 1; b < boxes.length; b++) {
          const [ra, rb] = [boxes[a][1], boxes[b][1]];
          const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
          const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
          if (w > 1 && h > 1)
            problems.push(
              `${sel}: children ${a} and ${b} overlap by ${w.toFixed(0)}x${h.toFixed(0)}`,
            );
        }
      }
    }
  }
  // nothing in the walkthrough sticks out of the page on the right, unless a box inside the page
  // scrolls it or cuts it off (overflow other than visible)
  const right = de.clientWidth + 1;
  const held = (e) => {
    for (let a = e.parentElement; a && a !== document.body; a = a.parentElement)
      if (getComputedStyle(a).overflowX !== 'visible' && a.getBoundingClientRect().right <= right)
        return true;
    return false;
  };
  for (const e of document.querySelectorAll('#walkthrough *, #input *, header *')) {
    if (e.offsetParent === null || e.closest('svg, dialog') || held(e)) continue;
    const r = e.getBoundingClientRect();
    if (r.right > right && r.width > 0) {
      problems.push(
        `${e.tagName.toLowerCase()}.${e.className} ends at ${r.right.toFixed(0)} > ${right}`,
      );
      break;
    }
  }
  return problems;
}

async function goto(page, i, id) {
  await page.click(`#stage-nav li:nth-child(${i + 1}) button`);
  await page.waitForSelector(`body[data-stage="${id}"]`, { timeout: 30000 });
}

test('very long tokens (a 300-letter word, a 200-character Chinese run), en and zh, 1280 and 375 px', async () => {
  const cases = [
    { locale: 'en-US', width: 1280, s: `${'a'.repeat(300)} cat sat`, max: 64, tag: 'en-longword' },
    {
      locale: 'en-US',
      width: 375,
      s: `${'a'.repeat(300)} cat sat`,
      max: 64,
      tag: 'en-375-longword',
    },
    { locale: 'zh-CN', width: 375, s: '鱷'.repeat(200), max: 256, tag: 'zh-375-200han' },
  ];
  for (const c of cases) {
    const { page, errors, open, context } = await newPage({ width: c.width, locale: c.locale });
    await open(`max=${c.max}&s=${encodeURIComponent(c.s)}`);
    assert.deepEqual(
      await page.$$eval('#messages li.error', (l) => l.map((x) => x.textContent)),
      [],
      c.tag,
    );
    for (const [si, id] of STAGES.entries()) {
      await goto(page, si, id);
      assert.deepEqual(await page.evaluate(layoutProblems), [], `${c.tag} ${id}`);
      if (['tokens', 'score', 'softmax'].includes(id))
        await shot(page, `stress-${c.tag}-${id}`, '#walkthrough');
    }
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test('a 300-letter word with every panel open (the gradient target list); 200 emoji joined by ZWJ', async () => {
  const family = Array(200).fill('\u{1F468}').join('\u200D'); // one grapheme: it cannot wrap
  const cases = [
    { width: 375, s: `${'a'.repeat(300)} cat sat`, open: true, tag: '375-longword-open' },
    { width: 375, s: `the ${family} sat`, open: false, tag: '375-zwj200' },
    // alone, the grapheme is the followed token, whose label the link view draws at full width
    { width: 375, s: family, open: false, tag: '375-zwj200-alone' },
    { width: 1280, s: `the ${family} sat`, open: false, tag: '1280-zwj200' },
    { width: 375, s: `the ${family} sat`, open: true, tag: '375-zwj200-open' },
  ];
  for (const c of cases) {
    const { page, errors, open, context } = await newPage({ width: c.width });
    await open(`s=${encodeURIComponent(c.s)}`);
    assert.deepEqual(
      await page.$$eval('#messages li.error', (l) => l.map((x) => x.textContent)),
      [],
      c.tag,
    );
    if (c.open) {
      await page.evaluate(() => {
        for (const d of document.querySelectorAll('details')) d.open = true;
      });
      await page.waitForSelector('#grad-target');
      await page.waitForFunction(() => document.body.dataset.settled !== '0');
    }
    for (const [si, id] of STAGES.entries()) {
      await goto(page, si, id);
      assert.deepEqual(await page.evaluate(layoutProblems), [], `${c.tag} ${id}`);
    }
    await shot(page, `stress-${c.tag}`, '#walkthrough');
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test('512 tokens: heatmaps with a focus row of real cells, a readout, zoom and a paged table', async () => {
  const { core } = await setup();
  const s = await textOf(512);
  const tr = core.trace(s, { max_tokens: 512 });
  for (const [locale, width] of [
    ['en-US', 1280],
    ['zh-CN', 375],
  ]) {
    const tag = `${locale.slice(0, 2)}-${width}`;
    const { page, errors, open, context } = await newPage({ width, locale, height: 900 });
    await open(`max=512&q=5&s=${encodeURIComponent(s)}`);
    assert.match(await page.textContent('#token-count'), /512/);
    for (const [si, id] of STAGES.entries()) {
      await goto(page, si, id);
      assert.deepEqual(await page.evaluate(layoutProblems), [], `${tag} ${id}`);
      if (['score', 'scale', 'mask', 'softmax', 'heads'].includes(id)) {
        // the n x n matrix is a canvas, not 262,144 cells
        assert.ok(await page.$('#stage-body canvas.heatmap-canvas'), `${tag} ${id}: a heatmap`);
        assert.ok(
          (await page.$$eval('#stage-body td[data-matrix]', (l) => l.length)) < 20000,
          `${tag} ${id}: DOM stays small`,
        );
      }
      if (width === 1280 || ['tokens', 'softmax'].includes(id))
        await shot(page, `stress-512-${tag}-${id}`, '#walkthrough');
    }
    // the weights' focus row (q = 5) is real cells with the trace's values
    await goto(page, 6, 'softmax');
    const row = await page.$$eval('#stage-body .heatmap-strip td[data-matrix="weights"]', (l) =>
      l.map((td) => [+td.dataset.row, +td.dataset.col, +td.dataset.value]),
    );
    assert.equal(row.length, 512);
    const w = tr.heads[0].weights;
    for (const [r, c, v] of row)
      assert.ok(r === 5 && Math.abs(v - w.data[r * 512 + c]) < 1e-6, `weights[${r}][${c}]`);
    // the weights' heatmap sits in the stage's closed "every row" box: open it, then read it out
    // by keyboard
    await page.click('#stage-body .whole-matrix > summary');
    await page.focus('#stage-body .whole-matrix canvas.heatmap-canvas');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    const readout = await page.textContent('#stage-body .whole-matrix .heatmap-readout');
    assert.ok(
      readout.includes((w.data[1 * 512 + 1] >= 0 ? '' : '−') + Math.abs(w.data[513]).toFixed(3)),
      readout,
    );
    assert.equal(
      await page.getAttribute('body', 'data-stage'),
      'softmax',
      'arrow keys on the heatmap do not step the player',
    );
    // zoom and the paged table alternative
    const w0 = await page.$eval(
      '#stage-body .whole-matrix canvas.heatmap-canvas',
      (c) => c.getBoundingClientRect().width,
    );
    await page.click('#stage-body .whole-matrix .heatmap-tools button:last-child');
    assert.ok(
      (await page.$eval(
        '#stage-body .whole-matrix canvas.heatmap-canvas',
        (c) => c.getBoundingClientRect().width,
      )) > w0,
    );
    await page.click('#stage-body .whole-matrix .heatmap-table summary');
    const page1 = await page.$$eval(
      '#stage-body .whole-matrix .heatmap-page td[data-matrix="weights"]',
      (l) => l.length,
    );
    assert.equal(page1, 16 * 512);
    await page.click('#stage-body .whole-matrix .heatmap-page button:not([disabled])');
    assert.equal(
      await page.$eval(
        '#stage-body .whole-matrix .heatmap-page td[data-matrix="weights"]',
        (td) => td.dataset.row,
      ),
      '16',
    );
    assert.deepEqual(await page.evaluate(layoutProblems), [], `${tag} table open`);
    await shot(page, `stress-512-${tag}-heatmap`, '#stage-body .whole-matrix .heatmap');
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test('a 320 px wide iframe in a host page: no sideways scroll inside, controls do not overlap', async () => {
  const s = await textOf(80);
  const host = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>host</title><link rel="icon" href="data:,"></head>
<body style="margin:0"><iframe id="f" title="Attention Playground" src="/index.html?max=128&amp;s=${encodeURIComponent(s)}" width="320" height="900" style="border:0"></iframe></body></html>`;
  const { server, base } = await startServer({ routes: { '/host.html': { body: host } } });
  after(() => {
    server.closeAllConnections();
    return new Promise((r) => server.close(r));
  });
  const { page, errors, context } = await newPage();
  await page.goto(`${base}host.html`);
  const frame = page.frames().find((f) => f.url().includes('index.html'));
  await frame.waitForSelector('body[data-ready="1"]', { timeout: 15000 });
  for (const [si, id] of STAGES.entries()) {
    await frame.click(`#stage-nav li:nth-child(${si + 1}) button`);
    await frame.waitForSelector(`body[data-stage="${id}"]`);
    assert.deepEqual(await frame.evaluate(layoutProblems), [], `iframe ${id}`);
  }
  await frame.click('#stage-nav li:nth-child(4) button');
  await page.screenshot({
    path: new URL('./screenshots/stress-iframe-320-score.png', import.meta.url).pathname,
    fullPage: true,
  });
  assert.deepEqual(errors, []);
  await context.close();
});
