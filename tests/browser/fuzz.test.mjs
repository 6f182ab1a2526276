// fuzz.test.mjs: hostile and random sentences and URL parameters fed to the page for a bounded
// time (AP_FUZZ_SECONDS, default 25; AP_FUZZ_SEED picks the run). Fails on a console error, an
// uncaught exception, a dialog, markup from the input turning into elements or running, or a page
// that stops answering. Served WITHOUT a Content-Security-Policy, so an injection would really run.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { newPage, teardown, startServer } from './harness.mjs';

after(teardown);

const SECONDS = Number(process.env.AP_FUZZ_SECONDS || 25);
const SEED = Number(process.env.AP_FUZZ_SEED || 20240606) >>> 0;

function rng(seed) {
  // mulberry32
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Each payload calls pwn(), which flips window.__pwned: it must never flip.
export const HOSTILE_TEXT = [
  '<img src=x onerror=pwn()>',
  '<script>pwn()</script>',
  '"><svg onload=pwn()>',
  "'><iframe srcdoc='<script>parent.pwn()</script>'>",
  'javascript:pwn()',
  '<a href="javascript:pwn()">link</a>',
  '</textarea><script>pwn()</script>',
  '<style>*{display:none}</style>',
  '{{constructor.constructor("pwn()")()}}',
  '${pwn()}',
  '{max} {tok} {q} {n}',
  '__proto__ constructor toString hasOwnProperty',
  '\u202Eevil\u202C text',
  '\u2066isolate\u2069 \u200F\u200E',
  'Z' + '\u0335\u0336\u0337\u0338\u0301\u0302\u0303'.repeat(30),
  'a'.repeat(10000),
  '小猫'.repeat(3000),
  '👨‍👩‍👧‍👦🏳️‍🌈👍🏽1️⃣🇨🇳🧑🏿‍💻',
  '😺'.repeat(600),
  '小猫\uD800吃鱼',
  '\uDC00 lone low',
  'end\uD83D',
  '\u0000',
  'a\u0000b',
  '\u0001\u0007\u001b[31mred\u001b[0m',
  '\u007f\u0085\u009f',
  'Привет 世界 مرحبا שלום नमस्ते ไทย 한국어 🙂',
  '!!!...???,,,;;;',
  '—–-‒―',
  '|||| | |',
  '   ',
  '\n\n\t\r\n',
  '\uFEFF\u200B\u2060',
  'w '.repeat(600),
  '它 '.repeat(513),
  '3.14 1e309 -0 NaN Infinity 0x10',
  "didn't can't won't",
  '%E0%A4%A %ZZ %',
];

function randomText(r) {
  const pools = [
    () => String.fromCharCode(32 + Math.floor(r() * 95)), // ASCII
    () => String.fromCodePoint(0x4e00 + Math.floor(r() * 0x5000)), // CJK
    () => String.fromCodePoint(0x1f300 + Math.floor(r() * 0x300)), // emoji
    () => String.fromCharCode(0x300 + Math.floor(r() * 0x70)), // combining marks
    () => String.fromCharCode(0x590 + Math.floor(r() * 0x200)), // Hebrew / Arabic
    () =>
      ['\u202E', '\u202D', '\u2066', '\u2069', '\u200D', '\uFE0F', '\u200B'][Math.floor(r() * 7)],
    () => String.fromCharCode(Math.floor(r() * 32)), // controls, NUL
    () => String.fromCharCode(0xd800 + Math.floor(r() * 0x800)), // lone surrogates
    () => ' ',
    () => '|',
    () => '<',
    () => '>',
    () => '&',
    () => '"',
  ];
  const long = r() < 0.05;
  const n = long ? 2000 + Math.floor(r() * 8000) : Math.floor(r() * 120);
  let s = '';
  const weights = long ? [0, 1, 8] : null;
  for (let i = 0; i < n; i++) {
    const p = weights ? pools[weights[Math.floor(r() * 3)]] : pools[Math.floor(r() * pools.length)];
    s += p();
  }
  return s;
}

const KEYS = [
  's',
  'seed',
  'heads',
  'dmodel',
  'dk',
  'causal',
  'scale',
  'temp',
  'tie',
  'pos',
  'max',
  'step',
  'head',
  'q',
  'lang',
  'hide',
  'parent',
  '__proto__',
  'constructor',
  'zzz',
  '',
];
export const HOSTILE_VALUES = [
  '',
  'NaN',
  '-1',
  '-0',
  '0',
  '1e309',
  '99999999999999999999999',
  '0x10',
  '1.5',
  ' 3 ',
  'Infinity',
  '-Infinity',
  '%E0%A4%A',
  '%',
  '%%',
  '%ZZ',
  '%00',
  '%D8%00',
  '%ED%A0%80',
  '%3Cscript%3Epwn()%3C/script%3E',
  '<img src=x onerror=pwn()>',
  'javascript:pwn()',
  'true',
  'on',
  '[]',
  '{}',
  'null',
  'undefined',
  'zh',
  'EN',
  'klingon',
  'header,input,settings,controls,arcs,panels,footer',
  'https://evil.example',
  'http://127.0.0.1:1',
  'x'.repeat(5000),
  '512',
  '513',
  '1',
  '9',
  '10',
  '8',
  '65',
];

function randomQuery(r) {
  const parts = [];
  const n = 1 + Math.floor(r() * 8);
  for (let i = 0; i < n; i++) {
    const k = KEYS[Math.floor(r() * KEYS.length)];
    const v =
      r() < 0.2
        ? randomText(r).slice(0, 200)
        : HOSTILE_VALUES[Math.floor(r() * HOSTILE_VALUES.length)].slice(0, 1500);
    // raw (percent-encoding errors survive) or properly encoded
    parts.push(
      r() < 0.5
        ? `${k}=${v.toWellFormed()}`
        : `${encodeURIComponent(k)}=${encodeURIComponent(v.toWellFormed())}`,
    );
    if (r() < 0.15) parts.push(`${k}=${HOSTILE_VALUES[Math.floor(r() * HOSTILE_VALUES.length)]}`); // repeated key
  }
  if (r() < 0.05) parts.push(`s=${'%E5%B0%8F'.repeat(1400)}`); // a very long URL (servers cap near 16 KB)
  return parts.join('&');
}

// Installed in every document before its scripts: the pwn() sink and a watch on new elements.
function guard() {
  window.__pwned = 0;
  window.__bad = [];
  window.pwn = () => {
    window.__pwned++;
  };
  const dangerous = new Set([
    'IMG',
    'SCRIPT',
    'IFRAME',
    'OBJECT',
    'EMBED',
    'STYLE',
    'LINK',
    'META',
    'BASE',
    'FORM',
    'SVG',
    'VIDEO',
    'AUDIO',
  ]);
  const check = (node) => {
    if (node.nodeType !== 1) return;
    const ready = document.body && document.body.dataset.ready === '1';
    const inWalk = node.closest && node.closest('main, header, footer');
    if (
      ready &&
      inWalk &&
      dangerous.has(node.tagName.toUpperCase()) &&
      !node.closest('#stage-body svg, #arcs svg, #panels, #export')
    ) {
      window.__bad.push(`<${node.tagName.toLowerCase()}> added`);
    }
    for (const a of node.attributes || []) {
      if (/^on/i.test(a.name)) window.__bad.push(`${node.tagName} has ${a.name}`);
      if (/^\s*javascript:/i.test(a.value))
        window.__bad.push(`${node.tagName} ${a.name}=${a.value.slice(0, 40)}`);
    }
  };
  new MutationObserver((list) => {
    for (const m of list) {
      if (m.type === 'attributes') check(m.target);
      for (const n of m.addedNodes || []) {
        check(n);
        if (n.querySelectorAll) n.querySelectorAll('*').forEach(check);
      }
    }
  }).observe(document, { subtree: true, childList: true, attributes: true });
}

async function within(ms, what, p) {
  let timer;
  const t = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`unresponsive: ${what} took over ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, t]);
  } finally {
    clearTimeout(timer);
  }
}

test(`fuzz: hostile and random sentences and URLs for ${SECONDS} s (seed ${SEED})`, async () => {
  const { server, base } = await startServer({ csp: '' });
  after(() => {
    server.closeAllConnections();
    return new Promise((res) => server.close(res));
  }); // also when an assertion fails
  const { page, errors, context } = await newPage({ own: true });
  await context.addInitScript(guard);
  const r = rng(SEED);
  const log = [];
  const open = async (q) => {
    try {
      await within(30000, 'open', page.goto(`${base}?${q}`));
      await within(
        30000,
        'ready',
        page.waitForSelector('body[data-ready="1"]', { timeout: 30000 }),
      );
    } catch (e) {
      throw new Error(
        `${String(e.message).split('\n')[0].slice(0, 200)} (url ?${q.slice(0, 200)}, ${q.length} chars)`,
        { cause: e },
      );
    }
  };
  const setText = async (s) => {
    const before = await page.evaluate(() => Number(document.body.dataset.renders || 0));
    await page.evaluate((x) => {
      const ta = document.getElementById('text');
      ta.value = x;
      ta.dispatchEvent(new Event('input', { bubbles: true }));
    }, s);
    await within(
      30000,
      `render of ${JSON.stringify(s.slice(0, 40))}`,
      page.waitForFunction((b) => Number(document.body.dataset.renders || 0) > b, before, {
        timeout: 30000,
      }),
    );
  };
  const check = async (what) => {
    const st = await within(
      10000,
      `heartbeat after ${what}`,
      page.evaluate(() => ({
        pwned: window.__pwned,
        bad: window.__bad.slice(0, 5),
        boot: !document.getElementById('boot-error').hidden,
        imgs: document.querySelectorAll('#input img, #walkthrough img, #messages img, header img')
          .length,
      })),
    );
    assert.equal(st.pwned, 0, `script ran after ${what}`);
    assert.deepEqual(st.bad, [], `markup became elements after ${what}`);
    assert.equal(st.imgs, 0, `an <img> appeared after ${what}`);
    assert.equal(st.boot, false, `the page failed to start after ${what}`);
    assert.deepEqual(errors, [], `after ${what}`);
  };
  await open('');
  // the canary: without a CSP an injected handler really runs here, so the checks below mean something
  const canary404 = page.waitForEvent('console', {
    predicate: (m) => m.type() === 'error' && /404/.test(m.text()),
    timeout: 5000,
  });
  await page.evaluate(() => {
    const d = document.createElement('div');
    d.innerHTML = '<img src=x onerror=pwn()>';
  });
  await page.waitForFunction(() => window.__pwned === 1, null, { timeout: 5000 });
  await page.evaluate(() => {
    window.__pwned = 0;
  });
  await canary404;
  assert.ok(
    errors.every((e) => /404.*\/x\)$/.test(e)),
    errors.join('\n'),
  ); // the canary's image 404 only
  errors.length = 0;
  // every listed hostile sentence once, at two stages, then random actions until time is up
  for (const [i, s] of HOSTILE_TEXT.entries()) {
    await setText(s);
    if (i % 3 === 0) await page.keyboard.press(String(1 + (i % 9)));
    await check(`text ${JSON.stringify(s.slice(0, 60))}`);
  }
  for (const v of HOSTILE_VALUES) {
    if (v.length > 500) {
      await open(`s=${v}&seed=${v}`);
      await check('long values');
      continue;
    } // servers cap a URL near 16 KB
    const q = KEYS.slice(0, 17)
      .map((k) => `${k}=${v}`)
      .join('&');
    await open(q);
    await check(`every key = ${JSON.stringify(v.slice(0, 40))}`);
  }
  const end = Date.now() + SECONDS * 1000;
  let n = 0;
  while (Date.now() < end) {
    const x = r();
    let what;
    if (x < 0.45) {
      const s =
        r() < 0.3
          ? HOSTILE_TEXT[Math.floor(r() * HOSTILE_TEXT.length)] + randomText(r).slice(0, 50)
          : randomText(r);
      what = `text ${JSON.stringify(s.slice(0, 60))} (${s.length} chars)`;
      if (r() < 0.2 && s.length < 100 && s.isWellFormed()) {
        await page.focus('#text');
        const before = await page.evaluate(() => Number(document.body.dataset.renders || 0));
        await within(30000, what, page.keyboard.insertText(s));
        await within(
          30000,
          `render of ${what}`,
          page.waitForFunction((b) => Number(document.body.dataset.renders || 0) > b, before, {
            timeout: 30000,
          }),
        );
      } else await setText(s);
    } else if (x < 0.7) {
      const q = randomQuery(r);
      what = `url ?${q.slice(0, 100)} (${q.length} chars)`;
      await open(q);
    } else {
      const keys = [
        '1',
        '4',
        '7',
        '9',
        'ArrowRight',
        'ArrowLeft',
        'PageDown',
        'PageUp',
        '.',
        ',',
        'h',
        'r',
        'k',
        '+',
        '-',
        'Escape',
        'Tab',
      ];
      const seq = Array.from(
        { length: 1 + Math.floor(r() * 6) },
        () => keys[Math.floor(r() * keys.length)],
      );
      what = `keys ${seq.join(' ')}`;
      await page.evaluate(
        () =>
          document.activeElement && document.activeElement.blur && document.activeElement.blur(),
      );
      for (const k of seq) await within(10000, what, page.keyboard.press(k));
    }
    log.push(what);
    await check(what);
    n++;
  }
  console.log(
    `fuzz: seed ${SEED}, ${HOSTILE_TEXT.length} listed sentences, ${HOSTILE_VALUES.length} listed URL values, ${n} random actions`,
  );
  await context.close();
});
