// npz.js: NumPy's .npz file (a zip of .npy arrays) written in JS: little-endian float32 matrices
// and fixed-width unicode string arrays, in an uncompressed zip (stored entries). No DOM and no
// maths: the numbers are the core's, and so is the zip's CRC-32 (passed in as crc32(bytes)).
//
// .npy, format version 1.0: "\x93NUMPY", 1, 0, a u16 header length, then the header (a Python
// dict literal: descr, fortran_order, shape), padded with spaces and ended by "\n" so that the
// data starts on a 64-byte boundary, then the data in C (row-major) order.

const enc = new TextEncoder();

/** @param {string} descr @param {number[]} shape */
function npyHeader(descr, shape) {
  const dims = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let dict = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${dims}, }`;
  const pad = 64 - ((10 + dict.length + 1) % 64);
  dict += `${' '.repeat(pad % 64)}\n`;
  const head = new Uint8Array(10 + dict.length);
  head.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]); // \x93NUMPY 1.0
  new DataView(head.buffer).setUint16(8, dict.length, true);
  head.set(enc.encode(dict), 10);
  return head;
}

/** @param {Uint8Array[]} parts */
function concat(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A float32 matrix {rows, cols, data} as .npy bytes of shape (rows, cols).
 *  @param {{rows: number, cols: number, data: ArrayLike<number>}} m */
export function npyMatrix(m) {
  const data = new Uint8Array(m.rows * m.cols * 4);
  const view = new DataView(data.buffer);
  for (let i = 0; i < m.rows * m.cols; i++) view.setFloat32(i * 4, m.data[i], true);
  return concat([npyHeader('<f4', [m.rows, m.cols]), data]);
}

/** Strings as a .npy unicode array of shape (count,): dtype '<U{longest}', UTF-32 little-endian.
 *  @param {readonly unknown[]} list */
export function npyStrings(list) {
  // each of a well-formed string's characters is one code point
  const points = list.map((s) =>
    Array.from(String(s).toWellFormed(), (c) => /** @type {number} */ (c.codePointAt(0))),
  );
  const width = Math.max(1, ...points.map((p) => p.length));
  const data = new Uint8Array(list.length * width * 4);
  const view = new DataView(data.buffer);
  points.forEach((p, i) => p.forEach((c, j) => view.setUint32((i * width + j) * 4, c, true)));
  return concat([npyHeader(`<U${width}`, [list.length]), data]);
}

/**
 * A zip of stored (uncompressed) entries: [{name, bytes}] -> Uint8Array. crc32(bytes) -> the
 * entry's CRC-32 (IEEE). Names are ASCII; at most 65,535 entries, each under 4 GiB (no zip64).
 * @param {readonly {name: string, bytes: Uint8Array}[]} entries
 * @param {(bytes: Uint8Array) => number} crc32
 */
export function zipStored(entries, crc32) {
  /** @type {Uint8Array[]} */
  const locals = [];
  /** @type {Uint8Array[]} */
  const centrals = [];
  let offset = 0;
  for (const { name, bytes } of entries) {
    const nameBytes = enc.encode(name);
    const crc = crc32(bytes);
    const local = new Uint8Array(30 + nameBytes.length);
    const l = new DataView(local.buffer);
    l.setUint32(0, 0x04034b50, true); // local file header
    l.setUint16(4, 20, true); // version needed: 2.0
    l.setUint16(8, 0, true); // method: stored
    l.setUint16(12, 0x21, true); // date: 1980-01-01 (no clock: the same model gives the same file)
    l.setUint32(14, crc, true);
    l.setUint32(18, bytes.length, true);
    l.setUint32(22, bytes.length, true);
    l.setUint16(26, nameBytes.length, true);
    local.set(nameBytes, 30);
    const central = new Uint8Array(46 + nameBytes.length);
    const c = new DataView(central.buffer);
    c.setUint32(0, 0x02014b50, true); // central directory header
    c.setUint16(4, 20, true); // made by: 2.0
    c.setUint16(6, 20, true);
    c.setUint16(14, 0x21, true);
    c.setUint32(16, crc, true);
    c.setUint32(20, bytes.length, true);
    c.setUint32(24, bytes.length, true);
    c.setUint16(28, nameBytes.length, true);
    c.setUint32(42, offset, true);
    central.set(nameBytes, 46);
    locals.push(local, bytes);
    centrals.push(central);
    offset += local.length + bytes.length;
  }
  const dir = concat(centrals);
  const end = new Uint8Array(22);
  const e = new DataView(end.buffer);
  e.setUint32(0, 0x06054b50, true); // end of central directory
  e.setUint16(8, entries.length, true);
  e.setUint16(10, entries.length, true);
  e.setUint32(12, dir.length, true);
  e.setUint32(16, offset, true);
  return concat([...locals, dir, end]);
}

/** [{name, rows, cols, data} | {name, strings}] -> .npz bytes (entry "<name>.npy" each).
 *  @typedef {{name: string, strings?: undefined, rows: number, cols: number,
 *             data: ArrayLike<number>}} NamedMatrix
 *  @param {readonly (NamedMatrix | {name: string, strings: readonly unknown[]})[]} arrays
 *  @param {(bytes: Uint8Array) => number} crc32 */
export function npz(arrays, crc32) {
  return zipStored(
    arrays.map((a) => ({
      name: `${a.name}.npy`,
      bytes: a.strings ? npyStrings(a.strings) : npyMatrix(/** @type {NamedMatrix} */ (a)),
    })),
    crc32,
  );
}
