// weights-out.js: the weights of the current trace as a NumPy .npz file (the core's arrays by the
// core's names, plus this sentence's tokens, embeddings and positions) and the Python program that
// loads it with np.load and recomputes the page's numbers, layer by layer. The arrays and the CRC
// are the core's; the only maths here is in the Python text, for the learner to run.
import { npz } from '../npz.js';
import { CoreError } from '../core.js';
/** @typedef {import('../core.js').Core} Core */
/** @typedef {import('../../types/index.js').Trace} Trace */
/** @typedef {import('./view-types.js').Translate} Translate */
/** @typedef {import('../npz.js').NamedMatrix} NamedMatrix */
/** What weightsOf returns. @typedef {ReturnType<typeof weightsOf>} Weights */

// the names (network.hpp's parameters()) each trained layer must have, as the program reads them
const LAYER_PARTS = [
  'norm_attn.gain',
  'norm_attn.bias',
  'W_Q',
  'W_K',
  'W_V',
  'W_O',
  'norm_ffn.gain',
  'norm_ffn.bias',
  'W_1',
  'b_1',
  'W_2',
  'b_2',
];
const pyStr = (/** @type {unknown} */ s) => JSON.stringify(s); // a JSON string is a valid Python string literal
/** The first line of every exported program. Python reads an encoding from a `coding:` comment
 *  on line 1 or 2, so line 1 names UTF-8 and the learner's sentence comes after line 2: a
 *  sentence like "coding: it is fun" must not choose the file's encoding. */
export const PY_FIRST_LINE = '# -*- coding: utf-8 -*-';
const pyBool = (/** @type {unknown} */ b) => (b ? 'True' : 'False');
// full float32 precision: 9 significant digits read back to the same float32
const num9 = (/** @type {unknown} */ v) => String(Number(Number(v).toPrecision(9)));

/**
 * The arrays of the .npz for (sentence, settings) and its trace `result`: the core's weight
 * arrays, then "tokens", "embeddings" and (when on) "positions" under the trace's own field names.
 * -> {arrays, eps, layers: [name prefix of each trained layer], out: prefix of the read-out}
 * @param {Core} core @param {string} sentence @param {Record<string, unknown>} settings
 * @param {Trace} result
 */
export function weightsOf(core, sentence, settings, result) {
  const w = core.weightArrays(sentence, settings);
  /** @type {Set<string>} */
  const names = new Set(w.arrays.map((/** @type {NamedMatrix} */ a) => a.name));
  /** @type {(NamedMatrix | {name: string, strings: readonly unknown[]})[]} */
  const arrays = [...w.arrays, { name: 'tokens', strings: result.tokens }];
  arrays.push({ name: 'embeddings', ...result.embeddings });
  if (result.positions) arrays.push({ name: 'positions', ...result.positions });
  // a trained model's layers: every "<prefix>W_Q" but the one-layer "W_Q" of random weights
  const layers = [...names].filter((n) => n.endsWith('.W_Q')).map((n) => n.slice(0, -'W_Q'.length));
  const outGain = [...names].find(
    (n) => n.endsWith('.gain') && !layers.some((p) => n.startsWith(p)),
  );
  const out = outGain ? outGain.slice(0, -'gain'.length) : '';
  const need = result.layers
    ? [...layers.flatMap((p) => LAYER_PARTS.map((x) => p + x)), `${out}gain`, `${out}bias`]
    : ['W_Q', 'W_K', 'W_V', 'W_O'];
  const missing = need.filter((n) => !names.has(n));
  if (missing.length || (result.layers && layers.length !== result.layers.length))
    throw new CoreError('export_mismatch', `the core's weights lack ${missing.join(', ')}`);
  return { arrays, eps: /** @type {number} */ (w.layer_norm_eps), layers, out };
}

/** The .npz bytes of weightsOf(...).arrays (the zip's CRC-32 is the core's).
 * @param {Core} core @param {Pick<Weights, 'arrays'>} weights */
export function npzBytes(core, weights) {
  return npz(weights.arrays, (b) => core.crc32(b));
}

