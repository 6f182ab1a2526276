// plane2d.js: a hand calculation with d_k = 2. An SVG plane with one query arrow and three key
// arrows (the seed's interest vectors) that move by pointer drag or arrow keys. Every number
// shown (products, q·k, lengths, cos θ, angle, ÷√2, weights) comes from core.dotSteps and
// core.softmaxSteps; this file only positions arrows and rounds coordinates for readability.

import { uid, el, svg, clear } from '../dom.js';
import { fmt, fmtFactor } from '../format.js';
import { num, bar } from '../readouts.js';
/** @typedef {import('../view-types.js').ViewContext} ViewContext */
/** @typedef {import('../view-types.js').Translate} Translate */
/** @typedef {import('../../../types/index.js').Core} CoreApi */
/** @typedef {import('../../../types/index.js').SoftmaxSteps} SoftmaxSteps */
/** An arrow of the plane: its id (q, k1, k2, k3), query or key, and its coordinates.
 *  @typedef {{id: string, kind: string, x: number, y: number}} Vec */
/** An arrow's SVG parts.
 *  @typedef {{g: SVGGElement, line: SVGLineElement, headPoly: SVGPolygonElement,
 *    label: SVGTextElement, handle: SVGGElement}} Arrow */
/** core.dotSteps's result for one key. @typedef {ReturnType<CoreApi['dotSteps']>} DotSteps */

const SIZE = 340; // viewBox width and height
const ORIGIN = SIZE / 2; // the plane's (0, 0) in viewBox units
const UNIT = 64; // viewBox units per 1.0
const LIMIT = 2.5; // coordinates stay within [-LIMIT, LIMIT]
const HEAD = 11; // arrowhead length in viewBox units

// the seed's interest vectors as keys; the query likes programming a lot and music a little
// (its tip sits clear of the keys' tips, so no two handles overlap at the start)
const START = [
  { id: 'q', kind: 'query', x: 1.5, y: 0.5 },
  { id: 'k1', kind: 'key', x: 1, y: 0 },
  { id: 'k2', kind: 'key', x: 0, y: 1 },
  { id: 'k3', kind: 'key', x: 0.7, y: 0.7 },
];

const round2 = (/** @type {number} */ v) => Math.round(v * 100) / 100; // display rounding of a coordinate, not maths
const clampCoord = (/** @type {number} */ v) => Math.max(-LIMIT, Math.min(LIMIT, v));
/** @param {number} x @param {number} y */
const toView = (x, y) => [ORIGIN + x * UNIT, ORIGIN - y * UNIT];

export class Plane2DPanel {
  /** @param {Element} container
   *  @param {Pick<ViewContext, 'core' | 't'> & {onHighlight?: (names: string[]) => void}} ctx */
  constructor(container, { core, t, onHighlight = (_names) => {} }) {
    this.core = core;
    this.t = t;
    this.onHighlight = onHighlight;
    /** @type {Vec[]} the query first, then the keys */
    this.vecs = START.map((v) => ({ ...v }));
    this.scale = true;
    /** @type {string | null} the id of the arrow being dragged */
    this.dragging = null;
    /** @type {{dots: DotSteps[], softmax: SoftmaxSteps} | null} the core's numbers last drawn */
    this.lastSteps = null;
    // the plane's parts (buildPlane)
    /** @type {SVGTextElement} */ this.axisX;
    /** @type {SVGTextElement} */ this.axisY;
    /** @type {SVGSVGElement} */ this.svgEl;
    /** @type {Map<string, Arrow>} by vec id */ this.arrows;
    /** @type {HTMLInputElement} */ this.scaleBox;

    const titleId = uid('panel-title');
    const scaleId = uid('panel-scale');
    this.root = el('section', { class: 'panel-card panel-plane', 'aria-labelledby': titleId });
    this.title = el('h2', { id: titleId, class: 'panel-title' });
    this.intro = el('p', { class: 'panel-intro' });
    this.help = el('p', { class: 'panel-hint' });
    this.scaleBox = el('input', {
      id: scaleId,
      type: 'checkbox',
      class: 'panel-check',
      checked: true,
      on: {
        change: () => {
          this.scale = this.scaleBox.checked;
          this.render();
        },
      },
    });
    this.scaleLabel = el('label', { for: scaleId, class: 'panel-check-label' });
    this.resetButton = el('button', {
      type: 'button',
      class: 'panel-button',
      on: { click: () => this.reset() },
    });
    this.live = el('p', { class: 'panel-visually-hidden', 'aria-live': 'polite' });
    this.plane = this.buildPlane();
    this.readout = el('div', { class: 'panel-plane-readout' });
    this.root.append(
      this.title,
      this.intro,
      this.help,
      el('div', { class: 'panel-controls' }, [
        el('span', { class: 'panel-check-wrap' }, [this.scaleBox, this.scaleLabel]),
        this.resetButton,
      ]),
      el('div', { class: 'panel-plane-layout' }, [
        el('div', { class: 'panel-plane-figure' }, [this.plane]),
        this.readout,
      ]),
      this.live,
    );
    container.append(this.root);
    this.render();
  }

