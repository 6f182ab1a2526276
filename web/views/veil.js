// veil.js: hides a part of the page that would give away the followed token's weights before the
// learner has guessed (predict.js), and says why in a line above it. The part stays in the layout
// (blurred, inert, not read out) so nothing jumps when it is revealed. Not a view of numbers.
import { el } from './dom.js';

/** Veils `box` (or lifts the veil) with `why` as the line that says what is hidden and until when.
 * @param {Element} box @param {boolean} on @param {string} [why] */
export function veil(box, on, why = '') {
  let note = /** @type {HTMLElement | null} */ (box.querySelector(':scope > .veil-why'));
  if (on && !note) {
    note = /** @type {HTMLElement} */ (el('p', { class: 'veil-why' }));
    box.prepend(note);
  }
  if (note) {
    note.hidden = !on;
    if (note.textContent !== why) note.textContent = why;
  }
  if (box.hasAttribute('data-veiled') !== on) box.toggleAttribute('data-veiled', on);
  for (const part of box.children) {
    if (part === note) continue;
    if (part.hasAttribute('inert') !== on) part.toggleAttribute('inert', on);
  }
}
