// embed.test.mjs: embedding, over http:// with the strict CSP header. Two <attention-playground>
// elements on one page stay independent (state, shadow DOM, attributes, events); `hide` hides
// parts; the iframe protocol: ready, resize, stepchange, setSentence/goToStep/setOptions from the
// allowed parent origin, and messages from any other origin ignored. Needs dist/ (scripts/build).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, startServer, distDir, collectErrors, shot } from './harness.mjs';
import { VERSION, LIMITS } from '../../web/wasm/core-facts.mjs';
import { loadCoreNode } from '../../web/core.js';
import { parse, coreSettings } from '../../web/state.js';
import en from '../../web/locales/en.json' with { type: 'json' };
import zh from '../../web/locales/zh.json' with { type: 'json' };

// The too-many-tokens message with a cap of 2, as the page fills it (the limit from the core).
const tooMany = (strings) =>
  strings['error.too_many_tokens']
    .replace('{max}', '2')
    .replace('{limit}', String(LIMITS.max_tokens));

let browser = null;
let srv = null;

// A course page (no inline script: it runs under the same CSP) with two elements.
const ELEMENTS = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>two widgets</title>
<link rel="stylesheet" href="/t/host.css"><script src="/embed/attention-playground.js" defer></script></head><body>
<attention-playground id="a" sentence="我爱你" step="7" seed="7"></attention-playground>
<attention-playground id="b" sentence="The cat sat on the mat." model="random" heads="4" step="3" lang="zh" hide="panels,settings"></attention-playground>
</body></html>`;
// host CSS that would break the widget if it leaked in
const HOST_CSS =
  'button { display: none !important; } table { display: none !important; } #stage-body { display: none; }';

// The parent side of the iframe protocol (served without CSP, from another origin than the widget).
const PARENT = (src) => `<!doctype html><meta charset="utf-8"><title>parent</title><body>
<iframe id="f" src="${src}" width="900" height="300" style="border:0"></iframe>
<script>
window.got = [];
const f = document.getElementById('f');
addEventListener('message', (e) => {
  if (e.source !== f.contentWindow) return;
  window.got.push({ origin: e.origin, ...e.data });
  if (e.data.type === 'attention-playground:resize') f.style.height = e.data.height + 'px';
});
// protocol version 1 unless the message says otherwise; sendRaw sends it exactly as given
window.send = (msg) => f.contentWindow.postMessage(msg && typeof msg === 'object' ? { version: 1, ...msg } : msg, '*');
window.sendRaw = (msg) => f.contentWindow.postMessage(msg, '*');
</script></body>`;

before(async () => {
  assert.ok(
    fs.existsSync(path.join(distDir, 'embed/attention-playground.js')),
    'dist/ is missing: run scripts/build dist',
  );
  const routes = {
    '/t/elements.html': { body: ELEMENTS },
    '/t/host.css': { body: HOST_CSS, type: 'text/css' },
    '/favicon.ico': { body: '<svg xmlns="http://www.w3.org/2000/svg"/>', type: 'image/svg+xml' },
  };
  srv = { ...(await startServer({ dir: distDir, routes })), routes };
  browser = await launch();
});

after(async () => {
  if (browser) await browser.close();
  if (srv) await new Promise((r) => srv.server.close(r));
});

const allReady = (page) =>
  page.waitForFunction(
    () =>
      [...document.querySelectorAll('attention-playground')].every((e) => e.dataset.ready === '1'),
    null,
    { timeout: 20000 },
  );
test('two elements on one page: independent state, shadow DOM, attributes and events', async () => {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.goto(`${srv.base}t/elements.html`);
  await allReady(page);
  const a = page.locator('#a');
  const b = page.locator('#b');
  assert.equal(await a.getAttribute('data-stage'), 'softmax');
  assert.equal(await b.getAttribute('data-stage'), 'project');
  // each has its own tokens, language and hidden parts; host CSS does not reach in
  assert.deepEqual((await a.locator('#stage-body .chip, #arcs text').count()) >= 0, true);
  assert.equal(await a.locator('#text').inputValue(), '我爱你');
  assert.equal(await b.locator('#text').inputValue(), 'The cat sat on the mat.');
  assert.equal(await b.locator('#ap').getAttribute('lang'), 'zh-CN');
  assert.equal(await a.locator('#ap').getAttribute('lang'), 'en');
  assert.ok(await a.locator('#panels').isVisible());
  assert.ok(!(await b.locator('#panels').isVisible()));
  assert.ok(!(await b.locator('#whatif').isVisible()));
  assert.ok(
    // (a table the stage shows: its whole matrix waits in a closed <details>)
    await a.locator('#stage-body > :not(details) table').first().isVisible(),
    'host CSS leaked into the shadow root',
  );
  assert.equal(await b.locator('#head-picker option').count(), 4);
  // ids are per shadow root: both have #walkthrough, the document has none
  assert.equal(await page.evaluate(() => document.getElementById('walkthrough')), null);
  // predict, then reveal is off in an element unless its attribute asks for it
  assert.ok(await a.locator('#stage-body .predict').isHidden());
  await a.evaluate((e) => e.setAttribute('predict', ''));
  await a.locator('#stage-body .predict[data-state="asking"]').waitFor();
  await a.locator('#stage-body .predict-skip').click();
  await a.locator('#stage-body .predict[data-state="revealed"]').waitFor();
  await a.evaluate((e) => e.setAttribute('predict', '0'));
  await a.locator('#stage-body .predict').waitFor({ state: 'hidden' });
  // removing the attribute goes back to the element's default: off (a new sentence would ask)
  await a.evaluate((e) => e.setAttribute('predict', '1'));
  await a.locator('#stage-body .predict').waitFor({ state: 'visible' });
  await a.evaluate((e) => e.removeAttribute('predict'));
  await a.locator('#stage-body .predict').waitFor({ state: 'hidden' });

  // driving one leaves the other alone
  const bStage = await b.getAttribute('data-stage');
  await a.locator('#stage-nav li:nth-child(4) button').click();
  await page.waitForFunction(() => document.getElementById('a').dataset.stage === 'score');
  assert.equal(await b.getAttribute('data-stage'), bStage);
  const bWeights = await b
    .locator('td[data-matrix]')
    .evaluateAll((l) => l.map((x) => x.dataset.value).join());
  await a.locator('#text').fill('小猫吃鱼');
  await page.waitForFunction(() =>
    document
      .getElementById('a')
      .shadowRoot.querySelector('#token-count')
      .textContent.startsWith('3 '),
  );
  assert.equal(
    await b.locator('td[data-matrix]').evaluateAll((l) => l.map((x) => x.dataset.value).join()),
    bWeights,
  );
  // keyboard shortcuts act on the focused widget only
  await b.locator('#stage-nav li:nth-child(2) button').focus();
  await page.keyboard.press('5');
  await page.waitForFunction(() => document.getElementById('b').dataset.stage === 'scale');
  assert.equal(await a.getAttribute('data-stage'), 'score');

  // attributes are live; events come out of the element
  const step = page.evaluate(
    () =>
      new Promise((r) =>
        document
          .getElementById('b')
          .addEventListener('stepchange', (e) => r(e.detail), { once: true }),
      ),
  );
  await page.evaluate(() => document.getElementById('b').setAttribute('step', '8'));
  assert.deepEqual(await step, { step: 8, stage: 'mix' });
  await page.evaluate(() => {
    document.getElementById('b').setAttribute('sentence', '我爱你');
    document.getElementById('b').setAttribute('hide', '');
  });
  // the text shows the new sentence, and every view out of sight (the share snippets among them)
  // has caught up with it (data-settled, written by the element's playground)
  await page.waitForFunction(() => {
    const el = document.getElementById('b');
    return el.shadowRoot.querySelector('#text').value === '我爱你' && el.dataset.settled === '1';
  });
  assert.ok(await b.locator('#panels').isVisible());
  // the share snippets of an element describe its own state
  const snippet = await b.locator('#share-element').inputValue();
  assert.match(snippet, /<attention-playground [^>]*sentence="我爱你"/);
  assert.match(snippet, /heads="4"/);
  assert.match(snippet, /embed\/attention-playground\.js/);
  await shot(page, 'embed-two-elements');
  assert.deepEqual(errors, []);
  await context.close();
});

test('element: change carries the state, error the code and message; trace is a copy of the numbers shown', async () => {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.goto(`${srv.base}t/elements.html`);
  await allReady(page);
  // the trace: the core's own numbers for the element's sentence and settings (run here in Node)
  const core = await loadCoreNode(path.join(distDir, '../web/wasm'));
  const want = core.trace('我爱你', coreSettings(parse('seed=7').state));
  const got = await page.evaluate(() => document.getElementById('a').trace);
  assert.equal(got.sentence, '我爱你');
  assert.deepEqual(got.tokens, want.tokens);
  assert.equal(got.config.n, want.config.n);
  assert.equal(got.heads.length, want.heads.length);
  for (const [h, head] of want.heads.entries()) {
    const rows = Array.from({ length: head.weights.rows }, (_, i) =>
      Array.from(head.weights.data.subarray(i * head.weights.cols, (i + 1) * head.weights.cols)),
    );
    assert.deepEqual(got.heads[h].weights, rows, `head ${h}`);
  }
  // a copy: changing it changes nothing in the element
  const kept = await page.evaluate(() => {
    const el = document.getElementById('a');
    const t = el.trace;
    t.heads[0].weights[0][0] = 99;
    t.tokens[0] = 'x';
    return [el.trace.heads[0].weights[0][0], el.trace.tokens[0]];
  });
  assert.deepEqual(kept, [got.heads[0].weights[0][0], got.tokens[0]]);
  assert.equal(
    await page.evaluate(
      () =>
        Object.getOwnPropertyDescriptor(
          customElements.get('attention-playground').prototype,
          'trace',
        ).set,
    ),
    undefined,
  );

  // change: once per change of the state, with the state; it bubbles to the document
  await page.evaluate(() => {
    window.changes = [];
    document.addEventListener('change', (e) => {
      if (e.target.id === 'a') window.changes.push(e.detail.state);
    });
  });
  await page.evaluate(() => document.getElementById('a').setAttribute('step', '3'));
  await page.waitForFunction(() => window.changes.some((s) => s.step === 3));
  await page.locator('#a').locator('#text').fill('小猫吃鱼');
  await page.waitForFunction(() => window.changes.some((s) => s.s === '小猫吃鱼'));
  const changes = await page.evaluate(() => window.changes);
  const last = changes.at(-1);
  assert.equal(last.s, '小猫吃鱼');
  assert.equal(last.step, 3);
  assert.equal(last.seed, '7');
  assert.equal('parent' in last, false);
  for (let i = 1; i < changes.length; i++)
    assert.notDeepEqual(changes[i], changes[i - 1], 'a change event without a change');
  assert.deepEqual(
    (await page.evaluate(() => document.getElementById('a').trace)).tokens,
    core.trace('小猫吃鱼', coreSettings(parse('seed=7').state)).tokens,
  );

  // error: the code and the message in the element's language; it stays on the element
  const before = (await page.evaluate(() => document.getElementById('b').trace)).tokens;
  await page.evaluate(() => {
    window.heard = { element: null, document: 0 };
    document
      .getElementById('b')
      .addEventListener('error', (e) => (window.heard.element = e.detail));
    document.addEventListener('error', () => window.heard.document++);
    window.addEventListener('error', () => window.heard.document++);
    document.getElementById('b').setAttribute('max', '2');
  });
  await page.waitForFunction(() => window.heard.element);
  const heard = await page.evaluate(() => window.heard);
  assert.equal(heard.element.code, 'too_many_tokens');
  assert.equal(heard.element.message, tooMany(zh));
  assert.notEqual(heard.element.message, tooMany(en));
  assert.equal(heard.document, 0, 'an error event reached the document or window');
  // the theme attribute: dark inside the element only, its text light on its dark background
  await page.evaluate(() => document.getElementById('a').setAttribute('theme', 'dark'));
  await page.waitForFunction(() => document.getElementById('a').dataset.theme === 'dark');
  const look = await page.evaluate(() => {
    const a = document.getElementById('a');
    const rgb = (c) =>
      c
        .match(/[\d.]+/g)
        .slice(0, 3)
        .map(Number);
    return {
      host: rgb(getComputedStyle(a).backgroundColor),
      ink: rgb(getComputedStyle(a.shadowRoot.getElementById('stage-title')).color),
      page: rgb(getComputedStyle(document.body).color),
      other: rgb(getComputedStyle(document.getElementById('b')).backgroundColor),
    };
  });
  assert.ok(Math.max(...look.host) < 60, `dark background ${look.host}`);
  assert.ok(Math.min(...look.ink) > 180, `light text ${look.ink}`);
  assert.ok(Math.min(...look.other) > 200, `the other element stays light ${look.other}`);
  assert.ok(Math.max(...look.page) < 60, `the host page's text stays dark ${look.page}`);
  // the widget keeps its last good trace (more tokens than the new cap of 2)
  assert.ok(before.length > 2);
  assert.deepEqual((await page.evaluate(() => document.getElementById('b').trace)).tokens, before);
  assert.deepEqual(errors, []);
  await context.close();
});

