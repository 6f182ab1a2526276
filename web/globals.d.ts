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
/** The Emscripten module factory (web/wasm/attention*.js, a classic script). */
declare function createAttentionModule(options?: object): Promise<any>;
