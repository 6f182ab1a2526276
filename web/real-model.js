// real-model.js: opens a Hugging Face model folder (GPT-2 or BERT: config.json, model.safetensors
// and its tokenizer's files), or one .apm file `qkv convert` made of such a folder, in
// attention-real, the WebAssembly module the page fetches only when a
// learner loads a real model. A loader: it picks the files by name, hands the weights to the
// module in slices (progress and cancel between them: a folder's go straight to their places in
// the model, an .apm file's into one buffer first) and everything else to the core,
// which checks the files and computes every number (src/wasm/real_api.cpp). No DOM beyond loading
// the module's script in a browser, no maths, and no module-level state: a caller that opens
// several models keeps the loaded module in a cache object of its own.
import { CoreError, LIMITS, checkText } from './core.js';

/** The factory attention-real.js puts on the global object (its own, beside the page's). */
const FACTORY = 'createAttentionRealModule';
/** How many bytes of the weights file are read and copied at a time. */
export const SLICE_BYTES = 8 * 1024 * 1024;

/** A CoreError that carries its details as fields too (.file, .max, ...).
 *  @param {string} code @param {string} message @param {Record<string, unknown>} [details] */
const coded = (code, message, details = {}) =>
  Object.assign(new CoreError(code, message, details), details);

/** @param {AbortSignal | undefined} signal */
function throwIfAborted(signal) {
  if (signal && signal.aborted) {
    const e = coded('aborted', 'loading the model was cancelled');
    e.name = 'AbortError';
    throw e;
  }
}

// The module's {ok: false, error} as a CoreError; a refusal that names a limit carries it in
// details, as core.js's do (the real model's own limits: its positions). -> the result's fields
// (src/wasm/real_api.cpp names them).
/** @param {CoreResult | null | undefined} result @param {{[field: string]: any}} [info]
 *  @returns {any} */
function unwrap(result, info) {
  if (result && result.ok) return result;
  const e = (result && result.error) || { code: 'internal', message: 'no result' };
  const details =
    e.code === 'too_many_tokens' && info
      ? { limit: info.positions }
      : e.code === 'text_too_long'
        ? { limit: LIMITS.max_text_bytes }
        : {};
  throw new CoreError(e.code, e.message, details);
}

const inNode = () => {
  const versions = globalThis.process && globalThis.process.versions;
  return typeof document === 'undefined' && !!(versions && versions.node);
};

/**
 * Loads attention-real. moduleUrl: the URL (or, in Node, the path or file: URL) of
 * attention-real.js, its .wasm beside it; by default wasm/attention-real.js beside this file (a
 * bundle that moves this file elsewhere, such as into a chunks/ folder, passes it).
 * Browser: a classic script (as core.js loads the page's module; a strict CSP allows it); a
 * worker: importScripts; Node: require with the wasm's bytes.
 * @param {string} [moduleUrl]
 * @returns {Promise<AttentionRealModule>}
 */
export async function loadRealModule(moduleUrl) {
  if (!moduleUrl) {
    if (!import.meta.url)
      throw coded('real_unavailable', 'this page has no real-model module: open the hosted page');
    moduleUrl = new URL('./wasm/attention-real.js', import.meta.url).href;
  }
  if (inNode()) {
    const { createRequire } = await import('node:module');
    const fs = await import('node:fs');
    const { fileURLToPath } = await import('node:url');
    const file = moduleUrl.startsWith('file:') ? fileURLToPath(moduleUrl) : moduleUrl;
    const factory = createRequire(import.meta.url)(file);
    return factory({ wasmBinary: fs.readFileSync(file.replace(/\.js$/, '.wasm')) });
  }
  const url = new URL(moduleUrl, globalThis.location && globalThis.location.href).href;
  let factory = globalThis[FACTORY];
  if (!factory) {
    if (typeof document !== 'undefined') {
      await new Promise((resolve, reject) => {
        const s = document.createElement('script');
        s.src = url;
        s.onload = resolve;
        s.onerror = () => reject(coded('load_failed', `could not load ${url}`));
        document.head.append(s);
      });
    } else {
      // a worker's global scope (the type checker's lib is the page's)
      const scope = /** @type {{importScripts?: (...urls: string[]) => void}} */ (
        /** @type {unknown} */ (globalThis)
      );
      if (typeof scope.importScripts === 'function') scope.importScripts(url);
    }
    factory = globalThis[FACTORY];
    if (!factory) throw coded('load_failed', `${url} did not define ${FACTORY}`);
  }
  return factory({ locateFile: (/** @type {string} */ f) => new URL(f, url).href });
}

