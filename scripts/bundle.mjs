#!/usr/bin/env node
// bundle.mjs: makes dist/ from web/ and the WebAssembly build in web/wasm/ (scripts/build calls it).
//   dist/site/                       the hosted page: one ES-module bundle (no strings: each
//                                    language's in locales/), one CSS file, split wasm
//   dist/attention-playground.html   one self-contained file (inline wasm, script, styles): file://
//   dist/embed/attention-playground.js   <attention-playground> custom element (inline wasm)
//   dist/examples/                   examples/*.html copied, examples/*.md rendered with marked
//   dist/site/lib/, dist/custom-elements.json   the npm package's ES modules and the element's
//                                    manifest (scripts/bundle-package.mjs)
// Every built file that holds code carries the licence notice as its first comment (LEGAL; the
// esbuild output itself keeps no legal comments), and LICENSE.txt and THIRD_PARTY_NOTICES.txt sit
// next to each page (the footer links to them).
// It rewrites no code by hand: esbuild bundles the page's ES modules; the markup, styles and
// strings the bundles need are handed over as constants (AP_SHELL, AP_CSS, AP_LOCALES).
import fs from 'node:fs';
import zlib from 'node:zlib';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { marked } from 'marked';
import { bundlePackage } from './bundle-package.mjs';
import { LANGS, LATER_KEYS, LATER_PART, LATER_PART_KEY, localePath } from '../web/lang.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const web = path.join(root, 'web');
const dist = path.join(root, 'dist');
const read = (...p) => fs.readFileSync(path.join(...p), 'utf8');
const write = (file, text) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};

for (const f of [
  'attention.js',
  'attention.wasm',
  'attention-full.js',
  'attention-full.wasm',
  'attention-real.js',
  'attention-real.wasm',
]) {
  if (!fs.existsSync(path.join(web, 'wasm', f)))
    throw new Error(`web/wasm/${f} is missing: run scripts/build wasm first`);
}
// the module compiles in the core, the lexicon and the shipped model: a source changed after it
// was built would ship unseen (scripts/build dist bundles, it does not compile)
{
  const built = fs.statSync(path.join(web, 'wasm', 'attention.wasm')).mtimeMs;
  const newer = (dir) =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const f = path.join(dir, e.name);
      if (e.isDirectory()) return newer(f);
      return fs.statSync(f).mtimeMs > built ? [path.relative(root, f)] : [];
    });
  const stale = ['src/core', 'src/wasm', 'src/data/models', 'src/data/lexicon.tsv'].flatMap((p) => {
    const f = path.join(root, p);
    if (!fs.existsSync(f)) return [];
    if (fs.statSync(f).isDirectory()) return newer(f);
    return fs.statSync(f).mtimeMs > built ? [p] : [];
  });
  if (stale.length)
    throw new Error(
      `web/wasm is older than ${stale.slice(0, 3).join(', ')}${stale.length > 3 ? ` and ${stale.length - 3} more` : ''}: run scripts/build wasm first`,
    );
}

// ---- what the bundles share ----

// The Emscripten glue of a module, minified: without a closure compiler (Debian's Emscripten has
// none) it is left readable, and readable glue is a larger download.
const GLUE = new Set([
  'wasm/attention.js',
  'wasm/attention-train.js',
  'wasm/attention-full.js',
  'wasm/attention-real.js',
]);
const glueText = (f) =>
  esbuild.transformSync(read(web, f), { minify: true, legalComments: 'none' }).code;

const { VERSION } = await import(pathToFileURL(path.join(web, 'wasm', 'core-facts.mjs')).href);
// The notice every built file opens with (THIRD_PARTY_NOTICES lists the rest in full).
const LEGAL =
  `Attention Playground ${VERSION} | MIT licence | (c) Attention Playground contributors\n` +
  'Includes: Eigen (MPL-2.0, source at https://gitlab.com/libeigen/eigen), the Emscripten\n' +
  'runtime (MIT), musl libc (MIT), LLVM libc++/libc++abi/compiler-rt (Apache-2.0 WITH\n' +
  'LLVM-exception), dlmalloc (public domain). Full texts: LICENSE.txt, THIRD_PARTY_NOTICES.txt.';
const jsBanner = `/*! ${LEGAL.replace(/\*\//g, '* /')} */\n`;
const htmlBanner = `<!--\n${LEGAL}\n-->\n`;
const licenceFiles = (dir) => {
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(path.join(root, 'LICENSE'), path.join(dir, 'LICENSE.txt'));
  fs.copyFileSync(
    path.join(root, 'THIRD_PARTY_NOTICES'),
    path.join(dir, 'THIRD_PARTY_NOTICES.txt'),
  );
};

