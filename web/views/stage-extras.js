// stage-extras.js: the seeds' pictures inside the stages that use them: the library analogy (Q·K·V
// and scores), the draggable 2-D dot-product plane (scores), the softmax lab (softmax) and the √d_k
// experiment (scale), the same word in two sentences (mix). Each sits in a <details> under the stage; its panel is made when it is first
// opened and updated only while open, so typing never waits for a closed picture. `links` (put at
// the top of the stage) has one button per picture that opens it and scrolls it into view.
// Not a stage and not a panel itself; it computes nothing.
import { el, panelFailed } from './dom.js';

/** @typedef {import('./view-types.js').ViewContext} ViewContext */
/** @typedef {import('./view-types.js').StageModel} StageModel */
/** The stage's context: its core and translator, and (on the page) the strings and the queue.
 *  @typedef {Pick<ViewContext, 'core' | 't'> & Partial<Pick<ViewContext, 'wholeStrings' | 'later'>>}
 *    ExtrasContext */
/** What a picture's view does: follow the stage's model. @typedef {{update(model: StageModel): void}} ExtraView */
/** Makes a picture's view in its box. @typedef {(box: HTMLElement, ctx: ExtrasContext) => ExtraView} Make */
/**
 * One picture under the stage.
 * @typedef {object} Item
 * @property {string} kind
 * @property {HTMLDetailsElement} details
 * @property {HTMLElement} summary
 * @property {HTMLElement} box
 * @property {HTMLButtonElement} link
 * @property {ExtraView | null} view
 * @property {Make | null} make
 * @property {Promise<unknown> | null} loading
 * @property {StageModel | null} shown
 * @property {boolean} failed
 */

// A panel with its own box: (container, {core, t, onHighlight})
/** @param {new (box: HTMLElement, ctx: {core: ViewContext['core'], t: ViewContext['t'], onHighlight: (names: string[]) => void}) => ExtraView} Panel
 *  @returns {Make} */
const panel = (Panel) => (box, ctx) =>
  new Panel(box, { core: ctx.core, t: ctx.t, onHighlight: () => {} });
// A view that makes its own element: (ctx)
/** @param {new (ctx: ExtrasContext) => ExtraView & {el: HTMLElement}} View @returns {Make} */
const own = (View) => (box, ctx) => {
  const d = new View(ctx);
  box.append(d.el);
  return d;
};

// kind -> a promise of how to make its view. The pictures load with their first opening: the
// hosted page fetches their code then (the bundle splits them out), so the first trace does not
// wait for code a learner may never open; the single-file bundles keep them inline.
/** @type {Record<string, () => Promise<Make>>} */
const KINDS = {
  analogy: () => import('./panels/analogy.js').then((m) => panel(m.AnalogyPanel)),
  plane: () => import('./panels/plane2d.js').then((m) => panel(m.Plane2DPanel)),
  softmaxLab: () => import('./panels/softmax-lab.js').then((m) => panel(m.SoftmaxLabPanel)),
  context: () => import('./panels/context-lens.js').then((m) => own(m.ContextLens)),
  scaleDemo: () => import('./scale-demo.js').then((m) => own(m.ScaleDemo)),
};

export class StageExtras {
  /** kinds: e.g. ['analogy', 'plane']; ctx: the stage's {core, t} (the walkthrough swaps ctx.t
   *  when the language changes). `el` goes under the stage.
   * @param {string[]} kinds @param {ExtrasContext} ctx */
  constructor(kinds, ctx) {
    this.ctx = ctx;
    this.t = ctx.t;
    /** @type {StageModel | null} */
    this.model = null;
    this.items = kinds.map((kind) => {
      const summary = el('summary', { text: ctx.t(`extra.${kind}`) });
      const box = el('div', { class: 'extra-body' });
      const details = el('details', { class: 'stage-extra', 'data-extra': kind }, [summary, box]);
      const link = el('button', {
        type: 'button',
        class: 'linkish extra-link',
        'data-extra': kind,
        text: ctx.t(`extra.link.${kind}`),
        on: { click: () => this.show(kind) },
      });
      /** @type {Item} */
      const item = {
        kind,
        details,
        summary,
        box,
        link,
        view: null,
        make: null,
        loading: null,
        shown: null,
        failed: false,
      };
      details.addEventListener('toggle', () => {
        if (details.open) this.refresh(item);
      });
      return item;
    });
    this.el = el(
      'div',
      { class: 'stage-extras' },
      this.items.map((x) => x.details),
    );
    this.links = el(
      'p',
      { class: 'extra-links' },
      this.items.map((x) => x.link),
    );
  }

  /** Opens one picture and scrolls it to just under the sticky player bar; its summary takes the
   *  focus, so the keyboard goes on from there.
   * @param {string} kind */
  show(kind) {
    const item = this.items.find((x) => x.kind === kind);
    if (!item) return;
    this.open(kind);
    const root = /** @type {Document | ShadowRoot} */ (item.details.getRootNode());
    const bar = root.getElementById?.('stagebar');
    const top = bar ? Math.max(0, bar.getBoundingClientRect().bottom) : 0;
    const dy = item.details.getBoundingClientRect().top - top - 4;
    if (Math.abs(dy) >= 1) window.scrollBy({ top: dy, behavior: 'instant' });
    item.summary.focus({ preventScroll: true });
  }

  /** The stage's next model ({result, state}); open pictures follow it at once.
   * @param {StageModel} model */
  update(model) {
    this.model = model;
    if (this.t !== this.ctx.t) this.relabel();
    for (const item of this.items) if (item.details.open) this.refresh(item);
  }

  // another language: every picture is made again (open ones at once, the others when opened)
  relabel() {
    this.t = this.ctx.t;
    for (const item of this.items) {
      item.summary.textContent = this.t(`extra.${item.kind}`);
      item.link.textContent = this.t(`extra.link.${item.kind}`);
      item.view = null;
      item.shown = null;
      item.failed = false;
      item.box.replaceChildren();
    }
  }

  // a picture that throws (or whose code does not load) says so in its box (panelFailed) and
  // stays broken; the stage goes on
  /** @param {Item} item */
  refresh(item) {
    if (!this.model || item.failed) return;
    if (!item.make) {
      this.load(item);
      return;
    }
    try {
      if (!item.view) item.view = item.make(item.box, this.ctx);
      if (item.shown === this.model) return;
      item.shown = this.model;
      item.view.update({ result: this.model.result, state: { ...this.model.state } });
    } catch (e) {
      item.failed = true;
      panelFailed(item.box, e, this.ctx.t);
    }
  }

  // fetches a picture's code once, then shows it with the stage's latest model
  /** @param {Item} item */
  load(item) {
    if (item.loading) return;
    const loading = Promise.all([KINDS[item.kind](), this.ctx.wholeStrings?.()]).then(
      ([make]) => {
        item.loading = null;
        item.make = make;
        this.refresh(item);
      },
      (e) => {
        item.loading = null;
        item.failed = true;
        panelFailed(item.box, e, this.ctx.t);
      },
    );
    item.loading = this.ctx.later ? this.ctx.later.wait(loading) : loading;
  }

  /** Opens one picture (a link from the stage text). @param {string} kind */
  open(kind) {
    const item = this.items.find((x) => x.kind === kind);
    if (item) item.details.open = true;
  }
}