// The module: the one given, the caller's cache's (loaded into it on first use; a failed load is
// not kept), or a new one.
/** @param {{module?: any, cache?: {module?: Promise<AttentionRealModule> | null},
 *  moduleUrl?: string}} options
 *  @returns {Promise<AttentionRealModule>} */
function moduleFor({ module, cache, moduleUrl }) {
  if (module) return Promise.resolve(module);
  if (!cache) return loadRealModule(moduleUrl);
  if (!cache.module) {
    cache.module = loadRealModule(moduleUrl).catch((e) => {
      cache.module = null;
      throw e;
    });
  }
  return cache.module;
}

const baseName = (/** @type {File} */ f) => String(f.name).split(/[\\/]/).pop() ?? '';
// how deep in the chosen folder a file sits (a folder picker's webkitRelativePath)
const depth = (/** @type {File} */ f) => String(f.webkitRelativePath || f.name).split('/').length;

// The file called `name`: of several, the one nearest the top of the chosen folder; two at the
// same depth are two models' files, and which one was meant cannot be guessed.
/** @param {File[]} files @param {string} name @returns {File | null} */
function pick(files, name) {
  const found = files.filter((f) => baseName(f) === name);
  if (found.length === 0) return null;
  const top = Math.min(...found.map(depth));
  const nearest = found.filter((f) => depth(f) === top);
  if (nearest.length > 1)
    throw coded(
      'real_duplicate_file',
      `there are ${nearest.length} files called ${name}: choose one model's folder`,
      { file: name },
    );
  return nearest[0];
}

/** @param {File} file @param {string} name @param {number} max @param {AbortSignal} [signal] */
async function readText(file, name, max, signal) {
  throwIfAborted(signal);
  if (file.size > max)
    throw coded('hf_file_too_large', `${name} is larger than ${max} bytes`, { file: name, max });
  try {
    return await file.text();
  } catch (/** @type {any} */ e) {
    throw coded('real_read_failed', `could not read ${name}: ${e && e.message}`, { file: name });
  }
}

/**
 * Opens a model folder's files in attention-real.
 * @param {ArrayLike<File>} files  from a file picker (several files or a folder) or a drop: matched
 *   by base name; other files (README.md, pytorch_model.bin, ...) are ignored. Without a
 *   config.json, one file whose name ends in .apm is opened as openConvertedModel opens it.
 * @param {{moduleUrl?: string, module?: AttentionRealModule | Promise<AttentionRealModule>,
 *   cache?: {module?: Promise<AttentionRealModule> | null}, sliceBytes?: number,
 *   onProgress?: (p: {loaded: number, total: number}) => void, signal?: AbortSignal}} [options]
 *   module: a loaded attention-real; cache: an object of the caller's that keeps the module it
 *   loads for the next call; onProgress: after each slice of the weights copied; signal: cancels
 *   between slices (an Error with code 'aborted').
 * @returns {Promise<RealModelJS>} info: the model card
 *   (src/core/schema.hpp hf_model_card); trace: the page's trace shape (write_hf_trace) for the
 *   layer (absent or -1: the last) and head (absent: 0), every layer's weights unless layers is
 *   false; readout(ids): the read-out of the full forward of the token ids given (the last hidden
 *   state, {rows: n, cols: d_model, data}, no trace kept); dispose: frees the model's memory in
 *   the module (safe to call twice), where the next
 *   model reuses it: WebAssembly memory never shrinks, so only dropping the module itself (and the
 *   cache's) once its models are disposed gives the memory back to the browser.
 * Refusals are CoreErrors: real_missing_file, real_duplicate_file, hf_file_too_large,
 * real_read_failed and real_too_large (each with .file), aborted, load_failed, real_unavailable
 * (no moduleUrl where this file has no URL of its own: a classic-script bundle), and the core's own
 * (src/core/hf_model.hpp, hf_tokenizer.hpp, safetensors.hpp), whose messages name the file.
 */