const locales = Object.fromEntries(
  LANGS.map((lang) => [lang, JSON.parse(read(web, localePath(lang)))]),
);
const rawCss =
  read(web, 'style.css') + '\n' + read(web, 'panels.css') + '\n' + read(web, 'train.css');
const css = (await esbuild.transform(rawCss, { loader: 'css', minify: true })).code;
// in a shadow root there is no :root or body: the host and the wrapper div stand in for them
const shadowCss =
  ':host{display:block}' +
  css.replace(/:root/g, ':host').replace(/(^|[\s,{}>])body(?=[\s,{.:[>])/g, '$1.ap-body');
const html = read(web, 'index.html');
const body = html
  .slice(html.indexOf('<body>') + 6, html.indexOf('</body>'))
  .replace(/<a class="skip"[^]*?<\/a>\n?/, '');
// The Emscripten glue with the wasm inline (base64), kept off any AMD/CommonJS loader of the host
// page (Jupyter has RequireJS). Not Emscripten's SINGLE_FILE output: its glue first tries
// fetch('data:...'), which a strict CSP reports as a violation; handing it wasmBinary skips that.
// The wasm is gzipped before base64 (a third smaller than base64 of the raw wasm) and
// inflated in the browser with DecompressionStream: no network, no eval, nothing a CSP forbids.
// It is attention-full: the page's module with the trainer, so the single file and the element
// can train with no training files beside them (the hosted page's module has no trainer).
const wasmBase64 = zlib
  .gzipSync(fs.readFileSync(path.join(web, 'wasm', 'attention-full.wasm')), { level: 9 })
  .toString('base64');
const glue = () =>
  `(function(){var exports, module, define;\n${glueText('wasm/attention-full.js')}\n` +
  `var wasm = "${wasmBase64}";\n` +
  'var make = createAttentionModule;\n' +
  'function inflate() {\n' +
  '  var gz = Uint8Array.from(atob(wasm), function (c) { return c.charCodeAt(0); });\n' +
  "  var stream = new Blob([gz]).stream().pipeThrough(new DecompressionStream('gzip'));\n" +
  '  return new Response(stream).arrayBuffer().then(function (b) { return new Uint8Array(b); });\n' +
  '}\n' +
  'globalThis.createAttentionModule = globalThis.createAttentionModule || function (o) {\n' +
  '  return inflate().then(function (bin) { return make(Object.assign({ wasmBinary: bin }, o)); });\n' +
  '};})();\n';

async function bundle(entry, format, defines) {
  const out = await esbuild.build({
    entryPoints: [path.join(web, entry)],
    bundle: true,
    write: false,
    format,
    minify: true,
    target: 'es2022',
    legalComments: 'none',
    logLevel: 'error',
    logOverride: { 'empty-import-meta': 'silent' }, // embed/element.js: empty in the classic bundle
    external: ['node:*'], // loadCoreNode's imports: only ever reached in Node
    define: Object.fromEntries(Object.entries(defines).map(([k, v]) => [k, JSON.stringify(v)])),
  });
  return out.outputFiles[0].text;
}

fs.rmSync(dist, { recursive: true, force: true });

// ---- dist/embed: the custom element ----

// It trains with the hosted page's train-worker.js and wasm/ (AP_TRAIN_BASE, relative to the
// element's script): dist/site/ from dist/embed/, the site itself from dist/site/embed/.
const element = async (trainBase) =>
  jsBanner +
  glue() +
  (await bundle('embed/element.js', 'iife', {
    AP_BUNDLE: 'embed',
    AP_LOCALES: locales,
    AP_SHELL: body,
    AP_CSS: shadowCss,
    AP_TRAIN_BASE: trainBase,
  }));
write(path.join(dist, 'embed/attention-playground.js'), await element('../site/'));

// ---- dist/site: the hosted page ----

const site = path.join(dist, 'site');
// No strings in the script (no AP_LOCALES): the page fetches the shown language's locale file
// beside the wasm module, and another one when the learner picks it (web/strings.js, main.js),
// so a visitor downloads one language, not every one.
// Split: what the page loads only when a learner opens it (the stages' pictures, imported with
// import()) goes to chunks/, fetched then; app.js is what the first trace needs.
const siteOut = await esbuild.build({
  entryPoints: { app: path.join(web, 'main.js') },
  bundle: true,
  write: false,
  format: 'esm',
  splitting: true,
  outdir: site,
  chunkNames: 'chunks/[name]-[hash]',
  minify: true,
  target: 'es2022',
  legalComments: 'none',
  logLevel: 'error',
  external: ['node:*'],
  define: { AP_BUNDLE: JSON.stringify('site') },
  metafile: true,
});
for (const f of siteOut.outputFiles) write(f.path, jsBanner + f.text);
// app.js's static imports, and theirs: index.html names them (modulepreload) so the browser
// fetches them beside app.js instead of one round trip after it has parsed app.js
const staticChunks = (() => {
  const outputs = siteOut.metafile.outputs;
  const rel = (p) => path.relative(site, path.resolve(p)).split(path.sep).join('/');
  const key = Object.keys(outputs).find((k) => rel(k) === 'app.js');
  const seen = new Set();
  const walk = (k) => {
    for (const i of outputs[k].imports)
      if (i.kind === 'import-statement' && !seen.has(i.path)) {
        seen.add(i.path);
        walk(i.path);
      }
  };
  walk(key);
  return [...seen].map(rel).sort();
})();
// the hosted page fetches each language in two parts: the later part with the first view that
// needs it (lang.js LATER_KEYS)
for (const [lang, strings] of Object.entries(locales)) {
  const first = { [LATER_PART_KEY]: LATER_PART };
  const later = {};
  for (const [key, s] of Object.entries(strings)) (LATER_KEYS.test(key) ? later : first)[key] = s;
  write(path.join(site, localePath(lang)), JSON.stringify(first));
  write(path.join(site, localePath(lang, LATER_PART)), JSON.stringify(later));
}
licenceFiles(site);
write(path.join(site, 'app.css'), css);
// the glue is a deferred classic script, so it downloads beside app.js and runs before it
write(
  path.join(site, 'index.html'),
  html
    .replace('<!doctype html>\n', () => `<!doctype html>\n${htmlBanner}`)
    .replace(
      /<link rel="stylesheet" href="style.css">\n<link rel="stylesheet" href="panels.css">\n<link rel="stylesheet" href="train.css">/,
      '<link rel="stylesheet" href="app.css">',
    )
    .replace(
      '<script type="module" src="main.js"></script>',
      '<link rel="preload" href="wasm/attention.wasm" as="fetch" type="application/wasm" crossorigin>\n' +
        '<script src="wasm/attention.js" defer></script>\n<script type="module" src="app.js"></script>\n' +
        staticChunks.map((c) => `<link rel="modulepreload" href="${c}">`).join('\n'),
    )
    // opened from disk, the page hands over to the single file (web/from-disk.js)
    .replace('</head>', '<script src="from-disk.js"></script>\n</head>'),
);
// copied as they are, but a script opens with the legal comment like every built script, and
// the Emscripten glue is minified (glueText)
const ship = (f) => {
  const to = path.join(site, f);
  if (GLUE.has(f)) write(to, jsBanner + glueText(f));
  else if (f.endsWith('.js')) write(to, jsBanner + read(web, f));
  else {
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(path.join(web, f), to);
  }
};
for (const f of ['wasm/attention.js', 'wasm/attention.wasm', 'favicon.svg', 'from-disk.js'])
  ship(f);
// training (the Train panel's worker): only fetched when the learner presses Train
for (const f of [
  'train-worker.js',
  'wasm/attention-train.js',
  'wasm/attention-train.wasm',
  'wasm/corpus-train.tsv',
])
  ship(f);
// a real model (web/real-model.js): only fetched when the learner loads one
for (const f of ['wasm/attention-real.js', 'wasm/attention-real.wasm']) ship(f);
write(path.join(site, 'embed/attention-playground.js'), await element('../'));
// the npm package's ES modules (dist/site/lib/) and the element's manifest (scripts/bundle-package.mjs)
await bundlePackage({
  web,
  dist,
  banner: jsBanner,
  define: {
    AP_BUNDLE: 'module',
    AP_LOCALES: locales,
    AP_SHELL: body,
    AP_CSS: shadowCss,
    AP_TRAIN_BASE: '../',
  },
});

// ---- dist/attention-playground.html: one file ----

const favicon = `data:image/svg+xml;base64,${fs.readFileSync(path.join(web, 'favicon.svg')).toString('base64')}`;
// The single file has no files beside it to fetch the corpus from: it carries every
// CORPUS_EVERY-th sentence of it (with its header), as many as its size budget allows.
const CORPUS_EVERY = 75;
const corpusLines = read(web, 'wasm', 'corpus-train.tsv').split('\n');
let sentence = 0;
const corpusSample = corpusLines
  .filter((l) => l.startsWith('#') || (l !== '' && sentence++ % CORPUS_EVERY === 0))
  .join('\n');
const singleApp = await bundle('main.js', 'iife', {
  AP_BUNDLE: 'single',
  AP_LOCALES: locales,
  AP_TRAIN_CORPUS: corpusSample,
  AP_TRAIN_WORKER: read(web, 'train-worker.js'),
});
// The code (glue with its wasm, then the app with both locales) is gzipped and base64'd once more
// and unpacked by a small inline script into two inline <script>s, to keep the single file under
// its size budget. No network and no eval: the unpacked text runs as an inline script, which
// file:// allows; the hosted page and the element keep plain scripts for a strict CSP.
// The glue and the app are two scripts: the app makes its training worker from the glue's text
// (#ap-glue) and its copy of train-worker.js.
const SPLIT = '\n/* app */\n';
const packed = zlib
  .gzipSync(Buffer.from(`${glue()}${SPLIT}${singleApp}`), { level: 9 })
  .toString('base64');
// first, the browser check (web/single-check.js, with only the support.* strings): a browser that
// lacks what the page needs says so in its language, and the unpacker stops
const supportStrings = Object.fromEntries(
  Object.entries(locales).map(([lang, strings]) => [
    lang,
    Object.fromEntries(Object.entries(strings).filter(([k]) => k.startsWith('support.'))),
  ]),
);
const singleCheck = await bundle('single-check.js', 'iife', { AP_LOCALES: supportStrings });
const unpack =
  '(function () {\n' +
  "  if (document.documentElement.hasAttribute('data-unsupported')) return;\n" +
  `  var packed = "${packed}";\n` +
  '  var gz = Uint8Array.from(atob(packed), function (c) { return c.charCodeAt(0); });\n' +
  "  var stream = new Blob([gz]).stream().pipeThrough(new DecompressionStream('gzip'));\n" +
  '  new Response(stream).text().then(function (code) {\n' +
  `    var at = code.indexOf(${JSON.stringify(SPLIT)});\n` +
  "    var glue = document.createElement('script');\n" +
  "    glue.id = 'ap-glue';\n" +
  '    glue.textContent = code.slice(0, at);\n' +
  "    var app = document.createElement('script');\n" +
  `    app.textContent = code.slice(at + ${SPLIT.length});\n` +
  '    document.body.append(glue, app);\n' +
  '  }).catch(function (e) {\n' +
  "    var box = document.getElementById('boot-error');\n" +
  '    box.hidden = false;\n' +
  "    box.textContent = (box.dataset.prefix || 'The page could not start:') + ' ' + e;\n" +
  '  });\n' +
  '})();\n';
const single = html
  .replace('<!doctype html>\n', () => `<!doctype html>\n${htmlBanner}`)
  .replace('href="favicon.svg"', `href="${favicon}"`)
  .replace(
    /<link rel="stylesheet" href="style.css">\n<link rel="stylesheet" href="panels.css">\n<link rel="stylesheet" href="train.css">/,
    () => `<style>${css}</style>`,
  )
  .replace('<script type="module" src="main.js"></script>', '')
  .replace('</body>', () => `<script>${singleCheck}</script>\n<script>${unpack}</script>\n</body>`);
write(path.join(dist, 'attention-playground.html'), single);
licenceFiles(dist);

// ---- dist/examples ----

const examples = path.join(root, 'examples');
if (fs.existsSync(examples)) {
  fs.mkdirSync(path.join(dist, 'examples'), { recursive: true });
  const template = fs.existsSync(path.join(examples, 'page.template.html'))
    ? read(examples, 'page.template.html')
    : null;
  for (const f of fs.readdirSync(examples)) {
    const from = path.join(examples, f);
    if (f === 'page.template.html' || !fs.statSync(from).isFile()) continue;
    if (f.endsWith('.md') && template) {
      const md = read(from);
      const title = (md.match(/^# (.+)$/m) || [null, f])[1];
      write(
        path.join(dist, 'examples', f.replace(/\.md$/, '.html')),
        template.replace('{{title}}', () => title).replace('{{content}}', () => marked.parse(md)),
      );
    } else {
      fs.copyFileSync(from, path.join(dist, 'examples', f));
    }
  }
}

const kb = (f) => `${(fs.statSync(path.join(dist, f)).size / 1024).toFixed(0)} KB`;
console.log(
  `bundle: dist/site, dist/attention-playground.html (${kb('attention-playground.html')}), ` +
    `dist/embed/attention-playground.js (${kb('embed/attention-playground.js')})`,
);
