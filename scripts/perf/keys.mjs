// keys.mjs: only the keystroke part of scripts/bench (scripts/bench --keys): keystroke to repaint
// in headless Chromium, per walkthrough stage, at 64 tokens (random 4-head model and the trained
// model), 16 and 256 tokens, and 32 tokens with the CPU throttled 4x. Prints the table and writes
// bench-results/keys.json. Not a test: it reports "met" / "NOT met" and asserts nothing.
//   node scripts/perf/keys.mjs [--quick]      (after scripts/build wasm)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { measurePage, keystrokeTable } from './page.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const quick = process.argv.includes('--quick');
const loadStart = os.loadavg();
const page = await measurePage(root, { quick, keysOnly: true });
if (page.error) {
  console.log(`page: not measured: ${page.error.split('\n')[0]}`);
  process.exit(1);
}
const lines = [
  `machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model}), load average ${loadStart.map((x) => x.toFixed(1)).join(' ')} at the start, ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')} at the end`,
  ...keystrokeTable(page),
];
console.log(lines.join('\n'));
fs.mkdirSync(path.join(root, 'bench-results'), { recursive: true });
fs.writeFileSync(
  path.join(root, 'bench-results/keys.json'),
  JSON.stringify(
    { date: new Date().toISOString(), loadStart, loadEnd: os.loadavg(), page },
    null,
    2,
  ),
);
