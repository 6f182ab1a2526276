// perf-views.test.mjs: the two views that typing re-draws on every keystroke, at 64 tokens x 4
// heads. The library analogy (in the Q·K·V stage) shows only the books that matter (and says what
// the rest hand over, checked against the core's trace); the link view updates in place and still follows a
// clicked query. Numbers are compared with the same core loaded in Node.
//   node --test tests/browser/perf-views.test.mjs      (needs scripts/build wasm first)
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { newPage, setup, teardown, shot, waitSettled, Axe } from './harness.mjs';
import { parse, coreSettings } from '../../web/state.js';

after(teardown);

const WORDS = 'the cat sat on a mat'.split(' ');
const sentence = (n) => Array.from({ length: n }, (_, i) => WORDS[i % WORDS.length]).join(' ');
const S64 = sentence(64);
const search = (s, extra = '') =>
  `model=random&heads=4&dmodel=64&s=${encodeURIComponent(s)}${extra}`;
const at = (m, i, j) => m.data[i * m.cols + j];
// text is read with textContent: Chromium gives innerText '' for content it has not laid out

/** The core's trace for a URL search string, with the page's own settings table. */
async function traceFor(searchString, s) {
  const { core } = await setup();
  const { state } = parse(searchString);
  return core.trace(s, coreSettings(state));
}

/** The TOP (8) books by weight in row q (ties: the earlier one) and q, in sentence order. */
function expectedBooks(tr, h, q) {
  const w = Array.from({ length: tr.config.n }, (_, j) => at(tr.heads[h].weights, q, j));
  const top = w
    .map((_, j) => j)
    .sort((a, b) => w[b] - w[a] || a - b)
    .slice(0, 8);
  if (!top.includes(q)) top.push(q);
  return top.sort((a, b) => a - b);
}

/** Shown books: their 0-based indexes, read from the weight cells the cards carry. */
const shownBooks = (page) =>
  page.$$eval('.panel-analogy .panel-book', (cards) =>
    cards.map((c) => {
      const w = c.querySelector('[data-matrix="weights"]');
      return Number(w.dataset.col);
    }),
  );

/** Waits until the analogy panel shows `count` cards (the panels update after the walkthrough). */
const waitBooks = (page, count) =>
  page.waitForFunction(
    (k) => document.querySelectorAll('.panel-analogy .panel-book').length === k,
    count,
    { timeout: 10000 },
  );

/** Opens the page at the Q·K·V stage with its library analogy open (the analogy lives there). */
async function openAnalogy(page, open, searchString) {
  await open(`${searchString}&step=3`);
  await page.click('#stage-body details[data-extra="analogy"] > summary');
}

/** Puts the caret at the end of the sentence and types `text` key by key. */
async function typeAtEnd(page, text) {
  await page.focus('#text');
  await page.evaluate(() => {
    const t = document.querySelector('#text');
    t.setSelectionRange(t.value.length, t.value.length);
  });
  await page.keyboard.type(text);
}

