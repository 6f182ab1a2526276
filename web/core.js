// core.js: loads the attention WebAssembly module and exposes its operations as plain functions
// that validate their arguments and throw CoreError. No DOM (beyond loading the module's script
// in a browser) and no maths: every number comes from the C++ core.

/** An error from the core or from argument checks; `code` is stable and has a locale string. */
export class CoreError extends Error {
  constructor(code, message, details = {}) {
    super(message);
    this.name = 'CoreError';
    this.code = code;
    this.details = details;
  }
}

function unwrap(result) {
  if (result && result.ok) return result;
  const e = (result && result.error) || { code: 'internal', message: 'no result' };
  throw new CoreError(e.code, e.message);
}

function checkText(text) {
  if (typeof text !== 'string') throw new CoreError('bad_text', 'the text must be a string');
  // A lone UTF-16 surrogate would reach C++ as a wrong byte sequence: refuse it here.
  if (!text.isWellFormed()) {
    let at = 0;
    for (; at < text.length; at++) {
      const c = text.charCodeAt(at);
      if (c >= 0xd800 && c <= 0xdbff) {
        const n = text.charCodeAt(at + 1);
        if (n >= 0xdc00 && n <= 0xdfff) { at++; continue; }
        break;
      }
      if (c >= 0xdc00 && c <= 0xdfff) break;
    }
    throw new CoreError('lone_surrogate',
      `the text has a broken character (a lone UTF-16 surrogate) at position ${at}: retype it`,
      { position: at });
  }
  return text;
}

function checkInt(name, v, lo, hi) {
  if (!Number.isInteger(v) || v < lo || v > hi) {
    throw new CoreError('bad_setting', `${name} must be a whole number from ${lo} to ${hi}, got ${String(v)}`,
      { name, lo, hi });
  }
  return v;
}

function checkNumber(name, v, lo, hi) {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < lo || v > hi) {
    throw new CoreError('bad_setting', `${name} must be a number from ${lo} to ${hi}, got ${String(v)}`,
      { name, lo, hi });
  }
  return v;
}

function checkBool(name, v) {
  if (typeof v !== 'boolean') throw new CoreError('bad_setting', `${name} must be true or false`, { name });
  return v;
}

function toF32(name, values) {
  const a = values instanceof Float32Array ? values : Float32Array.from(values, Number);
  for (let i = 0; i < a.length; i++) {
    if (Number.isNaN(a[i]) || a[i] === Infinity) throw new CoreError('non_finite', `${name} must contain numbers only`);
  }
  return a;
}

/** The default settings of a trace; the page's URL table starts from these. */
export const DEFAULT_SETTINGS = Object.freeze({
  model: 'default', dModel: 8, heads: 2, dK: 0, causal: false, scale: true, temperature: 1,
  tieQK: false, positions: true, seed: '42', maxTokens: 64,
});

/** 'default' = the trained model shipped in the module (it fixes dModel, heads and dK),
 *  'random' = seeded random weights shaped by the settings, 'custom' = setCustomModel's. */
export const MODELS = Object.freeze(['default', 'random', 'custom']);

export class Core {
  constructor(module) {
    this.module = module;
    this.lim = module.limits();
  }

  limits() { return { ...this.lim }; }

  /** -> [{text, kind, known, byteBegin, byteEnd}] */
  tokenize(text, maxTokens = DEFAULT_SETTINGS.maxTokens) {
    checkText(text);
    checkInt('maxTokens', maxTokens, 1, this.lim.maxTokens);
    return unwrap(this.module.tokenize(text, maxTokens)).tokens;
  }

  /** -> {tokens, settings, trace}; trace matrices are {rows, cols, data: Float32Array} copies. */
  trace(text, settings = {}) {
    checkText(text);
    const s = { ...DEFAULT_SETTINGS, ...settings };
    checkInt('dModel', s.dModel, 1, this.lim.maxDModel);
    checkInt('heads', s.heads, 1, this.lim.maxHeads);
    checkInt('dK', s.dK, 0, this.lim.maxDModel);
    checkBool('causal', s.causal);
    checkBool('scale', s.scale);
    checkBool('tieQK', s.tieQK);
    checkBool('positions', s.positions);
    checkNumber('temperature', s.temperature, Number.MIN_VALUE, this.lim.maxTemperature);
    checkInt('maxTokens', s.maxTokens, 1, this.lim.maxTokens);
    const seed = String(s.seed);
    if (!/^\d{1,20}$/.test(seed) || BigInt(seed) > 18446744073709551615n) {
      throw new CoreError('bad_seed', 'the seed must be a whole number from 0 to 18446744073709551615');
    }
    if (!MODELS.includes(s.model)) {
      throw new CoreError('bad_setting', `model must be one of ${MODELS.join(', ')}, got ${String(s.model)}`,
        { name: 'model' });
    }
    return unwrap(this.module.traceText(text, { ...s, seed }));
  }

