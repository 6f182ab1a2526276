// main.js: the page's entry. Loads the core, mounts one playground on index.html's markup and,
// when the page is inside an iframe, speaks the embedding protocol (embed/frame.js).
// The wiring itself (state -> core -> views) is playground.js; the custom element is embed/element.js.
import { loadCore } from './core.js';
import { translatorFor } from './strings.js';
import { mountPlayground } from './playground.js';
import { parse } from './state.js';
import { connectParent } from './embed/frame.js';

/* global AP_BUNDLE */
// The single-file build has the module inline (no ./wasm/ next to it) and no import.meta.
const bundle = typeof AP_BUNDLE === 'undefined' ? 'dev' : AP_BUNDLE;

async function boot() {
  const frame = window.parent !== window ? connectParent(window, parse(location.search).state.parent) : null;
  const base = bundle === 'single' ? './' : new URL('./wasm/', import.meta.url).href;
  const core = await loadCore({ base });
  const pageUrl = location.href.split(/[?#]/)[0];
  const app = await mountPlayground(document, {
    core, translatorFor, host: document.body, search: location.search, languages: navigator.languages,
    url: true, keyTarget: document,
    pageUrl, embedScriptUrl: new URL('embed/attention-playground.js', pageUrl).href,
    onEvent: (type, detail) => frame && frame.send(type, detail),
  });
  if (frame) frame.attach(app);
}

boot().catch((e) => {
  const box = document.getElementById('boot-error');
  box.hidden = false;
  box.textContent = `${box.dataset.prefix || 'The page could not start:'} ${e && e.message ? e.message : e}`;
  throw e;
});
