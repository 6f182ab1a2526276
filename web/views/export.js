// export.js: takes the numbers away. A picture of the current stage's matrix (PNG and SVG, drawn
// from one scene description), any matrix as CSV or JSON, and a NumPy script that recomputes the
// current trace from its own X and weights. It formats numbers the core computed; the only maths
// here is in the Python text it writes, for the learner to run.
import { el, fmt } from './util.js';

// the matrix each stage shows, for the picture
const STAGE_MATRIX = {
  tokens: 'X', embed: 'X', project: 'Q', score: 'scores', scale: 'scaled', mask: 'masked',
  softmax: 'weights', mix: 'head_output', heads: 'output',
};
const HEAD_MATRICES = ['W_Q', 'W_K', 'W_V', 'Q', 'K', 'V', 'scores', 'scaled', 'masked', 'weights', 'head_output'];
const MATRICES = ['X', ...HEAD_MATRICES, 'concat', 'W_O', 'output'];

/** {rows, cols, data} of one matrix of the trace (`head` for the per-head ones). */
export function matrixOf(trace, name, head) {
  if (name === 'head_output') return trace.head[head].output;
  if (HEAD_MATRICES.includes(name)) return trace.head[head][name];
  return trace[name];
}

// row/column labels: token texts where a side is the tokens, else d0, d1, ...
function labels(result, name, m) {
  const toks = result.tokens.map((x) => x.text);
  const dims = (n, p) => Array.from({ length: n }, (_, i) => `${p}${i}`);
  const tokenRows = !name.startsWith('W_');
  const tokenCols = ['scores', 'scaled', 'masked', 'weights'].includes(name);
  return {
    rows: tokenRows ? toks.slice(0, m.rows) : dims(m.rows, 'd'),
    cols: tokenCols ? toks.slice(0, m.cols) : dims(m.cols, 'd'),
  };
}

const csvCell = (s) => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
// full float32 precision: 9 significant digits read back to the same float32
const num9 = (v) => (v === -Infinity ? '-inf' : v === Infinity ? 'inf' : Number.isNaN(v) ? 'nan' : String(Number(v.toPrecision(9))));

export function toCSV(result, name, head) {
  const m = matrixOf(result.trace, name, head);
  const lab = labels(result, name, m);
  const lines = [['', ...lab.cols].map(csvCell).join(',')];
  for (let i = 0; i < m.rows; i++) {
    const row = Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols), num9);
    lines.push([csvCell(lab.rows[i]), ...row].join(','));
  }
  return lines.join('\n') + '\n';
}

export function toJSON(result, name, head) {
  const m = matrixOf(result.trace, name, head);
  const lab = labels(result, name, m);
  const rows = [];
  for (let i = 0; i < m.rows; i++) {
    rows.push(Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols), (v) => (Number.isFinite(v) ? Number(v.toPrecision(9)) : null)));
  }
  const headed = HEAD_MATRICES.includes(name);
  return JSON.stringify({
    matrix: name, head: headed ? head : null, rows: m.rows, cols: m.cols,
    rowLabels: lab.rows, colLabels: lab.cols, data: rows, orientation: 'row i, column j; null = masked (-inf)',
  }, null, 1) + '\n';
}

const pyStr = (s) => JSON.stringify(s);   // a JSON string is a valid Python string literal
function pyMatrix(m) {
  const rows = [];
  for (let i = 0; i < m.rows; i++) rows.push(`[${Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols), num9).join(', ')}]`);
  return `np.array([\n    ${rows.join(',\n    ')}], dtype=np.float32)`;
}

