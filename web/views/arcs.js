// arcs.js: the link view. Queries on the left, keys on the right; lines from the focus query to
// every key, thickness and label = that weight in the chosen head. Click a query to follow it.
// It is drawn once and then updated in place (a keystroke changes a few attributes, not the SVG);
// it only places the trace's weights, it computes none.
import { el, svg, writeOnce } from './dom.js';
import { pct, rowOf } from './format.js';
import { headTaught, withMark } from './taught.js';

const ROW = 26;

/** @typedef {import('./view-types.js').ViewContext} ViewContext */
/** @typedef {import('./view-types.js').StageModel} StageModel */
/** A link's path, with the rows its curve was last drawn between.
 *  @typedef {SVGPathElement & {apFrom?: number, apTo?: number}} Link */
/** Token i's query label and key label. @typedef {[SVGTextElement, SVGTextElement]} LabelPair */

// attributes and texts are written only when they differ from what was last written
// (compared in JS, util.writeOnce): unchanged nodes cost no style work and no garbage
/** @param {Element} node @param {string} name @param {unknown} value */
const attr = (node, name, value) => writeOnce(node, name, value);
/** @param {Element} node @param {unknown} value */
const text = (node, value) => writeOnce(node, 'text', value);

export class ArcView {
  /** @param {HTMLElement} root @param {Pick<ViewContext, 't' | 'actions'>} ctx */
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    /** @type {Link[]} */
    this.links = []; // <path> per key with a weight above 0, in key order (each holds a <title>)
    /** @type {LabelPair[]} */
    this.labels = []; // [query <text>, key <text>] per token i; element i always stands for token i
  }

  /** The parts that stay: heading, orientation line, scroll box, the svg. */
  build() {
    this.heading = el('h3');
    this.orient = el('p', { class: 'orient' });
    // attributes are created in the order the full redraw used to write them, then only changed
    this.scroll = el('div', { class: 'arcs-scroll', role: 'group', 'aria-label': '' });
    // a group, not an img: the query labels inside are buttons (one in the Tab order, arrows move)
    this.pic = svg('svg', { viewBox: '0 0 360 0', class: 'arcs', role: 'group', 'aria-label': '' });
    this.scroll.append(this.pic);
    this.links = [];
    this.labels = [];
    this.root.replaceChildren(this.heading, this.orient, this.scroll);
  }

  /** A query label and a key label for token i; the query label follows token i when clicked.
   * @param {number} i @returns {LabelPair} */
  addLabels(i) {
    const left = svg('text', {
      x: 108,
      y: 0,
      'text-anchor': 'end',
      class: 'qtok',
      role: 'button',
      tabindex: '-1',
    });
    left.addEventListener('click', () => this.ctx.actions.setFocus(i));
    left.addEventListener('keydown', (/** @type {KeyboardEvent} */ ev) => this.onKey(ev, i));
    const right = svg('text', {
      x: 222,
      y: 0,
      class: 'ktok',
      'data-matrix': 'weights',
      'data-head': '',
      'data-row': '',
      'data-col': '',
      'data-value': '',
    });
    this.pic.append(left, right);
    return [left, right];
  }

  // on a query label: Enter or Space follows it, arrows move to the label above or below
  /** @param {KeyboardEvent} ev @param {number} i */
  onKey(ev, i) {
    /** @type {Record<string, number>} */
    const moves = { ArrowUp: -1, ArrowDown: 1, Home: -Infinity, End: Infinity };
    if (ev.key === 'Enter' || ev.key === ' ') {
      this.ctx.actions.setFocus(i);
    } else if (ev.key in moves) {
      const next = Math.max(0, Math.min(this.labels.length - 1, i + moves[ev.key]));
      this.labels[next][0].focus();
    } else {
      return;
    }
    ev.preventDefault();
    ev.stopPropagation(); // not the page's shortcuts (Space plays)
  }

  /** @param {StageModel} model */
  update({ result, state }) {
    const { t } = this.ctx;
    const tr = result;
    const n = tr.config.n;
    const h = Math.min(state.head, tr.config.heads - 1);
    const q = state.q;
    const labels = result.tokens;
    // a very long token (a pasted URL) is cut for the picture; the heading and titles keep it whole
    const short = labels.map((x) =>
      x.length > 14 && [...x].length > 14 ? `${[...x].slice(0, 13).join('')}…` : x,
    );
    // a key label and its weight fit in the 136 units right of the links (a word and a weight to
    // one decimal of a percent)
    const shortKey = labels.map((x) =>
      x.length > 13 && [...x].length > 13 ? `${[...x].slice(0, 12).join('')}…` : x,
    );
    const w = rowOf(tr.heads[h].weights, q);
    const H = n * ROW + 8;
    const y = (/** @type {number} */ i) => 4 + ROW * i + ROW / 2;
    if (!this.pic || this.scroll.parentNode !== this.root || this.pic.parentNode !== this.scroll)
      this.build();
    const pic = this.pic;
    const label = t('arcs.label', { tok: labels[q], h: h + 1 });

    // the mark says whether this head was taught where to look (taught.js)
    // a real model's head is named by its model, layer and head (actions.realName)
    const which = this.ctx.actions?.realName?.(tr, h, null);
    text(
      this.heading,
      which
        ? this.ctx.actions.realWords('arcsTitle', { tok: labels[q], which })
        : withMark(t, tr, h, t('arcs.title', { tok: labels[q], h: h + 1 })),
    );
    attr(this.heading, 'data-taught', String(headTaught(tr, h)));
    text(this.orient, t('arcs.orient'));
    attr(this.scroll, 'tabindex', n > 24 ? '0' : null);
    attr(this.scroll, 'aria-label', label);
    attr(pic, 'viewBox', `0 0 360 ${H}`);
    attr(pic, 'aria-label', label);
    // the height follows the width through the viewBox (style.css: at most 360 px wide, so a row
    // per token is at most 26 px; long inputs scroll in .arcs-scroll)

    // links: one per key with a weight above 0, all before the labels (drawn underneath them)
    let k = 0;
    for (let j = 0; j < n; j++) {
      if (!(w[j] > 0)) continue;
      /** @type {Link | undefined} */
      let line = this.links[k];
      if (!line) {
        line = /** @type {Link} */ (
          svg('path', { d: '', class: 'link', 'stroke-width': '', 'stroke-opacity': '' })
        );
        line.append(svg('title'));
        pic.insertBefore(line, this.labels.length ? this.labels[0][0] : null);
        this.links.push(line);
      }
      if (line.apFrom !== q || line.apTo !== j) {
        // the curve depends on the two rows only
        line.apFrom = q;
        line.apTo = j;
        attr(line, 'd', `M 114 ${y(q)} C 165 ${y(q)}, 165 ${y(j)}, 216 ${y(j)}`);
      }
      // to 0.1 px and 1% opacity (finer is invisible): most links keep their attributes while typing
      attr(line, 'stroke-width', (0.5 + 16 * w[j]).toFixed(1));
      attr(line, 'stroke-opacity', (0.25 + 0.75 * w[j]).toFixed(2));
      text(
        /** @type {SVGTitleElement} */ (line.firstChild),
        `${labels[q]} → ${labels[j]}: ${pct(w[j])}`,
      );
      k += 1;
    }
    for (const extra of this.links.splice(k)) extra.remove();

    // labels: token i's query on the left, its key and weight on the right
    while (this.labels.length < n) this.labels.push(this.addLabels(this.labels.length));
    for (const [left, right] of this.labels.splice(n)) {
      left.remove();
      right.remove();
    }
    for (let i = 0; i < n; i++) {
      const [left, right] = this.labels[i];
      attr(left, 'y', y(i) + 5);
      attr(left, 'class', i === q ? 'qtok focus' : 'qtok');
      attr(left, 'tabindex', i === q ? '0' : '-1'); // the followed token's label is the Tab stop
      attr(left, 'aria-pressed', i === q ? 'true' : 'false');
      attr(left, 'aria-label', t('tokens.follow', { i: i + 1, tok: labels[i] }));
      text(left, short[i]);
      attr(right, 'y', y(i) + 5);
      text(right, `${shortKey[i]} ${w[i] > 0 ? pct(w[i]) : '0%'}`);
      attr(right, 'data-head', h);
      attr(right, 'data-row', q);
      attr(right, 'data-col', i);
      attr(right, 'data-value', String(w[i]));
    }
  }
}
