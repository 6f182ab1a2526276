// package.test.mjs: the npm package as someone who installs it would use it. `npm pack` makes the
// tarball, which publint and arethetypeswrong check and an empty project installs (offline: the
// package has no dependencies). Then it is used four ways, each compared with the core's own trace
// (web/core.js over web/wasm, run here in Node): the custom element from a <script>, mountPlayground
// and loadCore as ES modules in pages served from another origin than the package's files, and the
// core API in Node. A TypeScript consumer compiles against the package's declarations, and the
// element's manifest, its declarations and the state table agree.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { launch, startServer, collectErrors, root, webDir, distDir } from './harness.mjs';
import { loadCoreNode, Core } from '../../web/core.js';
import { TABLE } from '../../web/state.js';

const bin = (name) => path.join(root, 'node_modules/.bin', name);
const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

let tmp = null;
let tarball = null;
let pkgDir = null; // the installed package, in the scratch project's node_modules
let pkg = null; // its package.json
let core = null; // the repository's own core, for the reference numbers
let browser = null;
let files = null; // serves the scratch project (the package's files), with CORS
let host = null; // the pages that use it, on another origin
const hostPages = { '/favicon.ico': { body: '', type: 'image/x-icon' } }; // the test pages
const hostLog = []; // the paths the host's server was asked for

const SENTENCE = '小猫吃鱼，它很开心';
const EN = 'The animal did not cross the street because it was too tired.';