/** A Python script that recomputes every stage with NumPy from this trace's X and weights. */
export function numpySnippet(result, sentence) {
  const tr = result.trace;
  const s = result.settings;
  const list = (key) => `[\n${tr.head.map((h) => `  ${pyMatrix(h[key])}`).join(',\n')}]`;
  return `# Attention Playground: recompute this page's numbers with NumPy (float32).
# Sentence: ${pyStr(sentence)}
# seed=${s.seed} d_model=${tr.dModel} heads=${tr.heads} d_k=${tr.dK} causal=${tr.causal} scale=${tr.scale} temperature=${tr.temperature}
# X and the weights are copied from the page (9 significant digits = exact float32); the rest is
# computed here, stage by stage, as the page does. Row i = query i, column j = key j.
import numpy as np

tokens = ${pyStr(result.tokens.map((x) => x.text))}
X = ${pyMatrix(tr.X)}  # n x d_model: embedding (+ position) per token
W_Q = ${list('W_Q')}  # per head: d_model x d_k
W_K = ${list('W_K')}
W_V = ${list('W_V')}
W_O = ${pyMatrix(tr.W_O)}  # (heads*d_k) x d_model
causal, scale, temperature = ${tr.causal ? 'True' : 'False'}, ${tr.scale ? 'True' : 'False'}, np.float32(${num9(tr.temperature)})
n, d_k = X.shape[0], W_Q[0].shape[1]

def softmax_rows(z):
    z = z - z.max(axis=1, keepdims=True)  # subtract the row maximum first (stable)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)

np.set_printoptions(precision=4, suppress=True, linewidth=120)
weights, outputs = [], []
for h in range(len(W_Q)):
    Q, K, V = X @ W_Q[h], X @ W_K[h], X @ W_V[h]       # project: n x d_k each
    scores = Q @ K.T                                   # score: n x n
    scaled = scores / np.sqrt(np.float32(d_k)) if scale else scores
    masked = np.where(np.triu(np.ones((n, n), dtype=bool), 1), np.float32(-np.inf), scaled) if causal else scaled
    w = softmax_rows(masked / temperature)             # softmax: every row sums to 1
    weights.append(w)
    outputs.append(w @ V)                              # mix: n x d_k
    print(f"head {h + 1} weights (row = query, column = key):")
    print(w)
output = np.concatenate(outputs, axis=1) @ W_O        # heads merged: n x d_model
print("output:")
print(output)
`;
}

// ---- the picture: one scene, drawn as SVG text or onto a canvas ----

/** -> {width, height, items: [{rect} | {text}]} for the current stage's matrix. */
export function sceneOf({ result, state, stage, t }) {
  const name = STAGE_MATRIX[stage] || 'weights';
  const head = Math.min(state.head, result.trace.heads - 1);
  const m = matrixOf(result.trace, name, head);
  const lab = labels(result, name, m);
  const cell = 46;
  const left = 16 + Math.min(160, 14 * Math.max(2, ...lab.rows.map((s) => [...s].length)) + 12);
  const top = 104;
  const perHead = HEAD_MATRICES.includes(name);
  const title = `${t(`stage.${stage}.title`)}${perHead ? ` · ${t('walk.head')} ${head + 1}` : ''} · ${name}`;
  // a rough text width (wide characters count double), so the title is never cut off
  const textWidth = (str, size) => [...str].reduce((w, ch) => w + (ch.charCodeAt(0) > 0x2e80 ? size : size * 0.62), 0);
  const width = Math.ceil(Math.max(520, left + m.cols * cell + 24, textWidth(title, 18) + 40));
  const height = top + m.rows * cell + 40;
  const items = [{ kind: 'rect', x: 0, y: 0, w: width, h: height, fill: '#ffffff' }];
  const text = (x, y, s, o = {}) => items.push({ kind: 'text', x, y, text: s, size: o.size || 13, anchor: o.anchor || 'start', fill: o.fill || '#16181d', weight: o.weight || 'normal' });
  text(16, 28, title, { size: 18, weight: 'bold' });
  text(16, 52, state.s.length > 90 ? `${state.s.slice(0, 90)}…` : state.s, { size: 14 });
  text(16, 74, t('export.caption', { rows: m.rows, cols: m.cols, seed: result.settings.seed }), { size: 12, fill: '#4a5160' });
  let max = 0;
  for (const v of m.data) if (Number.isFinite(v)) max = Math.max(max, Math.abs(v));
  max = max || 1;
  const weightLike = name === 'weights';
  for (let j = 0; j < m.cols; j++) text(left + j * cell + cell / 2, top - 8, lab.cols[j], { anchor: 'middle', size: 12 });
  for (let i = 0; i < m.rows; i++) {
    text(left - 8, top + i * cell + cell / 2 + 4, lab.rows[i], { anchor: 'end', size: 12 });
    for (let j = 0; j < m.cols; j++) {
      const v = m.data[i * m.cols + j];
      const a = Number.isFinite(v) ? Math.min(1, Math.abs(v) / max) : 0;
      const fill = !Number.isFinite(v) ? '#e5e7eb' : weightLike ? `rgba(22,163,74,${(0.08 + 0.5 * a).toFixed(3)})`
        : v >= 0 ? `rgba(37,99,235,${(0.06 + 0.42 * a).toFixed(3)})` : `rgba(234,88,12,${(0.06 + 0.42 * a).toFixed(3)})`;
      items.push({ kind: 'rect', x: left + j * cell, y: top + i * cell, w: cell - 2, h: cell - 2, fill });
      text(left + j * cell + cell / 2 - 1, top + i * cell + cell / 2 + 4, fmt(v, 2), { anchor: 'middle', size: 11 });
    }
  }
  text(16, height - 14, t('orient'), { size: 12, fill: '#4a5160' });
  return { width, height, items, name: `${stage}-${name}${perHead ? `-head${head + 1}` : ''}` };
}

