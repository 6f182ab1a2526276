// results.mjs: where the benchmark scripts write their JSON: bench-results/ at the repository's
// root, or the folder after --out (the smoke test writes into a temporary folder so it never
// replaces a developer's measured results).
import path from 'node:path';

export function resultsDir(root, argv) {
  const i = argv.indexOf('--out');
  if (i < 0) return path.join(root, 'bench-results');
  const dir = argv[i + 1];
  if (!dir || dir.startsWith('--')) throw new Error('--out needs a folder');
  return path.resolve(dir);
}
