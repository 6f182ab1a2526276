// train-local.test.mjs: web/train-local.js, the page-thread training loop used where no worker may
// start, with the real training module: pause and resume in any number and order keep one loop
// (never more than one pending slice), and a run ends with exactly one `done` and no error. Not the
// worker (train-worker's test) and not the Train panel (tests/browser/train.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCoreNode } from '../../web/core.js';
import { LocalTrainer } from '../../web/train-local.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const corpus = fs
  .readFileSync(path.join(root, 'src/data/corpus/train.tsv'), 'utf8')
  .split('\n')
  .slice(0, 400)
  .join('\n');

// The trainer's timers, counted: the test waits for states (a message, no timer left), and the
// most slices ever pending at once says how many loops ran.
function countTimers() {
  const pending = new Set();
  let most = 0;
  const { setTimeout: set, clearTimeout: clear } = globalThis;
  globalThis.setTimeout = (f, ms) => {
    const id = set(() => {
      pending.delete(id);
      f();
    }, ms);
    pending.add(id);
    most = Math.max(most, pending.size);
    return id;
  };
  globalThis.clearTimeout = (id) => {
    pending.delete(id);
    clear(id);
  };
  return {
    idle: () => pending.size === 0,
    most: () => most,
    restore: () => Object.assign(globalThis, { setTimeout: set, clearTimeout: clear }),
  };
}

async function localTrainer() {
  const tc = await loadCoreNode(path.join(root, 'web/wasm'), 'attention-train');
  const t = new LocalTrainer({ module: async () => tc.module, corpus: async () => corpus });
  const messages = [];
  const waiters = [];
  t.onmessage = ({ data }) => {
    messages.push(data);
    for (const w of waiters.splice(0)) w();
  };
  const until = async (pred) => {
    while (!pred()) await new Promise((r) => waiters.push(r));
  };
  const of = (type) => messages.filter((m) => m.type === type);
  return { t, until, of };
}

// Waits for the event loop to have run every pending slice (a state: no timer left).
async function drained(timers) {
  while (!timers.idle()) await new Promise((r) => setImmediate(r));
}

test('pause and resume back to back, many times: one loop, one done, no error', async () => {
  const timers = countTimers();
  try {
    const { t, until, of } = await localTrainer();
    t.postMessage({ type: 'start', steps: 100, seed: 1, batch: 8 });
    await until(() => of('started').length > 0);
    for (let i = 0; i < 25; i++) {
      t.postMessage({ type: 'pause' });
      t.postMessage({ type: 'resume' });
    }
    t.postMessage({ type: 'resume' }); // resume while running: nothing
    await until(() => of('done').length > 0 || of('error').length > 0);
    await drained(timers);
    assert.deepEqual(of('error'), []);
    assert.equal(of('done').length, 1);
    assert.equal(of('done')[0].step, 100);
    assert.deepEqual(
      of('progress').map((m) => m.step),
      [20, 40, 60, 80, 100],
    );
    assert.equal(timers.most(), 1, 'more than one slice was pending at once: two loops ran');
    t.terminate();
  } finally {
    timers.restore();
  }
});

test('pause holds; resume continues from where it stopped', async () => {
  const timers = countTimers();
  try {
    const { t, until, of } = await localTrainer();
    t.postMessage({ type: 'start', steps: 60, seed: 1, batch: 8 });
    await until(() => of('progress').length > 0);
    t.postMessage({ type: 'pause' });
    await drained(timers);
    const held = of('progress').length;
    assert.equal(of('done').length, 0);
    assert.ok(held < 3, `${held} chunks before the pause took effect`);
    t.postMessage({ type: 'resume' });
    t.postMessage({ type: 'resume' });
    await until(() => of('done').length > 0);
    await drained(timers);
    assert.deepEqual(
      of('progress').map((m) => m.step),
      [20, 40, 60],
    );
    assert.equal(of('done').length, 1);
    assert.equal(timers.most(), 1);
    t.terminate();
  } finally {
    timers.restore();
  }
});
