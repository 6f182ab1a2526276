// mask.js: stage 6. With the causal mask a query may not look at later keys: step i takes row i,
// its scaled scores above, and the cells of later keys turn into −∞ below (weight 0 after
// softmax); the last step comes back to the followed row. Without the mask every row passes
// through unchanged, and the stage says so.
import { el, setText, writeOnce, replay } from './dom.js';
import { fmt, rowOf } from './format.js';
import { matrixBlock, StripWindow } from './matrix-table.js';
import { matrixView, refreshStage, rowSteps, tokenMapView } from './heatmap.js';
/** @typedef {import('./heatmap.js').MatrixView} MatrixView */
/** @typedef {import('./view-types.js').StageModel} StageModel */
/** @typedef {import('./view-types.js').ViewContext} ViewContext */

export class MaskStage {
  /** @param {HTMLElement} root @param {Pick<ViewContext, 't' | 'actions' | 'later' | 'core'>} ctx */
  constructor(root, ctx) {
    this.still = false; // set by the walkthrough: this show() only refreshes (no replay)
    this.root = root;
    this.ctx = ctx;
    /** @type {StageModel} */
    this.model;
    /** @type {MatrixView} */
    this.m;
    /** @type {HTMLElement} */
    this.stripTitle;
    /** @type {HTMLElement} */
    this.head;
    /** @type {HTMLElement} */
    this.before;
    /** @type {HTMLElement} */
    this.after;
    /** @type {HTMLElement} */
    this.strip;
    /** @type {StripWindow} */
    this.stripWin;
    /** @type {number} */
    this.k;
    /** @type {string | undefined} the row and step whose animation last played */
    this.last;
  }

  /** one step per row, then the followed row again
   * @param {StageModel} model */
  units(model) {
    return rowSteps(model);
  }

  /** @param {StageModel} model */
  view(model) {
    return tokenMapView(this.ctx.t, model.result, model.state.head, 'masked');
  }

  /** @param {StageModel} model */
  update(model) {
    return refreshStage(
      this,
      model,
      (m) => [m.state.head, m.result.config.causal], // the strip and table follow n in place
      (m) => [[this.m, this.view(m)]],
    );
  }

  /** @param {StageModel} model */
  render(model) {
    const { t, actions } = this.ctx;
    const tr = model.result;
    this.model = model;
    this.m = matrixView(...this.view(model));
    const toggle = el('button', {
      class: 'action',
      text: tr.config.causal ? t('mask.turnOff') : t('mask.turnOn'),
      type: 'button',
      on: { click: () => actions.setSetting('causal', !tr.config.causal) },
    });
    this.stripTitle = el('h4');
    this.head = el('tr');
    this.before = el('tr', { class: 'before' });
    this.after = el('tr', { class: 'after' });
    this.strip = el('table', { class: 'dot mask-strip' }, [
      el('thead', {}, [this.head]),
      el('tbody', {}, [this.before, this.after]),
    ]);
    this.stripWin = new StripWindow(t, 2); // the row before and after
    this.root.replaceChildren(
      el('p', { class: 'lead' }, [tr.config.causal ? t('mask.on') : t('mask.off'), ' ', toggle]),
      el('figure', { class: 'mask-op' }, [
        this.stripTitle,
        this.stripWin.el,
        el('div', { class: 'scroller', tabindex: '0', role: 'group' }, [this.strip]),
      ]),
      el('div', { class: 'row-blocks' }, [
        matrixBlock(t('mask.title'), `${tr.config.n} × ${tr.config.n}`, this.m, t('orient'), t),
      ]),
    );
  }

  /** @param {number} k */
  rowAt(k) {
    const n = this.model.result.config.n;
    return k >= 1 && k <= n ? k - 1 : this.model.state.q;
  }

