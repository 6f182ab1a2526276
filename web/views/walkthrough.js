// walkthrough.js: the stage list and the stage panel. It owns one view per stage, draws only the
// stage being shown (others are redrawn lazily when reached), asks it to show progress k, and keeps
// what step k computes inside the viewport. Not the clock (player.js) and not the wiring.
//
// The per-step contract every stage view follows (k = 0 .. units, one animation step each):
//   units(model)   how many steps the stage's animation has (k = units: the stage drawn whole)
//   render(model)  builds the stage; update(model) refreshes it in place (false: draw anew)
//   show(k)        draws the state after step k
//   narrate(k)     the sentence for exactly what show(k) drew: it names the element being computed
//                  (its query / key / token and its value, as shown), so it changes with k
//   active(k)      the elements step k is about, the computed one first, then its inputs: e.g. the
//                  Q cell, then the box with row i of X meeting column c of W. The first one, when
//                  it is a matrix cell, carries data-matrix / data-row / data-col / data-value.
//                  They must be rendered (a box of non-zero size) after show(k).
// The walkthrough marks them data-active="out" / "in" and, when asked (reveal), scrolls the page
// by the least amount that puts them below the sticky player bar (#stagebar) and inside the
// viewport. The page writes narrate(k) into #narration on every step, during play too.
import { el, writeOnce } from './dom.js';
import { TokensStage } from './tokens.js';
import { EmbeddingsStage } from './embeddings.js';
import { ProjectStage } from './project.js';
import { ScoreStage } from './score.js';
import { ScaleStage } from './scale.js';
import { MaskStage } from './mask.js';
import { SoftmaxStage } from './softmax.js';
import { MixStage } from './mix.js';
import { HeadsStage } from './heads.js';
/** @typedef {import('./view-types.js').ViewContext} ViewContext */
/** @typedef {import('./view-types.js').Stage} Stage */
/** @typedef {import('../player.js').Snapshot} Snapshot */
/** @typedef {import('./view-types.js').StageModel} StageModel */
/** @typedef {import('./view-types.js').Translate} Translate */
/** @typedef {import('./dom.js').Says} Says */

const CLASSES = [
  TokensStage,
  EmbeddingsStage,
  ProjectStage,
  ScoreStage,
  ScaleStage,
  MaskStage,
  SoftmaxStage,
  MixStage,
  HeadsStage,
];

export class Walkthrough {
  /**
   * @param {{nav: HTMLElement, title: HTMLElement, what: HTMLElement, body: HTMLElement}} dom
   * @param {ViewContext} ctx
   */
  constructor(dom, ctx) {
    this.dom = dom;
    this.ctx = ctx;
    /** @type {Stage[]} */
    this.stages = CLASSES.map((C) => new C(dom.body, ctx));
    this.drawn = -1; // which stage the body currently holds
    /** @type {StageModel | null} */
    this.model = null;
    this.current = 0;
    this.buildNav();
    /** @type {HTMLElement[]} one per stage (buildNav) */
    this.navButtons;
    /** @type {boolean | undefined} whether the model changed since the shown stage drew */
    this.stale;
    /** @type {Element[] | undefined} the current step's elements (markActive) */
    this.activeEls;
  }

  buildNav() {
    const { t, stages, actions } = this.ctx;
    this.navButtons = stages.map((id, i) =>
      el(
        'button',
        {
          class: 'stage-btn',
          type: 'button',
          'data-stage': id,
          on: { click: () => actions.gotoStage(i) },
        },
        [
          el('span', { class: 'num', text: String(i + 1) }),
          el('span', { class: 'name', text: t(`stage.${id}.short`) }),
        ],
      ),
    );
    this.dom.nav.replaceChildren(...this.navButtons.map((b) => el('li', {}, [b])));
  }

  /** @param {Translate} t */
  setTranslator(t) {
    this.ctx.t = t;
    this.buildNav();
    this.drawn = -1;
  }

  /** A new trace (or focus/head): the shown stage refreshes in place if it can (update(model) !==
   * false), else it is drawn anew; other stages are drawn when reached.
   * @param {StageModel} model */
  setModel(model) {
    this.model = model;
    this.stale = true;
  }

  /** @param {number} stage */
  units(stage) {
    return this.model ? this.stages[stage].units(this.model) : 0;
  }

  /** ms that playing stays on step k of a stage (its explained steps), 0 for the rest
   * @param {number} stage @param {number} k */
  holdOf(stage, k) {
    const view = this.stages[stage];
    return this.model && view.holdOf ? view.holdOf(k, this.model) : 0;
  }