export async function openRealModel(files, options = {}) {
  const { onProgress, signal, sliceBytes = SLICE_BYTES } = options;
  throwIfAborted(signal);
  const list = Array.from(files || []);
  const module = await moduleFor(options);
  const names = unwrap(module.realModelFileNames());

  const configFile = pick(list, names.config);
  // one converted .apm (qkv convert) and no folder: that file is the model
  const converted = list.filter((f) => baseName(f).toLowerCase().endsWith(names.converted_suffix));
  if (!configFile && converted.length === 1)
    return openConvertedModel(converted[0], { ...options, module });
  if (!configFile)
    throw coded('real_missing_file', `the folder has no ${names.config}`, { file: names.config });
  const weightsFile = pick(list, names.weights);
  if (!weightsFile)
    throw coded('real_missing_file', `the folder has no ${names.weights}`, {
      file: names.weights,
    });
  /** @type {[string, File][]} */
  const tokenizerFiles = names.tokenizer
    .map((/** @type {string} */ n) => [n, pick(list, n)])
    .filter(/** @param {[string, File | null]} e @returns {e is [string, File]} */ (e) => !!e[1]);
  if (tokenizerFiles.length === 0)
    throw coded(
      'real_missing_file',
      `the folder has no tokenizer file (${names.tokenizer.join(', ')})`,
      { file: names.tokenizer[0], files: [...names.tokenizer] },
    );
  const total = weightsFile.size;
  if (total > names.max_weights_bytes)
    throw coded(
      'real_too_large',
      `${names.weights} has ${total} bytes; this page holds at most ${names.max_weights_bytes}`,
      { file: names.weights, max: names.max_weights_bytes },
    );

  const config = await readText(configFile, names.config, names.max_config_bytes, signal);
  /** @type {Record<string, string>} */
  const tokenizer = {};
  for (const [name, f] of tokenizerFiles)
    tokenizer[name] = await readText(f, name, names.max_tokenizer_file_bytes, signal);

  // the small files are checked here, before any weight is read
  const { reader } = unwrap(module.beginRealModel({ config, tokenizer, weightsSize: total }));
  try {
    let loaded = 0;
    for await (const bytes of blobSlices(weightsFile, names.weights, sliceBytes)) {
      throwIfAborted(signal);
      reader.read(bytes); // a refusal is kept and given by finish()
      loaded += bytes.length;
      if (onProgress) onProgress({ loaded, total });
    }
    throwIfAborted(signal);
    if (loaded !== total)
      throw coded('real_read_failed', `${names.weights} changed while it was read`, {
        file: names.weights,
      });
    return handleFor(unwrap(reader.finish()).model);
  } finally {
    reader.delete(); // the weights read so far go with it, unless finish() made the model
  }
}

/**
 * Opens one .apm file that `qkv convert` wrote (a GPT-2 or BERT model with its config and
 * tokenizer; src/core/real_model_file.hpp) in attention-real: the same model and traces as
 * openRealModel gives for the folder it was made from.
 * @param {Blob} file  the .apm file (a File from a picker or a drop, or a fetched Blob)
 * @param {{moduleUrl?: string, module?: AttentionRealModule | Promise<AttentionRealModule>,
 *   cache?: {module?: Promise<AttentionRealModule> | null}, sliceBytes?: number,
 *   onProgress?: (p: {loaded: number, total: number}) => void, signal?: AbortSignal,
 *   name?: string}} [options]  as openRealModel's; name: the file's name in messages (default
 *   the File's own)
 * @returns {Promise<RealModelJS>} as openRealModel's
 * Refusals are CoreErrors: real_too_large and real_read_failed (with .file), aborted, load_failed,
 * real_unavailable, and the core's own (model_truncated, model_corrupt, model_bad_magic,
 * model_bad_version, model_invalid and the config's and tokenizer's: src/core/real_model_file.hpp).
 */
export async function openConvertedModel(file, options = {}) {
  const { onProgress, signal, sliceBytes = SLICE_BYTES } = options;
  throwIfAborted(signal);
  if (!file || typeof file.slice !== 'function' || typeof file.size !== 'number')
    throw new CoreError('bad_setting', 'openConvertedModel takes the .apm file (a File or Blob)');
  const name = options.name || /** @type {any} */ (file).name || 'the model file';
  const module = await moduleFor(options);
  const names = unwrap(module.realModelFileNames());
  const result = await withBytesInModule(
    module,
    file,
    name,
    { sliceBytes, onProgress, signal, max: names.max_weights_bytes },
    (ptr) => module.loadConvertedModel({ bytesPtr: ptr, bytesSize: file.size }),
  );
  return handleFor(unwrap(result).model);
}

