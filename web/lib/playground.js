// lib/playground.js: mountPlayground for the npm package (package.json exports "./playground"): one
// playground in the shadow root of any element of the host page, with the page's markup and styles,
// what the custom element does without defining one. Its links (share, licence) and the training
// worker resolve against the package's site (../ from this module), never the host page.
import { loadModule } from './core.js';
import { mountPlayground as mountOn } from '../playground.js';
import { translatorFor } from '../strings.js';
import { shadowShell, memo } from '../embed/shell.js';
import { unsupportedMessage } from '../support.js';
import { optionsParams } from '../outside-api.js';

const SITE = new URL('../', import.meta.url).href;
// one WebAssembly module for every playground of the page (each has its own session over it)
const sharedModule = memo(() => loadModule());

/**
 * Mounts a playground in `host`'s shadow root (its `ready` event says when the first trace is
 * shown). options: {state: URL keys and values ({s, step, heads, lang, hide, ...}, as the element's
 * attributes with `s` for the sentence), onEvent(type, detail): ready, stepchange, change, error}.
 * -> {setSentence, goToStep, setOptions, traceSnapshot, destroy}
 * @param {HTMLElement} host
 * @param {{state?: Record<string, unknown>,
 *          onEvent?: (type: string, detail: Record<string, unknown>) => void}} [options]
 */
export async function mountPlayground(host, options = {}) {
  const { params } = optionsParams(options.state || {});
  const root = shadowShell(host);
  const unsupported = await unsupportedMessage('module', params.toString(), translatorFor);
  if (unsupported) {
    const box = /** @type {HTMLElement} */ (root.getElementById('boot-error')); // the shell's
    box.hidden = false;
    box.textContent = unsupported;
    throw new Error(unsupported);
  }
  const onEvent = options.onEvent || (() => {});
  return mountOn(root, {
    module: await sharedModule(),
    translatorFor,
    host,
    search: params.toString(),
    languages: navigator.languages,
    url: false,
    keyTarget: root,
    pageUrl: SITE,
    embedScriptUrl: new URL('embed/attention-playground.js', SITE).href,
    training: { base: SITE },
    onEvent,
  });
}
