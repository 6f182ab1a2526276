#!/usr/bin/env node
// bench-embed.mjs: the embedding budgets, measured on dist/ (run scripts/build first), for each
// kind of visitor of the hosted page (a browser asking for English, one asking for Chinese: the
// page fetches only the shown language's strings, so their transfers differ):
//   transfer  every file the hosted page asks for, gzipped (-9), summed       budget < 300 KB
//   first trace  navigation -> the 'attention-playground:first-trace' mark,
//                median of 7 loads, localhost, headless Chromium              budget < 500 ms
//   single file  dist/attention-playground.html                               budget < 600 KB
// Prints one JSON object; exits 1 when a budget is missed for any visitor. scripts/bench may call
// it.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { launch, startServer, distDir } from '../tests/browser/harness.mjs';
import { BUDGETS, transferOf } from './budgets.mjs';

// the browser's language -> the page's (<html lang>), checked so a visitor is what it says
const VISITORS = [
  { lang: 'en', locale: 'en-US', htmlLang: 'en' },
  { lang: 'zh', locale: 'zh-CN', htmlLang: 'zh-CN' },
];
const LOADS = 7;

const gz = (f) => zlib.gzipSync(fs.readFileSync(f), { level: 9 }).length;
const kb = (n) => Math.round(n / 102.4) / 10;

const log = [];
const { server, base } = await startServer({ dir: distDir, log });
const browser = await launch();

async function measure({ locale, htmlLang }) {
  const times = [];
  let files = [];
  for (let i = 0; i < LOADS; i++) {
    const context = await browser.newContext({ locale });
    const page = await context.newPage();
    log.length = 0;
    // the page says when it is ready on the console: playwright's waitFor* would inject its own
    // script into the page while it starts, and the first trace would wait for that too
    await page.addInitScript(() => {
      new MutationObserver((_, seen) => {
        if (document.body?.dataset.ready !== '1') return;
        seen.disconnect();
        console.debug('attention-playground:ready');
      }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-ready'] });
    });
    const ready = page.waitForEvent('console', {
      predicate: (m) => m.text() === 'attention-playground:ready',
      timeout: 30000,
    });
    await page.goto(`${base}site/`, { waitUntil: 'commit' });
    await ready;
    await page.waitForLoadState('load'); // every file the page asks for while it loads
    const shown = await page.locator('html').getAttribute('lang');
    if (shown !== htmlLang) throw new Error(`a ${locale} visitor was shown lang=${shown}`);
    times.push(
      await page.evaluate(
        () => performance.getEntriesByName('attention-playground:first-trace')[0].startTime,
      ),
    );
    if (i === 0) files = [...new Set(log)];
    await context.close();
  }
  const transfer = transferOf(distDir, files);
  const sorted = [...times].sort((a, b) => a - b);
  return {
    transferGzip: transfer.gzip,
    transferGzipKB: kb(transfer.gzip),
    files: transfer.files.map((f) => `${f.path} ${kb(f.bytes)} KB (${kb(f.gzip)} KB gz)`),
    firstTraceMs: {
      median: Math.round(sorted[LOADS >> 1]),
      min: Math.round(sorted[0]),
      max: Math.round(sorted[LOADS - 1]),
    },
  };
}

const visitors = {};
for (const v of VISITORS) visitors[v.lang] = await measure(v);
await browser.close();
server.close();

const single = fs.statSync(path.join(distDir, 'attention-playground.html')).size;
const result = {
  visitors,
  singleFileKB: kb(single),
  embedScriptKB: kb(fs.statSync(path.join(distDir, 'embed/attention-playground.js')).size),
  embedScriptGzipKB: kb(gz(path.join(distDir, 'embed/attention-playground.js'))),
};
result.withinBudgets =
  Object.values(visitors).every(
    (v) => v.transferGzip < BUDGETS.hostedGzipBytes && v.firstTraceMs.median < BUDGETS.firstTraceMs,
  ) && single < BUDGETS.singleFileBytes;
console.log(JSON.stringify(result, null, 2));
process.exit(result.withinBudgets ? 0 : 1);
