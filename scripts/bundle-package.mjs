// bundle-package.mjs: what the npm package adds to dist/ (scripts/bundle.mjs calls it; package.json
// "exports" and "files" name the results):
//   dist/site/lib/core.mjs          the core API (loadCore, Core, ...) as an ES module for browsers
//   dist/site/lib/core-node.mjs     the same for Node
//   dist/site/lib/playground.mjs    mountPlayground (a playground in any element's shadow root)
//   dist/site/lib/element.mjs       the custom element as an ES module
//   dist/site/wasm/package.json     says the Emscripten glue is CommonJS (Node requires it)
//   dist/custom-elements.json       the element's manifest (custom-elements-manifest schema 2.1),
//                                   its attributes made from the state table (web/state.js)
// Every module finds the WebAssembly next to itself (../wasm/), never relative to the host page.
// Not a publisher: `npm pack` makes the package; nothing here talks to a registry.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

/** The element's events: name, the type of event.detail (as in types/element.d.ts), when. */
export const EVENTS = [
  {
    name: 'ready',
    detail: '{ step: number; stage: string; appVersion: string }',
    description: 'The first trace is shown; appVersion is the project version.',
  },
  {
    name: 'stepchange',
    detail: '{ step: number; stage: string }',
    description: 'The shown stage changes (step 1 to 9).',
  },
  {
    name: 'change',
    detail: '{ state: PlaygroundState }',
    description:
      'The state changed after ready (text, settings, step, head, followed token, language, theme, hidden parts); once per change.',
  },
  {
    name: 'error',
    detail: '{ code: string; message: string }',
    description:
      'The core refused the input (the widget keeps the last good trace), or the widget could not start (boot_failed, unsupported). Does not bubble.',
  },
  {
    name: 'modelprogress',
    detail: '{ loaded: number; total: number }',
    description:
      'The model named by model-src is downloading: bytes so far and of the total (0 when the server does not say); at most once per MiB, and the last.',
  },
  {
    name: 'modelload',
    detail: '{ address: string; name: string }',
    description: "The model named by model-src is loaded and shown; name is its card's.",
  },
];

// state table types -> TypeScript types of the attributes (as strings, since attributes are)
function attributeType(entry) {
  if (entry.type === 'enum') return entry.values.map((v) => `'${v}'`).join(' | ');
  if (entry.type === 'bool') return 'boolean';
  if (entry.type === 'int' || entry.type === 'number') return 'number';
  return 'string';
}

/** The custom-elements manifest of <attention-playground>. */
export async function elementManifest(web) {
  const { TABLE, outsideName } = await import(pathToFileURL(path.join(web, 'state.js')).href);
  const attributes = TABLE.filter((e) => e.name !== 'parent').map((e) => ({
    name: outsideName(e),
    type: { text: attributeType(e) },
    ...(e.def === null || e.def === '' ? {} : { default: JSON.stringify(e.def) }),
    ...(e.name === 'hide' ? { description: `comma list of: ${e.values.join(', ')}` } : {}),
    ...(e.name === 'model-src'
      ? {
          description:
            'a converted real model (.apm, qkv convert) the element downloads and shows: an http(s) address, relative to the host page or absolute; anything else is refused with a notice. Its host must allow this page (CORS) and the host page must allow it (CSP connect-src): docs/embedding.md',
        }
      : {}),
  }));
  attributes.push({
    name: 'page-url',
    type: { text: 'string' },
    description:
      'the page the share and licence links open: an http(s) address, relative to the host page or absolute; anything else is refused with a notice (default: the site next to the script)',
  });
  const method = (name, params, description) => ({
    kind: 'method',
    name,
    description,
    parameters: params.map(([n, t]) => ({ name: n, type: { text: t } })),
    return: { type: { text: 'void' } },
  });
  const declaration = {
    kind: 'class',
    name: 'AttentionPlayground',
    tagName: 'attention-playground',
    customElement: true,
    superclass: { name: 'HTMLElement' },
    description:
      'Attention Playground: self-attention step by step, with every number from the C++ core (WebAssembly). Attributes are the URL keys.',
    attributes,
    members: [
      {
        kind: 'field',
        name: 'trace',
        readonly: true,
        type: { text: 'PlaygroundTrace | null' },
        description:
          'A copy of what the widget shows: {sentence, tokens, config, heads: [{weights}]}; null before ready.',
      },
      {
        kind: 'field',
        name: 'ready',
        readonly: true,
        type: { text: 'Promise<void>' },
        description: 'Settles when the widget has started (or failed to).',
      },
      method('setSentence', [['sentence', 'string']], 'Shows another sentence.'),
      method('goToStep', [['step', 'number']], 'Goes to a step (1 to 9).'),
      method(
        'setOptions',
        [['options', 'Partial<PlaygroundState>']],
        'Sets several URL keys at once; bad values are ignored or clamped.',
      ),
    ],
    events: EVENTS.map((e) => ({
      name: e.name,
      type: { text: `CustomEvent<${e.detail}>` },
      description: e.description,
    })),
  };
  const module = (p, exportsToo) => ({
    kind: 'javascript-module',
    path: p,
    declarations: [declaration],
    exports: [
      ...(exportsToo
        ? [
            {
              kind: 'js',
              name: 'AttentionPlayground',
              declaration: { name: 'AttentionPlayground' },
            },
          ]
        : []),
      {
        kind: 'custom-element-definition',
        name: 'attention-playground',
        declaration: { name: 'AttentionPlayground' },
      },
    ],
  });
  return {
    schemaVersion: '2.1.0',
    readme: 'README.md',
    modules: [
      module('dist/site/lib/element.mjs', true),
      module('dist/site/embed/attention-playground.js', false),
    ],
  };
}

/** Builds the package's ES modules into dist/site/lib/ and writes the manifest.
 *  opts: {web, dist, banner (the legal comment), define (the bundles' constants)}. */
export async function bundlePackage({ web, dist, banner, define }) {
  const site = path.join(dist, 'site');
  const common = {
    bundle: true,
    format: 'esm',
    minify: true,
    target: 'es2022',
    legalComments: 'none',
    logLevel: 'error',
    banner: { js: banner.trim() },
    outdir: path.join(site, 'lib'),
    outExtension: { '.js': '.mjs' },
    define: Object.fromEntries(Object.entries(define).map(([k, v]) => [k, JSON.stringify(v)])),
  };
  await esbuild.build({
    ...common,
    entryPoints: ['core', 'playground', 'element'].map((n) => ({
      in: path.join(web, 'lib', `${n}.js`),
      out: n,
    })),
    platform: 'browser',
    splitting: true,
    chunkNames: 'chunk-[hash]',
    external: ['node:*'], // core.js's loadCoreNode: only ever reached in Node
  });
  await esbuild.build({
    ...common,
    entryPoints: [{ in: path.join(web, 'lib', 'core-node.js'), out: 'core-node' }],
    platform: 'node',
  });
  fs.copyFileSync(path.join(web, 'wasm', 'package.json'), path.join(site, 'wasm', 'package.json'));
  const manifest = await elementManifest(web);
  fs.writeFileSync(
    path.join(dist, 'custom-elements.json'),
    `${JSON.stringify(manifest, null, 2)}\n`,
  );
}
