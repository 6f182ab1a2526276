// phone.test.mjs: the walkthrough on a 375 × 800 phone, in both languages. No text under 11 px
// (SVG text measured as drawn, after its viewBox's scaling); the √d_k table shows all its columns;
// rows of up to 8 numbers are never cut to a window; two heads side by side show the same keys;
// a new stage's title is not cut by the sticky bar (at 1280 px too, on the NumPy example); every
// stage chip keeps its name, shown when the keyboard reaches it.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { newPage, teardown, gotoStage, shot, webDir } from './harness.mjs';
import { STAGES } from '../../web/state.js';

after(teardown);

const PHONE = { width: 375, height: 800 };
const LOCALES = {
  en: JSON.parse(fs.readFileSync(path.join(webDir, 'locales/en.json'), 'utf8')),
  zh: JSON.parse(fs.readFileSync(path.join(webDir, 'locales/zh.json'), 'utf8')),
};
const EN_PRESET = "The animal didn't cross the street because it was too tired.";

/** Text drawn smaller than 11 px inside `scope`: [description]. */
const smallText = (page, scope) =>
  page.evaluate((sel) => {
    const out = [];
    for (const e of document.querySelectorAll(`${sel} *`)) {
      const text = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
      if (!text) continue;
      const r = e.getBoundingClientRect();
      if (!r.width || !r.height) continue;
      const cs = getComputedStyle(e);
      if (cs.visibility === 'hidden' || e.closest('.off, [hidden], .vh')) continue;
      let px = parseFloat(cs.fontSize);
      const svg = e.closest('svg');
      const vb = svg && svg.viewBox && svg.viewBox.baseVal;
      if (vb && vb.width) px *= svg.getBoundingClientRect().width / vb.width;
      if (px < 10.95) out.push(`${e.tagName}.${e.getAttribute('class')} ${px.toFixed(1)} px`);
    }
    return [...new Set(out)];
  }, scope);

/** Where the stage's title and the sticky bar are in the viewport. */
const titleAndBar = (page) =>
  page.evaluate(() => ({
    title: document.getElementById('stage-title').getBoundingClientRect().toJSON(),
    bar: document.getElementById('stagebar').getBoundingClientRect().toJSON(),
  }));

for (const lang of ['en', 'zh']) {
  const locale = lang === 'zh' ? 'zh-CN' : 'en-US';

  test(`${lang}: every stage, text at least 11 px; a new stage's title clear of the sticky bar; chips keep their names`, async () => {
    const { page, errors, open, context } = await newPage({ ...PHONE, locale });
    await open(`lang=${lang}`);
    // the chips: a number shown, the name kept as the button's accessible name
    const chips = await page.$$eval('#stage-nav .stage-btn', (l) =>
      l.map((b) => {
        const name = b.querySelector('.name');
        return { text: name.textContent, display: getComputedStyle(name).display };
      }),
    );
    assert.deepEqual(
      chips.map((c) => c.text),
      STAGES.map((id) => LOCALES[lang][`stage.${id}.short`]),
    );
    for (const c of chips) assert.notEqual(c.display, 'none', `${c.text} is in the name`);
    // a chip reached by the keyboard shows its name, not only its number
    await page.focus('#stage-nav li:nth-child(1) button');
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const b = document.activeElement;
      const r = b.querySelector('.name')?.getBoundingClientRect();
      return {
        chip: b.matches('#stage-nav .stage-btn'),
        current: b.hasAttribute('aria-current'),
        w: r?.width ?? 0,
      };
    });
    assert.ok(focused.chip && !focused.current, 'Tab reaches the next chip');
    assert.ok(focused.w > 8, `the focused chip's name is shown (${focused.w} px wide)`);
    for (const [i, id] of STAGES.entries()) {
      await gotoStage(page, i, id);
      assert.deepEqual(await smallText(page, 'body'), [], `stage ${id}`);
      const { title, bar } = await titleAndBar(page);
      // either in full below the bar, or scrolled wholly out of sight under it (a step's cell)
      assert.ok(
        title.top >= bar.bottom - 0.5 || title.bottom <= bar.bottom + 0.5,
        `stage ${id}: title ${title.top}–${title.bottom}, bar bottom ${bar.bottom}`,
      );
    }
    // the scale stage's experiment, open
    await gotoStage(page, 4, 'scale');
    await page.click('#stage-body .extra-link[data-extra="scaleDemo"]');
    await page.waitForSelector('#stage-body .sd-table tbody tr');
    assert.deepEqual(await smallText(page, 'body'), [], 'the √d_k experiment');
    // the √d_k table: every column inside its box, the top weights (the last two) too
    const fit = await page.$eval('#stage-body .sd-table', (t) => ({
      table: t.getBoundingClientRect().right,
      box: t.closest('.scroller').getBoundingClientRect().right,
      cols: t.querySelectorAll('thead th').length,
    }));
    assert.equal(fit.cols, 6);
    assert.ok(fit.table <= fit.box + 0.5, `the table ends at ${fit.table}, its box at ${fit.box}`);
    await shot(page, `phone-${lang}-scale-demo`);
    assert.deepEqual(errors, []);
    await context.close();
  });

  test(`${lang}: the NumPy example at 375 and 1280 px: text at least 11 px on a phone, no title cut by the bar`, async () => {
    for (const width of [375, 1280]) {
      const { page, errors, open, context } = await newPage({ width, height: 800, locale });
      await open(`lang=${lang}&model=numpy`);
      for (const [i, id] of STAGES.entries()) {
        await gotoStage(page, i, id);
        if (width === 375) assert.deepEqual(await smallText(page, 'body'), [], `stage ${id}`);
        const { title, bar } = await titleAndBar(page);
        assert.ok(
          title.top >= bar.bottom - 0.5 || title.bottom <= bar.bottom + 0.5,
          `${width} px, stage ${id}: title ${title.top}–${title.bottom}, bar bottom ${bar.bottom}`,
        );
      }
      assert.deepEqual(errors, []);
      await context.close();
    }
  });

  test(`${lang}: rows of up to 8 numbers whole; heads side by side show the same keys`, async () => {
    const { page, errors, open, context } = await newPage({ ...PHONE, locale });
    await open(`lang=${lang}`); // 7 tokens
    for (const [i, id] of [
      [3, 'score'],
      [4, 'scale'],
      [6, 'softmax'],
      [8, 'heads'],
    ]) {
      await gotoStage(page, i, id);
      const cut = await page.$$eval(
        '#stage-body td[data-matrix].off',
        (l) =>
          l.filter((td) => td.closest('table').querySelectorAll('thead th').length <= 9).length,
      );
      assert.equal(cut, 0, `stage ${id}: no cell of a 7-key row cut`);
    }
    // 13 tokens: each head's map shows a window of the keys, the same window in each
    await open(`lang=${lang}&s=${encodeURIComponent(EN_PRESET)}`);
    await gotoStage(page, 8, 'heads');
    const windows = await page.$$eval('#stage-body td[data-matrix="weights"]', (l) => {
      const byHead = {};
      for (const td of l) {
        if (td.classList.contains('off') || td.closest('tr.off')) continue;
        (byHead[td.dataset.head] ??= new Set()).add(Number(td.dataset.col));
      }
      return Object.values(byHead).map((s) => [...s].sort((a, b) => a - b));
    });
    assert.equal(windows.length, 2, 'two heads');
    assert.ok(windows[0].length < 13, 'a window, not every key');
    assert.deepEqual(windows[1], windows[0]);
    await shot(page, `phone-${lang}-heads`);
    assert.deepEqual(errors, []);
    await context.close();
  });
}
