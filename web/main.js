// main.js: the page's entry. Loads the module, mounts one playground on index.html's markup and,
// when the page is inside an iframe, speaks the embedding protocol (embed/frame.js).
// The wiring itself (state -> core -> views) is playground.js; the custom element is embed/element.js.
import { loadModule, CoreError } from './core.js';
import { translatorFor } from './strings.js';
import { mountPlayground } from './playground.js';
import { parse } from './state.js';
import { connectParent } from './embed/frame.js';
import { unsupportedMessage, bootFailedMessage } from './support.js';

/* global AP_BUNDLE, AP_TRAIN_CORPUS, AP_TRAIN_WORKER */
// The single-file build has the module inline (no ./wasm/ next to it) and no import.meta.
const bundle = typeof AP_BUNDLE === 'undefined' ? 'dev' : AP_BUNDLE;
// Training: the hosted page has train-worker.js and wasm/ beside it. The single file has no files
// beside it: it carries a sample of the corpus and train-worker.js's text (scripts/bundle.mjs),
// and its worker is made of the module's glue (the inline script #ap-glue) and that text.
const training = (pageUrl) =>
  bundle === 'single'
    ? {
        corpus: AP_TRAIN_CORPUS,
        workerSource: () =>
          `${document.getElementById('ap-glue')?.textContent}\n${AP_TRAIN_WORKER}`,
      }
    : { base: new URL('./', pageUrl).href };

// frame: the parent window's side of the protocol (null outside an iframe)
async function boot(frame) {
  const kind = bundle === 'single' ? 'single' : 'page';
  const unsupported = await unsupportedMessage(kind, location.search, translatorFor);
  if (unsupported) throw new CoreError('unsupported', unsupported);
  const base = bundle === 'single' ? './' : new URL('./wasm/', import.meta.url).href;
  const module = await loadModule({ base });
  const pageUrl = location.href.split(/[?#]/)[0];
  const app = await mountPlayground(document, {
    module,
    translatorFor,
    host: document.body,
    search: location.search,
    languages: navigator.languages,
    url: true,
    keyTarget: document,
    pageUrl,
    embedScriptUrl: new URL('embed/attention-playground.js', pageUrl).href,
    training: training(pageUrl),
    onEvent: (type, detail) => frame && frame.send(type, detail),
  });
  if (frame) frame.attach(app);
}

function start() {
  const frame =
    window.parent !== window ? connectParent(window, parse(location.search).state.parent) : null;
  boot(frame).catch(async (e) => {
    const message = e && e.message ? e.message : String(e);
    const code = (e && e.code) || 'boot_failed';
    if (frame) frame.send('error', { code, message });
    const box = document.getElementById('boot-error');
    box.hidden = false;
    box.textContent =
      code === 'unsupported'
        ? message
        : await bootFailedMessage(message, location.search, translatorFor);
    throw e;
  });
}

start();
