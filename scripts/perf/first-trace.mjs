#!/usr/bin/env node
// first-trace.mjs: navigation to the first trace drawn, on the hosted page (dist/site) and, side by
// side, on a page that loads only the module and runs one trace (the floor no page over this
// module can beat), so the page's own share is known. Each load is a fresh browser context (a
// first visit: nothing cached), headless Chromium, localhost; the variants take turns load by load
// so the machine's load falls on all of them alike. Per load it also reads where the time went:
// when the module's script, the wasm, the page's script and its strings arrived (resource timing),
// the module's compile and instantiation (WebAssembly's own calls, timed from an init script), and
// the frame that painted the first trace.
//   node scripts/perf/first-trace.mjs [--loads N] [--cpu-loads N] [--repeat-loads N] [--dist DIR]...
//     several --dist: each dist folder measured in the same run (a before/after comparison)
// scripts/bench calls measureFirstTrace for bench.json. Not a test: it times, it asserts nothing.
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, startServer } from '../../tests/browser/harness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// The module-only page: the module's glue as the hosted page loads it, then one trace of the
// page's first sentence with the core's default settings, the typing trace's detail.
const MODULE_ONLY = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>module only</title>
<script src="wasm/attention.js"></script>
</head><body><p id="out"></p>
<script>
createAttentionModule({ locateFile: (f) => 'wasm/' + f }).then((m) => {
  performance.mark('module-only:instantiated');
  const session = new m.Session();
  const r = session.traceText('小猫吃鱼，它很开心', {}, { layers: false, guesses: false });
  if (!r.ok) throw new Error(r.error.message);
  document.getElementById('out').textContent = r.tokens.join(' ') + ' ' + r.heads[0].weights.data[0];
  performance.mark('attention-playground:first-trace');
  document.body.dataset.ready = '1';
});
</script></body></html>`;

// Runs in every page before its own scripts: times WebAssembly's compile and instantiate calls,
// and the frame that paints the first trace (the task after the first animation frame that
// follows body[data-ready]), which it announces on the console: waiting for it with playwright's
// waitFor* would inject playwright's own script into the page while it loads, and time that too.
function probe() {
  const w = (window.__apFirst = { wasm: [] });
  for (const name of ['instantiateStreaming', 'instantiate', 'compileStreaming', 'compile']) {
    const f = WebAssembly[name];
    if (!f) continue;
    WebAssembly[name] = function (...args) {
      const t0 = performance.now();
      const p = f.apply(this, args);
      p.then(() => w.wasm.push({ name, start: t0, end: performance.now() })).catch(() => {});
      return p;
    };
  }
  const seen = () => {
    if (w.ready || !document.body || document.body.dataset.ready !== '1') return;
    w.ready = performance.now();
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        w.drawn = performance.now();
        console.debug('attention-playground:drawn');
      };
      channel.port2.postMessage(0);
    });
  };
  new MutationObserver(seen).observe(document, {
    subtree: true,
    attributes: true,
    attributeFilter: ['data-ready'],
  });
}

const median = (a) => {
  const s = [...a].filter((x) => x != null).sort((x, y) => x - y);
  if (!s.length) return null;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const round = (x) => (x == null ? null : Math.round(x * 10) / 10);

// The renderer main thread's CPU time (thread clock: hardly slowed by other processes on the
// machine, unlike wall times) from navigation start to `until` (ms after it), from a DevTools
// trace of the load, split at the given times: [{to, cpu}], each the CPU of the top-level tasks
// (and the part of a task) between the previous split and `to`. A task split in two is shared
// in proportion to its wall time on each side.
function mainThreadCpu(events, splits) {
  const nav = events.find(
    (e) => e.name === 'navigationStart' && e.args?.data?.documentLoaderURL?.startsWith('http'),
  );
  if (!nav) return null;
  const on = (e) => e.pid === nav.pid && e.tid === nav.tid && e.ph === 'X';
  // the thread's top-level work: tasks, and the microtask checkpoints that run after them (where
  // promise callbacks, the page's start among them, run); one inside another counts with it
  const tasks = events.filter((e) => on(e) && e.cat.split(',').includes('toplevel'));
  tasks.sort((a, b) => a.ts - b.ts);
  const top = [];
  for (const t of tasks) {
    const last = top[top.length - 1];
    if (last && t.ts < last.ts + last.dur) continue;
    top.push(t);
  }
  const out = [];
  let from = nav.ts;
  for (const to of splits) {
    const end = nav.ts + to * 1000;
    let cpu = 0;
    for (const t of top) {
      const a = Math.max(t.ts, from);
      const b = Math.min(t.ts + t.dur, end);
      if (b <= a || !t.dur) continue;
      cpu += ((t.tdur || 0) * (b - a)) / t.dur;
    }
    out.push(Math.round(cpu / 100) / 10);
    from = end;
  }
  return out;
}

// repeat: the page is loaded once and left for a while first, in the same browser context (its
// HTTP cache, and the compiled WebAssembly Chromium keeps beside a cached .wasm it compiled
// streaming); the second visit is the one measured.
async function loadOnce(browser, url, locale, { cpu = false, repeat = false } = {}) {
  const context = await browser.newContext({ locale, viewport: { width: 1280, height: 900 } });
  try {
    if (repeat) {
      const first = await context.newPage();
      await first.goto(url);
      await first.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
      // Chromium writes the compiled module to its cache once the module has run a while
      await first.waitForTimeout(3000);
      await first.close();
    }
    const page = await context.newPage();
    await page.addInitScript(probe);
    let cdp = null;
    const events = [];
    if (cpu) {
      cdp = await context.newCDPSession(page);
      cdp.on('Tracing.dataCollected', (d) => events.push(...d.value));
      await cdp.send('Tracing.start', {
        categories: 'toplevel,blink.user_timing,devtools.timeline',
        transferMode: 'ReportEvents',
      });
    }
    const drawn = page.waitForEvent('console', {
      predicate: (m) => m.text() === 'attention-playground:drawn',
      timeout: 60000,
    });
    await page.goto(url, { waitUntil: 'commit' });
    await drawn;
    const r = await page.evaluate(() => {
      const mark = (n) => performance.getEntriesByName(n)[0]?.startTime ?? null;
      const res = (suffix) =>
        performance
          .getEntriesByType('resource')
          .find((x) => new URL(x.name).pathname.endsWith(suffix))?.responseEnd ?? null;
      const w = window.__apFirst;
      const inst = w.wasm.find((x) => x.name.startsWith('instantiate'));
      return {
        firstTrace: mark('attention-playground:first-trace'),
        drawn: w.drawn,
        glue: res('/attention.js'),
        wasm: res('/attention.wasm'),
        app: res('/app.js'),
        strings: res('.json'),
        instantiateStart: inst ? inst.start : null,
        instantiated: inst ? inst.end : null,
        moduleReady: mark('attention-playground:module-ready'),
        instantiateCall: inst ? inst.name : null,
      };
    });
    if (cdp) {
      const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
      await cdp.send('Tracing.end');
      await complete;
      // CPU before the module is asked for, while it compiles and starts (its constructors
      // included), from then to the first-trace mark (the page's own start: its views and the
      // first trace), and the frame that paints it
      const ready = r.moduleReady ?? r.instantiated;
      const split = mainThreadCpu(events, [r.instantiateStart, ready, r.firstTrace, r.drawn]);
      if (split) {
        const [before, module, mount, paint] = split;
        r.cpu = { before, module, mount, paint, total: before + module + mount + paint };
      }
    }
    return r;
  } finally {
    await context.close();
  }
}

/** Loads each dist's hosted page and the module-only page `loads` times, turn by turn, then
 *  `cpuLoads` traced times each; the page as a repeat visit `repeatLoads` times.
 *  dists: {label: dist folder}. -> {how, load: [1-min load average before, after],
 *  [label]: {page: stats, moduleOnly: stats, repeatVisit: stats, pageShareMs}} where stats =
 *  {median of each time, loads, firstTraceMs and drawnMs: {median, min, max},
 *  mainThreadCpuMs} (ms from navigation start). */
export async function measureFirstTrace({
  dists = { current: path.join(root, 'dist') },
  loads = 15,
  cpuLoads = 5,
  repeatLoads = 5,
  locale = 'en-US',
} = {}) {
  const servers = {};
  for (const [label, dir] of Object.entries(dists)) {
    servers[label] = await startServer({
      dir,
      routes: { '/site/module-only.html': { body: MODULE_ONLY } },
    });
    // the same files as a static host serves them (cacheable), for the repeat visit
    servers[label].cached = await startServer({ dir, cacheable: true });
  }
  const browser = await launch();
  const rows = {};
  const loadBefore = os.loadavg()[0];
  try {
    // the timed loads, then the traced ones (tracing slows a load down)
    for (let i = 0; i < loads + cpuLoads; i++) {
      const cpu = i >= loads;
      for (const [label, { base, cached }] of Object.entries(servers)) {
        for (const [kind, url] of [
          ['page', `${base}site/`],
          ['moduleOnly', `${base}site/module-only.html`],
          ['repeat', `${cached.base}site/`],
        ]) {
          if (kind === 'repeat' && (cpu || !repeatLoads || i >= repeatLoads)) continue;
          const key = `${label}/${kind}${cpu ? '/cpu' : ''}`;
          const repeat = kind === 'repeat';
          (rows[key] ||= []).push(await loadOnce(browser, url, locale, { cpu, repeat }));
        }
      }
    }
  } finally {
    await browser.close();
    for (const { server, cached } of Object.values(servers)) {
      server.close();
      cached.server.close();
    }
  }
  const stats = (list, cpuList = []) => {
    const out = { loads: list.length };
    for (const k of Object.keys(list[0])) {
      if (k === 'instantiateCall') out[k] = list[0][k];
      else out[k] = round(median(list.map((r) => r[k])));
    }
    const cpu = cpuList.map((r) => r.cpu).filter(Boolean);
    if (cpu.length) {
      out.mainThreadCpuMs = { loads: cpu.length };
      for (const k of Object.keys(cpu[0]))
        out.mainThreadCpuMs[k] = round(median(cpu.map((c) => c[k])));
    }
    const ft = list.map((r) => r.firstTrace).sort((a, b) => a - b);
    out.firstTraceMs = { median: round(median(ft)), min: round(ft[0]), max: round(ft.at(-1)) };
    const dr = list.map((r) => r.drawn).sort((a, b) => a - b);
    out.drawnMs = { median: round(median(dr)), min: round(dr[0]), max: round(dr.at(-1)) };
    return out;
  };
  const result = {
    how:
      `median of ${loads} loads each, fresh browser context per load (nothing cached), headless Chromium, ` +
      'localhost; variants in turn. firstTrace: navigation start -> the attention-playground:first-trace mark ' +
      '(the trace computed and its views written); drawn: the end of the frame that painted it. ' +
      "glue, wasm, app, strings: when each file had arrived; instantiateStart/instantiated: the module's " +
      "WebAssembly compile + instantiate call. mainThreadCpuMs: the renderer main thread's CPU time " +
      "(thread clock, from a DevTools trace of other loads: little slowed by the machine's load) before the " +
      "module is asked for, while it compiles and starts, from then to the first-trace mark (the page's " +
      'views and the first trace), and in the frame that paints it. repeatVisit: the hosted page served ' +
      'cacheable (max-age), loaded a second time in the same browser context 3 s after the first',
    load: [round(loadBefore), round(os.loadavg()[0])],
  };
  for (const label of Object.keys(dists)) {
    const page = stats(rows[`${label}/page`], rows[`${label}/page/cpu`]);
    const moduleOnly = stats(rows[`${label}/moduleOnly`], rows[`${label}/moduleOnly/cpu`]);
    const repeat = rows[`${label}/repeat`] ? stats(rows[`${label}/repeat`]) : null;
    result[label] = {
      page,
      moduleOnly,
      repeatVisit: repeat,
      pageShareMs: round(page.firstTraceMs.median - moduleOnly.firstTraceMs.median),
    };
  }
  return result;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const dists = {};
  let loads = 15;
  let cpuLoads = 5;
  let repeatLoads = 5;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--loads') loads = Number(args[++i]);
    else if (args[i] === '--cpu-loads') cpuLoads = Number(args[++i]);
    else if (args[i] === '--repeat-loads') repeatLoads = Number(args[++i]);
    else if (args[i] === '--dist') {
      const d = path.resolve(args[++i]);
      dists[path.basename(path.dirname(d)) + '/' + path.basename(d)] = d;
    }
  }
  const r = await measureFirstTrace({
    dists: Object.keys(dists).length ? dists : undefined,
    loads,
    cpuLoads,
    repeatLoads,
  });
  console.log(JSON.stringify(r, null, 2));
}
