// main.js: the page's entry. Loads the module, mounts one playground on index.html's markup and,
// when the page is inside an iframe, speaks the embedding protocol (embed/frame.js).
// The wiring itself (state -> core -> views) is playground.js; the custom element is embed/element.js.
import { loadModule, CoreError } from './core.js';
import { translatorFor, startingTranslator } from './strings.js';
import { mountPlayground } from './playground.js';
import { parse, pickLang } from './state.js';
import { connectParent } from './embed/frame.js';
import { unsupportedMessage, bootFailedMessage } from './support.js';

/* global AP_BUNDLE, AP_TRAIN_CORPUS, AP_TRAIN_WORKER */
// The single-file build has the module inline (no ./wasm/ next to it) and no import.meta.
const bundle = typeof AP_BUNDLE === 'undefined' ? 'dev' : AP_BUNDLE;
// Training: the hosted page has train-worker.js and wasm/ beside it. The single file has no files
// beside it: it carries a sample of the corpus and train-worker.js's text (scripts/bundle.mjs),
// and its worker is made of the module's glue (the inline script #ap-glue) and that text.
const training = (/** @type {string} */ pageUrl) =>
  bundle === 'single'
    ? {
        corpus: AP_TRAIN_CORPUS,
        workerSource: () =>
          `${document.getElementById('ap-glue')?.textContent}\n${AP_TRAIN_WORKER}`,
      }
    : { base: new URL('./', pageUrl).href };

// frame: the parent window's side of the protocol (null outside an iframe); strings: the
// starting Translator's promise (start()). The messages below pick the same language as start(),
// so they are handed that promise whatever language they ask for.
/** @param {import('./embed/frame.js').ParentLink | null} frame
 *  @param {Promise<import('./i18n.js').Translator>} strings */
async function boot(frame, strings) {
  const kind = bundle === 'single' ? 'single' : 'page';
  const unsupported = await unsupportedMessage(kind, location.search, () => strings);
  if (unsupported) throw new CoreError('unsupported', unsupported);
  const base = bundle === 'single' ? './' : new URL('./wasm/', import.meta.url).href;
  // the mark: when the module was instantiated and started (scripts/perf/first-trace.mjs)
  const loading = loadModule({ base }).then((m) => {
    performance.mark('attention-playground:module-ready');
    return m;
  });
  const [module, translator] = await Promise.all([loading, strings]);
  const pageUrl = location.href.split(/[?#]/)[0];
  const app = await mountPlayground(document, {
    module,
    translator,
    translatorFor,
    host: document.body,
    search: location.search,
    languages: navigator.languages,
    url: true,
    keyTarget: document,
    pageUrl,
    embedScriptUrl: new URL('embed/attention-playground.js', pageUrl).href,
    training: training(pageUrl),
    // a real model's module sits beside the page's (the single file has none); the cache keeps
    // it, once fetched, for the next model the learner loads
    realModels: bundle === 'single' ? null : { moduleUrl: `${base}attention-real.js`, cache: {} },
    // model-src downloads at once in an iframe (the framing page chose it); a link opened as a
    // page offers a button (playground.js followModelSrc)
    modelSrcAuto: !!frame,
    onEvent: (type, detail) => frame && frame.send(type, detail),
  });
  if (frame) frame.attach(app);
}

function start() {
  const { state } = parse(location.search);
  const frame = window.parent !== window ? connectParent(window, state.parent) : null;
  // the shown language's strings: the hosted page fetches them now, beside the wasm module
  const strings = startingTranslator(pickLang(state, navigator.languages));
  strings.catch(() => {}); // awaited by boot, which reports a failure like any other
  boot(frame, strings).catch(async (e) => {
    const message = e && e.message ? e.message : String(e);
    const code = (e && e.code) || 'boot_failed';
    if (frame) frame.send('error', { code, message });
    const box = /** @type {HTMLElement} */ (document.getElementById('boot-error')); // the page's
    box.hidden = false;
    box.textContent =
      code === 'unsupported'
        ? message
        : await bootFailedMessage(message, location.search, () => strings);
    throw e;
  });
}

start();