before(async () => {
  assert.ok(
    fs.existsSync(path.join(distDir, 'site/lib/core.mjs')),
    'dist/site/lib is missing: run scripts/build dist',
  );
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-package-'));
  const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', tmp], root));
  tarball = path.join(tmp, packed[0].filename);
  const app = path.join(tmp, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(
    path.join(app, 'package.json'),
    JSON.stringify({ name: 'scratch', private: true, type: 'module' }),
  );
  run('npm', ['install', tarball, '--offline', '--no-audit', '--no-fund'], app);
  pkgDir = path.join(app, 'node_modules/attention-playground');
  pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  core = await loadCoreNode(path.join(webDir, 'wasm'));
  files = await startServer({
    dir: app,
    csp: '',
    cors: true,
    log: [],
  });
  fs.mkdirSync(path.join(tmp, 'host'));
  host = await startServer({
    dir: path.join(tmp, 'host'),
    csp: '',
    routes: hostPages,
    log: hostLog,
  });
  browser = await launch();
});

after(async () => {
  if (browser) await browser.close();
  for (const s of [files, host]) if (s) await new Promise((r) => s.server.close(r));
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

// the URL of a file of the installed package, on the files' origin
const fileUrl = (file) =>
  new URL(`node_modules/attention-playground/${file.replace(/^\.\//, '')}`, files.base).href;
// the URL of an export of the installed package (its browser condition)
const exportUrl = (key) => {
  const e = pkg.exports[key];
  return fileUrl(typeof e === 'string' ? e : e.default);
};

// every head's weights, as rows of plain numbers
const weightsOf = (trace) =>
  trace.heads.map((h) =>
    Array.from({ length: h.weights.rows }, (_, i) =>
      Array.from(h.weights.data.subarray(i * h.weights.cols, (i + 1) * h.weights.cols)),
    ),
  );

async function openHostPage(name, html) {
  hostPages[`/${name}`] = { body: html };
  const page = await browser.newPage();
  const errors = collectErrors(page);
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`${host.base}${name}`);
  return { page, errors, requests };
}

// the WebAssembly came from the package's files, never from the host page's origin
function assertWasmFromPackage(requests) {
  const wasm = requests.filter((u) => u.endsWith('.wasm'));
  for (const u of wasm) assert.ok(u.startsWith(files.base), `wasm from ${u}`);
  assert.deepEqual(
    hostLog.filter((p) => /wasm|\.mjs$/.test(p)),
    [],
    'nothing of the package is asked from the host page',
  );
  return wasm;
}

test('npm pack: a publishable package that publint and arethetypeswrong accept', () => {
  assert.equal(pkg.private, undefined, 'not private');
  assert.match(pkg.version, /^\d+\.\d+\.\d+(-[\w.]+)?$/);
  const own = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  assert.equal(pkg.version, own.version);
  for (const f of ['LICENSE', 'THIRD_PARTY_NOTICES', 'README.md', 'dist/custom-elements.json'])
    assert.ok(fs.existsSync(path.join(pkgDir, f)), `${f} is in the package`);
  // nothing of the sources, tests or build trees
  for (const d of ['src', 'tests', 'build', 'web', 'scripts', 'node_modules'])
    assert.ok(!fs.existsSync(path.join(pkgDir, d)), `${d}/ is not in the package`);
  const size = fs.statSync(tarball).size;
  console.log(`package: ${path.basename(tarball)} ${(size / 1024).toFixed(0)} KB packed`);
  // both tools exit non-zero on an error; publint reports warnings as errors here too
  run(bin('publint'), ['run', pkgDir, '--pack', 'false', '--strict'], root);
  // ESM only: no require() entry, so the CommonJS-only resolutions are out of scope
  run(bin('attw'), [tarball, '--profile', 'esm-only', '--no-emoji', '--no-color'], root);
});

test('the core API in Node, imported by the package name: the core’s numbers', async () => {
  const script = path.join(tmp, 'app', 'use.mjs');
  fs.writeFileSync(
    script,
    "import { loadCore, VERSION } from 'attention-playground';\n" +
      'const core = await loadCore();\n' +
      'const r = core.trace(process.argv[2], JSON.parse(process.argv[3]));\n' +
      'const w = r.heads.map((h) => Array.from({ length: h.weights.rows }, (_, i) =>\n' +
      '  Array.from(h.weights.data.subarray(i * h.weights.cols, (i + 1) * h.weights.cols))));\n' +
      'console.log(JSON.stringify({ version: VERSION, tokens: r.tokens, weights: w }));\n',
  );
  for (const [text, settings] of [
    [SENTENCE, {}],
    [EN, { model: 'random', seed: '7', heads: 4, causal: true }],
  ]) {
    const out = JSON.parse(
      run(process.execPath, [script, text, JSON.stringify(settings)], path.join(tmp, 'app')),
    );
    const ref = core.trace(text, settings);
    assert.equal(out.version, pkg.version);
    assert.deepEqual(out.tokens, ref.tokens);
    assert.deepEqual(out.weights, weightsOf(ref));
  }
});

test('the custom element from a <script> on another origin', async () => {
  const { page, errors, requests } = await openHostPage(
    'element.html',
    `<!doctype html><meta charset="utf-8"><title>element</title>
<script src="${fileUrl(pkg.unpkg)}"></script>
<attention-playground sentence="${SENTENCE}" step="7" lang="zh"></attention-playground>`,
  );
  await page
    .waitForSelector('attention-playground[data-ready="1"]', { timeout: 30000 })
    .catch((e) => assert.fail(`${e.message}\n${errors.join('\n')}`));
  const shown = await page.$eval('attention-playground', (el) => el.trace);
  assert.deepEqual(shown.tokens, core.trace(SENTENCE).tokens);
  assert.deepEqual(
    shown.heads,
    weightsOf(core.trace(SENTENCE)).map((weights) => ({ weights })),
  );
  // its links go to the package's site, not to the host page
  const licence = await page.$eval(
    'attention-playground',
    (el) => el.shadowRoot.querySelector('a[href$="LICENSE.txt"]')?.href,
  );
  assert.ok(licence && licence.startsWith(files.base), `licence link ${licence}`);
  assertWasmFromPackage(requests);
  assert.deepEqual(errors, []);
  await page.close();
});

test('mountPlayground, loadCore and the element as ES modules on another origin (import map from exports)', async () => {
  const importMap = {
    imports: {
      'attention-playground': exportUrl('.'),
      'attention-playground/playground': exportUrl('./playground'),
      'attention-playground/element': exportUrl('./element'),
    },
  };
  const { page, errors, requests } = await openHostPage(
    'modules.html',
    `<!doctype html><meta charset="utf-8"><title>modules</title>
<script type="importmap">${JSON.stringify(importMap)}</script>
<div id="host"></div>
<attention-playground id="el" sentence="${EN}" lang="en" step="3"></attention-playground>
<script type="module">
import { loadCore, VERSION } from 'attention-playground';
import { mountPlayground } from 'attention-playground/playground';
import { AttentionPlayground } from 'attention-playground/element';
window.elementClass = customElements.get('attention-playground') === AttentionPlayground;
const events = [];
const app = await mountPlayground(document.getElementById('host'), {
  state: { s: ${JSON.stringify(SENTENCE)}, step: 7, lang: 'en' },
  onEvent: (type, detail) => events.push({ type, detail }),
});
const core = await loadCore();
const r = core.trace(${JSON.stringify(EN)}, { model: 'random', seed: '7', heads: 4 });
window.result = {
  VERSION,
  tokens: r.tokens,
  weights: r.heads.map((h) => Array.from({ length: h.weights.rows }, (_, i) =>
    Array.from(h.weights.data.subarray(i * h.weights.cols, (i + 1) * h.weights.cols)))),
};
window.app = app;
window.events = events;
</script>`,
  );
  await page
    .waitForFunction(() => window.result && window.events.some((e) => e.type === 'ready'), null, {
      timeout: 30000,
    })
    .catch((e) => assert.fail(`${e.message}\n${errors.join('\n')}`));
  const result = await page.evaluate(() => window.result);
  const ref = core.trace(EN, { model: 'random', seed: '7', heads: 4 });
  assert.equal(result.VERSION, pkg.version);
  assert.deepEqual(result.tokens, ref.tokens);
  assert.deepEqual(result.weights, weightsOf(ref));
  // the mounted playground shows the core's weights, at the softmax step, in its host
  const ready = await page.evaluate(() => window.events.find((e) => e.type === 'ready').detail);
  assert.deepEqual(ready, { step: 7, stage: 'softmax', appVersion: pkg.version });
  const snap = await page.evaluate(() => window.app.traceSnapshot());
  assert.deepEqual(
    snap.heads,
    weightsOf(core.trace(SENTENCE)).map((weights) => ({ weights })),
  );
  assert.equal(await page.$eval('#host', (h) => h.dataset.stage), 'softmax');
  assert.ok(await page.$eval('#host', (h) => !!h.shadowRoot.querySelector('#stage-body table')));
  // the element as an ES module: defined by the import, the core's numbers, at the step it was given
  assert.equal(await page.evaluate(() => window.elementClass), true);
  await page.waitForSelector('#el[data-ready="1"]', { timeout: 30000 });
  assert.equal(await page.getAttribute('#el', 'data-stage'), 'project');
  const el = await page.$eval('#el', (e) => e.trace);
  assert.deepEqual(
    el.heads,
    weightsOf(core.trace(EN)).map((weights) => ({ weights })),
  );
  assertWasmFromPackage(requests);
  assert.deepEqual(errors, []);
  await page.close();
});

test('TypeScript: a consumer compiles against the declarations, and misuse does not', () => {
  const app = path.join(tmp, 'app');
  fs.writeFileSync(
    path.join(app, 'use.ts'),
    `import { loadCore, VERSION, CoreError, type Trace } from 'attention-playground';
import { mountPlayground } from 'attention-playground/playground';
import 'attention-playground/element';

const core = await loadCore();
const t: Trace = core.trace('小猫吃鱼', { heads: 2, seed: '42' });
const first: number = t.heads[0].weights.data[0];
const rows: number = t.heads[0].weights.rows;
const v: string = VERSION;
try { core.trace('x'); } catch (e) { if (e instanceof CoreError) console.log(e.code); }

const el = document.querySelector('attention-playground');
el?.addEventListener('ready', (e) => console.log(e.detail.appVersion, e.detail.step));
el?.addEventListener('change', (e) => console.log(e.detail.state.s, e.detail.state.step));
el?.addEventListener('error', (e) => console.log(e.detail.code, e.detail.message));
const w: number[][] | undefined = el?.trace?.heads[0].weights;
el?.setOptions({ step: 7, causal: true });

const p = await mountPlayground(document.createElement('div'), {
  state: { s: 'hi', step: 3 },
  onEvent: (type, detail) => console.log(type, detail),
});
p.goToStep(2);
// @ts-expect-error: ready's detail has no such field
el?.addEventListener('ready', (e) => e.detail.nope);
// @ts-expect-error: trace takes text first
core.trace(42);
// @ts-expect-error: the element has no setter for trace
if (el) el.trace = null;
console.log(first, rows, v, w);
export {};
`,
  );
  fs.writeFileSync(
    path.join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        target: 'es2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        lib: ['es2022', 'dom'],
        types: [],
      },
      files: ['use.ts'],
    }),
  );
  try {
    run(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', app], app);
  } catch (e) {
    assert.fail(`tsc: ${e.stdout}${e.stderr}`);
  }
});

