// core.js: loads the attention WebAssembly module and exposes its operations as plain functions
// that throw CoreError. The rules and defaults of every argument are the core's (its refusals
// arrive as {ok: false, error: {code, message}}); this file checks only what must be checked
// before an argument is copied into wasm memory: its type and the core's size caps (limits()).
// No DOM (beyond loading the module's script in a browser) and no maths: every number comes from
// the C++ core.
//
// One module may serve several playgrounds on a page; each playground makes its own Core over it.
// A Core owns one module.Session (its custom model and caches) and, once a learner loads one, a
// real model (GPT-2 or BERT, held by the second module that loaded it: real-model.js); close()
// frees both when the playground goes away.
import { DEFAULTS, LIMITS, VERSION } from './wasm/core-facts.mjs';

/** An error from the core or from argument checks; `code` is stable and has a locale string. */
export class CoreError extends Error {
  /** @param {string} code @param {string} message @param {Record<string, unknown>} [details] */
  constructor(code, message, details = {}) {
    super(message);
    this.name = 'CoreError';
    this.code = code;
    this.details = details;
  }
}

// Refusals whose locale string names one of the core's limits -> {placeholder: that limit's name
// in limits()}; the CoreError carries the values in details, so no locale repeats a limit.
const LIMIT_OF = Object.freeze({
  bad_seed: { max: 'max_seed' },
  bad_d_k: { limit: 'max_head_width' },
  bad_max_tokens: { limit: 'max_tokens' },
  too_many_tokens: { limit: 'max_tokens' },
  text_too_long: { limit: 'max_text_bytes' },
});

/** The details of a refusal with this code: the limits its locale string names.
 *  @param {string} code @returns {Record<string, unknown>} */
function limitDetails(code) {
  /** @type {Record<string, keyof typeof LIMITS>} */
  const names = LIMIT_OF[/** @type {keyof typeof LIMIT_OF} */ (code)] || {};
  return Object.fromEntries(Object.entries(names).map(([k, name]) => [k, LIMITS[name]]));
}

/** The fields of an {ok: true} result (src/core/schema.hpp names them; types/index.d.ts states
 *  each method's), or a CoreError.
 *  @param {CoreResult | null | undefined} result @returns {any} */
function unwrap(result) {
  if (result && result.ok) return result;
  const e = (result && result.error) || { code: 'internal', message: 'no result' };
  throw new CoreError(e.code, e.message, limitDetails(e.code));
}

/** Refuses what must not reach the core as a text: a non-string, more UTF-16 units than
 *  `maxBytes` (every unit is at least one byte of UTF-8), a lone surrogate. -> the text. */
/** @param {unknown} text @param {number} maxBytes @returns {string} */
export function checkText(text, maxBytes) {
  if (typeof text !== 'string') throw new CoreError('bad_text', 'the text must be a string');
  // every UTF-16 unit is at least one byte of UTF-8: refuse before anything is copied
  if (text.length > maxBytes) {
    throw new CoreError('text_too_long', `the text is longer than ${maxBytes} bytes`, {
      ...limitDetails('text_too_long'),
      max: maxBytes,
    });
  }
  // A lone UTF-16 surrogate would reach C++ as a wrong byte sequence: refuse it here.
  if (!text.isWellFormed()) {
    let at = 0;
    for (; at < text.length; at++) {
      const c = text.charCodeAt(at);
      if (c >= 0xd800 && c <= 0xdbff) {
        const n = text.charCodeAt(at + 1);
        if (n >= 0xdc00 && n <= 0xdfff) {
          at++;
          continue;
        }
        break;
      }
      if (c >= 0xdc00 && c <= 0xdfff) break;
    }
    throw new CoreError(
      'lone_surrogate',
      `the text has a broken character (a lone UTF-16 surrogate) at position ${at}: retype it`,
      { position: at },
    );
  }
  return text;
}

// A whole number for an Embind int parameter, which would turn 'x' and NaN into 0 without a word
// and wrap what does not fit 32 bits; its range is the core's.
/** @param {string} name @param {unknown} v @returns {number} */
function checkWhole(name, v) {
  if (typeof v !== 'number' || !Number.isInteger(v) || Math.abs(v) > 0x7fffffff)
    throw new CoreError('bad_setting', `${name} must be a whole number, got ${String(v)}`, {
      name,
    });
  return v;
}

// A number for an Embind float parameter; its range is the core's.
/** @param {string} name @param {unknown} v @returns {number} */
function checkNumber(name, v) {
  if (typeof v !== 'number')
    throw new CoreError('bad_setting', `${name} must be a number, got ${String(v)}`, { name });
  return v;
}

