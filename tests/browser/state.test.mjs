// state.test.mjs: the URL is the state. A link reproduces the same numbers and view; garbage or
// out-of-range values are clamped or ignored with a visible notice, never a blank page.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { newPage, setup, teardown, cells } from './harness.mjs';
import {
  parse,
  serialize,
  coreSettings,
  defaults,
  TABLE,
  LINK_TEXT_CHARS,
} from '../../web/state.js';
import { readOptions } from '../../web/outside-api.js';

after(teardown);

test('state table: parse and serialize round-trip, bad values become notices', () => {
  const { state, notices } = parse(
    's=%E6%88%91%E7%88%B1%E4%BD%A0&seed=7&heads=4&dmodel=16&causal=1&temp=0.5&step=7&q=1&lang=zh',
  );
  assert.deepEqual(notices, []);
  assert.equal(state.s, '我爱你');
  assert.equal(state.heads, 4);
  assert.equal(state.causal, true);
  assert.deepEqual(parse(serialize(state)).state, state);
  const bad = parse(
    'heads=99&dmodel=abc&temp=-5&seed=xyz&causal=maybe&zzz=1&seed=99999999999999999999999',
  );
  assert.equal(bad.state.heads, 8);
  assert.equal(bad.state.dmodel, defaults().dmodel);
  assert.equal(bad.state.temp, 0.05);
  assert.equal(bad.state.causal, false);
  assert.deepEqual(bad.notices.map((n) => `${n.key}:${n.problem}`).sort(), [
    'causal:malformed',
    'dmodel:malformed',
    'heads:clamped',
    'seed:malformed',
    'temp:clamped',
    'zzz:unknown',
  ]);
});

test('parsing is one pass over the link: 60,000 unknown keys make one notice', () => {
  const search = `s=hi&${Array.from({ length: 60000 }, (_, i) => `k${i}=${i}`).join('&')}&heads=2`;
  // URLSearchParams.get scans every pair: asked once per unknown key, parsing was quadratic
  const proto = URLSearchParams.prototype;
  const raw = { get: proto.get, has: proto.has, getAll: proto.getAll };
  let lookups = 0;
  for (const name of Object.keys(raw))
    proto[name] = function (...args) {
      lookups++;
      return raw[name].apply(this, args);
    };
  let parsed;
  try {
    parsed = parse(search);
  } finally {
    Object.assign(proto, raw);
  }
  assert.ok(lookups <= 2 * TABLE.length, `${lookups} lookups by name`);
  assert.equal(parsed.state.s, 'hi');
  assert.equal(parsed.state.heads, 2);
  assert.equal(parsed.notices.length, 1);
  assert.deepEqual(
    {
      key: parsed.notices[0].key,
      problem: parsed.notices[0].problem,
      count: parsed.notices[0].count,
    },
    { key: 'k0', problem: 'unknownMany', count: 60000 },
  );
  // one unknown key: the notice names it, as before
  assert.deepEqual(
    parse('zzz=1').notices.map((n) => `${n.key}:${n.problem}`),
    ['zzz:unknown'],
  );
  // setOptions' reading leaves names outside the table out, however many
  const options = Object.fromEntries(Array.from({ length: 100000 }, (_, i) => [`x${i}`, i]));
  options.heads = 4;
  const read = readOptions(options);
  assert.deepEqual(read.changes, { heads: 4 });
});

