// real.mjs: a real model in attention-real, in Node, through the page's loader (web/real-model.js):
// GPT-2 small's shape (12 layers, d_model 768, 12 heads, 50257 tokens, 1024 positions; 124 M
// float32 numbers in the published tensor layout) with seeded random weights, written to a temp
// folder and removed after. Prints one JSON line: the time to read the file's bytes alone (the
// yardstick of the load goal), to open the folder (copy_ms: the file read slice by slice into
// the model, each number converted to its place on the way; convert_ms: what follows the last
// slice), the module's memory after, and a full trace of 32 tokens; then `qkv convert` of the
// folder in f32, f16 and int8 (the native CLI, build/native/qkv or AP_QKV): each file's size,
// convert's time and largest attention-weight change, and the time to open the .apm in
// attention-real. Not a test; --quick: two layers.
//   node scripts/perf/real.mjs [--quick]        (scripts/bench runs it)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { File } from 'node:buffer';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { loadRealModule, openConvertedModel, openRealModel } from '../../web/real-model.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const quick = process.argv.includes('--quick');
const shape = { layers: quick ? 2 : 12, d: 768, heads: 12, vocab: 50257, positions: 1024 };
const TOKENS = 32;

// xorshift32 numbers in [-0.02, 0.02): weights of GPT-2's scale, the same on every run
function filler(seed) {
  let s = seed >>> 0 || 1;
  return (a) => {
    for (let i = 0; i < a.length; i++) {
      s ^= s << 13;
      s >>>= 0;
      s ^= s >>> 17;
      s ^= s << 5;
      s >>>= 0;
      a[i] = (s / 2 ** 32 - 0.5) * 0.04;
    }
    return a;
  };
}

// the published GPT-2 tensors: [name, shape, 'random' | 1 (LayerNorm gains) | 0 (biases)]
function tensors({ layers, d, vocab, positions }) {
  const list = [
    ['wte.weight', [vocab, d], 'random'],
    ['wpe.weight', [positions, d], 'random'],
  ];
  for (let l = 0; l < layers; l++) {
    const h = `h.${l}.`;
    list.push(
      [`${h}ln_1.weight`, [d], 1],
      [`${h}ln_1.bias`, [d], 0],
      [`${h}attn.c_attn.weight`, [d, 3 * d], 'random'],
      [`${h}attn.c_attn.bias`, [3 * d], 0],
      [`${h}attn.c_proj.weight`, [d, d], 'random'],
      [`${h}attn.c_proj.bias`, [d], 0],
      [`${h}ln_2.weight`, [d], 1],
      [`${h}ln_2.bias`, [d], 0],
      [`${h}mlp.c_fc.weight`, [d, 4 * d], 'random'],
      [`${h}mlp.c_fc.bias`, [4 * d], 0],
      [`${h}mlp.c_proj.weight`, [4 * d, d], 'random'],
      [`${h}mlp.c_proj.bias`, [d], 0],
    );
  }
  list.push(['ln_f.weight', [d], 1], ['ln_f.bias', [d], 0]);
  return list;
}

