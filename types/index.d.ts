// index.d.ts: the types of the package's core API (package.json exports "."; the same in browsers
// and Node). Hand-written against web/core.js and web/lib/core.js; tests/browser/package.test.mjs
// compiles a consumer against them. Every number comes from the C++ core (WebAssembly).

/** A matrix as the core hands it over: a row-major copy (rows × cols values). */
export interface Matrix {
  rows: number;
  cols: number;
  data: Float32Array;
}

/** A trace's settings (the core's names); every field is optional in a call to trace(). */
export interface Settings {
  d_model: number;
  heads: number;
  /** per-head width; 0 = d_model / heads */
  d_k: number;
  causal: boolean;
  scale: boolean;
  temperature: number;
  tie_qk: boolean;
  positions: boolean;
  /** an unsigned 64-bit integer as a decimal string (a number is accepted too) */
  seed: string;
  max_tokens: number;
  /** 'default' (the trained model shipped in the module), 'random', 'numpy', 'custom', 'real'
   *  (a Hugging Face model loaded with Core.setRealModel) */
  model: string;
}

export interface TokenDetail {
  text: string;
  kind: string;
  known: boolean;
  byte_begin: number;
  byte_end: number;
  pronoun?: boolean;
  /** the words a word the model lacks is read as (the lexicon's read-as list) */
  read_as: string[];
  [field: string]: unknown;
}

/** One head's matrices (n = tokens, d_k = the head's width). */
export interface Head {
  W_Q: Matrix;
  W_K: Matrix;
  W_V: Matrix;
  /** a model with biases (GPT-2, BERT): 1 × d_k, this head's entries of each bias */
  b_Q?: Matrix;
  b_K?: Matrix;
  b_V?: Matrix;
  Q: Matrix;
  K: Matrix;
  V: Matrix;
  /** n × n, row i = query i, column j = key j */
  scores: Matrix;
  scaled: Matrix;
  masked: Matrix;
  /** n × n softmax weights; each row sums to 1 */
  weights: Matrix;
  output: Matrix;
  [field: string]: unknown;
}

export interface Layer {
  X: Matrix;
  heads: Head[];
  concat: Matrix;
  W_O: Matrix;
  output: Matrix;
  /** the residual stream entering the layer (E + P for the first) */
  input: Matrix;
  /** input + the attention's output */
  mid: Matrix;
  /** the feed-forward block's ReLU output */
  hidden: Matrix;
  /** the residual stream leaving the layer */
  stream: Matrix;
  /** the layer as ordered steps from its input to its stream (a trained model's; a real
   *  model's up to the layer traced in full) */
  walk?: LayerWalk;
}

/** One layer's walk (schema.hpp walk()): the step whose out is the attention's X (-1: the
 *  layer's input), and every step with the step indices it reads (-1: the layer's input). */
export interface LayerWalk {
  attention_input: number;
  steps: WalkStep[];
}

/** A step of a layer's walk; a LayerNorm adds its per-row mean and std and its gain and bias. */
export interface WalkStep {
  kind: 'norm' | 'attention' | 'add' | 'feed_forward';
  name: string;
  from: number[];
  out: Matrix;
  mean?: Float32Array;
  std?: Float32Array;
  gain?: Float32Array;
  bias?: Float32Array;
  eps?: number;
}

/** A trained model's card (schema.hpp model_card). */
export interface ModelCard {
  name: string;
  /** a real model's (GPT-2, BERT): its Hugging Face model_type */
  model_type?: string;
  /** a real model's: its feed-forward block's activation (e.g. gelu_new) */
  activation?: string;
  d_model: number;
  heads: number;
  d_k: number;
  d_ff: number;
  layers: number;
  vocab_size: number;
  /** per layer, per head: {role, numbers} (the page words each role) */
  notes: { role: string; numbers: Record<string, number> }[][];
  info: Record<string, string>;
}