test('analogy at 64 tokens: the 8 heaviest books in sentence order, and the others line sums the rest', async () => {
  const { page, errors, open, context } = await newPage();
  const s = search(S64);
  await openAnalogy(page, open, s);
  await page.waitForSelector('.panel-analogy .panel-others');
  const tr = await traceFor(s, S64);
  assert.equal(tr.config.n, 64);
  const q = 0; // no pronoun in the sentence: the first token reads
  const want = expectedBooks(tr, 0, q);
  assert.ok(want.length === 8 || want.length === 9);
  assert.deepEqual(await shownBooks(page), want, 'the heaviest books, in sentence order');
  assert.equal(
    await page.locator('.panel-analogy .panel-book.panel-self').count(),
    1,
    'the reader is always shown',
  );
  const list = page.locator('.panel-analogy ol.panel-books');
  assert.equal(
    await list.getAttribute('aria-label'),
    `${want.length} of the 64 books, in sentence order`,
  );
  assert.equal(
    await page.locator('.panel-analogy .panel-books-toggle').getAttribute('aria-controls'),
    await list.getAttribute('id'),
  );
  assert.equal(
    await page.locator('.panel-analogy .panel-book.panel-best').count(),
    1,
    'the best match is among them',
  );

  // every number still carries its matrix, row, column and full-precision value
  const nums = await page.$$eval('.panel-analogy .panel-num', (ns) =>
    ns.map((n) => ({ ...n.dataset })),
  );
  assert.ok(nums.length > 0);
  for (const d of nums) {
    for (const k of ['matrix', 'row', 'col', 'value', 'head'])
      assert.ok(d[k] != null && d[k] !== '', `${d.matrix} has data-${k}`);
  }
  // the shown weights are the trace's
  const shownW = await page.$$eval('.panel-analogy .panel-book [data-matrix="weights"]', (ns) =>
    ns.map((n) => ({ col: Number(n.dataset.col), value: Number(n.dataset.value) })),
  );
  for (const w of shownW)
    assert.equal(w.value, at(tr.heads[0].weights, q, w.col), `weight ${w.col}`);

  // the others line: how many, which, and their weight = 1 - the shown weights = the hidden weights' sum
  const others = page.locator('.panel-analogy .panel-others');
  const hiddenCount = 64 - want.length;
  assert.match(
    await others.textContent(),
    new RegExp(`The other ${hiddenCount} books are not shown`),
  );
  const rest = page.locator('.panel-analogy [data-matrix="weightsHidden"]');
  const restValue = Number(await rest.getAttribute('data-value'));
  const shownSum = shownW.reduce((a, w) => a + w.value, 0);
  assert.ok(
    Math.abs(restValue - (1 - shownSum)) < 1e-5,
    `others ${restValue} vs 1 - shown ${1 - shownSum}`,
  );
  const hidden = (await rest.getAttribute('data-cols')).split(' ').map(Number);
  assert.deepEqual(
    hidden,
    [...Array(64).keys()].filter((j) => !want.includes(j)),
  );
  const traceRest = hidden.reduce((a, j) => a + at(tr.heads[0].weights, q, j), 0);
  assert.ok(
    Math.abs(restValue - traceRest) < 1e-5,
    `others ${restValue} vs the trace's hidden weights ${traceRest}`,
  );
  assert.ok(restValue > 0.001, 'a real share of the weight is hidden here, so the line matters');
  assert.ok(
    (await others.textContent()).includes(`(${(restValue * 100).toFixed(1)}%)`),
    'the percentage is printed',
  );
  assert.match(
    await page.locator('.panel-analogy .panel-home .panel-explain').textContent(),
    new RegExp(`including the ${hiddenCount} books not shown`),
  );

  // a few books instead of 64 cards: the panel stays small (it was ~6,800 elements)
  const elements = await page.$$eval('.panel-analogy *', (x) => x.length);
  assert.ok(elements < 1500, `${elements} elements in the analogy panel`);
  await shot(page, 'perf-analogy-64', '.panel-analogy');

  const axe = await new Axe(page)
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
    .include('.panel-analogy')
    .analyze();
  assert.deepEqual(
    axe.violations.map((v) => `${v.id}: ${v.nodes[0].target}`),
    [],
  );
  assert.deepEqual(errors, []);
  await context.close();
});

test('analogy toggle: show all 64 books, the choice survives typing, and back to the few', async () => {
  const { page, errors, open, context } = await newPage();
  const s = search(S64);
  await openAnalogy(page, open, s);
  await page.waitForSelector('.panel-analogy .panel-others');
  const few = (await shownBooks(page)).length;
  const toggle = page.locator('.panel-analogy .panel-books-toggle');
  assert.equal(await toggle.textContent(), 'Show all 64 books');
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  await toggle.click();
  await waitBooks(page, 64);
  assert.deepEqual(await shownBooks(page), [...Array(64).keys()]);
  assert.equal(await toggle.textContent(), 'Show only the 8 most important books');
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  assert.equal(
    await page.evaluate(() => document.activeElement.classList.contains('panel-books-toggle')),
    true,
    'focus stays on the button',
  );
  assert.equal(
    await page.locator('.panel-analogy .panel-others').count(),
    0,
    'no others line when every book is shown',
  );
  assert.equal(await page.locator('.panel-analogy [data-matrix="weightsHidden"]').count(), 0);

  // typing re-runs the core; the learner's choice stays (the last word still counts one token)
  const before = await page.locator('.panel-analogy .panel-intro').textContent();
  await typeAtEnd(page, 'x');
  await page.waitForFunction(() =>
    [...document.querySelectorAll('.panel-analogy .panel-book-token')].some((x) =>
      x.textContent.includes('“onx”'),
    ),
  );
  assert.equal(
    await page.locator('.panel-analogy .panel-book').count(),
    64,
    'still all books after an update',
  );
  assert.equal(await page.locator('.panel-analogy .panel-intro').textContent(), before);

  await toggle.click();
  await waitBooks(page, few);
  assert.equal(await toggle.textContent(), 'Show all 64 books');
  assert.equal(await page.locator('.panel-analogy .panel-others').count(), 1);
  assert.deepEqual(errors, []);
  await context.close();
});