test('iframe protocol: ready, resize, stepchange, commands from the parent, wrong origin ignored', async () => {
  // the parent on http://127.0.0.1:PORT, the widget on http://localhost:PORT: two origins, one server
  const port = new URL(srv.base).port;
  const parentOrigin = `http://127.0.0.1:${port}`;
  const widget = `http://localhost:${port}/site/?s=%E6%88%91%E7%88%B1%E4%BD%A0&step=2`;
  const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
  const page = await context.newPage();
  const errors = collectErrors(page);
  const open = async (src) => {
    const key = `/t/parent-${Math.random().toString(36).slice(2)}.html`;
    srv.routes[key] = { body: PARENT(src) };
    await page.goto(`${parentOrigin}${key}`);
  };
  const got = (type) =>
    page
      .waitForFunction(
        (t) => window.got.find((m) => m.type === `attention-playground:${t}`),
        type,
        { timeout: 20000 },
      )
      .then((h) => h.jsonValue());
  const frame = () => page.frame({ url: /\/site\// });

  // 1. the allowed parent: everything works
  await open(
    `${widget}&hide=panels,settings,share,export&parent=${encodeURIComponent(parentOrigin)}`,
  );
  const ready = await got('ready');
  assert.equal(ready.origin, `http://localhost:${port}`);
  assert.equal(ready.version, 1);
  assert.equal(ready.appVersion, VERSION);
  assert.deepEqual([ready.step, ready.stage], [2, 'embeddings']);
  const resize = await got('resize');
  assert.ok(resize.height > 300, `height ${resize.height}`);
  // heights come in coarse steps, so the parent cannot follow the text's length line by line
  const { RESIZE_STEP } = await import('../../web/embed/frame.js');
  assert.equal(
    resize.height % RESIZE_STEP,
    0,
    `height ${resize.height} is not a multiple of ${RESIZE_STEP}`,
  );
  // the parent sized the iframe to what the widget asked for, so the widget needs no scrollbar
  await page.waitForFunction(
    () =>
      Math.abs(
        document.getElementById('f').getBoundingClientRect().height -
          window.got.filter((m) => m.type.endsWith('resize')).at(-1).height,
      ) < 2,
  );
  assert.ok(await frame().evaluate(() => document.documentElement.scrollHeight <= innerHeight + 2));
  await page.evaluate(() =>
    window.send({ type: 'attention-playground:setSentence', sentence: 'The cat sat.' }),
  );
  await frame().waitForFunction(() => document.getElementById('text').value === 'The cat sat.');
  await frame().waitForFunction(() =>
    document.getElementById('token-count').textContent.startsWith('4'),
  );
  await page.evaluate(() => {
    window.got = [];
    window.send({ type: 'attention-playground:goToStep', step: 7 });
  });
  assert.deepEqual((({ step, stage }) => ({ step, stage }))(await got('stepchange')), {
    step: 7,
    stage: 'softmax',
  });
  await page.evaluate(() =>
    window.send({
      type: 'attention-playground:setOptions',
      options: { model: 'random', heads: 4, seed: 9, hide: 'panels' },
    }),
  );
  await frame().waitForFunction(() => document.getElementById('head-picker').options.length === 4);
  assert.ok(await frame().locator('#whatif').isVisible());
  assert.match(frame().url(), /seed=9/);
  // garbage is ignored, never a crash
  await page.evaluate(() => {
    window.send({ type: 'attention-playground:setOptions', options: { heads: 'x<y' } });
    window.send({ type: 'attention-playground:goToStep', step: 'nine' });
    window.send('hello');
  });
  await frame().waitForSelector('body[data-ignored-messages="1"]'); // the step 'nine'
  assert.equal(await frame().locator('#head-picker option').count(), 4);
  // another protocol version, no version, or a malformed field: ignored and counted, not obeyed
  await page.evaluate(() => {
    window.send({ type: 'attention-playground:goToStep', step: 3, version: 999 });
    window.sendRaw({ type: 'attention-playground:goToStep', step: 3 });
    window.send({ type: 'attention-playground:goToStep', step: [9] });
    window.send({ type: 'attention-playground:setSentence', sentence: ['hijacked'] });
    window.send({ type: 'attention-playground:setOptions', options: 'heads=1' });
    window.send({ type: 'attention-playground:launchMissiles' });
  });
  await frame().waitForSelector('body[data-ignored-messages="7"]');
  assert.equal(await frame().locator('body').getAttribute('data-stage'), 'softmax');
  assert.equal(await frame().locator('#text').inputValue(), 'The cat sat.');
  assert.equal(await frame().locator('#head-picker option').count(), 4);
  // change: the state, without the learner's text; error: the code and the message
  const change = await page
    .waitForFunction(() =>
      window.got.find((m) => m.type === 'attention-playground:change' && m.state.heads === 4),
    )
    .then((h) => h.jsonValue());
  assert.deepEqual([change.state.model, change.state.seed, change.state.step], ['random', '9', 7]);
  assert.equal('s' in change.state, false, 'the text left the iframe');
  await page.evaluate(() =>
    window.send({ type: 'attention-playground:setOptions', options: { max: 2 } }),
  );
  const failed = await got('error');
  assert.equal(failed.code, 'too_many_tokens');
  assert.equal(failed.message, tooMany(en));
  await shot(page, 'embed-iframe-parent');

  // 2. a parent at another origin than `parent=`: its commands are ignored and it hears nothing
  await open(`${widget}&parent=${encodeURIComponent('https://course.example')}`);
  await frame().waitForSelector('body[data-ready="1"]');
  await page.evaluate(() =>
    window.send({ type: 'attention-playground:setSentence', sentence: 'hijacked' }),
  );
  await frame().waitForSelector('body[data-ignored-messages="1"]');
  assert.equal(await frame().locator('#text').inputValue(), '我爱你');
  await page.waitForTimeout(200);
  assert.deepEqual(await page.evaluate(() => window.got), []);

  // 3. no `parent=`: only a same-origin parent is heard (the widget is on localhost, the parent not)
  await open(widget);
  await frame().waitForSelector('body[data-ready="1"]');
  await page.evaluate(() => window.send({ type: 'attention-playground:goToStep', step: 9 }));
  await frame().waitForSelector('body[data-ignored-messages="1"]');
  assert.equal(await frame().locator('body').getAttribute('data-stage'), 'embeddings');
  await page.goto(`http://localhost:${port}/t/none`).catch(() => {});
  srv.routes['/t/same.html'] = { body: PARENT('/site/?step=3') };
  await page.goto(`http://localhost:${port}/t/same.html`);
  assert.equal((await got('ready')).step, 3);
  await page.evaluate(() => window.send({ type: 'attention-playground:goToStep', step: 5 }));
  await frame().waitForSelector('body[data-stage="scale"]');
  // the one expected failure: the blank page /t/none between the two parents is a 404
  assert.deepEqual(
    errors.filter((e) => !(e.includes('404') && e.includes('/t/none'))),
    [],
  );
  await context.close();
});

// A host page with the element script only; `body` is the elements' markup.
const HOST = (
  body,
) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>host</title>
<script src="/embed/attention-playground.js" defer></script></head><body>${body}</body></html>`;

test('element page-url: only http(s) addresses make links; anything else falls back with a notice', async () => {
  const evil = "javascript://x/%0avoid(document.title='PWNED:'+document.domain)//";
  srv.routes['/t/page-url.html'] = {
    body: HOST(`<attention-playground id="bad" page-url="${evil}"></attention-playground>
<attention-playground id="data" page-url="data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;"></attention-playground>
<attention-playground id="rel" page-url="course/widget/"></attention-playground>`),
  };
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.goto(`${srv.base}t/page-url.html`);
  await allReady(page);
  const links = (id) =>
    page.evaluate((id) => {
      const root = document.getElementById(id).shadowRoot;
      return {
        licence: root.getElementById('licence-link').href,
        notices: root.getElementById('notices-link').href,
        share: root.getElementById('share-link').value,
        iframe: root.getElementById('share-iframe').value,
        messages: root.getElementById('messages').textContent,
      };
    }, id);
  const site = new URL('site/', srv.base).href; // the element's own site (AP_TRAIN_BASE)
  const notice = en['notice.notWebAddress'].replace('{key}', 'page-url');
  for (const id of ['bad', 'data']) {
    const got = await links(id);
    for (const [what, url] of Object.entries(got).filter(([k]) => k !== 'messages'))
      assert.ok(
        url.startsWith(site) || url.includes(`src="${site}`),
        `${id} ${what}: ${url.slice(0, 120)}`,
      );
    assert.equal(got.licence, `${site}LICENSE.txt`);
    assert.ok(got.messages.includes(notice), `${id}: no notice in ${got.messages}`);
  }
  // a relative address is resolved against the host page, and is no reason for a notice
  const rel = await links('rel');
  assert.equal(rel.licence, new URL('course/widget/LICENSE.txt', `${srv.base}t/`).href);
  assert.ok(rel.share.startsWith(new URL('course/widget/?', `${srv.base}t/`).href), rel.share);
  assert.ok(!rel.messages.includes(notice));
  // clicking the licence link runs nothing in the host page
  await page.evaluate(() =>
    document.getElementById('bad').shadowRoot.getElementById('licence-link').click(),
  );
  await page.waitForLoadState();
  assert.ok(!(await page.title().catch(() => '')).startsWith('PWNED'));
  assert.deepEqual(
    errors.filter((e) => !e.includes('LICENSE.txt')),
    [],
  );
  await context.close();
});