test('a copied link reproduces the same numbers and view', async () => {
  const { core } = await setup();
  const search =
    's=%E6%88%91%E7%88%B1%E4%BD%A0&model=random&seed=7&heads=4&dmodel=16&dk=0&causal=1&scale=0&temp=0.5&tie=1&pos=0&step=7&head=2&q=1&lang=zh';
  const a = await newPage();
  await a.open(search);
  assert.equal(await a.page.getAttribute('html', 'lang'), 'zh-CN');
  assert.equal(await a.page.getAttribute('body', 'data-stage'), 'softmax');
  const { state } = parse(search);
  const want = core.trace(state.s, coreSettings(state));
  const shown = await cells(a.page, 'weights');
  const w = want.heads[2].weights;
  assert.equal(shown.length, w.rows * w.cols);
  for (const c of shown) {
    assert.equal(c.head, 2);
    assert.ok(Math.abs(c.value - w.data[c.row * w.cols + c.col]) < 1e-6);
  }
  // tied W_K = W_Q: the scores are symmetric
  const sc = want.heads[2].scores;
  for (let i = 0; i < sc.rows; i++)
    for (let j = 0; j < i; j++) assert.ok(Math.abs(sc.data[i * 3 + j] - sc.data[j * 3 + i]) < 1e-5);
  // the page's own URL, opened again, shows exactly the same
  const url = a.page.url();
  // (the harness opens every page with predict=0 unless a test sets predict: so does the link)
  assert.deepEqual(parse(new URL(url).search).state, parse(`${search}&predict=0`).state);
  const b = await newPage({ locale: 'en-US' });
  await b.page.goto(url);
  await b.page.waitForSelector('body[data-ready="1"]');
  assert.deepEqual(await cells(b.page, 'weights'), shown);
  assert.equal(await b.page.getAttribute('html', 'lang'), 'zh-CN');
  assert.deepEqual(a.errors, []);
  assert.deepEqual(b.errors, []);
  await a.context.close();
  await b.context.close();
});

test('garbage in the URL: notices, clamping, and a working page', async () => {
  const p = await newPage();
  await p.open(
    'model=random&heads=99&dmodel=abc&temp=-5&seed=xyz&causal=maybe&q=999&step=0&lang=klingon&foo=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E',
  );
  const msgs = await p.page.$$eval('#messages li', (l) => l.map((x) => x.textContent));
  assert.ok(msgs.length >= 7, msgs.join('\n'));
  assert.equal(await p.page.$$eval('#messages img, #stage-body img', (l) => l.length), 0);
  // heads clamped to 8 (8 divides d_model 8), q clamped to the last token
  assert.equal(await p.page.$eval('#head-picker', (s) => s.options.length), 8);
  assert.match(p.page.url(), /heads=8/);
  assert.match(p.page.url(), /q=6/);
  await p.page.keyboard.press('7');
  assert.ok((await cells(p.page, 'weights')).length > 0);
  assert.deepEqual(p.errors, []);
  await p.context.close();
});

test('a link whose settings the core refuses still shows a page', async () => {
  const p = await newPage();
  await p.open('heads=3&s=');
  const msgs = await p.page.$$eval('#messages li', (l) => l.map((x) => x.className));
  assert.ok(msgs.some((c) => c.includes('error')));
  assert.ok(
    (await p.page.$$eval('#stage-body .chip', (l) => l.length)) > 0,
    'the fallback sentence is shown',
  );
  assert.deepEqual(p.errors, []);
  await p.context.close();
});

test('the address bar and the share links carry at most the characters a link is read with', async () => {
  const a = await newPage();
  await a.open('');
  // a long paste (every character a word's start: the core refuses it, the page keeps it)
  const text = '猫'.repeat(LINK_TEXT_CHARS + 3000);
  await a.page.fill('#text', text);
  await a.page.waitForFunction(
    (n) => new URLSearchParams(location.search).get('s')?.length === n,
    LINK_TEXT_CHARS,
    { timeout: 10000 },
  );
  assert.equal(await a.page.inputValue('#text'), text, 'the text beyond the cut stays in the page');
  const link = await a.page.inputValue('#share-link');
  assert.equal(new URL(link).searchParams.get('s'), text.slice(0, LINK_TEXT_CHARS));
  assert.ok(await a.page.locator('.share-shortened').evaluate((e) => !e.hidden));
  assert.ok(
    (await a.page.locator('.share-shortened').textContent()).includes(String(LINK_TEXT_CHARS)),
  );
  // never half a surrogate pair at the cut
  await a.page.fill('#text', `${'a'.repeat(LINK_TEXT_CHARS - 1)}😀tail`);
  await a.page.waitForFunction(
    (n) => new URLSearchParams(location.search).get('s')?.length === n,
    LINK_TEXT_CHARS - 1,
    { timeout: 10000 },
  );
  // a short text: the whole of it, and no note
  await a.page.fill('#text', '我爱你');
  await a.page.waitForFunction(() => new URLSearchParams(location.search).get('s') === '我爱你');
  assert.ok(await a.page.locator('.share-shortened').evaluate((e) => e.hidden));
  assert.deepEqual(a.errors, []);
  await a.context.close();
});
