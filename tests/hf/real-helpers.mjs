// real-helpers.mjs: what the tests of attention-real (real-model.test.mjs, converted.test.mjs)
// both need: a matrix compared with the CLI's JSON rows (from ../node/close.mjs), and the module
// with its heap buffers counted. Not a test itself.
export { assertClose } from '../node/close.mjs';

/**
 * `m` with its buffers counted: outstanding() is those _malloc gave that were neither freed with
 * _free nor handed to loadRealModel or loadConvertedModel (which own the one they are given).
 * @param {any} m
 */
export function counted(m) {
  const live = new Set();
  const spy = Object.create(m);
  spy._malloc = (/** @type {number} */ n) => {
    const p = m._malloc(n);
    if (p) live.add(p);
    return p;
  };
  spy._free = (/** @type {number} */ p) => {
    live.delete(p);
    m._free(p);
  };
  spy.loadRealModel = (/** @type {any} */ files) => {
    live.delete(files.weightsPtr);
    return m.loadRealModel(files);
  };
  spy.loadConvertedModel = (/** @type {any} */ file) => {
    live.delete(file.bytesPtr);
    return m.loadConvertedModel(file);
  };
  return { spy, outstanding: () => live.size };
}