/** @template T @param {string} name @param {T} v @returns {T & object} */
function checkObject(name, v) {
  if (v === null || typeof v !== 'object') {
    throw new CoreError('bad_setting', `${name} must be an object`, { name });
  }
  return v;
}

// A list of numbers (Array or typed array) of at most `max` entries, checked before it is copied
// into a Float32Array; which numbers are allowed (NaN, infinities) is the core's rule.
/** @param {string} name @param {unknown} values @param {number} max @returns {Float32Array} */
function toF32(name, values, max) {
  const length =
    values != null && typeof values === 'object'
      ? /** @type {{length?: unknown}} */ (values).length
      : undefined;
  if (typeof length !== 'number' || !Number.isInteger(length) || length < 0) {
    throw new CoreError('bad_setting', `${name} must be a list of numbers`, { name });
  }
  if (length > max) {
    throw new CoreError('too_many_values', `${name} has ${length} numbers; the limit is ${max}`, {
      name,
      max,
    });
  }
  return values instanceof Float32Array
    ? values
    : Float32Array.from(/** @type {ArrayLike<unknown>} */ (values), Number);
}

// Settings as the core reads them: a seed given as a JS number or BigInt becomes the decimal
// string the core takes (a number cannot hold every 64-bit seed); the rest is the core's to check.
/** @param {Record<string, unknown>} settings @returns {Record<string, unknown>} */
function wire(settings) {
  const seed = settings.seed;
  return typeof seed === 'number' || typeof seed === 'bigint'
    ? { ...settings, seed: String(seed) }
    : settings;
}

/** The default settings of a trace (the core's Settings and default model, read from the module
 *  at build time); the page's URL table starts from these. */
export const DEFAULT_SETTINGS = DEFAULTS;

/** 'default' = the trained model shipped in the module (it fixes d_model, heads and d_k),
 *  'random' = seeded random weights shaped by the settings, 'numpy' = the seed article's NumPy
 *  program (np.random.seed(seed), X then W_Q, W_K, W_V from NumPy's own generator; one head, no
 *  positions; the result's `program` holds the program), 'custom' = setCustomModel's. */
export const MODELS = Object.freeze([...LIMITS.models]);

/** The largest seed: the core's random generator takes an unsigned 64-bit seed. */
export const MAX_SEED = BigInt(LIMITS.max_seed);

/** The core's limits (limits()'s fields), known before the module loads. */
export { LIMITS };

/** The project's version (semver; CMake's project() VERSION, read from the module at build time):
 *  the page's footer, the embed's ready event and the iframe protocol's ready message carry it. */
export { VERSION };

export class Core {
  /** @param {AttentionModule} module the loaded module (loadModule, loadCoreNode) */
  constructor(module) {
    this.module = module;
    this.lim = module.limits();
    // the models and what each fixes, from the core (session.hpp kModels; MODELS holds their
    // names, for the URL table), and the seed article's values
    const m = unwrap(module.models());
    this.modelList = m.models;
    this.article = m.numpy_article;
    /** @type {AttentionSession | null} */
    this.session = new module.Session();
    this.facts = module.explainFacts();
    /** @type {RealModelJS | null} */
    this.real = null;
  }

  /** Frees this Core's session; the Core cannot trace afterwards. Safe to call twice. */
  close() {
    this.setRealModel(null);
    this.session?.delete();
    this.session = null;
  }

  /** Makes `model` (openRealModel's, real-model.js) this Core's 'real' model, freeing the one it
   *  had; null frees it and leaves none. */
  /** @param {RealModelJS | null | undefined} model */
  setRealModel(model) {
    if (this.real && this.real !== model) this.real.dispose();
    this.real = model || null;
  }

  /** The card of this Core's real model ({name, model_type, layers, heads, d_model, ...}), or
   *  null when it has none. */
  realModel() {
    return this.real ? this.real.info : null;
  }

  live() {
    if (!this.session) throw new CoreError('closed', 'this playground was closed');
    return this.session;
  }

  limits() {
    return { ...this.lim };
  }

  /** -> [{name, fixes: [setting names, as in DEFAULT_SETTINGS]}]: the models, in MODELS' order,
   *  and the settings each one fixes (the trace's config says the values it used). */
  models() {
    return this.modelList.map((/** @type {{name: string, fixes: string[]}} */ x) => ({
      name: x.name,
      fixes: [...x.fixes],
    }));
  }

