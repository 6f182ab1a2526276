// budgets.mjs: the embedding budgets, in one place: scripts/bench-embed.mjs measures them (with
// the first trace, which only a benchmark may time) and the browser tests hold the sizes.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

export const BUDGETS = {
  /** every file the hosted page asks for, gzipped (-9) and summed, for any visitor's language */
  hostedGzipBytes: 300 * 1024,
  /** dist/attention-playground.html */
  singleFileBytes: 600 * 1024,
  /** navigation to the first trace drawn, median of several loads (a benchmark, never a test) */
  firstTraceMs: 500,
};

/** The files the hosted page asked for (URL paths under dist/, '/site/' for its index.html), each
 *  with its size and gzipped (-9) size in bytes, and their gzipped sum. */
export function transferOf(distDir, paths) {
  const files = paths.map((p) => {
    const f = path.join(distDir, p.endsWith('/') ? `${p}index.html` : p);
    const there = fs.existsSync(f);
    return {
      path: p,
      bytes: there ? fs.statSync(f).size : 0,
      gzip: there ? zlib.gzipSync(fs.readFileSync(f), { level: 9 }).length : 0,
    };
  });
  return { files, gzip: files.reduce((s, f) => s + f.gzip, 0) };
}