// Copies blob into a buffer of the module's heap in slices (progress and cancel between them),
// then calls take(ptr), which owns the buffer from then on (the core frees it); on any refusal
// before take, the buffer is freed here.
/** @param {any} module @param {Blob} blob @param {string} name
 *  @param {{sliceBytes: number, onProgress?: (p: {loaded: number, total: number}) => void,
 *   signal?: AbortSignal, max: number}} o
 *  @param {(ptr: number) => any} take */
function withBytesInModule(module, blob, name, o, take) {
  return withChunksInModule(module, blob.size, blobSlices(blob, name, o.sliceBytes), name, o, take);
}

// blob's bytes in slices of sliceBytes, each checked to be whole.
/** @param {Blob} blob @param {string} name @param {number} sliceBytes */
async function* blobSlices(blob, name, sliceBytes) {
  for (let loaded = 0; loaded < blob.size;) {
    const end = Math.min(blob.size, loaded + sliceBytes);
    let bytes;
    try {
      bytes = new Uint8Array(await blob.slice(loaded, end).arrayBuffer());
    } catch (/** @type {any} */ e) {
      throw coded('real_read_failed', `could not read ${name}: ${e && e.message}`, {
        file: name,
      });
    }
    if (bytes.length !== end - loaded)
      throw coded('real_read_failed', `${name} changed while it was read`, { file: name });
    loaded = end;
    yield bytes;
  }
}

// Copies `total` bytes, arriving as the chunks of an async iterable, into a buffer of the module's
// heap (progress after each chunk, cancel between them), then calls take(ptr), which owns the
// buffer from then on; on any refusal before take (too large, cancelled, more or fewer bytes than
// total: `short` then makes the error) the buffer is freed here.
/** @param {any} module @param {number} total @param {AsyncIterable<Uint8Array>} chunks
 *  @param {string} name
 *  @param {{onProgress?: (p: {loaded: number, total: number}) => void, signal?: AbortSignal,
 *   max: number, short?: (loaded: number) => Error}} o
 *  @param {(ptr: number) => any} take */
async function withChunksInModule(module, total, chunks, name, o, take) {
  const { onProgress, signal, max } = o;
  if (total > max)
    throw coded('real_too_large', `${name} has ${total} bytes; this page holds at most ${max}`, {
      file: name,
      max,
    });
  throwIfAborted(signal);
  const ptr = module._malloc(Math.max(total, 1));
  if (!ptr)
    throw coded('real_too_large', `${name} (${total} bytes) does not fit in this page's memory`, {
      file: name,
      max,
    });
  let owned = true; // until take() has the buffer
  let loaded = 0;
  const short =
    o.short ||
    (() => coded('real_read_failed', `${name} changed while it was read`, { file: name }));
  try {
    for await (const bytes of chunks) {
      throwIfAborted(signal);
      if (loaded + bytes.length > total) throw short(loaded + bytes.length);
      // read HEAPU8 again each time: a view made before the memory grew would be empty
      module.HEAPU8.set(bytes, ptr + loaded);
      loaded += bytes.length;
      if (onProgress) onProgress({ loaded, total });
    }
    throwIfAborted(signal);
    if (loaded !== total) throw short(loaded);
    owned = false;
    return take(ptr);
  } finally {
    if (owned) module._free(ptr);
  }
}

/**
 * Downloads one .apm file that `qkv convert` wrote from an http(s) address (a course author's
 * `model-src`) and opens it as openConvertedModel does, the bytes going into the module's memory
 * as they arrive. A Content-Length above the module's limit is refused before any body byte is
 * read; without one (a compressed or chunked answer) the bytes are gathered up to that limit.
 * @param {string} address  an absolute http(s) address (outside-api.js webAddress checks it)
 * @param {{moduleUrl?: string, module?: AttentionRealModule | Promise<AttentionRealModule>,
 *   cache?: {module?: Promise<AttentionRealModule> | null},
 *   onProgress?: (p: {loaded: number, total: number}) => void, signal?: AbortSignal}} [options]
 *   onProgress: after each chunk received; total is 0 while the size is not known
 * @returns {Promise<RealModelJS>} as openConvertedModel's
 * Refusals are CoreErrors: real_fetch_failed (the network, or the host's CORS or the page's CSP
 * refused it), real_fetch_status (.status: the server's answer was not 2xx), real_truncated
 * (.loaded, .total: the connection ended early), real_too_large (.max), aborted, and
 * openConvertedModel's (a body that is not an .apm: model_bad_magic and the like).
 */