  /** One example's gradient through a trained model: at token `row` the output should name the
   *  word of token `target`. -> {row, target, targetWord, loss, probability, dOutput,
   *  head: [{dWeights, dScores}]} (negative dScores = the loss wants that score higher). */
  gradientRow(text, settings, row, target) {
    const n = this.trace(text, settings).tokens.length;  // validates text and settings
    checkInt('row', row, 0, n - 1);
    checkInt('target', target, 0, n - 1);
    const s = { ...DEFAULT_SETTINGS, ...settings, seed: String(settings.seed ?? DEFAULT_SETTINGS.seed) };
    return unwrap(this.module.gradientRow(text, s, row, target));
  }

  /** Loads .apm bytes (Uint8Array) as the 'custom' model. -> {model: {name, notes, ...}} */
  setCustomModel(bytes) {
    if (!(bytes instanceof Uint8Array)) throw new CoreError('bad_model', 'model bytes must be a Uint8Array');
    return unwrap(this.module.setCustomModel(bytes));
  }

  /** The shipped model's .apm bytes. */
  defaultModelBytes() { return this.module.defaultModelBytes(); }

  /** Bring your own numbers: {X, W_Q, W_K, W_V, W_O?, heads, causal, scale, temperature} with
   *  matrices as {rows, cols, data}. -> {trace} */
  attend(input) {
    const mat = (name, m, optional) => {
      if (m == null && optional) return undefined;
      if (!m || !Number.isInteger(m.rows) || !Number.isInteger(m.cols) || m.rows < 1 || m.cols < 1 ||
          m.rows > 4096 || m.cols > 4096) {
        throw new CoreError('shape_mismatch', `${name} must be {rows, cols, data} with 1 to 4096 rows and columns`);
      }
      const data = toF32(name, m.data);
      if (data.length !== m.rows * m.cols) {
        throw new CoreError('shape_mismatch', `${name}: rows x cols does not match the data length`);
      }
      return { rows: m.rows, cols: m.cols, data };
    };
    const x = {
      X: mat('X', input.X), W_Q: mat('W_Q', input.W_Q), W_K: mat('W_K', input.W_K), W_V: mat('W_V', input.W_V),
      W_O: mat('W_O', input.W_O, true),
      heads: checkInt('heads', input.heads ?? 1, 1, this.lim.maxHeads),
      causal: checkBool('causal', input.causal ?? false),
      scale: checkBool('scale', input.scale ?? true),
      temperature: checkNumber('temperature', input.temperature ?? 1, Number.MIN_VALUE, this.lim.maxTemperature),
    };
    return unwrap(this.module.attend(x));
  }

  /** One row's softmax, step by step: {input, max, shifted, exps, sum, weights}. -Infinity = masked. */
  softmaxSteps(scores, temperature = 1) {
    checkNumber('temperature', temperature, Number.MIN_VALUE, this.lim.maxTemperature);
    return unwrap(this.module.softmaxSteps(toF32('scores', scores), temperature));
  }

  /** One score cell: {products, dot, normQ, normK, cosine, angleDegrees, scaled}. */
  dotSteps(q, k) {
    return unwrap(this.module.dotSteps(toF32('q', q), toF32('k', k)));
  }

  /** max - min over the finite entries of a row. */
  finiteRange(row) { return this.module.finiteRange(toF32('row', row)); }
}

/** Browser: loads web/wasm/attention.js with a classic script (works under a strict CSP and
 *  avoids ES-module loading of Emscripten glue), then instantiates it. */
export async function loadCore(options = {}) {
  const base = options.base || new URL('./wasm/', import.meta.url).href;
  let factory = globalThis.createAttentionModule;
  if (!factory) {
    await new Promise((resolve, reject) => {
      const s = document.createElement('script');
      s.src = base + 'attention.js';
      s.onload = resolve;
      s.onerror = () => reject(new CoreError('load_failed', `could not load ${s.src}`));
      document.head.appendChild(s);
    });
    factory = globalThis.createAttentionModule;
  }
  const module = await factory({ locateFile: (f) => base + f });
  return new Core(module);
}

/** Node (tests, benchmarks): loads the split build from a directory. name = 'attention' (the
 *  page's module) or 'attention-train' (adds training and the benchmark entry points). */
export async function loadCoreNode(dir, name = 'attention') {
  const { createRequire } = await import('node:module');
  const fs = await import('node:fs');
  const path = await import('node:path');
  const require = createRequire(import.meta.url);
  const factory = require(path.join(dir, `${name}.js`));
  const module = await factory({ wasmBinary: fs.readFileSync(path.join(dir, `${name}.wasm`)) });
  return new Core(module);
}
