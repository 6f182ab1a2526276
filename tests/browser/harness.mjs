// harness.mjs: shared setup for the browser tests. Serves web/ with node:http (correct MIME types,
// including application/wasm) on a random free port, launches Debian's Chromium headless through
// playwright-core, and collects console errors and page errors so a test can fail on any of them.
// newPage() hands out pages of one browser context per locale, kept for the whole file, so that
// Chromium's caches (the HTTP cache, the compiled WebAssembly) serve every test after the first;
// each test still starts with no page of an earlier test open and the origin's storage empty.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { afterEach } from 'node:test';
import { chromium } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import { loadCoreNode } from '../../web/core.js';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const webDir = path.join(root, 'web');
export const shotDir = path.join(root, 'tests/browser/screenshots');
export const distDir = path.join(root, 'dist');

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

/** The CSP the page must work under (sent by the test server). */
export const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";

/**
 * A static server on a random port. opts: {dir (default web/), csp (the header; '' for none),
 * routes: {'/path': {body (a string, or a function of the request), type, csp (its own CSP
 * header; routes get none otherwise)} or {handle(req, res): answers it in full}} served before files
 * (test pages), log: [] to record the paths asked for, cors: send Access-Control-Allow-Origin: *
 * (a CDN serving the element to other sites), cacheable: files may be kept for an hour instead of
 * no-store (a repeat visit, as a static host serves them)}.
 */
export function startServer(opts = {}) {
  const dir = opts.dir || webDir;
  const csp = opts.csp ?? CSP;
  const routes = opts.routes || {};
  const cors = opts.cors ? { 'access-control-allow-origin': '*' } : {};
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    if (opts.log) opts.log.push(url.pathname);
    const route = routes[url.pathname];
    if (route && route.handle) {
      route.handle(req, res);
      return;
    }
    if (route) {
      res.writeHead(200, {
        'content-type': route.type || MIME['.html'],
        'cache-control': 'no-store',
        ...(route.csp ? { 'content-security-policy': route.csp } : {}),
      });
      res.end(typeof route.body === 'function' ? route.body(req) : route.body);
      return;
    }
    let p = path.normalize(decodeURIComponent(url.pathname));
    if (p.endsWith('/')) p += 'index.html';
    const file = path.join(dir, p);
    if (!file.startsWith(dir) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(200, {
      'content-type': MIME[path.extname(file)] || 'application/octet-stream',
      ...(csp ? { 'content-security-policy': csp } : {}),
      'cache-control': opts.cacheable ? 'max-age=3600' : 'no-store',
      ...cors,
    });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      resolve({ server, base: `http://127.0.0.1:${server.address().port}/` });
    }),
  );
}

let shared = null;

/** One server + browser per test file. */
export async function setup() {
  if (shared) return shared;
  if (!fs.existsSync(path.join(webDir, 'wasm/attention.wasm'))) {
    throw new Error('web/wasm is missing: run scripts/build wasm first');
  }
  // the files may be cached, as a static host lets them be: a test's routes (served before files)
  // and the servers a test starts itself stay no-store
  const { server, base } = await startServer({ cacheable: true });
  const browser = await launch();
  const core = await loadCoreNode(path.join(webDir, 'wasm'));
  fs.mkdirSync(shotDir, { recursive: true });
  shared = { server, base, browser, core, contexts: new Map() };
  return shared;
}

/** Debian's Chromium, headless. */
export function launch() {
  return chromium.launch({
    executablePath: process.env.AP_CHROMIUM || '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
    ],
  });
}

/** Error collection on a page: console errors, page errors and CSP violations (Chromium reports
 *  each violation as a console error, "… violates the following Content Security Policy
 *  directive …"; csp.test.mjs checks that it still does). */
