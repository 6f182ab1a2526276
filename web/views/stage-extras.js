// stage-extras.js: the seeds' pictures inside the stages that use them: the library analogy (Q·K·V
// and scores), the draggable 2-D dot-product plane (scores), the softmax lab (softmax) and the √d_k
// experiment (scale), the same word in two sentences (mix). Each sits in a <details> under the stage; its panel is made when it is first
// opened and updated only while open, so typing never waits for a closed picture. `links` (put at
// the top of the stage) has one button per picture that opens it and scrolls it into view.
// Not a stage and not a panel itself; it computes nothing.
import { el, panelFailed } from './dom.js';

// A panel with its own box: (container, {core, t, onHighlight})
const panel = (Panel) => (box, ctx) =>
  new Panel(box, { core: ctx.core, t: ctx.t, onHighlight: () => {} });
// A view that makes its own element: (ctx)
const own = (View) => (box, ctx) => {
  const d = new View(ctx);
  box.append(d.el);
  return d;
};

// kind -> a promise of how to make its view. The pictures load with their first opening: the
// hosted page fetches their code then (the bundle splits them out), so the first trace does not
// wait for code a learner may never open; the single-file bundles keep them inline.
const KINDS = {
  analogy: () => import('./panels/analogy.js').then((m) => panel(m.AnalogyPanel)),
  plane: () => import('./panels/plane2d.js').then((m) => panel(m.Plane2DPanel)),
  softmaxLab: () => import('./panels/softmax-lab.js').then((m) => panel(m.SoftmaxLabPanel)),
  context: () => import('./panels/context-lens.js').then((m) => own(m.ContextLens)),
  scaleDemo: () => import('./scale-demo.js').then((m) => own(m.ScaleDemo)),
};

export class StageExtras {
  /** kinds: e.g. ['analogy', 'plane']; ctx: the stage's {core, t} (the walkthrough swaps ctx.t
   *  when the language changes). `el` goes under the stage. */
  constructor(kinds, ctx) {
    this.ctx = ctx;
    this.t = ctx.t;
    this.model = null;
    this.items = kinds.map((kind) => {
      const summary = el('summary', { text: ctx.t(`extra.${kind}`) });
      const box = el('div', { class: 'extra-body' });
      const details = el('details', { class: 'stage-extra', 'data-extra': kind }, [summary, box]);
      const item = {
        kind,
        details,
        summary,
        box,
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
    for (const item of this.items)
      item.link = el('button', {
        type: 'button',
        class: 'linkish extra-link',
        'data-extra': item.kind,
        text: ctx.t(`extra.link.${item.kind}`),
        on: { click: () => this.show(item.kind) },
      });
    this.links = el(
      'p',
      { class: 'extra-links' },
      this.items.map((x) => x.link),
    );
  }

  /** Opens one picture and scrolls it to just under the sticky player bar; its summary takes the
   *  focus, so the keyboard goes on from there. */
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

  /** The stage's next model ({result, state}); open pictures follow it at once. */
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

  /** Opens one picture (a link from the stage text). */
  open(kind) {
    const item = this.items.find((x) => x.kind === kind);
    if (item) item.details.open = true;
  }
}