  /** -> {seed (a decimal string), n, d_model, d_k}: what the seed article's NumPy program runs
   *  with (model 'numpy'). */
  numpyArticle() {
    return { ...this.article };
  }

  /** Throws text_too_long when `text` has more UTF-16 units than the core takes bytes (every
   *  unit is at least one byte of UTF-8): a check that reads only the length, for a text the page
   *  has not shown yet. */
  /** @param {unknown} text */
  checkTextLength(text) {
    if (typeof text === 'string' && text.length > this.lim.max_text_bytes)
      checkText(text, this.lim.max_text_bytes);
  }

  /** -> {tokens: [text], token_details: [{text, kind, known, byte_begin, byte_end}]} */
  /** @param {unknown} text @param {number} [maxTokens] */
  tokenize(text, maxTokens = DEFAULT_SETTINGS.max_tokens) {
    const t = checkText(text, this.lim.max_text_bytes);
    checkWhole('max_tokens', maxTokens);
    return unwrap(this.module.tokenize(t, maxTokens));
  }

  /** Pronouns with two or more earlier nouns of one kind (categories from the lexicon):
   *  -> [{pronoun, category, candidates: [token index, ...]}] */
  /** @param {unknown} text @param {number} [maxTokens] */
  sameKindCandidates(text, maxTokens = DEFAULT_SETTINGS.max_tokens) {
    const t = checkText(text, this.lim.max_text_bytes);
    checkWhole('max_tokens', maxTokens);
    return unwrap(this.module.sameKindCandidates(t, maxTokens)).same_kind;
  }

  /** -> the text trace of src/core/schema.hpp (the CLI's JSON, field for field): {tokens,
   *  token_details, config: {n, d_model, heads, d_k, ..., seed, weights}, embeddings, positions?,
   *  X, heads: [{W_Q, ..., weights, output}], concat, W_O, output, model?, guesses?,
   *  program? (model 'numpy': {lines: [{text, stage}], matches}); a trained model adds input,
   *  layers, readout}. Matrices are {rows, cols, data: Float32Array} copies.
   *  detail {layers: false}: without `layers` (every layer's matrices, most of a trained model's
   *  trace); the page asks for them only while it shows a layer other than the last.
   *  {guesses: false}: without `guesses` (an n x vocabulary softmax). A trained model's `model`
   *  (its card) is one object shared by every trace through that model: read it, never change it.
   *  @param {unknown} text @param {Record<string, unknown>} [settings]
   *  @param {{layer?: number, layers?: boolean, guesses?: boolean}} [detail] */
  trace(text, settings = {}, detail = undefined) {
    const t = checkText(text, this.lim.max_text_bytes);
    const s = wire(checkObject('settings', settings));
    if (s.model === 'real') return this.traceReal(t, detail);
    if (detail !== undefined) {
      checkObject('detail', detail);
      return unwrap(this.live().traceText(t, s, detail));
    }
    return unwrap(this.live().traceText(t, s));
  }

  /** A trace through the real model: its own settings (the model fixes them all), the layer
   *  detail.layer in full (-1 or absent: the last), every layer's every head's weights unless
   *  detail.layers is false. The same shape as trace()'s, with `ids`, config.layer and the model's
   *  card as `model`.
   *  @param {string} text @param {{layer?: number, layers?: boolean}} [detail] */
  traceReal(text, detail = {}) {
    if (!this.real) throw new CoreError('no_real_model', 'no real model is loaded');
    checkObject('detail', detail);
    try {
      return this.real.trace(text, {
        layer: detail.layer ?? -1,
        layers: detail.layers !== false,
      });
    } catch (/** @type {any} */ e) {
      // the model's own limit, not the page's token cap, is what the learner must keep under
      if (e.code !== 'too_many_tokens') throw e;
      throw new CoreError('real_too_many_tokens', e.message, e.details);
    }
  }

  /** One example's gradient through a trained model: at token `row` the output should name the
   *  word of token `target`. -> {row, target, target_word, loss, probability, d_output,
   *  heads: [{d_weights, d_scores}]} (negative d_scores = the loss wants that score higher). */
  /** @param {unknown} text @param {Record<string, unknown>} settings @param {unknown} row
   *  @param {unknown} target */
  gradientRow(text, settings = {}, row, target) {
    const t = checkText(text, this.lim.max_text_bytes);
    const s = wire(checkObject('settings', settings));
    return unwrap(this.live().gradientRow(t, s, row, target));
  }

