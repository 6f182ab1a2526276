// pickers.js: the toolbar's layer and head pickers (<select>s in the page's markup), rebuilt only
// when the model's number of layers or heads changes. Not the place for what a pick does: the
// wiring (playground.js) listens to their change events.
/** @typedef {import('./view-types.js').Translate} Translate */

/** The layer picker: shown only for a model with more than one layer, options "1 of 2", …
 *  sel: the <select>; toolbar: marked has-layers while it shows; t: the translator.
 *  @param {HTMLSelectElement} sel @param {Element} toolbar @param {Translate} t
 *  @param {number} count the model's layers @param {number} shown the shown layer (0-based) */
export function renderLayerPicker(sel, toolbar, t, count, shown) {
  // the markup wraps the picker in its label
  const label = /** @type {HTMLLabelElement} */ (sel.closest('label'));
  if (label.hidden !== count < 2) label.hidden = count < 2;
  toolbar.classList.toggle('has-layers', count > 1);
  const key = `${count}\u0000${t('walk.layerOption', { l: 1, n: count })}`;
  if (sel.dataset.built !== key) {
    sel.replaceChildren(
      ...Array.from({ length: count }, (_, l) => {
        const o = document.createElement('option');
        o.value = String(l);
        o.textContent = t('walk.layerOption', { l: l + 1, n: count });
        return o;
      }),
    );
    sel.dataset.built = key;
  }
  if (sel.value !== String(shown)) sel.value = String(shown); // selecting again costs a layout
}

/** The head picker: options 1 … heads, `head` (0-based) selected; name(h) is option h's text
 *  (the head's number, with its taught mark for a trained model).
 *  @param {HTMLSelectElement} sel @param {number} heads @param {number} head
 *  @param {(h: number) => string} [name] */
export function renderHeadPicker(sel, heads, head, name = (h) => String(h + 1)) {
  const names = Array.from({ length: heads }, (_, h) => name(h));
  const key = names.join('\u0000');
  if (sel.dataset.built !== key) {
    sel.replaceChildren(
      ...names.map((text, h) => {
        const o = document.createElement('option');
        o.value = String(h);
        o.textContent = text;
        return o;
      }),
    );
    sel.dataset.built = key;
  }
  if (sel.value !== String(head)) sel.value = String(head);
}
