// lib/core-node.js: the npm package's core API in Node (package.json exports "." under "node"):
// the same exports as lib/core.js, with the WebAssembly read from ../wasm/ next to this module
// (the Emscripten glue is CommonJS; wasm/package.json says so).
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Core } from '../core.js';

export {
  Core,
  CoreError,
  DEFAULT_SETTINGS,
  LIMITS,
  MAX_SEED,
  MODELS,
  VERSION,
  layerView,
} from '../core.js';

const WASM_DIR = new URL('../wasm/', import.meta.url);

/** The WebAssembly module (one per call; a Core over it is one session). options: {base} (a
 *  folder's URL, ending in /) to load attention.js and attention.wasm from elsewhere.
 *  @param {{base?: string}} [options] @returns {Promise<AttentionModule>} */
export async function loadModule(options = {}) {
  const dir = options.base ? new URL(options.base, WASM_DIR) : WASM_DIR;
  const factory = createRequire(import.meta.url)(fileURLToPath(new URL('attention.js', dir)));
  const wasmBinary = await fs.readFile(new URL('attention.wasm', dir));
  return factory({ wasmBinary });
}

/** loadModule and one Core over it: `const core = await loadCore(); core.trace('小猫吃鱼')`.
 *  @param {{base?: string}} [options] */
export async function loadCore(options = {}) {
  return new Core(await loadModule(options));
}