  /** Loads .apm bytes (Uint8Array) as this Core's 'custom' model. -> {model: {name, notes, ...}} */
  /** @param {unknown} bytes */
  setCustomModel(bytes) {
    if (!(bytes instanceof Uint8Array))
      throw new CoreError('bad_model', 'model bytes must be a Uint8Array');
    if (bytes.length > this.lim.max_model_bytes) {
      throw new CoreError(
        'model_too_large',
        `the model has ${bytes.length} bytes; the limit is ${this.lim.max_model_bytes}`,
      );
    }
    return unwrap(this.live().setCustomModel(bytes));
  }

  /** Whether setCustomModel has given this Core a 'custom' model. */
  hasCustomModel() {
    return this.live().hasCustomModel();
  }

  /** The weights a trace of (text, settings) uses, by the core's names (weight_arrays.hpp):
   *  -> {arrays: [{name, rows, cols, data}], layer_norm_eps}. */
  /** @param {unknown} text @param {Record<string, unknown>} [settings] */
  weightArrays(text, settings = {}) {
    const t = checkText(text, this.lim.max_text_bytes);
    const s = wire(checkObject('settings', settings));
    return unwrap(this.live().weightArrays(t, s));
  }

  /** The .apm bytes of the trained model called `model` ('default' or 'custom'); a CoreError
   *  no_model_file for random and numpy weights. */
  /** @param {string} model */
  modelBytes(model) {
    return unwrap(this.live().modelBytes({ model })).bytes;
  }

  /** CRC-32 (IEEE, as zlib's) of a Uint8Array: the core's, as the .apm format uses. */
  /** @param {unknown} bytes */
  crc32(bytes) {
    if (!(bytes instanceof Uint8Array))
      throw new CoreError('bad_setting', 'crc32 needs a Uint8Array');
    return unwrap(this.module.crc32(bytes)).crc;
  }

  /** The shipped model's .apm bytes. */
  defaultModelBytes() {
    return this.module.defaultModelBytes();
  }

  /** Bring your own numbers: {X, W_Q, W_K, W_V, W_O?, heads?, causal?, scale?, temperature?}
   *  with matrices as {rows, cols, data} (the options left out take the core's defaults). -> the
   *  trace of src/core/schema.hpp: {config, X, heads, concat, W_O, output} */
  /** @param {Record<string, unknown>} input */
  attend(input) {
    checkObject('input', input);
    const L = this.lim;
    // the shape caps guard the copy of `data` into a Float32Array; the shapes' rules are the core's
    /** @param {string} name @param {any} m untyped input, checked field by field
     *  @param {number} maxRows @param {number} maxCols @param {boolean} [optional] */
    const mat = (name, m, maxRows, maxCols, optional) => {
      if (m == null && optional) return undefined;
      if (
        !m ||
        !Number.isInteger(m.rows) ||
        !Number.isInteger(m.cols) ||
        m.rows < 1 ||
        m.cols < 1 ||
        m.rows > maxRows ||
        m.cols > maxCols
      ) {
        throw new CoreError(
          'shape_mismatch',
          `${name} must be {rows, cols, data} with 1 to ${maxRows} rows and 1 to ${maxCols} columns`,
        );
      }
      if (m.data == null || m.data.length !== m.rows * m.cols) {
        throw new CoreError(
          'shape_mismatch',
          `${name}: rows x cols does not match the data length`,
        );
      }
      const data = toF32(name, m.data, m.rows * m.cols);
      return { rows: m.rows, cols: m.cols, data };
    };
    const x = {
      X: mat('X', input.X, L.max_scores, L.max_d_model),
      W_Q: mat('W_Q', input.W_Q, L.max_d_model, L.max_head_width),
      W_K: mat('W_K', input.W_K, L.max_d_model, L.max_head_width),
      W_V: mat('W_V', input.W_V, L.max_d_model, L.max_head_width),
      W_O: mat('W_O', input.W_O, L.max_head_width, L.max_d_model, true),
      heads: input.heads,
      causal: input.causal,
      scale: input.scale,
      temperature: input.temperature,
    };
    return unwrap(this.module.attend(x));
  }

  /** One row's softmax, step by step: {input, max, shifted, exps, sum, weights}. -Infinity = masked. */
  /** @param {unknown} scores @param {number} [temperature] */
  softmaxSteps(scores, temperature = DEFAULT_SETTINGS.temperature) {
    checkNumber('temperature', temperature);
    return unwrap(
      this.module.softmaxSteps(toF32('scores', scores, this.lim.max_scores), temperature),
    );
  }

