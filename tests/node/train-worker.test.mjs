// train-worker.test.mjs: web/train-worker.js run as the page runs it (a classic worker script),
// here inside a Node vm context with the training module: pause and resume in any number and
// order continue the one training loop; it ends with exactly one `done` and no error. Not the
// page's training view (tests/browser/train.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);

// A worker global scope: postMessage collects, timers are counted so the test can wait until the
// worker has nothing left to do (a state, not a sleep).
function startWorker() {
  const corpus = fs
    .readFileSync(path.join(root, 'src/data/corpus/train.tsv'), 'utf8')
    .split('\n')
    .slice(0, 400)
    .join('\n');
  const messages = [];
  const waiters = [];
  const pending = new Set();
  const notify = () => {
    for (const w of waiters.splice(0)) w();
  };
  const ctx = {
    console,
    postMessage: (m) => {
      messages.push(m);
      notify();
    },
    setTimeout: (f, ms) => {
      const id = setTimeout(() => {
        pending.delete(id);
        f();
        notify();
      }, ms);
      pending.add(id);
      return id;
    },
    clearTimeout: (id) => {
      pending.delete(id);
      clearTimeout(id);
    },
    fetch: async () => ({ ok: true, status: 200, text: async () => corpus }),
    importScripts: () => {
      const factory = require(path.join(root, 'web/wasm/attention-train.js'));
      const wasmBinary = fs.readFileSync(path.join(root, 'web/wasm/attention-train.wasm'));
      ctx.createAttentionModule = (opts) => factory({ ...opts, wasmBinary });
    },
  };
  ctx.self = ctx;
  vm.createContext(ctx);
  vm.runInContext(fs.readFileSync(path.join(root, 'web/train-worker.js'), 'utf8'), ctx);
  const until = async (pred) => {
    while (!pred()) await new Promise((r) => waiters.push(r));
  };
  return {
    post: (m) => ctx.onmessage({ data: m }),
    messages,
    until,
    idle: () => pending.size === 0,
  };
}

test('pause and resume back to back, many times: one loop, one done, no error', async () => {
  const w = startWorker();
  w.post({ type: 'start', steps: 200, seed: 1, batch: 8 });
  await w.until(() => w.messages.some((m) => m.type === 'started'));
  for (let i = 0; i < 25; i++) {
    w.post({ type: 'pause' });
    w.post({ type: 'resume' });
  }
  w.post({ type: 'resume' }); // resume while running: nothing
  await w.until(() => w.messages.some((m) => m.type === 'done' || m.type === 'error'));
  await w.until(() => w.idle());
  const of = (type) => w.messages.filter((m) => m.type === type);
  assert.deepEqual(of('error'), []);
  assert.equal(of('done').length, 1);
  assert.equal(of('done')[0].step, 200);
  // one loop: every chunk once, in order
  assert.deepEqual(
    of('progress').map((m) => m.step),
    Array.from({ length: 10 }, (_, i) => 20 * (i + 1)),
  );
});

test('pause holds; one resume continues from where it stopped', async () => {
  const w = startWorker();
  w.post({ type: 'start', steps: 100, seed: 1, batch: 8 });
  await w.until(() => w.messages.some((m) => m.type === 'progress'));
  w.post({ type: 'pause' });
  await w.until(() => w.idle());
  const held = w.messages.filter((m) => m.type === 'progress').length;
  assert.ok(held < 5, `${held} chunks before the pause took effect`);
  assert.equal(w.messages.filter((m) => m.type === 'done').length, 0);
  w.post({ type: 'resume' });
  w.post({ type: 'resume' });
  await w.until(() => w.messages.some((m) => m.type === 'done'));
  await w.until(() => w.idle());
  assert.deepEqual(
    w.messages.filter((m) => m.type === 'progress').map((m) => m.step),
    [20, 40, 60, 80, 100],
  );
  assert.equal(w.messages.filter((m) => m.type === 'done').length, 1);
});