// safetensors: u64 little-endian header length, the JSON header padded with spaces to 8 bytes,
// then each tensor's float32 bytes in header order
function writeModel(dir) {
  const list = tensors(shape);
  const header = {};
  let offset = 0;
  for (const [name, dims] of list) {
    const bytes = dims.reduce((a, b) => a * b, 1) * 4;
    header[name] = { dtype: 'F32', shape: dims, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let text = JSON.stringify(header);
  text += ' '.repeat((8 - (Buffer.byteLength(text) % 8)) % 8);
  const fd = fs.openSync(path.join(dir, 'model.safetensors'), 'w');
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(Buffer.byteLength(text)));
  fs.writeSync(fd, length);
  fs.writeSync(fd, text);
  const fill = filler(1);
  for (const [, dims, kind] of list) {
    const a = new Float32Array(dims.reduce((x, y) => x * y, 1));
    if (kind === 'random') fill(a);
    else a.fill(kind);
    fs.writeSync(fd, new Uint8Array(a.buffer));
  }
  fs.closeSync(fd);
  const config = {
    model_type: 'gpt2',
    _name_or_path: 'bench/gpt2-small-shape-random',
    n_layer: shape.layers,
    n_embd: shape.d,
    n_head: shape.heads,
    n_positions: shape.positions,
    vocab_size: shape.vocab,
  };
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config));
  // a byte-level tokenizer (the fixture's: the 256 bytes and a few merges; its ids fit)
  for (const f of ['vocab.json', 'merges.txt'])
    fs.copyFileSync(path.join(root, 'tests/fixtures/hf/gpt2_f32', f), path.join(dir, f));
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ap-bench-real-'));
try {
  writeModel(dir);
  const files = [];
  for (const name of fs.readdirSync(dir))
    files.push(new File([await fs.openAsBlob(path.join(dir, name))], name));
  const weights = files.find((f) => f.name === 'model.safetensors');

  let t = performance.now();
  const module = await loadRealModule(path.join(root, 'web/wasm/attention-real.js'));
  const moduleMs = performance.now() - t;

  // the yardstick: the file's bytes read in the loader's slices, and nothing else
  t = performance.now();
  for (let at = 0; at < weights.size; at += 8 << 20)
    await weights.slice(at, at + (8 << 20)).arrayBuffer();
  const readMs = performance.now() - t;

  let copied = 0;
  t = performance.now();
  const model = await openRealModel(files, {
    module,
    onProgress: (p) => p.loaded === p.total && (copied = performance.now()),
  });
  const loadMs = performance.now() - t;
  const heapAfterLoad = module.HEAPU8.length;

  // 32 single letters: the fixture's merges join none of them, so 32 tokens
  const text = 'x'.repeat(TOKENS);
  const first = model.trace(text);
  if (first.ids.length !== TOKENS) throw new Error(`${first.ids.length} tokens, not ${TOKENS}`);
  const runs = [];
  for (let i = 0; i < 5; i++) {
    const a = performance.now();
    model.trace(text, { layer: shape.layers - 1, head: 0 });
    runs.push(performance.now() - a);
  }
  runs.sort((a, b) => a - b);
  model.dispose();
  const ms = (v) => Math.round(v * 10) / 10;

  // the folder packed into one .apm per dtype, then opened as the page opens a hosted file
  // (after the folder's model: the module's memory never shrinks, so its heap is not measured)
  const qkv = process.env.AP_QKV || path.join(root, 'build/native/qkv');
  const converted = {};
  for (const dtype of ['f32', 'f16', 'int8']) {
    const out = path.join(dir, `model-${dtype}.apm`);
    let started = performance.now();
    const report = JSON.parse(
      execFileSync(qkv, ['convert', dir, out, '--dtype', dtype], { encoding: 'utf8' }),
    );
    const convertMs = performance.now() - started;
    const file = new File([await fs.openAsBlob(out)], path.basename(out));
    started = performance.now();
    const m = await openConvertedModel(file, { module });
    const openMs = performance.now() - started;
    m.dispose();
    fs.rmSync(out);
    converted[dtype] = {
      bytes: report.bytes,
      max_weight_change: report.max_weight_change,
      convert_ms: ms(convertMs),
      open_ms: ms(openMs),
    };
  }

  console.log(
    JSON.stringify({
      shape,
      parameters: model.info.parameters,
      file_bytes: weights.size,
      module_ms: ms(moduleMs),
      read_ms: ms(readMs),
      load_ms: ms(loadMs),
      copy_ms: ms(copied - t),
      convert_ms: ms(t + loadMs - copied),
      load_over_read: ms(loadMs / readMs),
      heap_after_load: heapAfterLoad,
      trace_32_tokens_ms_median: ms(runs[2]),
      converted,
    }),
  );
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
