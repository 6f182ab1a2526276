// lib/core.js: the npm package's core API in a browser (package.json exports "."): core.js with the
// WebAssembly found next to this module (../wasm/: dist/site/wasm/ from the built
// dist/site/lib/core.mjs, web/wasm/ unbundled), never relative to the host page. A page on another
// origin needs the package's files served with CORS (the module and the .wasm are fetched).
// Node takes lib/core-node.js (same exports).
import { loadModule as loadModuleAt, Core } from '../core.js';

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

const WASM_DIR = new URL('../wasm/', import.meta.url).href;

/** The WebAssembly module (one per call; a Core over it is one session). options: {base} to load
 *  attention.js and attention.wasm from another folder. */
export function loadModule(options = {}) {
  return loadModuleAt({ base: WASM_DIR, ...options });
}

/** loadModule and one Core over it: `const core = await loadCore(); core.trace('小猫吃鱼')`. */
export async function loadCore(options = {}) {
  return new Core(await loadModule(options));
}