/** core.trace's result (src/core/schema.hpp: the CLI's JSON, field for field). */
export interface Trace {
  ok: true;
  tokens: string[];
  token_details: TokenDetail[];
  /** the settings used (the model's name is `weights`), n and the scale factor */
  config: Omit<Settings, 'model'> & {
    n: number;
    weights: string;
    scale_factor: number;
    [field: string]: unknown;
  };
  embeddings: Matrix;
  positions?: Matrix;
  X: Matrix;
  heads: Head[];
  concat: Matrix;
  W_O: Matrix;
  output: Matrix;
  /** every layer's matrices, when the model has layers (the shipped one has) */
  layers?: Layer[];
  /** a trained model's card, the residual stream entering its first layer, the final
   *  LayerNorm of the stream (n × d_model) and the word it reads at each token */
  model?: ModelCard;
  input?: Matrix;
  readout?: Matrix;
  guesses?: { word: string; probability: number }[];
  /** model 'numpy': the seed article's program, line by line, and whether its numbers match */
  program?: { lines: { text: string; stage: string }[]; matches: boolean };
  /** a real model's (GPT-2, BERT): the tokenizer's ids */
  ids?: number[];
  /** BERT's: embeddings + positions before its embedding LayerNorm (whose output is `input`) */
  embed_sum?: Matrix;
  /** BERT's: its embedding LayerNorm of embed_sum, row by row (a walk step's statistics) */
  embed_norm?: {
    mean: Float32Array;
    std: Float32Array;
    gain: Float32Array;
    bias: Float32Array;
    eps: number;
  };
  [field: string]: unknown;
}

/** The core's limits (limits()'s fields). */
export interface Limits {
  max_tokens: number;
  default_max_tokens: number;
  max_d_model: number;
  max_heads: number;
  max_layers: number;
  max_real_layers: number;
  max_real_heads: number;
  max_temperature: number;
  max_text_bytes: number;
  max_head_width: number;
  /** tokens × tokens × heads that attend() and trace() accept: the page's memory budget */
  max_attention_cells: number;
  max_scores: number;
  max_vector_length: number;
  max_model_bytes: number;
  max_matrix_side: number;
  max_seed: string;
  models: string[];
  /** a training run in the page: steps a multiple of `chunk`, from `chunk` to `max_steps` */
  training: {
    chunk: number;
    default_steps: number;
    max_steps: number;
    batch: number;
    seed: number;
  };
  [field: string]: unknown;
}

/** scaleDemo's result: every q . k drawn and their statistics (src/core/explain.hpp ScaleDemo). */
export interface ScaleDemo {
  ok: true;
  d_k: number;
  keys: number;
  rows: number;
  sqrt_d_k: number;
  dots: Float32Array;
  mean: number;
  spread: number;
  spread_scaled: number;
  top_raw: number;
  top_scaled: number;
  range: number;
  hist_raw: number[];
  hist_scaled: number[];
}

export interface SoftmaxSteps {
  ok: true;
  input: Float32Array | number[];
  max: number;
  shifted: Float32Array | number[];
  exps: Float32Array | number[];
  sum: number;
  weights: Float32Array | number[];
}

/** An error from the core or from argument checks; `code` is stable (e.g. too_many_tokens). */
export class CoreError extends Error {
  constructor(code: string, message: string, details?: Record<string, unknown>);
  readonly name: 'CoreError';
  code: string;
  details: Record<string, unknown>;
}

