// theme.test.mjs: the dark palette and the print stylesheet. Dark comes from the system
// (prefers-color-scheme) or from the theme key, which also forces light; axe finds no serious or
// critical violation on any step in dark. Printing (print media, A4) shows the current stage and
// its link view without the controls, in the light palette, on few pages.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { newPage, teardown, gotoStage, shot, Axe } from './harness.mjs';
import { STAGES } from '../../web/state.js';

after(teardown);

// relative luminance (WCAG) of a computed rgb()/rgba() colour
function luminance(css) {
  const [r, g, b] = css
    .match(/[\d.]+/g)
    .slice(0, 3)
    .map(Number);
  const lin = (c) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}
const colours = (page) =>
  page.evaluate(() => {
    const root = getComputedStyle(document.documentElement);
    return { bg: root.backgroundColor, ink: root.color, scheme: root.colorScheme };
  });

async function axe(page) {
  // colours are judged at rest: wait until every finite animation has ended
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
    .include('#foot')
    .analyze();
  return res.violations.filter((x) => ['serious', 'critical'].includes(x.impact));
}

test('dark: the system preference or theme=dark; axe finds nothing serious on any step', async () => {
  for (const locale of ['en-US', 'zh-CN']) {
    const { page, errors, open, context } = await newPage({ locale });
    await page.emulateMedia({ colorScheme: 'dark' });
    await open('');
    const dark = await colours(page);
    assert.ok(luminance(dark.bg) < 0.05, `dark background ${dark.bg}`);
    assert.ok(luminance(dark.ink) > 0.6, `light text ${dark.ink}`);
    assert.equal(await page.locator('body').getAttribute('data-theme'), 'auto');
    for (const [si, id] of STAGES.entries()) {
      await gotoStage(page, si, id);
      const bad = (await axe(page)).map(
        (x) =>
          `${x.id}: ${x.nodes
            .slice(0, 3)
            .map((n) => n.target.join(' '))
            .join(' | ')}`,
      );
      assert.deepEqual(bad, [], `${locale} dark, step ${si + 1} ${id}`);
    }
    if (locale === 'en-US') await shot(page, 'theme-dark');
    // theme=light wins over the system's dark
    await open('theme=light');
    const light = await colours(page);
    assert.ok(luminance(light.bg) > 0.9, `light background ${light.bg}`);
    assert.equal(await page.locator('body').getAttribute('data-theme'), 'light');
    assert.deepEqual(errors, []);
    await context.close();
  }
  // theme=dark on a light system, and it stays in the link
  const { page, errors, open, context } = await newPage();
  await page.emulateMedia({ colorScheme: 'light' });
  await open('theme=dark&step=7');
  assert.ok(luminance((await colours(page)).bg) < 0.05);
  assert.match(page.url(), /theme=dark/);
  assert.deepEqual(await axe(page), []);
  // a bad value is a notice and falls back to the system's
  await open('theme=purple');
  assert.ok(luminance((await colours(page)).bg) > 0.9);
  assert.equal(await page.locator('#messages .notice').count(), 1);
  assert.deepEqual(errors, []);
  await context.close();
});

// the number of pages in a PDF made by Chromium (one /Type /Page object per page)
const pdfPages = (buf) => (buf.toString('latin1').match(/\/Type\s*\/Page\b(?!s)/g) || []).length;

test('print: the current stage on A4 without the controls, light even in dark mode', async () => {
  const { page, errors, open, context } = await newPage({ width: 1280, height: 900 });
  await page.emulateMedia({ colorScheme: 'dark' });
  await open(`s=${encodeURIComponent('小猫吃鱼，它很开心')}&step=7&theme=dark`);
  await page.emulateMedia({ media: 'print', colorScheme: 'dark' });
  for (const id of ['toolbar', 'stage-nav-wrap', 'whatif', 'train', 'share', 'export', 'panels'])
    assert.ok(await page.locator(`#${id}`).isHidden(), `#${id} is printed`);
  for (const id of ['stage-title', 'stage-what', 'stage-body', 'narration', 'arcs', 'text'])
    assert.ok(await page.locator(`#${id}`).isVisible(), `#${id} is not printed`);
  // a table the stage shows (its whole weights matrix waits in a closed <details>)
  assert.ok(await page.locator('#stage-body > :not(details) table').first().isVisible());
  const printed = await colours(page);
  assert.ok(luminance(printed.bg) > 0.9, `printed background ${printed.bg}`);
  await shot(page, 'print-a4');
  const pages = pdfPages(await page.pdf({ format: 'A4', printBackground: false }));
  console.log(`print: ${pages} A4 page(s) at the softmax stage`);
  assert.ok(pages >= 1 && pages <= 2, `${pages} pages`);
  assert.deepEqual(errors, []);
  await context.close();
});