  buildPlane() {
    const grid = svg('g', { class: 'panel-grid', 'aria-hidden': 'true' });
    for (let k = -5; k <= 5; k++) {
      const p = ORIGIN + (k * UNIT) / 2;
      const cls =
        k === 0
          ? 'panel-axis'
          : k % 2 === 0
            ? 'panel-gridline panel-gridline-major'
            : 'panel-gridline';
      grid.append(svg('line', { x1: p, y1: 4, x2: p, y2: SIZE - 4, class: cls }));
      grid.append(svg('line', { x1: 4, y1: p, x2: SIZE - 4, y2: p, class: cls }));
    }
    // tick labels sit outside a handle's ring (radius 19) even when a key starts on a tick, as the
    // seed's (1, 0) and (0, 1) do
    for (const k of [-2, -1, 1, 2]) {
      grid.append(
        svg(
          'text',
          { x: ORIGIN + k * UNIT, y: ORIGIN + 33, class: 'panel-tick', 'text-anchor': 'middle' },
          [fmt(k, 0)],
        ),
      );
      grid.append(
        svg(
          'text',
          { x: ORIGIN - 23, y: ORIGIN - k * UNIT + 4, class: 'panel-tick', 'text-anchor': 'end' },
          [fmt(k, 0)],
        ),
      );
    }
    this.axisX = svg('text', {
      x: SIZE - 6,
      y: ORIGIN + 52,
      class: 'panel-axis-label',
      'text-anchor': 'end',
    });
    this.axisY = svg('text', { x: ORIGIN + 8, y: 16, class: 'panel-axis-label' });
    grid.append(this.axisX, this.axisY);

    this.svgEl = svg(
      'svg',
      { viewBox: `0 0 ${SIZE} ${SIZE}`, class: 'panel-plane-svg', role: 'group' },
      [grid],
    );
    this.arrows = new Map();
    // keys first so the query is drawn (and hit-tested) on top
    for (const v of [...this.vecs.slice(1), this.vecs[0]]) {
      const line = svg('line', { class: 'panel-shaft' });
      const headPoly = svg('polygon', { class: 'panel-head' });
      const label = svg('text', { class: 'panel-arrow-label' });
      /** @type {SVGGElement} */
      const handle = svg(
        'g',
        { class: 'panel-handle', tabindex: '0', role: 'button', 'data-vec': v.id },
        [
          svg('circle', { r: 19, class: 'panel-ring' }),
          svg('circle', { r: 14, class: 'panel-hit' }),
          svg('circle', { r: 6, class: 'panel-dot' }),
        ],
      );
      const g = svg('g', { class: `panel-arrow panel-${v.kind} panel-${v.id}` }, [
        line,
        headPoly,
        label,
        handle,
      ]);
      this.svgEl.append(g);
      this.arrows.set(v.id, { g, line, headPoly, label, handle });
      handle.addEventListener('pointerdown', (e) => this.startDrag(e, v.id));
      handle.addEventListener('pointermove', (e) => this.moveDrag(e, v.id));
      handle.addEventListener('pointerup', (e) => this.endDrag(e, v.id));
      handle.addEventListener('pointercancel', (e) => this.endDrag(e, v.id));
      handle.addEventListener('keydown', (e) => this.onKey(e, v.id));
      handle.addEventListener('focus', () => this.onHighlight(v.kind === 'query' ? ['Q'] : ['K']));
      handle.addEventListener('blur', () => this.onHighlight([]));
    }
    return this.svgEl;
  }

  /** @param {string} id one of START's */
  vec(id) {
    const v = this.vecs.find((v) => v.id === id);
    if (!v) throw new Error(`plane: no vector ${id}`);
    return v;
  }

  /** @param {string} id one of START's */
  arrow(id) {
    const a = this.arrows.get(id);
    if (!a) throw new Error(`plane: no arrow ${id}`);
    return a;
  }

  /** @param {string} id @param {number} x @param {number} y */
  setVec(id, x, y) {
    const v = this.vec(id);
    v.x = round2(clampCoord(x));
    v.y = round2(clampCoord(y));
    this.render();
  }

  reset() {
    this.vecs = START.map((v) => ({ ...v }));
    this.render();
    this.announce();
  }