const FONT = 'system-ui, "Noto Sans CJK SC", "Noto Sans SC", "PingFang SC", sans-serif';
const xml = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function sceneToSVG(scene) {
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" width="${scene.width}" height="${scene.height}" viewBox="0 0 ${scene.width} ${scene.height}" font-family='${FONT}'>`];
  for (const it of scene.items) {
    if (it.kind === 'rect') parts.push(`<rect x="${it.x}" y="${it.y}" width="${it.w}" height="${it.h}" fill="${it.fill}"/>`);
    else parts.push(`<text x="${it.x}" y="${it.y}" font-size="${it.size}" text-anchor="${it.anchor}" font-weight="${it.weight}" fill="${it.fill}">${xml(it.text)}</text>`);
  }
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}

export function drawScene(scene, canvas) {
  canvas.width = scene.width;
  canvas.height = scene.height;
  const g = canvas.getContext('2d');
  for (const it of scene.items) {
    if (it.kind === 'rect') {
      g.fillStyle = it.fill;
      g.fillRect(it.x, it.y, it.w, it.h);
    } else {
      g.fillStyle = it.fill;
      g.font = `${it.weight === 'bold' ? 'bold ' : ''}${it.size}px ${FONT}`;
      g.textAlign = it.anchor === 'middle' ? 'center' : it.anchor === 'end' ? 'right' : 'left';
      g.fillText(it.text, it.x, it.y);
    }
  }
  return canvas;
}

function download(name, blob) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

export class ExportView {
  /** view() -> {result, state, stage, t} (the wiring's current view) */
  constructor(root, { t, view }) {
    this.root = root;
    this.view = view;
    this.setTranslator(t);
  }

  setTranslator(t) {
    this.t = t;
    const btn = (key, what, on) => el('button', { class: 'action small', text: t(key), attrs: { type: 'button', 'data-export': what }, on: { click: on } });
    this.matrix = el('select', { attrs: { id: 'export-matrix' } },
      MATRICES.map((m) => el('option', { text: m === 'head_output' ? t('export.headOutput') : m, attrs: { value: m } })));
    this.matrix.value = 'weights';
    this.code = el('textarea', { class: 'snippet code', attrs: { id: 'export-numpy', readonly: '', rows: 8, spellcheck: 'false', 'aria-label': t('export.numpy') }, });
    this.code.hidden = true;
    this.root.replaceChildren(
      el('div', { class: 'export-row' }, [
        el('span', { class: 'exp-title', text: t('export.picture') }),
        btn('export.png', 'png', () => this.picture('png')), btn('export.svg', 'svg', () => this.picture('svg')),
      ]),
      el('div', { class: 'export-row' }, [
        el('label', { class: 'exp-title', text: t('export.numbers'), attrs: { for: 'export-matrix' } }), this.matrix,
        btn('export.csv', 'csv', () => this.numbers('csv')), btn('export.json', 'json', () => this.numbers('json')),
      ]),
      el('div', { class: 'export-row' }, [
        el('span', { class: 'exp-title', text: t('export.python') }),
        btn('export.numpy', 'numpy', () => this.showNumpy()), btn('export.numpyFile', 'numpy-file', () => this.numpyFile()),
      ]),
      el('p', { class: 'hint', text: t('export.numpyHint') }),
      this.code,
    );
  }

  fileBase() {
    const { state } = this.view();
    return `attention-seed${state.seed}`;
  }

  picture(kind) {
    const scene = sceneOf(this.view());
    const name = `${this.fileBase()}-${scene.name}`;
    if (kind === 'svg') {
      download(`${name}.svg`, new Blob([sceneToSVG(scene)], { type: 'image/svg+xml' }));
      return;
    }
    drawScene(scene, document.createElement('canvas')).toBlob((b) => download(`${name}.png`, b), 'image/png');
  }

  numbers(kind) {
    const { result, state } = this.view();
    const name = this.matrix.value;
    const head = Math.min(state.head, result.trace.heads - 1);
    const text = kind === 'csv' ? toCSV(result, name, head) : toJSON(result, name, head);
    const suffix = HEAD_MATRICES.includes(name) ? `-head${head + 1}` : '';
    download(`${this.fileBase()}-${name}${suffix}.${kind}`, new Blob([text], { type: kind === 'csv' ? 'text/csv' : 'application/json' }));
  }

  snippet() {
    const { result, state } = this.view();
    return numpySnippet(result, state.s);
  }

  showNumpy() {
    this.code.value = this.snippet();
    this.code.hidden = false;
    this.code.focus();
    this.code.select();
  }

  numpyFile() {
    download(`${this.fileBase()}.py`, new Blob([this.snippet()], { type: 'text/x-python' }));
  }
}
