// page.mjs: the page half of scripts/bench. Serves web/ from a throwaway local HTTP server, drives
// it in headless Chromium (playwright-core, /usr/bin/chromium) and measures: navigation to the
// first trace drawn (body[data-ready]), keystroke to repaint (body[data-renders] changes, then the
// next frame), animation frame times, and JS heap / wasm memory around many recomputations.
// Also the transfer sizes of what the page loads. Not a browser test (tests/browser is).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';

const MIME = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.json': 'application/json', '.wasm': 'application/wasm', '.svg': 'image/svg+xml', '.png': 'image/png' };

function serve(dir) {
  const server = http.createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = path.join(dir, rel.endsWith('/') ? `${rel}index.html` : rel);
    if (!file.startsWith(dir) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': MIME[path.extname(file)] || 'application/octet-stream', 'cache-control': 'no-store' });
    res.end(fs.readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const pct = (a, p) => { const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };

export async function measurePage(root, { quick = false } = {}) {
  const web = path.join(root, 'web');
  if (!fs.existsSync(path.join(web, 'index.html'))) return { error: 'web/index.html does not exist yet' };
  // the wiring file has moved before (main.js -> playground.js): look in every top-level script
  const wiring = fs.readdirSync(web).filter((f) => f.endsWith('.js'))
    .map((f) => fs.readFileSync(path.join(web, f), 'utf8')).join('\n');
  if (!wiring.includes('dataset.ready') || !wiring.includes('dataset.renders')) {
    return { error: 'the page exposes no "trace drawn" signal (body data-ready / data-renders)' };
  }
  const { chromium } = await import('playwright-core');
  const server = await serve(web);
  const url = `http://127.0.0.1:${server.address().port}/`;
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
  const result = { url: 'web/ over a local HTTP server', loaded: [] };
  try {
    const page = await browser.newPage();
    page.on('response', (r) => {
      const u = new URL(r.url());
      if (u.origin === new URL(url).origin) result.loaded.push({ path: u.pathname, status: r.status() });
    });
    // record when data-ready appears, relative to navigation start, plus the frame after it
    await page.addInitScript(() => {
      const mark = () => {
        if (document.body && document.body.dataset.ready === '1' && !window.__apReady) {
          window.__apReady = performance.now();
          requestAnimationFrame(() => requestAnimationFrame(() => { window.__apDrawn = performance.now(); }));
        }
      };
      new MutationObserver(mark).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-ready'] });
    });
    await page.goto(url);
    await page.waitForFunction(() => window.__apDrawn, null, { timeout: 30000 });
    Object.assign(result, await page.evaluate(() => ({ readyMs: window.__apReady, firstTraceMs: window.__apDrawn })));

    // keystroke to repaint: replace the last word (the token count stays), wait for the render
    // counter, then for the next frame to start
    result.keystroke = [];
    for (const tokens of [16, 64, 256]) {
      const text = Array.from({ length: tokens }, (_, i) => ['the', 'cat', 'sat', 'on', 'a', 'mat'][i % 6]).join(' ');
      await page.fill('#text', text);
      await page.waitForTimeout(300);
      const times = await page.evaluate(async ({ reps }) => {
        const area = document.getElementById('text');
        const out = [];
        for (let r = 0; r < reps; r++) {
          const before = document.body.dataset.renders;
          const t0 = performance.now();
          area.value = area.value.replace(/\S+$/, r % 2 ? 'dog' : 'cat');
          area.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText' }));
          await new Promise((resolve) => {
            const check = () => (document.body.dataset.renders !== before ? requestAnimationFrame(() => resolve()) : requestAnimationFrame(check));
            check();
          });
          out.push(performance.now() - t0);
        }
        return out;
      }, { reps: quick ? 5 : 15 });
      const shown = await page.evaluate(() => document.getElementById('messages').textContent.trim());
      result.keystroke.push({ tokens, median: pct(times, 0.5), max: Math.max(...times), runs: times.length,
        note: tokens > 64 && shown ? `page refuses: "${shown.slice(0, 80)}"` : undefined });
    }

    // frame times while the walkthrough animates
    await page.fill('#text', 'The animal didn\'t cross the street because it was too tired.');
    await page.waitForTimeout(300);
    await page.click('#player button.play');
    result.frames = await page.evaluate(async ({ ms }) => {
      const d = [];
      let last = performance.now();
      const end = last + ms;
      await new Promise((resolve) => {
        const tick = (t) => { d.push(t - last); last = t; if (t < end) requestAnimationFrame(tick); else resolve(); };
        requestAnimationFrame(tick);
      });
      return d.slice(1);
    }, { ms: quick ? 1000 : 3000 });
    result.frames = { p50: pct(result.frames, 0.5), p95: pct(result.frames, 0.95), count: result.frames.length,
      playing: await page.evaluate(() => document.body.dataset.k) };
    await page.click('#player button.play');

    // memory: the page's own core (the same module file) recomputing, through core.js
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const heap = async () => {
      await cdp.send('HeapProfiler.collectGarbage');
      const m = await cdp.send('Performance.getMetrics');
      return m.metrics.find((x) => x.name === 'JSHeapUsedSize').value;
    };
    const N = quick ? 1000 : 10000;
    await page.evaluate(async () => {
      const { loadCore } = await import('/core.js');
      window.__apCore = await loadCore();
      window.__apCore.trace('warm up', { dModel: 64, heads: 8 });
    });
    const before = await heap();
    const memBefore = await page.evaluate(() => window.__apCore.module.HEAP8.buffer.byteLength);
    await page.evaluate(({ n }) => {
      const text = Array.from({ length: 64 }, (_, i) => `word${i % 23}`).join(' ');
      for (let i = 0; i < n; i++) window.__apCore.trace(text, { dModel: 64, heads: 8, seed: String(i % 7) });
    }, { n: N });
    const after = await heap();
    const memAfter = await page.evaluate(() => window.__apCore.module.HEAP8.buffer.byteLength);
    result.jsHeap = { before, after, recomputations: N,
      how: 'core.js loaded into the page, core.trace at 64 tokens, d_model 64, 8 heads; JSHeapUsedSize after a forced GC' };
    result.wasmMemory = { before: memBefore, after: memAfter };
    await page.close();
  } finally {
    await browser.close();
    server.close();
  }
  return result;
}

/** Raw and gzipped (level 6, as a typical server) sizes of what the page loaded (or, without a
 *  page run, of web/core.js and the module). */
export function transferSizes(root, loaded) {
  const web = path.join(root, 'web');
  const paths = loaded
    ? [...new Set(loaded.filter((l) => l.status === 200 && !l.path.endsWith('/core.js?bench')).map((l) => (l.path.endsWith('/') ? `${l.path}index.html` : l.path)))]
    : ['/core.js', '/wasm/attention.js', '/wasm/attention.wasm'];
  const files = paths.map((p) => {
    const buf = fs.readFileSync(path.join(web, p));
    return { path: p, raw: buf.length, gzip: zlib.gzipSync(buf, { level: 6 }).length };
  });
  const missing = loaded ? loaded.filter((l) => l.status !== 200).map((l) => `${l.path} (${l.status})`) : [];
  return {
    source: loaded ? 'everything the page requested during the run' : 'web/core.js and the module (no page run)',
    files, missing,
    total: { raw: files.reduce((a, f) => a + f.raw, 0), gzip: files.reduce((a, f) => a + f.gzip, 0) },
  };
}