  /** A pointer's place in plane coordinates; null while the plane is not laid out.
   * @param {PointerEvent} e */
  clientToPlane(e) {
    const pt = this.svgEl.createSVGPoint();
    pt.x = e.clientX;
    pt.y = e.clientY;
    const ctm = this.svgEl.getScreenCTM();
    if (!ctm) return null;
    const p = pt.matrixTransform(ctm.inverse());
    return [(p.x - ORIGIN) / UNIT, (ORIGIN - p.y) / UNIT];
  }

  /** @param {PointerEvent} e @param {string} id */
  startDrag(e, id) {
    if (e.button !== undefined && e.button !== 0) return;
    e.preventDefault();
    this.dragging = id;
    const h = this.arrow(id).handle;
    if (h.setPointerCapture) h.setPointerCapture(e.pointerId);
    h.focus({ preventScroll: true });
    this.arrow(id).g.classList.add('panel-dragging');
  }

  /** @param {PointerEvent} e @param {string} id */
  moveDrag(e, id) {
    if (this.dragging !== id) return;
    e.preventDefault();
    const at = this.clientToPlane(e);
    if (!at) return;
    this.setVec(id, at[0], at[1]);
  }

  /** @param {PointerEvent} e @param {string} id */
  endDrag(e, id) {
    if (this.dragging !== id) return;
    this.dragging = null;
    this.arrow(id).g.classList.remove('panel-dragging');
    this.announce();
  }

  /** @param {KeyboardEvent} e @param {string} id */
  onKey(e, id) {
    const step = e.shiftKey ? 0.01 : 0.1;
    /** @type {Record<string, [number, number] | undefined>} */
    const moves = {
      ArrowLeft: [-step, 0],
      ArrowRight: [step, 0],
      ArrowUp: [0, step],
      ArrowDown: [0, -step],
    };
    const d = moves[e.key];
    if (!d) return;
    e.preventDefault();
    const v = this.vec(id);
    this.setVec(id, v.x + d[0], v.y + d[1]);
    this.announce();
  }

  /** @param {Vec} v */
  name(v) {
    return this.t(v.kind === 'query' ? 'panel.plane.q.name' : `panel.plane.${v.id}.name`);
  }

  /** Polite summary for screen readers after a move (not on every pointer event). */
  announce() {
    const steps = this.lastSteps;
    if (!steps) return; // render() draws before any move
    const q = this.vecs[0];
    const parts = [this.t('panel.plane.live.q', { x: fmt(q.x, 2), y: fmt(q.y, 2) })];
    this.vecs.slice(1).forEach((k, i) => {
      parts.push(
        this.t('panel.plane.live.key', {
          name: this.name(k),
          x: fmt(k.x, 2),
          y: fmt(k.y, 2),
          dot: fmt(steps.dots[i].dot, 2),
          w: fmt(steps.softmax.weights[i], 2),
        }),
      );
    });
    this.live.textContent = parts.join(' ');
  }

  /** @param {Vec} v */
  drawArrow(v) {
    const a = this.arrow(v.id);
    const [tx, ty] = toView(v.x, v.y);
    const len = Math.hypot(tx - ORIGIN, ty - ORIGIN); // pixel length, for drawing only
    const ux = len > 0 ? (tx - ORIGIN) / len : 1;
    const uy = len > 0 ? (ty - ORIGIN) / len : 0;
    const base = Math.max(0, len - HEAD);
    a.line.setAttribute('x1', String(ORIGIN));
    a.line.setAttribute('y1', String(ORIGIN));
    a.line.setAttribute('x2', String(ORIGIN + ux * base));
    a.line.setAttribute('y2', String(ORIGIN + uy * base));
    const bx = ORIGIN + ux * base;
    const by = ORIGIN + uy * base;
    a.headPoly.setAttribute(
      'points',
      len > 1 ? `${tx},${ty} ${bx - uy * 6},${by + ux * 6} ${bx + uy * 6},${by - ux * 6}` : '',
    );
    a.handle.setAttribute('transform', `translate(${tx} ${ty})`);
    // label beyond the tip, kept inside the plane
    const lx = Math.max(14, Math.min(SIZE - 14, tx + ux * 24));
    const ly = Math.max(14, Math.min(SIZE - 8, ty + uy * 24 + 5));
    a.label.setAttribute('x', String(lx));
    a.label.setAttribute('y', String(ly));
    a.label.setAttribute('text-anchor', ux > 0.3 ? 'start' : ux < -0.3 ? 'end' : 'middle');
    a.label.textContent = v.id; // q, k1, k2, k3: the cards beside the plane name them
    a.handle.setAttribute(
      'aria-label',
      this.t('panel.plane.handle.aria', { name: this.name(v), x: fmt(v.x, 2), y: fmt(v.y, 2) }),
    );
  }

