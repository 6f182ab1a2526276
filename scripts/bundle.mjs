#!/usr/bin/env node
// bundle.mjs: makes dist/ from web/ and the WebAssembly build in web/wasm/ (scripts/build calls it).
//   dist/site/                       the hosted page: one ES-module bundle, one CSS file, split wasm
//   dist/attention-playground.html   one self-contained file (inline wasm, script, styles): file://
//   dist/embed/attention-playground.js   <attention-playground> custom element (inline wasm)
//   dist/examples/                   examples/*.html copied, examples/*.md rendered with marked
// It rewrites no code by hand: esbuild bundles the page's ES modules; the markup, styles and
// strings the bundles need are handed over as constants (AP_SHELL, AP_CSS, AP_LOCALES).
import fs from 'node:fs';
import zlib from 'node:zlib';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { marked } from 'marked';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const web = path.join(root, 'web');
const dist = path.join(root, 'dist');
const read = (...p) => fs.readFileSync(path.join(...p), 'utf8');
const write = (file, text) => { fs.mkdirSync(path.dirname(file), { recursive: true }); fs.writeFileSync(file, text); };

for (const f of ['attention.js', 'attention.wasm']) {
  if (!fs.existsSync(path.join(web, 'wasm', f))) throw new Error(`web/wasm/${f} is missing: run scripts/build wasm first`);
}

// ---- what the bundles share ----

const locales = {};
for (const f of fs.readdirSync(path.join(web, 'locales'))) {
  if (f.endsWith('.json')) locales[f.slice(0, -5)] = JSON.parse(read(web, 'locales', f));
}
const rawCss = read(web, 'style.css') + '\n' + read(web, 'panels.css') + '\n' + read(web, 'train.css');
const css = (await esbuild.transform(rawCss, { loader: 'css', minify: true })).code;
// in a shadow root there is no :root or body: the host and the wrapper div stand in for them
const shadowCss = ':host{display:block}' + css.replace(/:root/g, ':host')
  .replace(/(^|[\s,{}>])body(?=[\s,{.:[>])/g, '$1.ap-body');
const html = read(web, 'index.html');
const body = html.slice(html.indexOf('<body>') + 6, html.indexOf('</body>'))
  .replace(/<a class="skip"[^]*?<\/a>\n?/, '');
// The Emscripten glue with the wasm inline (base64), kept off any AMD/CommonJS loader of the host
// page (Jupyter has RequireJS). Not Emscripten's SINGLE_FILE output: its glue first tries
// fetch('data:...'), which a strict CSP reports as a violation; handing it wasmBinary skips that.
// The wasm is gzipped before base64 (338 KB of wasm becomes 222 KB of text instead of 451 KB) and
// inflated in the browser with DecompressionStream: no network, no eval, nothing a CSP forbids.
const wasmBase64 = zlib.gzipSync(fs.readFileSync(path.join(web, 'wasm', 'attention.wasm')), { level: 9 })
  .toString('base64');
const glue = () => `(function(){var exports, module, define;\n${read(web, 'wasm', 'attention.js')}\n` +
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
// an inline <script> ends at the first "</script": never let the code contain one
const inlineSafe = (js) => js.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');

async function bundle(entry, format, defines) {
  const out = await esbuild.build({
    entryPoints: [path.join(web, entry)], bundle: true, write: false, format, minify: true,
    target: 'es2022', legalComments: 'none', logLevel: 'error',
    external: ['node:*'],   // loadCoreNode's imports: only ever reached in Node
    define: Object.fromEntries(Object.entries(defines).map(([k, v]) => [k, JSON.stringify(v)])),
  });
  return out.outputFiles[0].text;
}

fs.rmSync(dist, { recursive: true, force: true });

// ---- dist/embed: the custom element ----

const element = glue() +
  await bundle('embed/element.js', 'iife', { AP_BUNDLE: 'embed', AP_LOCALES: locales, AP_SHELL: body, AP_CSS: shadowCss });
write(path.join(dist, 'embed/attention-playground.js'), element);

// ---- dist/site: the hosted page ----

const site = path.join(dist, 'site');
write(path.join(site, 'app.js'), await bundle('main.js', 'esm', { AP_BUNDLE: 'site', AP_LOCALES: locales }));
write(path.join(site, 'app.css'), css);
// the glue is a deferred classic script, so it downloads beside app.js and runs before it
write(path.join(site, 'index.html'), html
  .replace(/<link rel="stylesheet" href="style.css">\n<link rel="stylesheet" href="panels.css">\n<link rel="stylesheet" href="train.css">/, '<link rel="stylesheet" href="app.css">')
  .replace('<script type="module" src="main.js"></script>',
    '<link rel="preload" href="wasm/attention.wasm" as="fetch" type="application/wasm" crossorigin>\n' +
    '<script src="wasm/attention.js" defer></script>\n<script type="module" src="app.js"></script>'));
for (const f of ['attention.js', 'attention.wasm']) {
  fs.mkdirSync(path.join(site, 'wasm'), { recursive: true });
  fs.copyFileSync(path.join(web, 'wasm', f), path.join(site, 'wasm', f));
}
fs.copyFileSync(path.join(web, 'favicon.svg'), path.join(site, 'favicon.svg'));
// training (the Train panel's worker): only fetched when the learner presses Train
for (const f of ['train-worker.js', 'wasm/attention-train.js', 'wasm/attention-train.wasm', 'wasm/corpus-train.tsv']) fs.copyFileSync(path.join(web, f), path.join(site, f));
write(path.join(site, 'embed/attention-playground.js'), element);

// ---- dist/attention-playground.html: one file ----

const favicon = `data:image/svg+xml;base64,${fs.readFileSync(path.join(web, 'favicon.svg')).toString('base64')}`;
const singleApp = await bundle('main.js', 'iife', { AP_BUNDLE: 'single', AP_LOCALES: locales });
const single = html
  .replace('href="favicon.svg"', `href="${favicon}"`)
  .replace(/<link rel="stylesheet" href="style.css">\n<link rel="stylesheet" href="panels.css">\n<link rel="stylesheet" href="train.css">/, () => `<style>${css}</style>`)
  .replace('<script type="module" src="main.js"></script>', '')
  .replace('</body>', () => `<script>${inlineSafe(glue())}</script>\n` +
    `<script>${inlineSafe(singleApp)}</script>\n</body>`);
write(path.join(dist, 'attention-playground.html'), single);

// ---- dist/examples ----

const examples = path.join(root, 'examples');
if (fs.existsSync(examples)) {
  fs.mkdirSync(path.join(dist, 'examples'), { recursive: true });
  const template = fs.existsSync(path.join(examples, 'page.template.html')) ? read(examples, 'page.template.html') : null;
  for (const f of fs.readdirSync(examples)) {
    const from = path.join(examples, f);
    if (f === 'page.template.html' || !fs.statSync(from).isFile()) continue;
    if (f.endsWith('.md') && template) {
      const md = read(from);
      const title = (md.match(/^# (.+)$/m) || [null, f])[1];
      write(path.join(dist, 'examples', f.replace(/\.md$/, '.html')),
        template.replace('{{title}}', () => title).replace('{{content}}', () => marked.parse(md)));
    } else {
      fs.copyFileSync(from, path.join(dist, 'examples', f));
    }
  }
}

const kb = (f) => `${(fs.statSync(path.join(dist, f)).size / 1024).toFixed(0)} KB`;
console.log(`bundle: dist/site, dist/attention-playground.html (${kb('attention-playground.html')}), ` +
  `dist/embed/attention-playground.js (${kb('embed/attention-playground.js')})`);