test('analogy in Chinese: the toggle and the others line read naturally', async () => {
  const { page, errors, open, context } = await newPage({ locale: 'zh-CN' });
  await openAnalogy(page, open, search(S64, '&lang=zh'));
  await page.waitForSelector('.panel-analogy .panel-others');
  const toggle = page.locator('.panel-analogy .panel-books-toggle');
  assert.equal(await toggle.textContent(), '显示全部 64 本书');
  assert.match(
    await page.locator('.panel-analogy .panel-others').textContent(),
    /其余 5[56] 本书没有列出，它们的权重加起来是/,
  );
  await toggle.click();
  await waitBooks(page, 64);
  assert.equal(await toggle.textContent(), '只显示最重要的 8 本');
  assert.deepEqual(errors, []);
  await context.close();
});

test('analogy: a reader outside its own top 8 is added as a ninth book; a causal mask is counted', async () => {
  const s = search(S64, '&causal=1');
  const tr = await traceFor(s, S64);
  // a late reader under a causal mask (token 61, "the", head 1): most of its weight goes elsewhere
  const q = 60;
  const h = 0;
  const want = expectedBooks(tr, h, q);
  assert.equal(want.length, 9, 'this reader is not among its own 8 heaviest books');
  const { page, errors, open, context } = await newPage();
  await openAnalogy(page, open, `${s}&q=${q}&head=${h}`);
  await page.waitForSelector('.panel-analogy .panel-others');
  assert.deepEqual(await shownBooks(page), want);
  const self = await page.$eval(
    '.panel-analogy .panel-book.panel-self [data-matrix="weights"]',
    (n) => Number(n.dataset.col),
  );
  assert.equal(self, q);
  assert.match(
    await page.locator('.panel-analogy .panel-shelf-line').first().textContent(),
    /This sentence has 64 books\. Below are the 8 that hand over the most, and the reader “the” itself, in sentence order\./,
  );
  const masked = [...Array(64).keys()].filter(
    (j) => !want.includes(j) && at(tr.heads[h].masked, q, j) === -Infinity,
  ).length;
  assert.equal(masked, 3, 'books 62 to 64 come after the reader');
  assert.match(
    await page.locator('.panel-analogy .panel-others').textContent(),
    /of these, 3 are hidden by the causal mask/,
  );
  assert.deepEqual(errors, []);
  await context.close();
});

test('short sentences still show every book, with no toggle', async () => {
  const { page, errors, open, context } = await newPage();
  const s12 = sentence(12);
  await openAnalogy(page, open, search(s12));
  await waitBooks(page, 12);
  assert.equal(await page.locator('.panel-analogy .panel-books-toggle').count(), 0);
  assert.equal(await page.locator('.panel-analogy .panel-others').count(), 0);
  assert.match(
    await page.locator('.panel-analogy .panel-home .panel-explain').textContent(),
    /^Add up what every book handed over, column by column\. /,
  );
  // one more word: 13 tokens, the few-books view begins
  await typeAtEnd(page, ' dog');
  await page.waitForSelector('.panel-analogy .panel-others');
  assert.equal((await shownBooks(page)).length >= 8, true);
  assert.match(
    await page.locator('.panel-analogy .panel-books-toggle').textContent(),
    /Show all 13 books/,
  );
  assert.deepEqual(errors, []);
  await context.close();
});

/** The link view's links, labels and their numbers. */
const arcs = (page) =>
  page.evaluate(() => ({
    links: [...document.querySelectorAll('#arcs svg path.link')].map(
      (p) => p.querySelector('title').textContent,
    ),
    queries: [...document.querySelectorAll('#arcs svg text.qtok')].map((x) => x.textContent),
    focus: [...document.querySelectorAll('#arcs svg text.qtok')].findIndex((x) =>
      x.classList.contains('focus'),
    ),
    keys: [...document.querySelectorAll('#arcs svg text.ktok')].map((x) => ({ ...x.dataset })),
    heading: document.querySelector('#arcs h3').textContent,
    order: [...document.querySelector('#arcs svg').children].map((x) => x.tagName).join(' '),
  }));

