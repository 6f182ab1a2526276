// single-check.js: the single file's first script (scripts/bundle.mjs inlines it before the
// unpacker of the packed code, and gives it only the support.* strings). A browser that lacks what
// the page needs (support.js) gets the message in its language instead of a failing unpack;
// html[data-unsupported] tells the unpacker to stop.
import { missingFeatures, unsupportedMessage } from './support.js';
import { translatorFor } from './strings.js';

if (missingFeatures('single').length) {
  document.documentElement.dataset.unsupported = '';
  unsupportedMessage('single', location.search, translatorFor).then((message) => {
    const box = /** @type {HTMLElement} */ (document.getElementById('boot-error')); // the page's
    box.hidden = false;
    box.textContent = message;
  });
}
