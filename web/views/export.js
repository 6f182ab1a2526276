// export.js: takes the numbers away. A picture of the current stage's matrix (PNG and SVG, drawn
// from one scene description), any matrix as CSV or JSON, and a NumPy script that recomputes the
// current trace from its own X and weights. It formats numbers the core computed; the only maths
// here is in the Python text it writes, for the learner to run.
import { el } from './dom.js';
import { fmt } from './format.js';
import { coreSettings } from '../state.js';
import { weightsOf, npzBytes, npzSnippet, PY_FIRST_LINE } from './weights-out.js';
/** @typedef {import('./view-types.js').ViewContext} ViewContext */
/** @typedef {import('./view-types.js').ShownTrace} ShownTrace */
/** @typedef {import('./view-types.js').Translate} Translate */
/** @typedef {import('../../types/index.js').Matrix} Matrix */
/** The page state as the export reads it (a copy of the URL state).
 *  @typedef {Record<string, unknown> & {head: number, model?: string, seed?: unknown}} ExportState */
/** The wiring's current view (playground.js exportView): the shown trace, that trace with every
 *  layer's matrices, the text it was traced from, the page state, the stage id and the translator.
 *  @typedef {{result: ShownTrace, full: () => ShownTrace, sentence: string, state: ExportState,
 *    stage: string, t: Translate}} ExportSource */
/** A shape of the picture: a filled rectangle or a line of text.
 *  @typedef {{kind: 'rect', x: number, y: number, w: number, h: number, fill: string}
 *    | {kind: 'text', x: number, y: number, text: string, size: number, anchor: string,
 *       fill: string, weight: string}} SceneItem */
/** The picture: its size, its shapes in drawing order and its file name's tail.
 *  @typedef {{width: number, height: number, items: SceneItem[], name: string}} Scene */

// the matrix each stage shows, for the picture
/** @type {Record<string, string>} */
const STAGE_MATRIX = {
  tokens: 'X',
  embeddings: 'X',
  project: 'Q',
  score: 'scores',
  scale: 'scaled',
  mask: 'masked',
  softmax: 'weights',
  mix: 'head_output',
  heads: 'output',
};
const HEAD_MATRICES = [
  'W_Q',
  'W_K',
  'W_V',
  'Q',
  'K',
  'V',
  'scores',
  'scaled',
  'masked',
  'weights',
  'head_output',
];
const MATRICES = ['X', ...HEAD_MATRICES, 'concat', 'W_O', 'output'];
// matrices with a name in words (the others are their symbols in every language)
const NAMED = ['scores', 'scaled', 'masked', 'weights', 'head_output', 'concat', 'output'];
/** @param {Translate} t @param {string} m */
const matrixName = (t, m) => (NAMED.includes(m) ? t(`export.m.${m}`) : m);
// which weights the numbers come from, for file names and the picture's caption
const modelTag = (/** @type {ExportState} */ state) =>
  state.model === 'random'
    ? `seed${state.seed}`
    : state.model === 'custom' || state.model === 'numpy'
      ? state.model
      : 'trained';

/** {rows, cols, data} of one matrix of the trace (`head` for the per-head ones).
 * @param {ShownTrace} trace @param {string} name one of MATRICES @param {number} head
 * @returns {Matrix} */
export function matrixOf(trace, name, head) {
  if (name === 'head_output') return trace.heads[head].output;
  // MATRICES names only matrices: a head's, or the trace's own
  if (HEAD_MATRICES.includes(name)) return /** @type {Matrix} */ (trace.heads[head][name]);
  return /** @type {Matrix} */ (trace[name]);
}

/** row/column labels: token texts where a side is the tokens, else d0, d1, ...
 * @param {ShownTrace} result @param {string} name @param {Matrix} m */
function labels(result, name, m) {
  const toks = result.tokens;
  /** @param {number} n @param {string} p */
  const dims = (n, p) => Array.from({ length: n }, (_, i) => `${p}${i}`);
  const tokenRows = !name.startsWith('W_');
  const tokenCols = ['scores', 'scaled', 'masked', 'weights'].includes(name);
  return {
    rows: tokenRows ? toks.slice(0, m.rows) : dims(m.rows, 'd'),
    cols: tokenCols ? toks.slice(0, m.cols) : dims(m.cols, 'd'),
  };
}