  // the plane is its own small world: it does not follow the sentence (the model is not read)
  /** @param {unknown} _model */
  update(_model) {
    this.render();
  }

  render() {
    const t = this.t;
    this.title.textContent = t('panel.plane.title');
    this.intro.textContent = t('panel.plane.intro');
    this.help.textContent = t('panel.plane.help');
    this.resetButton.textContent = t('panel.plane.reset');
    this.axisX.textContent = t('panel.plane.axis.x');
    this.axisY.textContent = t('panel.plane.axis.y');
    this.svgEl.setAttribute('aria-label', t('panel.plane.svg.aria'));
    this.handleRoleDescription();

    const q = this.vecs[0];
    const keys = this.vecs.slice(1);
    const qv = [q.x, q.y];
    const dots = keys.map((k) => this.core.dotSteps(qv, [k.x, k.y]));
    const root2 = this.core.dotSteps([1, 1], [1, 1]).norm_q; // √d_k for d_k = 2, from the core
    const scores = dots.map((d) => (this.scale ? d.scaled : d.dot));
    const softmax = this.core.softmaxSteps(scores, 1);
    this.lastSteps = { dots, softmax };
    this.scaleLabel.textContent = t('panel.plane.scale', { root: fmt(root2, 3) });
    for (const v of this.vecs) this.drawArrow(v);

    clear(this.readout);
    this.readout.append(
      el('p', { class: 'panel-line panel-qline' }, [
        el('span', { class: 'panel-sym panel-query-text', text: t('panel.plane.q.label') }),
        ' (',
        num(q.x, 'q', 0, 0, 2),
        ', ',
        num(q.y, 'q', 0, 1, 2),
        ')',
      ]),
    );
    const list = el('ul', { class: 'panel-key-cards' });
    keys.forEach((k, i) => {
      const d = dots[i];
      const w = softmax.weights[i];
      list.append(
        el('li', { class: `panel-key-card panel-${k.id}`, 'data-key': k.id }, [
          el('h3', { class: 'panel-key-title' }, [
            el('span', { class: 'panel-swatch', 'aria-hidden': 'true' }),
            t('panel.plane.key.title', { name: this.name(k) }),
            ' (',
            num(k.x, 'k', i, 0, 2),
            ', ',
            num(k.y, 'k', i, 1, 2),
            ')',
          ]),
          el('p', { class: 'panel-calc' }, [
            el('span', { class: 'panel-sym', text: 'q·k = ' }),
            `${fmtFactor(q.x)}×${fmtFactor(k.x)} + ${fmtFactor(q.y)}×${fmtFactor(k.y)} = `,
            num(d.products[0], 'products', i, 0, 2),
            ' + ',
            num(d.products[1], 'products', i, 1, 2),
            ' = ',
            num(d.dot, 'dot', i, 0, 2, 'span', 'panel-strong'),
          ]),
          el('p', { class: 'panel-calc' }, [
            el('span', { class: 'panel-nowrap' }, [
              '|q|\u00a0=\u00a0',
              num(d.norm_q, 'norm_q', i, 0, 2),
              ',',
            ]),
            ' ',
            el('span', { class: 'panel-nowrap' }, [
              '|k|\u00a0=\u00a0',
              num(d.norm_k, 'norm_k', i, 0, 2),
              ',',
            ]),
            ' ',
            el('span', { class: 'panel-nowrap' }, [
              'cos\u00a0θ\u00a0=\u00a0',
              num(d.cosine, 'cosine', i, 0, 2),
              ',',
            ]),
            ' ',
            el('span', { class: 'panel-nowrap' }, [
              'θ\u00a0=\u00a0',
              num(d.angle_degrees, 'angle', i, 0, 1),
              '°',
            ]),
          ]),
          el('p', { class: 'panel-calc' + (this.scale ? '' : ' panel-off') }, [
            t('panel.plane.scaled'),
            ' ',
            num(d.scaled, 'scaled', i, 0, 2),
            this.scale
              ? null
              : el('span', { class: 'panel-aside', text: t('panel.plane.scaledUnused') }),
          ]),
          el('p', { class: 'panel-calc panel-weight' }, [
            t('panel.plane.weight'),
            ' ',
            bar(w),
            num(w, 'weights', 0, i, 2, 'span', 'panel-strong'),
          ]),
        ]),
      );
    });
    this.readout.append(
      list,
      el('p', { class: 'panel-explain' }, [
        t(this.scale ? 'panel.plane.softmax.scaled' : 'panel.plane.softmax.raw'),
      ]),
    );
  }

  handleRoleDescription() {
    for (const a of this.arrows.values())
      a.handle.setAttribute('aria-roledescription', this.t('panel.plane.handle.role'));
  }
}
