// arcs.js: the link view. Queries on the left, keys on the right; lines from the focus query to
// every key, thickness and label = that weight in the chosen head. Click a query to follow it.
import { el, svg, pct, rowOf } from './util.js';

const ROW = 26;

export class ArcView {
  constructor(root, ctx) { this.root = root; this.ctx = ctx; }

  update({ result, state }) {
    const { t, actions } = this.ctx;
    const tr = result.trace;
    const h = Math.min(state.head, tr.heads - 1);
    const q = state.q;
    const labels = result.tokens.map((x) => x.text);
    // a very long token (a pasted URL) is cut for the picture; the heading and titles keep it whole
    const short = labels.map((x) => ([...x].length > 14 ? `${[...x].slice(0, 13).join('')}…` : x));
    const w = rowOf(tr.head[h].weights, q);
    const H = tr.n * ROW + 8;
    const pic = svg('svg', { viewBox: `0 0 320 ${H}`, class: 'arcs', role: 'img',
      'aria-label': t('arcs.label', { tok: labels[q], h: h + 1 }) });
    pic.style.height = `${H}px`;   // one readable row per token; long inputs scroll (.arcs-scroll)
    const y = (i) => 4 + ROW * i + ROW / 2;
    for (let j = 0; j < tr.n; j++) {
      if (!(w[j] > 0)) continue;
      const line = svg('path', {
        d: `M 104 ${y(q)} C 160 ${y(q)}, 160 ${y(j)}, 216 ${y(j)}`, class: 'link',
        'stroke-width': (0.5 + 16 * w[j]).toFixed(2), 'stroke-opacity': (0.25 + 0.75 * w[j]).toFixed(3),
      });
      const title = svg('title');
      title.textContent = `${labels[q]} → ${labels[j]}: ${pct(w[j])}`;
      line.append(title);
      pic.append(line);
    }
    for (let i = 0; i < tr.n; i++) {
      const left = svg('text', { x: 98, y: y(i) + 5, 'text-anchor': 'end', class: i === q ? 'qtok focus' : 'qtok' });
      left.textContent = short[i];
      left.addEventListener('click', () => actions.setFocus(i));
      const right = svg('text', { x: 222, y: y(i) + 5, class: 'ktok' });
      right.textContent = `${short[i]} ${w[i] > 0 ? pct(w[i]) : '0%'}`;
      right.dataset.matrix = 'weights';
      right.dataset.head = h;
      right.dataset.row = q;
      right.dataset.col = i;
      right.dataset.value = String(w[i]);
      pic.append(left, right);
    }
    this.root.replaceChildren(
      el('h3', { text: t('arcs.title', { tok: labels[q], h: h + 1 }) }),
      el('p', { class: 'orient', text: t('arcs.orient') }),
      el('div', { class: 'arcs-scroll', attrs: { tabindex: tr.n > 24 ? '0' : null, role: 'group', 'aria-label': t('arcs.label', { tok: labels[q], h: h + 1 }) } }, [pic]),
    );
  }
}