  /** One score cell: {products, dot, norm_q, norm_k, cosine, angle_degrees, scaled}. */
  /** @param {unknown} q @param {unknown} k */
  dotSteps(q, k) {
    const max = this.lim.max_vector_length;
    return unwrap(this.module.dotSteps(toF32('q', q, max), toF32('k', k, max)));
  }

  /** max - min over the finite entries of a row. */
  /** @param {unknown} row */
  finiteRange(row) {
    return unwrap(this.module.finiteRange(toF32('row', row, this.lim.max_vector_length))).value;
  }

  /** The "why √d_k" experiment: `rows` random queries, each against `keys` random keys, with d_k
   *  independent N(0, 1) entries. -> {d_k, keys, rows, sqrt_d_k, dots, mean, spread,
   *  spread_scaled, top_raw, top_scaled, range, hist_raw, hist_scaled} (histograms share the
   *  bins of [-range, range]).
   *  @param {number} dK @param {number} keys @param {number} rows @param {string | number} [seed]
   *  @param {number} [bins] */
  scaleDemo(dK, keys, rows, seed = DEFAULT_SETTINGS.seed, bins = 41) {
    for (const [name, v] of /** @type {[string, number][]} */ ([
      ['dK', dK],
      ['keys', keys],
      ['rows', rows],
      ['bins', bins],
    ]))
      checkWhole(name, v);
    return unwrap(this.module.scaleDemo(dK, keys, rows, String(seed), bins)); // seed: the core checks
  }

  /** Facts kept in the core for the explanations: {scale_demo_dks: [2, 4, ..., 1024],
   *  reference_shapes: [{name, heads, d_k, d_model}]} (BERT-base, GPT-3). */
  explainFacts() {
    return this.facts;
  }
}

/**
 * The trace seen from one layer of a layered model: X, heads, concat, W_O and output become that
 * layer's (the trace carries every layer's matrices; nothing is computed here), plus `layer`
 * (0-based) and `layerCount`. layer -1 or out of range: the last layer, which is the trace's own.
 * A trace without layers (random weights) comes back as it is.
 * @param {any} result @param {number} layer
 */
export function layerView(result, layer) {
  // a real model's trace holds one layer in full (its config says which), and each layer's
  // weights only: it is that layer's view already
  if (isRealTrace(result)) {
    return { ...result, layer: result.config.layer, layerCount: result.model.layers };
  }
  const all = result && result.layers;
  // traced without its layers (detail {layers: false}): the last layer, which is the trace's own
  if ((!all || !all.length) && result?.model?.layers > 1) {
    return { ...result, layer: result.model.layers - 1, layerCount: result.model.layers };
  }
  if (!all || !all.length) return result;
  const l = layer >= 0 && layer < all.length ? layer : all.length - 1;
  const L = all[l];
  return {
    ...result,
    X: L.X,
    heads: L.heads,
    concat: L.concat,
    W_O: L.W_O,
    output: L.output,
    layer: l,
    layerCount: all.length,
  };
}

/** Whether `result` is a trace of a real model (GPT-2, BERT): its card names a model_type.
 *  @param {any} result a trace or anything else */
export function isRealTrace(result) {
  return typeof result?.model?.model_type === 'string';
}

/** Browser: loads web/wasm/attention.js with a classic script (works under a strict CSP and
 *  avoids ES-module loading of Emscripten glue), then instantiates it. -> the module, for
 *  `new Core(module)` per playground.
 *  @param {{base?: string}} [options] base: the folder of attention.js and attention.wasm
 *  @returns {Promise<AttentionModule>} */
export async function loadModule(options = {}) {
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
  return factory({ locateFile: (/** @type {string} */ f) => base + f });
}

/** loadModule and one Core over it (a page with one playground, tests).
 *  @param {{base?: string}} [options] */
export async function loadCore(options = {}) {
  return new Core(await loadModule(options));
}

/** Node (tests, benchmarks): loads the split build from a directory. name = 'attention' (the
 *  page's module) or 'attention-train' (adds training), from web/wasm; or 'attention-test' (adds
 *  the bench-and-test entry points too), from build/wasm. */
/** @param {string} dir @param {string} [name] */
export async function loadCoreNode(dir, name = 'attention') {
  const { createRequire } = await import('node:module');
  const fs = await import('node:fs');
  const path = await import('node:path');
  const require = createRequire(import.meta.url);
  const factory = require(path.join(dir, `${name}.js`));
  const module = await factory({ wasmBinary: fs.readFileSync(path.join(dir, `${name}.wasm`)) });
  return new Core(module);
}