  /** why: the player's reason; 'refresh' (a new trace, another query) draws the same step again
   *  without replaying its animations (view.still)
   * @param {Snapshot} snap @param {string} why */
  show(snap, why) {
    if (!this.model) return;
    const { t, stages } = this.ctx;
    const view = this.stages[snap.stage];
    const fresh =
      this.drawn === snap.stage &&
      (!this.stale || (view.update && view.update(this.model) !== false));
    this.stale = false;
    const id = stages[snap.stage];
    // a real model's head is named after the title (actions.realName: '' for the other models)
    const which = this.realWhich(snap.stage);
    const title = t(`stage.${id}.title`);
    writeOnce(
      this.dom.title,
      'text',
      `${snap.stage + 1}. ${which ? this.ctx.actions.realWords('stageTitle', { text: title, which }) : title}`,
    );
    if (!fresh) {
      // a stage whose introduction is not true for every model names its own (view.whatKey)
      this.dom.what.textContent = t(view.whatKey?.(this.model) || `stage.${id}.what`);
      this.dom.body.dataset.stage = id;
      view.render(this.model);
      this.drawn = snap.stage;
      this.navButtons.forEach((b, i) => {
        if (i === snap.stage) b.setAttribute('aria-current', 'step');
        else b.removeAttribute('aria-current');
        b.classList.toggle('done', i < snap.stage);
      });
    }
    const still = fresh && why === 'refresh';
    view.still = still;
    if (this.dom.body.hasAttribute('data-still') !== still)
      this.dom.body.toggleAttribute('data-still', still);
    // the stages' CSS animations run 1/speed as long, so they end inside their step (style.css)
    const slow = String(1 / (snap.speed || 1));
    if (this.dom.body.style.getPropertyValue('--ap-slow') !== slow)
      this.dom.body.style.setProperty('--ap-slow', slow);
    view.show(snap.k);
    this.current = snap.stage;
    this.markActive(view.active ? view.active(snap.k) : []);
  }

  /** data-active on the elements of the current step (cleared from the previous step's)
   * @param {(Element | null | undefined)[]} list */
  markActive(list) {
    for (const e of this.activeEls || []) e.removeAttribute('data-active');
    this.activeEls = /** @type {Element[]} */ (list.filter(Boolean));
    this.activeEls.forEach((e, i) => e.setAttribute('data-active', i === 0 ? 'out' : 'in'));
  }

  /**
   * Scrolls the window by the least amount that shows the current step's elements between the
   * bottom of the sticky bar (`top` px) and the bottom of the viewport; when they cannot all fit,
   * the computed element (the first) and as many inputs as fit. Scroll boxes inside the stage
   * (a wide table's scroller) are scrolled first so the elements are inside them.
   * @param {number} top
   */
  reveal(top) {
    const els = this.activeEls || [];
    if (!els.length) return;
    for (const e of els) scrollIntoBox(e);
    const view = window.innerHeight;
    const rects = els.map((e) => e.getBoundingClientRect()).filter((r) => r.height > 0);
    if (!rects.length) return;
    let lo = rects[0].top;
    let hi = rects[0].bottom;
    for (const r of rects.slice(1)) {
      const nlo = Math.min(lo, r.top);
      const nhi = Math.max(hi, r.bottom);
      if (nhi - nlo <= view - top) {
        lo = nlo;
        hi = nhi;
      }
    }
    let dy = 0;
    if (lo < top) dy = lo - top;
    else if (hi > view) dy = Math.min(hi - view, lo - top);
    // the stage's title is left wholly in view or wholly under the bar, never cut by its edge
    const title = this.dom.title?.getBoundingClientRect();
    if (title && title.height && title.top - dy < top && title.bottom - dy > top) {
      if (hi - (title.top - top) <= view) dy = title.top - top;
      else if (title.bottom - top <= lo - top) dy = title.bottom - top;
    }
    if (Math.abs(dy) >= 1) window.scrollBy({ top: dy, behavior: 'instant' });
  }

  /** @param {Snapshot} snap */
  narrate(snap) {
    if (!this.model || this.drawn !== snap.stage) return '';
    return this.named(this.stages[snap.stage].narrate(snap.k), snap.stage);
  }

  /** A stage's sentence (text, or a says() {text, data}) as the narration says it: for a real
   *  model, with the head it is about named first.
   *  @param {string | Says} said @param {number} stage @returns {string | Says} */
  named(said, stage) {
    const which = said && this.model && this.realWhich(stage);
    if (!which) return said;
    // a real model's narration starts with the head it is about; data-says names it too
    const text = typeof said === 'string' ? said : said.text;
    const data = typeof said === 'string' ? {} : said.data;
    return { text: this.ctx.actions.realWords('narr', { text, which }), data: { ...data, which } };
  }

  /** The words naming a real model's head on stage i ('' for the other models); called with a
   *  model (show, named).
   *  @param {number} i */
  realWhich(i) {
    const { actions, stages } = this.ctx;
    const model = /** @type {StageModel} */ (this.model);
    return actions.realName?.(model.result, model.state.head, stages[i]) || '';
  }
}

// scrolls the nearest scrolling box around `e` (a wide table's scroller) so that `e` is inside it;
// the window is left to reveal()
/** @param {Element} e */
function scrollIntoBox(e) {
  const box = e.closest('.scroller');
  if (!box || (box.scrollWidth <= box.clientWidth && box.scrollHeight <= box.clientHeight)) return;
  const b = box.getBoundingClientRect();
  const r = e.getBoundingClientRect();
  const sticky = box.querySelector('tbody th'); // row labels stay at the left edge
  const left = b.left + (sticky ? sticky.getBoundingClientRect().width : 0);
  if (r.left < left) box.scrollLeft -= left - r.left;
  else if (r.right > b.right) box.scrollLeft += r.right - b.right;
  if (r.top < b.top) box.scrollTop -= b.top - r.top;
  else if (r.bottom > b.bottom) box.scrollTop += r.bottom - b.bottom;
}