function checkArcs(got, tr, tokens, h, q) {
  const n = tr.config.n;
  const w = Array.from({ length: n }, (_, j) => at(tr.heads[h].weights, q, j));
  assert.equal(got.queries.length, n, 'one query label per token');
  assert.equal(got.keys.length, n, 'one key label per token');
  assert.deepEqual(got.queries, tokens);
  assert.equal(got.focus, q);
  assert.equal(got.links.length, w.filter((x) => x > 0).length, 'one link per key with weight');
  assert.deepEqual(
    got.links.map((x) => x.split(':')[0]),
    tokens.filter((_, j) => w[j] > 0).map((x) => `${tokens[q]} → ${x}`),
  );
  assert.equal(
    got.order,
    `${'path '.repeat(got.links.length)}${'text text '.repeat(n)}`.trim(),
    'links under the labels',
  );
  got.keys.forEach((k, j) => {
    assert.deepEqual(
      [k.matrix, k.head, k.row, k.col],
      ['weights', String(h), String(q), String(j)],
    );
    assert.equal(Number(k.value), w[j], `weight ${j}`);
  });
  assert.equal(got.heading, `${tokens[q]} looks at… (head ${h + 1})`);
}

test('link view updates in place: typing a word adds a link and labels, a click follows the token', async () => {
  const { page, errors, open, context } = await newPage();
  const s20 = sentence(20);
  const s = search(s20, '&head=2');
  await openAnalogy(page, open, s);
  await page.evaluate(() => {
    window.__arcsSvg = document.querySelector('#arcs svg');
  });
  const tr20 = await traceFor(s, s20);
  checkArcs(await arcs(page), tr20, s20.split(' '), 2, 0);

  await typeAtEnd(page, ' dog');
  await page.waitForFunction(
    () =>
      document.querySelectorAll('#arcs text.qtok').length === 21 &&
      document.querySelectorAll('#arcs text.qtok')[20].textContent === 'dog',
  );
  const s21 = `${s20} dog`;
  const tr21 = await traceFor(s, s21);
  checkArcs(await arcs(page), tr21, s21.split(' '), 2, 0);
  assert.equal(
    await page.evaluate(() => document.querySelector('#arcs svg') === window.__arcsSvg),
    true,
    'the same svg, updated',
  );

  // a label made by the update follows its own token
  await page.locator('#arcs text.qtok').nth(20).click();
  await page.waitForFunction(() =>
    document.querySelector('#arcs h3').textContent.startsWith('dog'),
  );
  checkArcs(await arcs(page), tr21, s21.split(' '), 2, 20);
  await page.waitForFunction(() => /[?&]q=20(&|$)/.test(location.search));
  // the analogy (open in the stage) follows the same reader
  await page.waitForFunction(() =>
    /“dog”/.test(document.querySelector('.panel-analogy .panel-intro').textContent),
  );

  // shorter again: the extra labels go, and an old label still follows its token
  await typeAtEnd(page, '');
  for (let i = 0; i < 4; i++) await page.keyboard.press('Backspace');
  await page.waitForFunction(() => document.querySelectorAll('#arcs text.qtok').length === 20);
  await page.locator('#arcs text.qtok').nth(5).click();
  await page.waitForFunction(
    () =>
      document.querySelector('#arcs text.qtok.focus') ===
      document.querySelectorAll('#arcs text.qtok')[5],
  );
  checkArcs(await arcs(page), tr20, s20.split(' '), 2, 5);
  assert.equal(
    await page.evaluate(() => document.querySelector('#arcs svg') === window.__arcsSvg),
    true,
  );
  assert.deepEqual(errors, []);
  await context.close();
});

test('link view under a causal mask: masked keys have no link, and the count follows the reader', async () => {
  const { page, errors, open, context } = await newPage();
  const s64 = S64;
  const s = search(s64, '&causal=1&q=10');
  await open(s);
  const tr = await traceFor(s, s64);
  checkArcs(await arcs(page), tr, s64.split(' '), 0, 10);
  assert.equal((await arcs(page)).links.length, 11);
  await page.locator('#arcs text.qtok').nth(40).click();
  await page.waitForFunction(() => document.querySelectorAll('#arcs path.link').length === 41);
  checkArcs(await arcs(page), tr, s64.split(' '), 0, 40);
  await page.locator('#arcs text.qtok').nth(2).click();
  await page.waitForFunction(() => document.querySelectorAll('#arcs path.link').length === 3);
  checkArcs(await arcs(page), tr, s64.split(' '), 0, 2);
  assert.deepEqual(errors, []);
  await context.close();
});

