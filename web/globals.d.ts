// globals.d.ts: types for the type checker (tsconfig.json) only, never loaded by the page: the
// constants scripts/bundle.mjs defines in the bundles, and the Emscripten factory the glue script
// puts on the global object.

/** 'site', 'single', 'embed' or 'module' (the npm package's ES modules) in a bundle; undeclared
 *  when the page runs unbundled. */
declare const AP_BUNDLE: string;
/** Every locale file's strings, by language, inlined in the bundles. */
declare const AP_LOCALES: Record<string, Record<string, string>>;
/** The page's markup (index.html's body) for the custom element's shadow root. */
declare const AP_SHELL: string;
/** The page's styles, rewritten for a shadow root. */
declare const AP_CSS: string;
/** The custom element's training files (train-worker.js, wasm/), relative to its script. */
declare const AP_TRAIN_BASE: string;
/** The single file's training corpus: a sample of src/data/corpus/train.tsv's sentences. */
declare const AP_TRAIN_CORPUS: string;
/** The single file's copy of train-worker.js, for its blob worker. */
declare const AP_TRAIN_WORKER: string;
/** What an exported call of the module returns: {ok: true, ...its fields} (src/core/schema.hpp
 *  names them), or {ok: false, error: {code, message}}. */
type CoreResult =
  { ok: true; [field: string]: any } | { ok: false; error: { code: string; message: string } };

/** One playground's module.Session (src/wasm/page_api.cpp): a handle JS frees with delete(). */
interface AttentionSession {
  traceText(text: string, settings: object, detail?: object): CoreResult;
  gradientRow(text: string, settings: object, row: unknown, target: unknown): CoreResult;
  setCustomModel(bytes: Uint8Array): CoreResult;
  hasCustomModel(): boolean;
  weightArrays(text: string, settings: object): CoreResult;
  modelBytes(settings: object): CoreResult;
  delete(): void;
}

/** A run of the core's trainer (src/wasm/training.cpp; attention-full and attention-train). */
interface AttentionTrainer {
  start(corpus: string, options: object): CoreResult;
  step(steps: number): CoreResult;
  modelBytes(): CoreResult;
  delete(): void;
}

/** The loaded WebAssembly module (src/wasm: page_api.cpp, training.cpp in the larger builds). */
interface AttentionModule {
  Session: new () => AttentionSession;
  /** attention-full and attention-train only */
  Trainer?: new () => AttentionTrainer;
  limits(): typeof import('./wasm/core-facts.mjs').LIMITS;
  defaults(): typeof import('./wasm/core-facts.mjs').DEFAULTS;
  version(): string;
  models(): CoreResult;
  explainFacts(): {
    scale_demo_dks: number[];
    reference_shapes: { name: string; heads: number; d_k: number; d_model: number }[];
  };
  tokenize(text: string, maxTokens: number): CoreResult;
  sameKindCandidates(text: string, maxTokens: number): CoreResult;
  attend(input: object): CoreResult;
  softmaxSteps(scores: Float32Array, temperature: number): CoreResult;
  dotSteps(q: Float32Array, k: Float32Array): CoreResult;
  finiteRange(row: Float32Array): CoreResult;
  scaleDemo(d_k: number, keys: number, rows: number, seed: string, bins: number): CoreResult;
  crc32(bytes: Uint8Array): CoreResult;
  defaultModelBytes(): Uint8Array;
}

/** The Emscripten module factory (web/wasm/attention*.js, a classic script). */
declare function createAttentionModule(options?: object): Promise<AttentionModule>;

/** A loaded real model (src/wasm/real_api.cpp's RealModel): a handle JS frees with delete(). */
interface RealModelHandle {
  info(): { [field: string]: any };
  traceText(text: string, options?: object): CoreResult;
  readout(ids: Int32Array): CoreResult;
  delete(): void;
}

/** What openRealModel and openConvertedModel (web/real-model.js) give: the model card, its traces,
 *  the read-out of given ids (the last hidden state, n x d_model) and dispose. */
interface RealModelJS {
  info: { [field: string]: any };
  trace(text: string, options?: { layer?: number; head?: number; layers?: boolean }): CoreResult;
  readout(ids: ArrayLike<number>): { rows: number; cols: number; data: Float32Array };
  dispose(): void;
}

/** model.safetensors read slice by slice into a model (src/wasm/real_api.cpp's RealModelReader):
 *  read() keeps the first refusal, finish() gives it or the model; JS frees it with delete(). */
interface RealModelReaderHandle {
  read(bytes: Uint8Array): void;
  finish(): CoreResult;
  delete(): void;
}

/** The attention-real module (src/wasm/real_api.cpp): a Hugging Face model folder's files, or
 *  an .apm file converted from one, in, RealModel out; a folder's weights in slices through
 *  beginRealModel's reader, whole files copied into its heap through _malloc. */
interface AttentionRealModule {
  realModelFileNames(): CoreResult;
  /** The folder's small files; the reader takes model.safetensors' bytes. */
  beginRealModel(files: {
    config: string;
    tokenizer: Record<string, string>;
    weightsSize: number;
  }): CoreResult;
  loadRealModel(files: {
    config: string;
    tokenizer: Record<string, string>;
    weightsPtr: number;
    weightsSize: number;
  }): CoreResult;
  /** An .apm file qkv convert wrote (format version 5), copied in through _malloc. */
  loadConvertedModel(file: { bytesPtr: number; bytesSize: number }): CoreResult;
  _malloc(size: number): number;
  _free(ptr: number): void;
  HEAPU8: Uint8Array;
}

/** The attention-real module factory (web/wasm/attention-real.js, a classic script). */
declare function createAttentionRealModule(options?: object): Promise<AttentionRealModule>;
