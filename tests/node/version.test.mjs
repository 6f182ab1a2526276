// version.test.mjs: the project has one version, CMake's project() VERSION, and every place that
// shows it says the same: the module's version(), the generated core facts (the page's footer and
// the embed's ready event read them), `qkv --version`, package.json and CHANGELOG.md's newest entry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCoreNode } from '../../web/core.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const qkv = process.env.AP_QKV || path.join(root, 'build/native/qkv');

function cmakeVersion() {
  const text = fs.readFileSync(path.join(root, 'CMakeLists.txt'), 'utf8');
  const m = text.match(/^project\(\s*\w+\s+VERSION\s+(\S+)/m);
  assert.ok(m, 'CMakeLists.txt declares project(... VERSION x.y.z ...)');
  return m[1];
}

test('one version: CMake, the module, the core facts, qkv --version, package.json, CHANGELOG.md', async () => {
  const version = cmakeVersion();
  assert.match(version, /^\d+\.\d+\.\d+$/, 'a semver version');
  const core = await loadCoreNode(path.join(root, 'web/wasm'));
  assert.equal(core.module.version(), version, 'the module (rebuild: scripts/build wasm)');
  const { VERSION } = await import('../../web/wasm/core-facts.mjs');
  assert.equal(VERSION, version, 'web/wasm/core-facts.mjs is stale: run scripts/build wasm');
  const { VERSION: fromCoreJs } = await import('../../web/core.js');
  assert.equal(fromCoreJs, version);
  assert.equal(execFileSync(qkv, ['--version'], { encoding: 'utf8' }), `qkv ${version}\n`);
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  assert.equal(pkg.version, version, 'package.json says the same version');
  const changelog = fs.readFileSync(path.join(root, 'CHANGELOG.md'), 'utf8');
  const newest = changelog.match(/^## \[?(\d+\.\d+\.\d+)\]?/m);
  assert.ok(newest, 'CHANGELOG.md has a "## x.y.z" entry');
  assert.equal(newest[1], version, "CHANGELOG.md's newest entry is this version");
});

test('a trained model file records the project version that trained it (info.project_version)', async () => {
  const version = cmakeVersion();
  // the page's training worker: the model it hands to the page carries this build's version
  const tc = await loadCoreNode(path.join(root, 'web/wasm'), 'attention-train');
  const corpus = fs
    .readFileSync(path.join(root, 'src/data/corpus/train.tsv'), 'utf8')
    .split('\n')
    .slice(0, 50)
    .join('\n');
  const m = new tc.module.Trainer();
  assert.ok(m.start(corpus, { seed: 1, steps: 2, batch: 4 }).ok);
  m.step(2);
  const bytes = m.modelBytes();
  assert.ok(bytes.ok);
  const custom = tc.setCustomModel(bytes.bytes).model;
  assert.equal(custom.info.project_version, version, "the page's trained model");
  m.delete();
  tc.close();
  // the shipped model was trained by model/train (qkv-train), which records a version too
  const core = await loadCoreNode(path.join(root, 'web/wasm'));
  const shipped = core.trace('小猫吃鱼').model.info.project_version;
  assert.match(
    shipped ?? '',
    /^\d+\.\d+\.\d+$/,
    'the shipped model names the version that trained it',
  );
  core.close();
});