test('link view by keyboard: one query label in the Tab order, arrows move, Enter follows, axe clean', async () => {
  const { page, errors, open, context } = await newPage();
  await open(search(sentence(12), '&step=7'));
  const stops = await page.$$eval('#arcs text.qtok', (l) =>
    l.filter((e) => e.getAttribute('tabindex') === '0').map((e) => e.textContent),
  );
  assert.equal(stops.length, 1, 'exactly one query label is a Tab stop');
  const q0 = await page.$eval('#arcs text.qtok[tabindex="0"]', (e) =>
    [...e.parentNode.querySelectorAll('text.qtok')].indexOf(e),
  );
  await page.focus('#arcs text.qtok[tabindex="0"]');
  await page.keyboard.press('ArrowDown');
  assert.equal(
    await page.evaluate(() => document.activeElement.getAttribute('aria-label')),
    `Follow token ${q0 + 2}: ${WORDS[(q0 + 1) % 6]}`,
  );
  const step = await page.getAttribute('body', 'data-stage');
  await page.keyboard.press('Space'); // follows the label; the page's Space (play) is not triggered
  await page.waitForFunction(
    (i) => document.querySelectorAll('#arcs text.qtok')[i].getAttribute('aria-pressed') === 'true',
    q0 + 1,
  );
  assert.equal(await page.getAttribute('body', 'data-stage'), step);
  assert.equal(
    await page.getAttribute('#player button.play', 'aria-pressed'),
    'false',
    'Space on the label did not start playing',
  );
  assert.match(await page.textContent('#arcs h3'), new RegExp(`^${WORDS[(q0 + 1) % 6]} looks at`));
  assert.equal(
    await page.evaluate(() => document.activeElement.getAttribute('tabindex')),
    '0',
    'focus stays on the followed label',
  );
  const axe = await new Axe(page).include('#arcs').analyze();
  assert.deepEqual(
    axe.violations.map((v) => `${v.id}: ${v.nodes.length}`),
    [],
  );
  assert.deepEqual(errors, []);
  await context.close();
});

// Every compositor layer is placed again in every frame, a keystroke's included. A scroll box that
// scrolls puts its sticky headers (and whatever is drawn over them) on layers of their own, and a
// CSS animation left in effect after its end keeps its element on one: with 32 tokens a stage had
// 20 to 84 layers that way. The page itself needs about six (the viewport, the root scroller, the
// boxes that scroll: the link view, the share snippets).
test('32 tokens: every stage keeps the compositor layers to the few the page needs, and no sticky or clipped header cells in compact tables', async () => {
  const { page, errors, open, context } = await newPage({ height: 800 });
  const cdp = await context.newCDPSession(page);
  for (let step = 1; step <= 9; step++) {
    await open(`step=${step}&s=${encodeURIComponent(sentence(32))}`);
    await waitSettled(page);
    // the animations of the stage's last step have ended (the longest lasts about 1.5 s)
    await page.waitForFunction(() =>
      document.getAnimations().every((a) => a.playState !== 'running'),
    );
    let layers = null;
    const changed = (e) => {
      if (e.layers) layers = e.layers;
    };
    cdp.on('LayerTree.layerTreeDidChange', changed);
    await cdp.send('LayerTree.enable');
    await page.mouse.move(5 + step, 5); // a frame, so the layer tree is reported
    await page.waitForFunction(() => new Promise((r) => requestAnimationFrame(() => r(true))));
    for (let i = 0; i < 50 && !layers; i++) await page.waitForTimeout(20);
    cdp.off('LayerTree.layerTreeDidChange', changed);
    await cdp.send('LayerTree.disable');
    assert.ok(layers, `step ${step}: the layer tree was reported`);
    const reasons = {};
    for (const l of layers) {
      const r = await cdp.send('LayerTree.compositingReasons', { layerId: l.layerId });
      for (const x of r.compositingReasonIds || []) reasons[x] = (reasons[x] || 0) + 1;
    }
    assert.ok(
      layers.length <= 10,
      `step ${step}: ${layers.length} compositor layers (${JSON.stringify(reasons)})`,
    );
    // nor paint chunks of their own for a compact table's header cells: a sticky or clipped cell
    // is one (a stage had hundreds, all placed again on every frame)
    const chunky = await page.$$eval(
      'table.matrix.cut th',
      (ths) =>
        ths.filter((th) => {
          const cs = getComputedStyle(th);
          return (
            cs.position === 'sticky' || cs.overflowX !== 'visible' || cs.overflowY !== 'visible'
          );
        }).length,
    );
    assert.equal(
      chunky,
      0,
      `step ${step}: compact tables' header cells that are sticky or clipped`,
    );
  }
  assert.deepEqual(errors, []);
});