test('the element manifest follows its schema, and it, the declarations and the state table agree', async () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(pkgDir, pkg.customElements), 'utf8'));
  // the schema's own TypeScript types (custom-elements-manifest's schema.d.ts) check its shape:
  // every kind, field and type, and no field the schema does not have
  const check = path.join(tmp, 'manifest');
  fs.mkdirSync(check);
  const schema = path.join(root, 'node_modules/custom-elements-manifest/schema.js');
  fs.writeFileSync(
    path.join(check, 'manifest.ts'),
    `import type { Package } from ${JSON.stringify(schema)};\n` +
      `export const manifest: Package = ${JSON.stringify(manifest, null, 2)};\n`,
  );
  try {
    run(
      process.execPath,
      [
        path.join(root, 'node_modules/typescript/bin/tsc'),
        '--noEmit',
        '--strict',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        path.join(check, 'manifest.ts'),
      ],
      check,
    );
  } catch (e) {
    assert.fail(`the manifest does not follow the schema: ${e.stdout}${e.stderr}`);
  }
  assert.equal(manifest.schemaVersion, '2.1.0');
  for (const m of manifest.modules) assert.ok(fs.existsSync(path.join(pkgDir, m.path)), m.path);
  const decl = manifest.modules[0].declarations[0];
  assert.equal(decl.tagName, 'attention-playground');
  const keys = TABLE.filter((e) => e.name !== 'parent').map((e) =>
    e.name === 's' ? 'sentence' : e.name,
  );
  assert.deepEqual(
    decl.attributes.map((a) => a.name),
    [...keys, 'page-url'],
  );
  const dts = fs.readFileSync(path.join(pkgDir, 'types/element.d.ts'), 'utf8');
  const block = (name) => dts.slice(dts.indexOf(`interface ${name}`)).split('\n}')[0];
  const fields = (name) => [...block(name).matchAll(/^ {2}'?([\w-]+)'?: /gm)].map((m) => m[1]);
  assert.deepEqual(
    fields('AttentionPlaygroundEventDetails'),
    decl.events.map((e) => e.name),
  );
  assert.deepEqual(
    fields('PlaygroundState'),
    TABLE.filter((e) => e.name !== 'parent').map((e) => e.name),
  );
  assert.ok(decl.members.some((m) => m.name === 'trace' && m.readonly));
  assert.match(dts, /'attention-playground': AttentionPlayground;/);
  // the declared Core has core.js's methods (live() is its own helper)
  const index = fs.readFileSync(path.join(pkgDir, pkg.types), 'utf8');
  const coreBlock = index.slice(index.indexOf('export class Core {')).split('\n}')[0];
  assert.deepEqual(
    [...coreBlock.matchAll(/^ {2}(\w+)\(/gm)].map((m) => m[1]).sort(),
    Object.getOwnPropertyNames(Core.prototype)
      .filter((n) => n !== 'live')
      .sort(),
  );
});