// A label cell (a token's text). One that begins with = + - @ or a tab/CR would be read as a
// formula by spreadsheets (CSV injection): it gets a leading apostrophe, which they show as text.
// Number cells are written by num9 and never pass through here.
const csvCell = (/** @type {string} */ s) => {
  const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};
// full float32 precision: 9 significant digits read back to the same float32
const num9 = (/** @type {number} */ v) =>
  v === -Infinity
    ? '-inf'
    : v === Infinity
      ? 'inf'
      : Number.isNaN(v)
        ? 'nan'
        : String(Number(v.toPrecision(9)));

/** One matrix as CSV, with its row and column labels.
 * @param {ShownTrace} result @param {string} name @param {number} head */
export function toCSV(result, name, head) {
  const m = matrixOf(result, name, head);
  const lab = labels(result, name, m);
  const lines = [['', ...lab.cols].map(csvCell).join(',')];
  for (let i = 0; i < m.rows; i++) {
    const row = Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols), num9);
    lines.push([csvCell(lab.rows[i]), ...row].join(','));
  }
  return lines.join('\n') + '\n';
}

/** One matrix as JSON, with its labels; null for a masked (-inf) cell.
 * @param {ShownTrace} result @param {string} name @param {number} head */
export function toJSON(result, name, head) {
  const m = matrixOf(result, name, head);
  const lab = labels(result, name, m);
  const rows = [];
  for (let i = 0; i < m.rows; i++) {
    rows.push(
      Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols), (v) =>
        Number.isFinite(v) ? Number(v.toPrecision(9)) : null,
      ),
    );
  }
  const headed = HEAD_MATRICES.includes(name);
  return (
    JSON.stringify(
      {
        matrix: name,
        head: headed ? head : null,
        rows: m.rows,
        cols: m.cols,
        rowLabels: lab.rows,
        colLabels: lab.cols,
        data: rows,
        orientation: 'row i, column j; null = masked (-inf)',
      },
      null,
      1,
    ) + '\n'
  );
}

const pyStr = (/** @type {unknown} */ s) => JSON.stringify(s); // a JSON string is a valid Python string literal
/** @param {Matrix} m */
function pyMatrix(m) {
  const rows = [];
  for (let i = 0; i < m.rows; i++)
    rows.push(`[${Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols), num9).join(', ')}]`);
  return `np.array([\n    ${rows.join(',\n    ')}], dtype=np.float32)`;
}

// X and the weights of the numpy model: drawn again by NumPy itself, in the article's order
// (np.random.randn gives float64; the page computes in float32, so they are rounded like the core's).
/** @param {ShownTrace} result */
function numpyDraws(result) {
  const c = result.config;
  return `# X and the weights are drawn by NumPy itself, exactly as the article's program draws them
# (np.random.seed, then X, W_Q, W_K, W_V), and rounded to float32 as the page does.
np.random.seed(${c.seed})
X = np.random.randn(${c.n}, ${c.d_model}).astype(np.float32)  # n x d_model (no positions)
W_Q = [np.random.randn(${c.d_model}, ${c.d_k}).astype(np.float32)]  # one head: d_model x d_k
W_K = [np.random.randn(${c.d_model}, ${c.d_k}).astype(np.float32)]
W_V = [np.random.randn(${c.d_model}, ${c.d_k}).astype(np.float32)]
${c.tie_qk ? "W_K = W_Q  # tied: W_K = W_Q (drawn all the same, so W_V is the article's)\n" : ''}W_O = np.eye(${c.d_k}, dtype=np.float32)  # no output projection`;
}

/** A Python script that recomputes every stage with NumPy from this trace's X and weights (for
 *  the numpy model, from np.random.seed instead of listing them).
 * @param {ShownTrace} result @param {string} sentence */
