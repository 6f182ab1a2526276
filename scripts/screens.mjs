// screens.mjs: the README's pictures, taken from the real page. Serves web/ (scripts/build wasm
// first), opens it in headless Chromium (playwright-core, /usr/bin/chromium) and writes
//   docs/page.png              the page at the scores stage of the seed sentence (1280 × 800): the
//                              player, the narration, q · k for one cell, the scores, the link view
//   docs/stage3-1..6.png       stage 3 (Q = X·W_Q) taking its first cell apart: the rows meet, the
//                              products, their sum, the cell; then the rest of its row and the
//                              other rows; the player bar and the stage
// Not a test (tests/browser is) and not a benchmark. Run: node scripts/screens.mjs
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const web = path.join(root, 'web');
const out = path.join(root, 'docs');
const MIME = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.tsv': 'text/plain',
};

if (!fs.existsSync(path.join(web, 'wasm/attention.wasm'))) {
  console.error('screens: web/wasm is missing: run scripts/build wasm first');
  process.exit(1);
}
const server = http.createServer((req, res) => {
  const rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  const file = path.join(web, rel.endsWith('/') ? `${rel}index.html` : rel);
  if (!file.startsWith(web) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
    res.writeHead(404);
    res.end();
    return;
  }
  res.writeHead(200, { 'content-type': MIME[path.extname(file)] || 'application/octet-stream' });
  res.end(fs.readFileSync(file));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}/`;
const browser = await chromium.launch({
  executablePath: process.env.AP_CHROMIUM || '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
  ],
});
// each picture shows its step drawn whole: after the step's animations (products fading in)
const settled = (page) =>
  page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((a) => a.effect?.getComputedTiming().endTime !== Infinity)
        .map((a) => a.finished.catch(() => {})),
    ),
  );
try {
  fs.mkdirSync(out, { recursive: true });
  const page = await browser.newPage({
    viewport: { width: 1280, height: 800 },
    deviceScaleFactor: 1,
    locale: 'en-US',
  });
  // the scores stage with its numbers: predict=0, so the link view is not veiled for a guess
  await page.goto(`${url}?lang=en&step=4&predict=0`);
  await page.waitForSelector('body[data-ready="1"]');
  await page.waitForFunction(() => document.body.dataset.settled !== '0');
  // the stage's title just under the sticky bar (the player and the narration)
  await page.evaluate(() => {
    const bar = document.getElementById('stagebar');
    const title = document.getElementById('stage-title');
    window.scrollBy({
      top: title.getBoundingClientRect().top - bar.offsetHeight - 4,
      behavior: 'instant',
    });
  });
  await settled(page);
  await page.screenshot({ path: path.join(out, 'page.png') });
  await page.goto(`${url}?lang=en&predict=0`);
  await page.waitForSelector('body[data-ready="1"]');
  // stage 3 from its start, a few steps in: the player scrolls the stage into view
  await page.click('#stage-nav li:nth-child(3) button');
  await page.waitForSelector('body[data-stage="project"]');
  await page.$eval('#player .scrub', (s) => {
    s.value = '0';
    s.dispatchEvent(new Event('input', { bubbles: true }));
  });
  // the four steps of Q's first cell, the rest of its row, the other rows (ProjectStage's phases)
  const steps = [0, 1, 2, 3, 4, 5];
  let k = 0;
  for (const [n, target] of steps.entries()) {
    while (k < target) {
      await page.click('#player .step-fwd');
      k++;
    }
    // the sticky bar (player and narration) and, right under it, the product being formed (not
    // the stage's introduction above it)
    const box = await page.evaluate(() => {
      const bar = document.getElementById('stagebar').getBoundingClientRect();
      window.scrollBy({
        top: document.querySelector('.proj-grid').getBoundingClientRect().top - bar.height - 4,
        behavior: 'instant',
      });
      const grid = document.querySelector('.proj-grid').getBoundingClientRect();
      return {
        x: 0,
        y: 0,
        width: innerWidth, // the narration spans the page: a narrower picture would cut it
        height: Math.min(innerHeight, Math.ceil(grid.bottom + 8)),
      };
    });
    // each picture shows its step drawn whole: after the step's animations (products fading in)
    await page.waitForSelector(`body[data-k="${target}"]`);
    await settled(page);
    await page.screenshot({ path: path.join(out, `stage3-${n + 1}.png`), clip: box });
  }
  for (const f of fs.readdirSync(out).filter((f) => f.endsWith('.png'))) {
    console.log(`${path.join('docs', f)}: ${fs.statSync(path.join(out, f)).size} bytes`);
  }
} finally {
  await browser.close();
  server.close();
}