/** The Python program for the .npz saved as `file`; comments from the locale (t).
 * @param {{result: Trace, sentence: string, weights: Weights, file: string, t: Translate}} what
 * @returns {string} */
export function npzSnippet({ result, sentence, weights, file, t }) {
  const c = result.config;
  const trained = Boolean(result.layers);
  const head = `${PY_FIRST_LINE}
# ${t('npz.py.title')}
# ${t('npz.py.orient')}
# ${t('npz.py.sentence')} ${pyStr(sentence)}
import numpy as np

w = np.load(${pyStr(file)})  # ${t('npz.py.load')}
tokens = [str(x) for x in w["tokens"]]
# ${t('npz.py.settings')}
heads, d_k = ${c.heads}, ${c.d_k}
causal, scale, tie_qk = ${pyBool(c.causal)}, ${pyBool(c.scale)}, ${pyBool(c.tie_qk)}
temperature = np.float32(${num9(c.temperature)})
eps = np.float32(${num9(weights.eps)})

def layer_norm(x, gain, bias):  # ${t('npz.py.layerNorm')}
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gain + bias

def softmax_rows(z):  # ${t('npz.py.softmax')}
    e = np.exp((z - z.max(axis=1, keepdims=True)) / temperature)
    return e / e.sum(axis=1, keepdims=True)

def attend(X, W_Q, W_K, W_V, W_O):  # ${t('npz.py.attend')}
    n = X.shape[0]
    weights, outputs = [], []
    for h in range(heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        Q, K, V = X @ W_Q[:, cols], X @ W_K[:, cols], X @ W_V[:, cols]  # n x d_k
        scores = Q @ K.T  # n x n
        scaled = scores / np.sqrt(np.float32(d_k)) if scale else scores
        future = np.triu(np.ones((n, n), dtype=bool), 1)
        masked = np.where(future, np.float32(-np.inf), scaled) if causal else scaled
        weights.append(softmax_rows(masked))
        outputs.append(weights[-1] @ V)  # n x d_k
    concat = np.concatenate(outputs, axis=1)  # n x (heads*d_k)
    return weights, concat @ W_O  # n x d_model

np.set_printoptions(precision=4, suppress=True, linewidth=120)
# ${t('npz.py.inputs')}
X = w["embeddings"]${result.positions ? ' + w["positions"]' : ''}
`;
  if (!trained) {
    return `${head}weights, output = attend(X, w["W_Q"], w["W_K"], w["W_V"], w["W_O"])
for h, wh in enumerate(weights):
    print(f${pyStr(t('npz.py.headWeights', { head: '{h + 1}' }))})
    print(wh)
print(${pyStr(t('npz.py.output'))})
print(output)
`;
  }
  return `${head}# ${t('npz.py.layers')}
layers = []
for prefix in ${pyStr(weights.layers)}:
    p = lambda name: w[prefix + name]
    Z = layer_norm(X, p("norm_attn.gain"), p("norm_attn.bias"))
    W_K = p("W_Q") if tie_qk else p("W_K")
    weights, A = attend(Z, p("W_Q"), W_K, p("W_V"), p("W_O"))
    M = X + A  # ${t('npz.py.residual')}
    U = layer_norm(M, p("norm_ffn.gain"), p("norm_ffn.bias"))
    H = np.maximum(U @ p("W_1") + p("b_1"), np.float32(0))  # ${t('npz.py.ffn')}
    X = M + H @ p("W_2") + p("b_2")
    layers.append({"weights": weights, "output": A, "hidden": H, "stream": X})
Y = layer_norm(X, w[${pyStr(`${weights.out}gain`)}], w[${pyStr(`${weights.out}bias`)}])  # ${t('npz.py.readout')}
for l, layer in enumerate(layers):
    for h, wh in enumerate(layer["weights"]):
        print(f${pyStr(t('npz.py.layerHeadWeights', { layer: '{l + 1}', head: '{h + 1}' }))})
        print(wh)
print(${pyStr(t('npz.py.readoutY'))})
print(Y)
`;
}