export function numpySnippet(result, sentence) {
  const c = result.config;
  const list = (/** @type {'W_Q' | 'W_K' | 'W_V'} */ key) =>
    `[\n${result.heads.map((h) => `  ${pyMatrix(h[key])}`).join(',\n')}]`;
  const listed = `# X and the weights are copied from the page (9 significant digits = exact float32).
X = ${pyMatrix(result.X)}  # n x d_model: embedding (+ position) per token
W_Q = ${list('W_Q')}  # per head: d_model x d_k
W_K = ${list('W_K')}
W_V = ${list('W_V')}
W_O = ${pyMatrix(result.W_O)}  # (heads*d_k) x d_model`;
  return `${PY_FIRST_LINE}
# Attention Playground: recompute this page's numbers with NumPy (float32).
# Sentence: ${pyStr(sentence)}
# seed=${c.seed} d_model=${c.d_model} heads=${c.heads} d_k=${c.d_k} causal=${c.causal} scale=${c.scale} temperature=${c.temperature}
# The stages are computed here, one by one, as the page does. Row i = query i, column j = key j.
import numpy as np

tokens = ${pyStr(result.tokens)}
${result.program ? numpyDraws(result) : listed}
causal, scale, temperature = ${c.causal ? 'True' : 'False'}, ${c.scale ? 'True' : 'False'}, np.float32(${num9(c.temperature)})
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

/** -> {width, height, items: [{rect} | {text}]} for the current stage's matrix.
 * @param {ExportSource} view @returns {Scene} */
export function sceneOf({ result, sentence, state, stage, t }) {
  const name = STAGE_MATRIX[stage] || 'weights';
  const head = Math.min(state.head, result.config.heads - 1);
  const m = matrixOf(result, name, head);
  const lab = labels(result, name, m);
  const cell = 46;
  const left = 16 + Math.min(160, 14 * Math.max(2, ...lab.rows.map((s) => [...s].length)) + 12);
  const top = 104;
  const perHead = HEAD_MATRICES.includes(name);
  const title = `${t(`stage.${stage}.title`)}${perHead ? ` · ${t('walk.head')} ${head + 1}` : ''} · ${matrixName(t, name)}`;
  // a rough text width (wide characters count double), so the title is never cut off
  /** @param {string} str @param {number} size */
  const textWidth = (str, size) =>
    [...str].reduce((w, ch) => w + (ch.charCodeAt(0) > 0x2e80 ? size : size * 0.62), 0);
  const width = Math.ceil(Math.max(520, left + m.cols * cell + 24, textWidth(title, 18) + 40));
  const height = top + m.rows * cell + 40;
  /** @type {SceneItem[]} the picture's shapes, drawn in order */
  const items = [{ kind: 'rect', x: 0, y: 0, w: width, h: height, fill: '#ffffff' }];
  /** @param {number} x @param {number} y @param {string} s
   *  @param {{size?: number, anchor?: string, fill?: string, weight?: string}} [o] */
  const text = (x, y, s, o = {}) =>
    items.push({
      kind: 'text',
      x,
      y,
      text: s,
      size: o.size || 13,
      anchor: o.anchor || 'start',
      fill: o.fill || '#16181d',
      weight: o.weight || 'normal',
    });
  text(16, 28, title, { size: 18, weight: 'bold' });
  // the sentence these numbers come from (while the box holds a bad text, the last good one)
  text(16, 52, sentence.length > 90 ? `${sentence.slice(0, 90)}…` : sentence, { size: 14 });
  const weightsFrom =
    state.model === 'random'
      ? t('export.bySeed', { seed: result.config.seed })
      : t(`export.by.${state.model === 'custom' ? 'custom' : 'trained'}`);
  text(16, 74, t('export.caption', { rows: m.rows, cols: m.cols, model: weightsFrom }), {
    size: 12,
    fill: '#4a5160',
  });
  let max = 0;
  for (const v of m.data) if (Number.isFinite(v)) max = Math.max(max, Math.abs(v));
  max = max || 1;
  const weightLike = name === 'weights';
  for (let j = 0; j < m.cols; j++)
    text(left + j * cell + cell / 2, top - 8, lab.cols[j], { anchor: 'middle', size: 12 });
  for (let i = 0; i < m.rows; i++) {
    text(left - 8, top + i * cell + cell / 2 + 4, lab.rows[i], { anchor: 'end', size: 12 });
    for (let j = 0; j < m.cols; j++) {
      const v = m.data[i * m.cols + j];
      const a = Number.isFinite(v) ? Math.min(1, Math.abs(v) / max) : 0;
      const fill = !Number.isFinite(v)
        ? '#e5e7eb'
        : weightLike
          ? `rgba(22,163,74,${(0.08 + 0.5 * a).toFixed(3)})`
          : v >= 0
            ? `rgba(37,99,235,${(0.06 + 0.42 * a).toFixed(3)})`
            : `rgba(234,88,12,${(0.06 + 0.42 * a).toFixed(3)})`;
      items.push({
        kind: 'rect',
        x: left + j * cell,
        y: top + i * cell,
        w: cell - 2,
        h: cell - 2,
        fill,
      });
      text(left + j * cell + cell / 2 - 1, top + i * cell + cell / 2 + 4, fmt(v, 2), {
        anchor: 'middle',
        size: 11,
      });
    }
  }
  text(16, height - 14, t('orient'), { size: 12, fill: '#4a5160' });
  return { width, height, items, name: `${stage}-${name}${perHead ? `-head${head + 1}` : ''}` };
}

const FONT = 'system-ui, "Noto Sans CJK SC", "Noto Sans SC", "PingFang SC", sans-serif';
// Escaped text, and characters XML 1.0 does not allow (controls, U+FFFE/U+FFFF, lone surrogates)
// replaced by U+FFFD, so every SVG is well-formed whatever its labels hold.
/** @param {string} ch one code point */
const xmlChar = (ch) => {
  const c = /** @type {number} */ (ch.codePointAt(0));
  const allowed =
    c === 0x9 || c === 0xa || c === 0xd || (c >= 0x20 && c !== 0xfffe && c !== 0xffff);
  return allowed ? ch : '\uFFFD';
};
/** @param {unknown} s */
const xml = (s) =>
  Array.from(String(s).toWellFormed(), xmlChar)
    .join('')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

/** @param {Scene} scene */
export function sceneToSVG(scene) {
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${scene.width}" height="${scene.height}" viewBox="0 0 ${scene.width} ${scene.height}" font-family='${FONT}'>`,
  ];
  for (const it of scene.items) {
    if (it.kind === 'rect')
      parts.push(
        `<rect x="${it.x}" y="${it.y}" width="${it.w}" height="${it.h}" fill="${it.fill}"/>`,
      );
    else
      parts.push(
        `<text x="${it.x}" y="${it.y}" font-size="${it.size}" text-anchor="${it.anchor}" font-weight="${it.weight}" fill="${it.fill}">${xml(it.text)}</text>`,
      );
  }
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}