export function collectErrors(page) {
  const errors = [];
  page.on('console', (m) => {
    if (m.type() === 'error')
      errors.push(`console: ${m.text()} (${(m.location() && m.location().url) || ''})`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  return errors;
}

export async function teardown() {
  if (!shared) return;
  await closeLeased();
  await shared.browser.close();
  await new Promise((r) => shared.server.close(r));
  shared = null;
}

/** The own contexts newPage() handed out during the running test, and every page of the shared
 *  contexts (the test's, and any popup of theirs): all closed after it (also when it failed before
 *  closing them), so nothing of one test (a timer, a worker, a write to storage) runs on into the
 *  next. */
const leased = new Set();
async function closeLeased() {
  const open = [...leased];
  leased.clear();
  if (shared) for (const c of shared.contexts.values()) open.push(...(await c).pages());
  await Promise.all(open.map((p) => p.close().catch(() => {})));
}
afterEach(closeLeased);

/** What every test's context leaves behind for the origin, emptied before each new page: the
 *  HTTP cache and the compiled code are kept (they hold nothing a test writes). */
const STORAGE =
  'cookies,file_systems,indexeddb,local_storage,websql,service_workers,cache_storage,shared_storage,storage_buckets';

/**
 * A new page with error collection. opts: {width, height, locale, reducedMotion, own}.
 * Returns {page, errors, context, open(search)}; `errors` is collectErrors' list, and a dialog
 * the page opens is one more error. The page lives in the file's shared context for its locale
 * (storage emptied, its size and motion set on the page); `context` closes the test's pages and
 * opens more like it (newPage, newCDPSession). A test that changes the context itself (route,
 * addInitScript, offline) passes own: true and gets a context of its own, as the page's first
 * visit: nothing cached.
 */
export async function newPage(opts = {}) {
  const { browser, base } = await setup();
  const viewport = { width: opts.width || 1280, height: opts.height || 900 };
  const locale = opts.locale || 'en-US';
  const reducedMotion = opts.reducedMotion ? 'reduce' : 'no-preference';
  let context;
  let page;
  if (opts.own) {
    context = await browser.newContext({ viewport, locale, reducedMotion, deviceScaleFactor: 1 });
    leased.add(context);
    context.on('close', () => leased.delete(context));
    page = await context.newPage();
  } else {
    const ctx = await sharedContext(locale);
    const pages = new Set();
    const lease = async () => {
      const p = await ctx.newPage();
      pages.add(p);
      await p.setViewportSize(viewport);
      await p.emulateMedia({ reducedMotion });
      return p;
    };
    page = await lease();
    const cdp = await ctx.newCDPSession(page);
    await cdp.send('Storage.clearDataForOrigin', {
      origin: new URL(base).origin,
      storageTypes: STORAGE,
    });
    await cdp.detach();
    context = {
      newPage: lease,
      newCDPSession: (p) => ctx.newCDPSession(p),
      pages: () => [...pages].filter((p) => !p.isClosed()),
      close: async () => {
        await Promise.all([...pages].map((p) => p.close().catch(() => {})));
      },
    };
  }
  const errors = collectErrors(page);
  page.on('dialog', (d) => {
    errors.push(`dialog opened: ${d.message()}`);
    d.dismiss();
  });
  // Tests not about "predict, then reveal" open the page with it off (predict=0), so stage 7 shows
  // its weights at once; a test of it passes predict itself (predict=1, or predict= for the default).
  const open = async (search = '') => {
    search = search.replace(/^\?/, '');
    if (!/(^|&)predict=/.test(search)) search = search ? `${search}&predict=0` : 'predict=0';
    search = search.replace(/(^|&)predict=(&|$)/, '$1').replace(/&$/, '');
    await page.goto(base + (search ? `?${search}` : ''));
    await page.waitForSelector('body[data-ready="1"]', { timeout: 15000 });
  };
  return { page, errors, context, open, base };
}

/** The file's context for one locale (a context's locale is fixed when it is made). */
async function sharedContext(locale) {
  const { browser, contexts } = await setup();
  if (!contexts.has(locale))
    contexts.set(locale, browser.newContext({ locale, deviceScaleFactor: 1 }));
  return contexts.get(locale);
}

// axe-core's source as AxeBuilder injects it (the copy it depends on), evaluated only where the
// frame has no axe yet: AxeBuilder evaluates it (650 KB) before every analysis, twice in legacy mode.
const axeSource = (() => {
  const fromBuilder = createRequire(createRequire(import.meta.url).resolve('@axe-core/playwright'));
  return `if (!window.axe) {\n${fromBuilder('axe-core').source}\n}`;
})();

/**
 * axe on a page, as AxeBuilder({page}) (chain include, withTags, … and call analyze()). A page with
 * no frame inside it is checked with axe.run in the page itself (AxeBuilder's legacy mode), the
 * same rules on the same document: the default runs axe.runPartial in every frame and then
 * axe.finishRun in a second, blank page, which costs a page and a second copy of axe per call.
 * A page with frames is checked the default way. axe is put in a frame once and kept there: each
 * axe.run starts from the document as it is and clears its caches when it ends.
 */
export class Axe extends AxeBuilder {
  constructor(page) {
    super({ page, axeSource });
    this.target = page;
  }
  async analyze() {
    this.setLegacyMode(this.target.frames().length === 1);
    return super.analyze();
  }
}

/** Wait until the page has rendered at least once more than `before`. */
export async function waitRender(page, before) {
  // rendered once more, and the matrices out of sight (refreshed when idle) show that trace too
  await page.waitForFunction(
    (b) => Number(document.body.dataset.renders || 0) > b && document.body.dataset.settled !== '0',
    before,
    { timeout: 10000 },
  );
}

/** Wait until every view shows the last trace: the matrices out of sight (other heads, a stage
 *  below the Train panel the test clicked in) are refreshed when the page is idle (later.js), so
 *  a state written at once (the URL, data-status) can be seen before their cells change.
 *  host: the element the playground marks (the page's body, or a custom element). */
export async function waitSettled(page, host = 'body') {
  await page.waitForFunction((sel) => document.querySelector(sel)?.dataset.settled !== '0', host, {
    timeout: 10000,
  });
}

export async function renders(page) {
  return page.evaluate(() => Number(document.body.dataset.renders || 0));
}

/** Go to a stage (0-based) through the stage list and wait for it to show. */
export async function gotoStage(page, i, id) {
  await page.click(`#stage-nav li:nth-child(${i + 1}) button`);
  await page.waitForSelector(`body[data-stage="${id}"]`);
}

/** All shown cells of one matrix: [{head, row, col, value}] */
export async function cells(page, matrix, scope = '#stage-body') {
  return page.$$eval(`${scope} td[data-matrix="${matrix}"]`, (tds) =>
    tds.map((td) => ({
      head: td.dataset.head === '' ? null : Number(td.dataset.head),
      row: Number(td.dataset.row),
      col: Number(td.dataset.col),
      value: Number(td.dataset.value),
    })),
  );
}

/** Screenshot of the whole page, or of one element when `selector` is given. An element taller
 *  than SHOT_MAX_HEIGHT (a stage with hundreds of rows) is shot as its top SHOT_MAX_HEIGHT px:
 *  capturing 8,000 px takes longer than a busy machine allows, and the top is what is looked at. */
const SHOT_MAX_HEIGHT = 2400;
export async function shot(page, name, selector) {
  const file = path.join(shotDir, `${name}.png`);
  if (!selector) return page.screenshot({ path: file, fullPage: true });
  const box = await page.locator(selector).evaluate((e) => {
    const r = e.getBoundingClientRect();
    return { x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height };
  });
  if (box.height <= SHOT_MAX_HEIGHT) return page.locator(selector).screenshot({ path: file });
  return page.screenshot({ path: file, fullPage: true, clip: { ...box, height: SHOT_MAX_HEIGHT } });
}