test('element: attribute changes and calls made while it loads are applied in order, the last wins', async () => {
  srv.routes['/t/early.html'] = { body: HOST('') };
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  const errors = collectErrors(page);
  await page.goto(`${srv.base}t/early.html`);
  await page.waitForFunction(() => customElements.get('attention-playground'));
  await page.evaluate(async () => {
    const make = (id) => {
      const el = document.createElement('attention-playground');
      el.id = id;
      el.setAttribute('sentence', 'The cat sat on the mat.');
      el.setAttribute('model', 'random');
      el.setAttribute('heads', '2');
      document.body.append(el);
      return el;
    };
    const a = make('a');
    const b = make('b');
    await new Promise((r) => setTimeout(r, 0)); // the tick after appending: still loading
    // a: the attribute comes last
    a.setSentence('小猫吃鱼');
    a.setOptions({ heads: 1, seed: 5 });
    a.setAttribute('heads', '4');
    a.setAttribute('sentence', '我爱你');
    a.goToStep(3);
    // b: the call comes last
    b.setAttribute('sentence', '我爱你');
    b.setOptions({ sentence: '苹果很好吃', heads: 4 });
    b.setAttribute('heads', '1');
    b.setSentence('小猫吃鱼');
    b.goToStep(5);
  });
  await allReady(page);
  const shown = (id, sentence, heads, stage) =>
    page.waitForFunction(
      ([id, sentence, heads, stage]) => {
        const el = document.getElementById(id);
        const t = el.trace;
        return (
          t && t.sentence === sentence && t.config.heads === heads && el.dataset.stage === stage
        );
      },
      [id, sentence, heads, stage],
      { timeout: 10000 },
    );
  await shown('a', '我爱你', 4, 'project');
  await shown('b', '小猫吃鱼', 1, 'scale');
  assert.equal((await page.evaluate(() => document.getElementById('a').trace)).config.seed, '5');
  assert.deepEqual(errors, []);
  await context.close();
});