/** @param {Scene} scene @param {HTMLCanvasElement} canvas */
export function drawScene(scene, canvas) {
  canvas.width = scene.width;
  canvas.height = scene.height;
  const g = canvas.getContext('2d');
  if (!g) throw new Error('export: the canvas has no 2-D context');
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

/** @param {string} name @param {Blob} blob */
function download(name, blob) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

export class ExportView {
  /** view() -> {result, full, sentence, state, stage, t} (the wiring's current view; `sentence`
   *  is the text `result` was traced from, which is not the box's text while that is bad;
   *  full() is that trace with every layer's matrices)
   * @param {HTMLElement} root
   * @param {{t: Translate, view: () => ExportSource, core: ViewContext['core']}} ctx */
  constructor(root, { t, view, core }) {
    this.root = root;
    this.view = view;
    this.core = core;
    // setTranslator builds them
    /** @type {Translate} */ this.t;
    /** @type {HTMLSelectElement} */ this.matrix;
    /** @type {HTMLTextAreaElement} */ this.code;
    /** @type {HTMLElement} */ this.problem;
    this.setTranslator(t);
  }

  /** @param {Translate} t */
  setTranslator(t) {
    this.t = t;
    /** @param {string} key @param {string} what @param {() => void} on */
    const btn = (key, what, on) =>
      el('button', {
        class: 'action small',
        text: t(key),
        type: 'button',
        'data-export': what,
        on: { click: on },
      });
    this.matrix = el(
      'select',
      { id: 'export-matrix' },
      MATRICES.map((m) => el('option', { text: matrixName(t, m), value: m })),
    );
    this.matrix.value = 'weights';
    this.code = el('textarea', {
      class: 'snippet code',
      id: 'export-numpy',
      readonly: '',
      rows: 8,
      spellcheck: 'false',
      'aria-label': t('export.numpy'),
    });
    this.code.hidden = true;
    this.root.replaceChildren(
      el('div', { class: 'export-row' }, [
        el('span', { class: 'exp-title', text: t('export.picture') }),
        btn('export.png', 'png', () => this.picture('png')),
        btn('export.svg', 'svg', () => this.picture('svg')),
      ]),
      el('div', { class: 'export-row' }, [
        el('label', { class: 'exp-title', text: t('export.numbers'), for: 'export-matrix' }),
        this.matrix,
        btn('export.csv', 'csv', () => this.numbers('csv')),
        btn('export.json', 'json', () => this.numbers('json')),
      ]),
      el('div', { class: 'export-row' }, [
        el('span', { class: 'exp-title', text: t('export.python') }),
        btn('export.numpy', 'numpy', () => this.showNumpy()),
        btn('export.numpyFile', 'numpy-file', () => this.numpyFile()),
      ]),
      el('p', { class: 'hint', text: t('export.numpyHint') }),
      el('div', { class: 'export-row' }, [
        el('span', { class: 'exp-title', text: t('export.weights') }),
        btn('export.npz', 'npz', () => this.guard(() => this.npzFile())),
        btn('export.npzCode', 'npz-code', () => this.guard(() => this.showNpzCode())),
        btn('export.npzPy', 'npz-py', () => this.guard(() => this.npzPyFile())),
        btn('export.apm', 'apm', () => this.guard(() => this.apmFile())),
      ]),
      el('p', { class: 'hint', text: t('export.npzHint') }),
      (this.problem = el('p', { class: 'export-error error', role: 'alert', hidden: '' })),
      this.code,
    );
  }

  /** Runs an export; a refusal of the core is shown as the locale's message with its code.
   * @param {() => void} f */
  guard(f) {
    this.problem.hidden = true;
    try {
      f();
    } catch (/** @type {any} */ e) {
      const code = (e && e.code) || 'internal';
      const key = `error.${code}`;
      const said = this.t(key, { ...e?.details, message: '' });
      this.problem.textContent = this.t('export.failed', {
        code,
        message: said === key ? this.t('export.unexpected') : said,
      });
      this.problem.hidden = false;
    }
  }

  /** The current trace's weights for the .npz, its file name and its Python program. */
  weights() {
    const view = this.view();
    const { sentence, state } = view;
    const result = view.full();
    const weights = weightsOf(this.core, sentence, coreSettings(state), result);
    const file = `${this.fileBase()}.npz`;
    return { weights, file, code: npzSnippet({ result, sentence, weights, file, t: this.t }) };
  }

  npzFile() {
    const { weights, file } = this.weights();
    download(file, new Blob([npzBytes(this.core, weights)], { type: 'application/zip' }));
  }

  showNpzCode() {
    this.code.value = this.weights().code;
    this.code.hidden = false;
    this.code.focus();
    this.code.select();
  }

  npzPyFile() {
    download(
      `${this.fileBase()}-npz.py`,
      new Blob([this.weights().code], { type: 'text/x-python' }),
    );
  }

  apmFile() {
    // the page's state has every key of the URL table (state.js parse), model among them
    const model = /** @type {string} */ (this.view().state.model);
    const bytes = this.core.modelBytes(model);
    download(`${this.fileBase()}.apm`, new Blob([bytes], { type: 'application/octet-stream' }));
  }

  fileBase() {
    const { state } = this.view();
    return `attention-${modelTag(state)}`;
  }

  /** @param {'png' | 'svg'} kind */
  picture(kind) {
    const scene = sceneOf(this.view());
    const name = `${this.fileBase()}-${scene.name}`;
    if (kind === 'svg') {
      download(`${name}.svg`, new Blob([sceneToSVG(scene)], { type: 'image/svg+xml' }));
      return;
    }
    drawScene(scene, document.createElement('canvas')).toBlob((b) => {
      if (!b) throw new Error('export: the canvas gave no PNG');
      download(`${name}.png`, b);
    }, 'image/png');
  }

  /** @param {'csv' | 'json'} kind */
  numbers(kind) {
    const { result, state } = this.view();
    const name = this.matrix.value;
    const head = Math.min(state.head, result.config.heads - 1);
    const text = kind === 'csv' ? toCSV(result, name, head) : toJSON(result, name, head);
    const suffix = HEAD_MATRICES.includes(name) ? `-head${head + 1}` : '';
    download(
      `${this.fileBase()}-${name}${suffix}.${kind}`,
      new Blob([text], { type: kind === 'csv' ? 'text/csv' : 'application/json' }),
    );
  }

  snippet() {
    const { result, sentence } = this.view();
    return numpySnippet(result, sentence);
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
