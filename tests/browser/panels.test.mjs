// panels.test.mjs: the four teaching panels (web/views/panels/) in real Chromium, on the test
// page tests/browser/pages/panels.html, checked against the same core loaded in Node, served by
// the harness's server from the repository's root. Fails on any console error, page error or
// failed request.
//   node --test tests/browser/panels.test.mjs      (needs scripts/build wasm first)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadCoreNode } from '../../web/core.js';
import { parseScores, parseTemperature, MAX_SCORES } from '../../web/views/panels/softmax-lab.js';
import { launch, startServer, root, webDir, shotDir, Axe } from './harness.mjs';

const SENTENCE = '小猫吃鱼，它很开心';

let server, base, browser, core;

before(async () => {
  core = await loadCoreNode(path.join(webDir, 'wasm'));
  // the repository's root: the test page sits under tests/, the page's modules under web/
  ({ server, base } = await startServer({
    dir: root,
    routes: { '/favicon.ico': { body: '', type: 'image/x-icon' } },
  }));
  base = base.replace(/\/$/, '');
  browser = await launch();
  fs.mkdirSync(shotDir, { recursive: true });
});

after(async () => {
  if (browser) await browser.close();
  if (server) await new Promise((r) => server.close(r));
});

/** Opens the test page; returns {page, errors, close}. Every console error counts as a failure. */
async function open(query = '', viewport = { width: 1280, height: 900 }, extra = {}) {
  const context = await browser.newContext({ viewport, ...extra });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => errors.push(`requestfailed: ${r.url()}`));
  page.on('response', (r) => {
    if (r.status() >= 400) errors.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  await page.goto(`${base}/tests/browser/pages/panels.html${query}`);
  await page.waitForSelector('body[data-ready="true"]');
  return {
    page,
    errors,
    close: async () => {
      await context.close();
      assert.deepEqual(errors, [], 'no console errors');
    },
  };
}

/** {matrix -> [{row, col, value}]} for every data-matrix cell under `selector`. */
async function cells(page, selector) {
  return page.$$eval(`${selector} [data-matrix]`, (nodes) =>
    nodes.map((n) => ({
      matrix: n.dataset.matrix,
      row: Number(n.dataset.row),
      col: Number(n.dataset.col),
      value: Number(n.dataset.value),
    })),
  );
}

const near = (a, b, tol, what) =>
  assert.ok(Math.abs(a - b) <= tol || a === b, `${what}: ${a} vs ${b}`);
const at = (m, i, j) => m.data[i * m.cols + j];
// exact equality where -0 and 0 count as the same number (data-value prints both as "0")
const same = (a, b, what) => assert.ok(a === b, `${what || 'value'}: ${a} vs ${b}`);

// ---- parsing (Node, no browser) ----

test('parseScores accepts commas, spaces, Chinese commas and -inf / -∞', () => {
  assert.deepEqual(parseScores('3.2, 1.8 0.4').values, [3.2, 1.8, 0.4]);
  assert.deepEqual(parseScores('1，-inf、−∞; -Infinity').values, [
    1,
    -Infinity,
    -Infinity,
    -Infinity,
  ]);
  assert.deepEqual(parseScores(' -2e1 .5 ').values, [-20, 0.5]);
});

test('parseScores and parseTemperature refuse bad input with a code, never a throw', () => {
  assert.equal(parseScores('').code, 'empty');
  assert.equal(parseScores('  , ,').code, 'empty');
  assert.equal(parseScores('1, abc').code, 'not_number');
  assert.equal(parseScores('1, abc').token, 'abc');
  assert.equal(parseScores('NaN').code, 'nan');
  assert.equal(parseScores('inf').code, 'plus_inf');
  assert.equal(parseScores('1e999').code, 'too_big');
  assert.equal(
    parseScores(
      Array(MAX_SCORES + 1)
        .fill('1')
        .join(' '),
    ).code,
    'too_many',
  );
  assert.equal(parseScores(Array(MAX_SCORES).fill('1').join(' ')).ok, true);
  assert.equal(parseScores(null).code, 'empty');
  assert.equal(parseTemperature('0', 1000).code, 'temp_range');
  assert.equal(parseTemperature('1001', 1000).code, 'temp_range');
  assert.equal(parseTemperature('x', 1000).code, 'temp_bad');
  assert.equal(parseTemperature('', 1000).code, 'temp_empty');
  assert.equal(parseTemperature('0.5', 1000).value, 0.5);
});

test('panel sources compute no attention maths and never use innerHTML', () => {
  const dir = path.join(webDir, 'views/panels');
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.js'))) {
    // comments away (block comments, type casts inside code among them, then line comments)
    const src = fs
      .readFileSync(path.join(dir, f), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    for (const bad of [
      /Math\.(exp|sqrt|log|acos|cos|sin|atan2?|pow)\b/,
      /\*\*/,
      /innerHTML|outerHTML|insertAdjacentHTML/,
      /setAttribute\(\s*'style'/,
    ]) {
      assert.ok(!bad.test(src), `${f} must not contain ${bad}`);
    }
  }
});

test('the panel.* strings exist in en and zh alike, and every panel key used in code exists', () => {
  const panelKeys = (lang) =>
    Object.keys(
      JSON.parse(fs.readFileSync(path.join(webDir, `locales/${lang}.json`), 'utf8')),
    ).filter((k) => k.startsWith('panel.'));
  const en = panelKeys('en');
  assert.ok(en.length > 50, `${en.length} panel strings`);
  assert.deepEqual(panelKeys('zh').sort(), en.sort());
  const dir = path.join(webDir, 'views/panels');
  const sources = [
    ...fs.readdirSync(dir).map((f) => path.join(dir, f)),
    path.join(webDir, 'views/dom.js'),
    path.join(webDir, 'views/readouts.js'),
    path.join(webDir, 'playground.js'),
  ];
  for (const file of sources) {
    for (const [, key] of fs.readFileSync(file, 'utf8').matchAll(/\bt\(\s*'(panel\.[\w.]+)'/g)) {
      assert.ok(en.includes(key), `${path.basename(file)} uses missing key ${key}`);
    }
  }
});

// ---- the test page ----

test('the test page loads all four panels in zh and en, at 1280 and 375 px, with screenshots', async () => {
  for (const lang of ['zh', 'en']) {
    for (const width of [1280, 375]) {
      const { page, close } = await open(`?lang=${lang}`, { width, height: 900 });
      for (const cls of ['panel-analogy', 'panel-formula', 'panel-softmax', 'panel-plane']) {
        assert.equal(await page.locator(`section.${cls}`).count(), 1, cls);
      }
      assert.equal(
        await page.evaluate(() => document.documentElement.lang),
        lang === 'en' ? 'en' : 'zh-CN',
      );
      // no untranslated keys left on the page
      const text = await page.evaluate(() => document.body.innerText);
      assert.ok(!/panel\.[a-z]/.test(text), 'no raw locale keys');
      // nothing wider than the screen
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      assert.ok(overflow <= 0, `horizontal overflow ${overflow}px at ${width}`);
      await page.screenshot({
        path: path.join(shotDir, `panels-${lang}-${width}.png`),
        fullPage: true,
      });
      for (const name of ['analogy', 'formula', 'softmax', 'plane']) {
        await page
          .locator(`section.panel-${name}`)
          .screenshot({ path: path.join(shotDir, `panels-${lang}-${width}-${name}.png`) });
      }
      await close();
    }
  }
});

test('softmax lab shows the exact softmax of 3.2, 1.8, 0.4 and says the textbook weights were made up', async () => {
  const { page, close } = await open('?lang=en');
  const input = page.locator('.panel-softmax .panel-scores-input');
  await input.fill('3.2, 1.8, 0.4');
  const expected = core.softmaxSteps([3.2, 1.8, 0.4], 1);
  const got = await cells(page, '.panel-softmax');
  const pick = (m) =>
    got
      .filter((c) => c.matrix === m)
      .sort((a, b) => a.col - b.col)
      .map((c) => c.value);
  for (const m of ['input', 'shifted', 'exps', 'weights']) {
    const xs = pick(m);
    assert.equal(xs.length, 3, m);
    xs.forEach((x, j) => near(x, expected[m][j], 1e-6, `${m}[${j}]`));
  }
  near(pick('max')[0], expected.max, 1e-6, 'max');
  near(pick('sum')[0], expected.sum, 1e-6, 'sum');
  near(pick('weightsSum')[0], 1, 1e-6, 'weights add up to 1');
  const note = await page.locator('.panel-softmax .panel-note').innerText();
  assert.match(note, /0\.72 \/ 0\.22 \/ 0\.06/);
  assert.match(note, /made up for illustration/);
  assert.ok(note.includes(expected.weights[0].toFixed(3)), note);
  // the presets from the other article, and a masked score
  await page.click('.panel-softmax [data-preset="ta"]');
  const ta = core.softmaxSteps([8.0, 1.2, 3.5, 2.0, 0.5, 1.0], 1).weights;
  const w = (await cells(page, '.panel-softmax')).filter((c) => c.matrix === 'weights');
  assert.equal(w.length, 6);
  w.forEach((c) => near(c.value, ta[c.col], 1e-6, `ta weight ${c.col}`));
  assert.equal(await page.locator('.panel-softmax th.panel-rowlabel').first().innerText(), '小猫');
  assert.equal(
    await page.locator('.panel-softmax [data-preset="ta"]').getAttribute('aria-pressed'),
    'true',
  );
  assert.equal(
    await page.locator('.panel-softmax [data-preset="animal"]').getAttribute('aria-pressed'),
    'false',
  );
  await input.fill('1, -inf, 2');
  const masked = (await cells(page, '.panel-softmax')).filter((c) => c.matrix === 'weights');
  assert.equal(masked[1].value, 0);
  near(masked[2].value, core.softmaxSteps([1, -Infinity, 2]).weights[2], 1e-6, 'masked row');
  // temperature goes to the core too
  await page.locator('.panel-softmax .panel-temp-input').fill('0.5');
  const hot = (await cells(page, '.panel-softmax')).filter((c) => c.matrix === 'weights');
  near(hot[0].value, core.softmaxSteps([1, -Infinity, 2], 0.5).weights[0], 1e-6, 'T = 0.5');
  await close();
});

test('softmax lab: bad input gives a clear inline message, never an exception', async () => {
  const { page, close } = await open('?lang=en');
  const input = page.locator('.panel-softmax .panel-scores-input');
  const temp = page.locator('.panel-softmax .panel-temp-input');
  const message = page.locator('.panel-softmax .panel-message');
  const cases = [
    ['abc', /“abc” is not a number/],
    ['', /at least one number/],
    ['1, 2, x3', /“x3” is not a number/],
    [Array(513).fill('0.5').join(', '), /513 numbers.*at most 512/],
    ['NaN', /“NaN” is not a number/],
    ['1, inf', /plus infinity/],
    ['1e999', /too large/],
  ];
  for (const [text, re] of cases) {
    await input.fill(text);
    assert.match(await message.innerText(), re, JSON.stringify(text.slice(0, 20)));
    assert.equal(await message.evaluate((n) => n.classList.contains('panel-error')), true);
    assert.equal(await input.getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator('.panel-softmax .panel-table').count(), 0, 'no stale table');
  }
  await input.fill('1 2 3');
  for (const [text, re] of [
    ['0', /greater than 0/],
    ['hot', /must be a number/],
    ['', /Type a temperature/],
    ['5000', /at most 1000/],
  ]) {
    await temp.fill(text);
    assert.match(await message.innerText(), re, text);
  }
  await temp.fill('1');
  assert.equal(await message.innerText(), '');
  assert.equal(await page.locator('.panel-softmax .panel-table').count(), 1);
  await close();
});

async function planeNumbers(page) {
  const got = await cells(page, '.panel-plane');
  const get = (m, r, c) => got.find((x) => x.matrix === m && x.row === r && x.col === c).value;
  const q = [get('q', 0, 0), get('q', 0, 1)];
  const keys = [0, 1, 2].map((i) => [get('k', i, 0), get('k', i, 1)]);
  return { got, get, q, keys };
}

async function checkPlaneAgainstCore(page) {
  const { get, q, keys } = await planeNumbers(page);
  const scaled = [];
  keys.forEach((k, i) => {
    const d = core.dotSteps(q, k);
    same(get('dot', i, 0), d.dot, `dot ${i}`);
    same(get('products', i, 0), d.products[0]);
    same(get('products', i, 1), d.products[1]);
    same(get('norm_q', i, 0), d.norm_q);
    same(get('norm_k', i, 0), d.norm_k);
    same(get('cosine', i, 0), d.cosine);
    same(get('angle', i, 0), d.angle_degrees);
    same(get('scaled', i, 0), d.scaled);
    scaled.push(d.scaled);
  });
  const w = core.softmaxSteps(scaled, 1).weights;
  w.forEach((x, i) => same(get('weights', 0, i), x, `weight ${i}`));
  return { q, keys };
}

test('plane: starts from the seed vectors; dragging q changes q·k to what core.dotSteps gives', async () => {
  const { page, close } = await open('?lang=en');
  const start = await checkPlaneAgainstCore(page);
  assert.deepEqual(
    start.keys,
    [
      [1, 0],
      [0, 1],
      [0.7, 0.7],
    ],
    "the seed's interest vectors",
  );
  const handle = page.locator('.panel-plane .panel-handle[data-vec="q"]');
  await handle.scrollIntoViewIfNeeded();
  const box = await handle.boundingBox();
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  await page.mouse.move(cx, cy);
  await page.mouse.down();
  await page.mouse.move(cx - 90, cy - 40, { steps: 6 });
  await page.mouse.move(cx - 120, cy - 60, { steps: 4 });
  await page.mouse.up();
  const moved = await checkPlaneAgainstCore(page);
  assert.notDeepEqual(moved.q, start.q);
  assert.ok(moved.q[0] < start.q[0] && moved.q[1] > start.q[1], `q moved left and up: ${moved.q}`);
  // coordinates are rounded to 2 decimals
  for (const x of moved.q) assert.equal(Math.round(x * 100) / 100, x);
  await close();
});

test('plane: arrow keys move a focused arrow, and the numbers follow from the core', async () => {
  const { page, close } = await open('?lang=en');
  const k2 = page.locator('.panel-plane .panel-handle[data-vec="k2"]');
  await k2.focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Shift+ArrowUp');
  const { keys } = await checkPlaneAgainstCore(page);
  assert.deepEqual(keys[1], [0.2, 1.01]);
  assert.equal(
    await page.evaluate(() => document.activeElement.dataset.vec),
    'k2',
    'focus stays on the handle',
  );
  assert.match(await k2.getAttribute('aria-label'), /\(0\.20, 1\.01\)/);
  // the scaling toggle feeds raw q·k to softmax instead
  await page.locator('.panel-plane .panel-check').uncheck();
  const { get, q } = await planeNumbers(page);
  const raw = keys.map((k) => core.dotSteps(q, k).dot);
  core
    .softmaxSteps(raw, 1)
    .weights.forEach((x, i) => same(get('weights', 0, i), x, `raw weight ${i}`));
  await close();
});

test('plane: touch-size handles (>= 24 px) at 375 px width, and a finger can drag a key', async () => {
  const { page, close } = await open(
    '?lang=zh',
    { width: 375, height: 800 },
    { hasTouch: true, isMobile: true },
  );
  for (const id of ['q', 'k1', 'k2', 'k3']) {
    const b = await page
      .locator(`.panel-plane .panel-handle[data-vec="${id}"] .panel-hit`)
      .boundingBox();
    assert.ok(b.width >= 24 && b.height >= 24, `${id}: ${b.width}x${b.height}`);
  }
  const handle = page.locator('.panel-plane .panel-handle[data-vec="k1"]');
  await handle.scrollIntoViewIfNeeded();
  const b = await handle.boundingBox();
  const x = b.x + b.width / 2;
  const y = b.y + b.height / 2;
  const cdp = await page.context().newCDPSession(page);
  const touch = (type, points) =>
    cdp.send('Input.dispatchTouchEvent', { type, touchPoints: points });
  await touch('touchStart', [{ x, y }]);
  for (let i = 1; i <= 6; i++) await touch('touchMove', [{ x, y: y + 10 * i }]);
  await touch('touchEnd', []);
  const { keys } = await checkPlaneAgainstCore(page);
  assert.ok(keys[0][1] < -0.5, `k1 moved down by touch: ${keys[0]}`);
  await close();
});

test('formula: every term is keyboard focusable, explains itself and asks for a highlight', async () => {
  const { page, close } = await open('?lang=en');
  const expect = {
    attention: 'head_output',
    softmax: 'weights',
    Q: 'Q',
    KT: 'K',
    sqrt: 'scores,scaled',
    V: 'V',
  };
  const explain = page.locator('.panel-formula .panel-term-explain');
  const hl = page.locator('#demo-highlight');
  for (const [term, names] of Object.entries(expect)) {
    await page.locator(`.panel-formula [data-term="${term}"]`).focus();
    assert.equal(await page.evaluate(() => document.activeElement.getAttribute('data-term')), term);
    assert.equal(await hl.getAttribute('data-names'), names, term);
    assert.ok((await explain.innerText()).length > 20, term);
  }
  // Tab walks through the terms in reading order
  await page.locator('.panel-formula [data-term="Q"]').focus();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('data-term')), 'KT');
  // √d_k shows its value for the current d_k (4 by default): from the core
  const dk = core.trace(SENTENCE).config.d_k;
  await page.locator('.panel-formula [data-term="sqrt"]').focus();
  assert.match(
    await explain.innerText(),
    new RegExp(
      `√d_k = √${dk} = ${core.dotSteps(Array(dk).fill(1), Array(dk).fill(1)).norm_q.toFixed(3)}`,
    ),
  );
  const v = await page.locator('.panel-formula [data-matrix="sqrtDk"]').getAttribute('data-value');
  assert.equal(Number(v), Math.fround(Math.sqrt(dk)));
  // blur clears, hover highlights
  await page.locator('#demo-text').focus();
  assert.equal(await hl.getAttribute('data-names'), '');
  await page.locator('.panel-formula [data-term="V"]').hover();
  assert.equal(await hl.getAttribute('data-names'), 'V');
  await close();
});

async function checkAnalogy(page, settings, h, q, text = SENTENCE) {
  const tr = core.trace(text, settings);
  const hd = tr.heads[h];
  const got = await cells(page, '.panel-analogy');
  assert.ok(got.length > 0);
  const seen = new Set();
  for (const c of got) {
    seen.add(c.matrix);
    assert.ok(!Number.isNaN(c.value), `${c.matrix} has a data-value`);
    let want;
    switch (c.matrix) {
      case 'Q':
        assert.equal(c.row, q);
        want = at(hd.Q, c.row, c.col);
        break;
      case 'K':
        want = at(hd.K, c.row, c.col);
        break;
      case 'V':
        want = at(hd.V, c.row, c.col);
        break;
      case 'scores':
      case 'scaled':
      case 'weights':
        assert.equal(c.row, q);
        want = at(hd[c.matrix], c.row, c.col);
        break;
      case 'head_output':
        assert.equal(c.row, q);
        want = at(hd.output, c.row, c.col);
        break;
      // what book j hands over: weight(q, j) x V[j][c]
      case 'weightedV':
        want = at(hd.weights, q, c.row) * at(hd.V, c.row, c.col);
        break;
      default:
        assert.fail(`unexpected matrix ${c.matrix}`);
    }
    near(c.value, want, 1e-6, `${c.matrix}[${c.row}][${c.col}]`);
  }
  for (const m of ['Q', 'K', 'V', 'scores', 'weights', 'weightedV', 'head_output'])
    assert.ok(seen.has(m), m);
  assert.ok(
    await page.$$eval(
      '.panel-analogy [data-matrix]',
      (ns, head) => ns.every((n) => n.dataset.head === String(head)),
      h,
    ),
    'data-head',
  );
  // what the books hand over adds up to the output row
  // (vectors show at most 8 entries: the trained model's d_k is 16)
  for (let c = 0; c < Math.min(tr.config.d_k, 8); c++) {
    const sum = got
      .filter((x) => x.matrix === 'weightedV' && x.col === c)
      .reduce((s, x) => s + x.value, 0);
    near(sum, at(hd.output, q, c), 1e-5, `sum of column ${c}`);
  }
}

test('analogy: every number equals the trace for the focus token and head', async () => {
  const { page, close } = await open('?lang=zh');
  // default reader: 它 (token 5), head 1
  assert.match(await page.locator('.panel-analogy .panel-intro').innerText(), /「它」/);
  await checkAnalogy(page, {}, 0, 4);
  await page.selectOption('#demo-head', { value: '1' });
  await page.selectOption('#demo-focus', { value: '0' });
  await checkAnalogy(page, {}, 1, 0);
  // causal: later books are masked and get weight 0
  await page.locator('#demo-causal').check();
  await checkAnalogy(page, { causal: true }, 1, 0);
  assert.equal(await page.locator('.panel-analogy .panel-book.panel-masked').count(), 6);
  // hovering the query block asks the page to highlight Q
  await page.locator('.panel-analogy .panel-query').hover();
  assert.equal(await page.locator('#demo-highlight').getAttribute('data-names'), 'Q');
  await close();
});

test('analogy follows an English sentence and a one-token sentence; an empty one is a message', async () => {
  const { page, close } = await open(
    '?lang=en&text=' + encodeURIComponent('The cat sat, it was happy'),
  );
  assert.match(await page.locator('.panel-analogy .panel-intro').innerText(), /“it”/);
  await checkAnalogy(page, {}, 0, 4, 'The cat sat, it was happy');
  await page.locator('#demo-text').fill('cat');
  await checkAnalogy(page, {}, 0, 0, 'cat');
  await page.locator('#demo-text').fill('   ');
  assert.match(await page.locator('#demo-status').innerText(), /Type at least one word/);
  await close();
});

test('softmax lab: "this sentence" row reproduces the page\'s weight row', async () => {
  const { page, close } = await open('?lang=en&q=4&head=1');
  await page.click('.panel-softmax [data-preset="sentence"]');
  const hd = core.trace(SENTENCE).heads[1];
  const w = (await cells(page, '.panel-softmax')).filter((c) => c.matrix === 'weights');
  assert.equal(w.length, hd.weights.cols);
  w.forEach((c) => near(c.value, at(hd.weights, 4, c.col), 1e-6, `weight ${c.col}`));
  await close();
});

test('accessibility: axe finds no violations on the test page (zh and en)', async () => {
  for (const lang of ['zh', 'en']) {
    const { page, close } = await open(`?lang=${lang}`);
    const r = await new Axe(page).analyze();
    assert.deepEqual(
      r.violations.map((v) => `${v.id}: ${v.nodes.length} (${v.nodes[0].target})`),
      [],
    );
    await close();
  }
});

test('reduced motion: no transitions on bars', async () => {
  const { page, close } = await open(
    '?lang=en',
    { width: 1280, height: 900 },
    { reducedMotion: 'reduce' },
  );
  const d = await page
    .locator('.panel-softmax .panel-bar-fill')
    .first()
    .evaluate((n) => getComputedStyle(n).transitionDuration);
  assert.equal(d, '0s');
  await close();
});
