// badinput.test.mjs: empty text, whitespace, too many tokens, emoji, a lone surrogate and markup.
// Each gets a clear message, markup stays text, and the last good trace stays on screen.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { newPage, teardown, cells, renders, waitRender, shot } from './harness.mjs';

after(teardown);

async function typeText(page, text) {
  const before = await renders(page);
  // set the value directly (a lone surrogate cannot be typed) and fire the input event
  await page.evaluate((s) => {
    const ta = document.getElementById('text');
    ta.value = s;
    ta.dispatchEvent(new Event('input', { bubbles: true }));
  }, text);
  await waitRender(page, before);
}

const messages = (page) =>
  page.$$eval('#messages li', (l) => l.map((x) => ({ cls: x.className, text: x.textContent })));

test('bad input gets a message and the last good trace stays visible', async () => {
  const { page, errors, open } = await newPage();
  await open('step=7');
  const good = await cells(page, 'weights');
  assert.ok(good.length > 0);
  const cases = [
    ['', /empty/i],
    ['   \t  ', /empty/i],
    ['word '.repeat(70), /too many tokens/i],
    ['小猫\uD800吃鱼', /broken character/i],
    ['a\u0001b', /control character/i],
    // a whole article: nothing is cut silently; the learner is told why
    ['The cat sat on the mat. '.repeat(500), /too many tokens/i],
    ['小猫吃鱼。'.repeat(8000), /too long/i],
  ];
  for (const [text, re] of cases) {
    await typeText(page, text);
    const m = await messages(page);
    assert.ok(
      m.some((x) => x.cls.includes('error') && re.test(x.text)),
      `${JSON.stringify(text)}: ${JSON.stringify(m)}`,
    );
    assert.deepEqual(await cells(page, 'weights'), good, 'the last good weights are still shown');
    assert.equal(await page.getAttribute('#text', 'aria-invalid'), 'true');
  }
  await shot(page, 'en-bad-input', '#input');
  // markup is text: shown in chips, never parsed
  await typeText(page, '<img src=x onerror=alert(1)> 你好');
  assert.deepEqual(await messages(page), []);
  assert.equal(await page.$$eval('main img', (l) => l.length), 0);
  await page.keyboard.press('1');
  const chips = await page.$$eval('#stage-body .chip .tok', (l) =>
    l.map((x) => x.textContent).join(''),
  );
  assert.ok(chips.includes('<') && chips.includes('img'), chips);
  // emoji are tokens like any other
  await typeText(page, '小猫😺吃鱼🐟');
  assert.deepEqual(await messages(page), []);
  const toks = await page.$$eval('#stage-body .chip .tok', (l) => l.map((x) => x.textContent));
  assert.ok(toks.includes('😺') && toks.includes('🐟'), toks.join(' '));
  // and the page recovers fully after an error
  await typeText(page, '');
  await typeText(page, '我爱你');
  assert.deepEqual(await messages(page), []);
  assert.equal(await page.getAttribute('#text', 'aria-invalid'), 'false');
  assert.deepEqual(errors, []);
});