/** One session over a loaded module: its own custom model and caches. */
export class Core {
  constructor(module: unknown);
  /** Frees the session; the Core cannot trace afterwards. Safe to call twice. */
  close(): void;
  limits(): Limits;
  /** The models, and the settings each one fixes. */
  models(): { name: string; fixes: string[] }[];
  /** What the seed article's NumPy program runs with (model 'numpy'). */
  numpyArticle(): { seed: string; n: number; d_model: number; d_k: number };
  /** Throws `text_too_long` when `text` has more UTF-16 units than the core takes bytes: a check
   *  that reads only the length. */
  checkTextLength(text: string): void;
  tokenize(text: string, maxTokens?: number): { tokens: string[]; token_details: TokenDetail[] };
  /** Pronouns with two or more earlier nouns of one kind. */
  sameKindCandidates(
    text: string,
    maxTokens?: number,
  ): { pronoun: number; category: string; candidates: number[] }[];
  /** The whole forward pass of one sentence. Throws CoreError on bad input. */
  trace(text: string, settings?: Partial<Settings> & { seed?: string | number | bigint }): Trace;
  /** One example's gradient through a trained model: at token `row` the output should name the
   *  word of token `target`. */
  gradientRow(
    text: string,
    settings: Partial<Settings>,
    row: number,
    target: number,
  ): {
    row: number;
    target: number;
    target_word: string;
    loss: number;
    probability: number;
    /** dLoss/dO for the row (1 x d_model). */
    d_output: Float32Array;
    /** Per head, dLoss/d weights and dLoss/d scores for every key of the row (1 x n each). */
    heads: { d_weights: Float32Array; d_scores: Float32Array }[];
  };
  /** The weights a trace of (text, settings) uses, by the core's names. */
  weightArrays(
    text: string,
    settings?: Partial<Settings>,
  ): { arrays: (Matrix & { name: string })[]; layer_norm_eps: number };
  /** The .apm bytes of a trained model ('default' or 'custom'). */
  modelBytes(model: string): Uint8Array;
  /** CRC-32 (IEEE, as zlib's), as the .apm format uses. */
  crc32(bytes: Uint8Array): number;
  /** Bring your own numbers: X and per-head weights as matrices. */
  attend(input: {
    X: Matrix | { rows: number; cols: number; data: ArrayLike<number> };
    W_Q: Matrix | { rows: number; cols: number; data: ArrayLike<number> };
    W_K: Matrix | { rows: number; cols: number; data: ArrayLike<number> };
    W_V: Matrix | { rows: number; cols: number; data: ArrayLike<number> };
    W_O?: Matrix | { rows: number; cols: number; data: ArrayLike<number> };
    heads?: number;
    causal?: boolean;
    scale?: boolean;
    temperature?: number;
  }): Pick<Trace, 'config' | 'X' | 'heads' | 'concat' | 'W_O' | 'output'>;
  softmaxSteps(scores: ArrayLike<number>, temperature?: number): SoftmaxSteps;
  dotSteps(
    q: ArrayLike<number>,
    k: ArrayLike<number>,
  ): {
    products: Float32Array | number[];
    dot: number;
    norm_q: number;
    norm_k: number;
    cosine: number;
    angle_degrees: number;
    scaled: number;
  };
  /** max - min over the finite entries of a row. */
  finiteRange(row: ArrayLike<number>): number;
  /** The "why √d_k" experiment: random queries and keys with d_k N(0, 1) entries. */
  scaleDemo(
    dK: number,
    keys: number,
    rows: number,
    seed?: string | number,
    bins?: number,
  ): ScaleDemo;
  /** Facts kept in the core for the explanations (scale-demo widths, reference shapes). */
  explainFacts(): {
    scale_demo_dks: number[];
    reference_shapes: { name: string; heads: number; d_k: number; d_model: number }[];
  };
  /** Loads .apm bytes as this Core's 'custom' model. */
  setCustomModel(bytes: Uint8Array): { model: Record<string, unknown> };
  hasCustomModel(): boolean;
  /** The shipped model's .apm bytes. */
  defaultModelBytes(): Uint8Array;
  /** Makes `model` (real-model.js openRealModel's) this Core's 'real' model, freeing the one it
   *  had; null frees it. */
  setRealModel(model: RealModel | null): void;
  /** The real model's card, or null without one. */
  realModel(): Record<string, unknown> | null;
  /** A trace through the real model (settings.model 'real' in trace() comes here): detail.layer
   *  the layer traced in full (-1: the last); detail.layers false leaves every layer's weights out. */
  traceReal(text: string, detail?: { layer?: number; layers?: boolean }): Trace;
}

/** A Hugging Face model opened by real-model.js (openRealModel, or openConvertedModel for an .apm
 *  file qkv convert wrote). */
export interface RealModel {
  info: Record<string, unknown>;
  trace(text: string, options?: { layer?: number; head?: number; layers?: boolean }): Trace;
  /** The read-out of the full forward of these token ids (the last hidden state, n x d_model),
   *  with no trace kept. */
  readout(ids: ArrayLike<number>): Matrix;
  dispose(): void;
}

export interface LoadOptions {
  /** the folder (URL ending in /) of attention.js and attention.wasm; default: the package's */
  base?: string;
}

/** The WebAssembly module, found next to this package's module (never relative to the page). */
export function loadModule(options?: LoadOptions): Promise<unknown>;
/** loadModule and one Core over it. */
export function loadCore(options?: LoadOptions): Promise<Core>;
/** Whether a trace is a real model's (GPT-2, BERT): its card names a model_type. */
export function isRealTrace(trace: unknown): boolean;
/** The trace seen from one layer (0-based; -1 = the last). */
export function layerView<T extends Trace>(
  trace: T,
  layer: number,
): T & { layer?: number; layerCount?: number };

export const DEFAULT_SETTINGS: Readonly<Settings>;
export const LIMITS: Readonly<Limits>;
export const MODELS: readonly string[];
export const MAX_SEED: bigint;
/** The project's version (semver). */
export const VERSION: string;