  /** @param {number} k */
  show(k) {
    this.k = k;
    const tr = this.model.result;
    const n = tr.config.n;
    this.m.revealRows(Math.min(k, n));
    const r = this.rowAt(k);
    this.m.mark('row', k >= 1 ? [r] : []);
    this.m.moveWindow?.(Math.min(r + 1, n - 1));
    this.drawStrip(r, k);
  }

  /** row r: scaled scores above, masked below; the cells that become −∞ flip (CSS)
   * @param {number} r @param {number} k */
  drawStrip(r, k) {
    const { t } = this.ctx;
    const tr = this.model.result;
    const head = tr.heads[this.model.state.head];
    const labels = this.model.result.tokens;
    const a = rowOf(head.scaled, r);
    const b = rowOf(head.masked, r);
    const n = tr.config.n;
    const hidden = [...b].filter((v) => v === -Infinity).length;
    setText(
      this.stripTitle,
      t(tr.config.causal ? 'mask.rowOn' : 'mask.rowOff', { tok: labels[r], i: r + 1, hidden }),
    );
    /** @param {HTMLElement} tr_ @param {number} count @param {(j: number) => HTMLElement} make */
    const fit = (tr_, count, make) => {
      while (tr_.children.length > count + 1) tr_.lastElementChild?.remove();
      while (tr_.children.length < count + 1) tr_.append(make(tr_.children.length - 1));
    };
    if (!this.head.firstChild) {
      this.head.append(el('th', { text: 'k' }));
      this.before.append(el('th', { scope: 'row', text: t('mask.before') }));
      this.after.append(el('th', { scope: 'row', text: t('mask.after') }));
    }
    fit(this.head, n, () => el('th'));
    fit(this.before, n, (j) => el('td', { 'data-matrix': 'rowScaled', 'data-col': j }));
    fit(this.after, n, (j) => el('td', { 'data-matrix': 'rowMasked', 'data-col': j }));
    for (let j = 0; j < n; j++) {
      setText(this.head.children[j + 1], labels[j]);
      const x = this.before.children[j + 1];
      const y = this.after.children[j + 1];
      /** @type {[Element, number][]} */
      const cells = [
        [x, a[j]],
        [y, b[j]],
      ];
      for (const [td, v] of cells) {
        writeOnce(td, 'data-head', this.model.state.head);
        writeOnce(td, 'data-row', r);
        writeOnce(td, 'data-value', v);
        setText(td, fmt(v, 3));
      }
      y.classList.toggle('neg-inf', b[j] === -Infinity);
    }
    // compact: the window keeps row r's first masked key (j = r + 1) in view
    this.stripWin.set([this.head, this.before, this.after], 1, n, Math.min(r + 1, n - 1));
    const key = `${r}|${k}|${tr.config.causal}`;
    if (this.last !== key) {
      this.last = key;
      replay(this.strip, this.still); // the flip from the score to −∞
    }
  }

  /** @param {number} k */
  active(k) {
    const r = this.rowAt(k);
    const cell = this.m.cell(r, Math.min(r + 1, this.model.result.config.n - 1));
    // the row being masked (its strip's box), then the first cell of the matrix it may hide
    return [this.strip.parentElement, cell.isConnected ? cell : this.m.table];
  }

  /** @param {number} k */
  narrate(k) {
    const tr = this.model.result;
    const r = this.rowAt(k);
    const hidden = [...rowOf(tr.heads[this.model.state.head].masked, r)].filter(
      (v) => v === -Infinity,
    ).length;
    const tok = this.model.result.tokens[r];
    if (k === 0)
      return this.ctx.t(tr.config.causal ? 'narr.maskStart' : 'narr.maskStartOff', {
        n: tr.config.n,
      });
    if (k <= tr.config.n)
      return tr.config.causal
        ? this.ctx.t('narr.maskRow', { tok, i: r + 1, hidden })
        : this.ctx.t('narr.maskRowOff', { tok, i: r + 1 });
    return tr.config.causal
      ? this.ctx.t('narr.maskOn', { tok, hidden })
      : this.ctx.t('narr.maskOff', { tok });
  }
}