test('iframe: floods from the allowed parent are coalesced; a huge sentence is refused at once; change leaves out q', async () => {
  const port = new URL(srv.base).port;
  const parentOrigin = `http://127.0.0.1:${port}`;
  const widget = `http://localhost:${port}/site/?s=${encodeURIComponent('小猫吃鱼，它很开心')}&parent=${encodeURIComponent(parentOrigin)}`;
  srv.routes['/t/flood.html'] = { body: PARENT(widget) };
  const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
  const page = await context.newPage();
  const errors = collectErrors(page);
  let zhFetches = 0;
  page.on('request', (r) => {
    if (/locales\/zh\.json/.test(r.url())) zhFetches++;
  });
  await page.goto(`${parentOrigin}/t/flood.html`);
  await page.waitForFunction(() => window.got.some((m) => m.type === 'attention-playground:ready'));
  const frame = () => page.frame({ url: /\/site\// });
  // change: the state without the text, and without the followed token (the pronoun's index)
  await page.evaluate(() =>
    window.send({ type: 'attention-playground:setOptions', options: { seed: 3 } }),
  );
  const change = await page
    .waitForFunction(() => window.got.find((m) => m.type === 'attention-playground:change'))
    .then((h) => h.jsonValue());
  assert.equal('s' in change.state, false, 'the text left the iframe');
  assert.equal('q' in change.state, false, 'the pronoun index left the iframe');
  // 5,000 goToStep and 300 setOptions({lang: 'zh'}) in one go: the last of each is applied once
  await page.evaluate(() => {
    window.got = [];
    for (let i = 0; i < 5000; i++)
      window.send({ type: 'attention-playground:goToStep', step: (i % 8) + 1 });
    for (let i = 0; i < 300; i++)
      window.send({
        type: 'attention-playground:setOptions',
        options: { lang: 'zh', heads: 1 + (i % 2) },
      });
    window.send({ type: 'attention-playground:goToStep', step: 9 });
  });
  await frame().waitForSelector('body[data-stage="heads"]', { timeout: 20000 });
  await frame().waitForFunction(() => document.documentElement.lang === 'zh-CN');
  const steps = await page.evaluate(
    () => window.got.filter((m) => m.type === 'attention-playground:stepchange').length,
  );
  assert.ok(steps <= 20, `${steps} stepchange events for a flood of 5,001 goToStep`);
  assert.ok(zhFetches <= 1, `locales/zh.json fetched ${zhFetches} times`);
  // a sentence of 30 million characters: refused with the core's message, the widget keeps going
  await page.evaluate(() => {
    window.got = [];
    window.send({ type: 'attention-playground:setSentence', sentence: 'a'.repeat(3e7) });
    window.send({ type: 'attention-playground:goToStep', step: 2 });
  });
  const failed = await page
    // (60 MB of UTF-16 cross from the parent's process to the widget's first)
    .waitForFunction(() => window.got.find((m) => m.type === 'attention-playground:error'), null, {
      timeout: 60000,
    })
    .then((h) => h.jsonValue());
  assert.equal(failed.code, 'text_too_long');
  await frame().waitForSelector('body[data-stage="embeddings"]', { timeout: 20000 });
  assert.ok((await frame().evaluate(() => location.href.length)) < 4000);
  assert.deepEqual(errors, []);
  await context.close();
});