export async function fetchConvertedModel(address, options = {}) {
  const { onProgress, signal } = options;
  throwIfAborted(signal);
  const module = await moduleFor(options);
  const names = unwrap(module.realModelFileNames());
  const max = names.max_weights_bytes;
  const name = address;
  let response;
  try {
    response = await fetch(address, { signal, credentials: 'omit', cache: 'no-store' });
  } catch (/** @type {any} */ e) {
    throwIfAborted(signal);
    throw coded('real_fetch_failed', `could not download ${address}: ${e && e.message}`, {
      file: name,
    });
  }
  if (!response.ok) {
    response.body?.cancel().catch(() => {});
    throw coded('real_fetch_status', `${address} answered ${response.status}`, {
      file: name,
      status: response.status,
    });
  }
  // the body's size, when the answer says it and is not compressed (a compressed answer's
  // Content-Length counts the compressed bytes)
  const length = response.headers.get('content-length');
  const encoding = (response.headers.get('content-encoding') || 'identity').toLowerCase();
  const declared = length && /^\d+$/.test(length) ? Number(length) : 0;
  const total = encoding === 'identity' ? declared : 0;
  if (declared > max) {
    response.body?.cancel().catch(() => {});
    throw coded('real_too_large', `${name} has ${declared} bytes; this page holds at most ${max}`, {
      file: name,
      max,
    });
  }
  if (!response.body)
    throw coded('real_fetch_failed', `${address} answered without a body`, { file: name });
  const reader = response.body.getReader();
  let received = 0;
  async function* chunks() {
    try {
      for (;;) {
        let part;
        try {
          part = await reader.read();
        } catch (/** @type {any} */ e) {
          throwIfAborted(signal);
          if (total && received < total) throw truncated(received);
          throw coded('real_fetch_failed', `could not download ${address}: ${e && e.message}`, {
            file: name,
          });
        }
        if (part.done) return;
        received += part.value.length;
        if (!total && received > max)
          throw coded('real_too_large', `${name} has more than ${max} bytes`, { file: name, max });
        yield part.value;
      }
    } finally {
      reader.cancel().catch(() => {}); // a no-op once the body has ended
    }
  }
  const truncated = (/** @type {number} */ loaded) =>
    coded('real_truncated', `the download of ${name} stopped after ${loaded} of ${total} bytes`, {
      file: name,
      loaded,
      total,
    });
  const load = (/** @type {number} */ ptr, /** @type {number} */ size) =>
    module.loadConvertedModel({ bytesPtr: ptr, bytesSize: size });
  if (total) {
    const result = await withChunksInModule(
      module,
      total,
      chunks(),
      name,
      { onProgress, signal, max, short: truncated },
      (ptr) => load(ptr, total),
    );
    return handleFor(unwrap(result).model);
  }
  // the size is not known before the end: gather the chunks (at most max bytes), then copy
  /** @type {Uint8Array[]} */
  const parts = [];
  for await (const part of chunks()) {
    throwIfAborted(signal);
    parts.push(part);
    if (onProgress) onProgress({ loaded: received, total: 0 });
  }
  const blob = new Blob(/** @type {BlobPart[]} */ (parts));
  parts.length = 0;
  const result = await withBytesInModule(
    module,
    blob,
    name,
    { sliceBytes: SLICE_BYTES, signal, max },
    (ptr) => load(ptr, blob.size),
  );
  return handleFor(unwrap(result).model);
}

// The caller's handle on a loaded RealModel: its card, its traces, its read-out, and dispose.
/** @param {RealModelHandle} model
 *  @returns {RealModelJS} */
function handleFor(model) {
  /** @type {RealModelHandle | null} */
  let handle = model;
  const info = handle.info();
  return {
    info,
    trace(text, { layer, head, layers } = {}) {
      if (!handle) throw new CoreError('closed', 'this model was closed');
      checkText(text, LIMITS.max_text_bytes);
      return unwrap(handle.traceText(text, { layer, head, layers }), info);
    },
    readout(ids) {
      if (!handle) throw new CoreError('closed', 'this model was closed');
      const list = Array.from(ids || []);
      if (!list.every((id) => Number.isInteger(id) && id >= -(2 ** 31) && id < 2 ** 31))
        throw new CoreError('bad_token_id', 'token ids must be whole numbers');
      return unwrap(handle.readout(Int32Array.from(list)), info).hidden;
    },
    dispose() {
      if (handle) handle.delete();
      handle = null;
    },
  };
}
