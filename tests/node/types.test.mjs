// types.test.mjs: types/index.d.ts says what the core hands out. The interfaces that describe
// values written through src/core/schema.hpp (a trace, its heads, layers and tokens, the settings,
// the limits, the sqrt(d_k) experiment, the softmax steps) are read with the TypeScript parser and
// compared, field for field, with what the module returns: every field the core writes is
// declared, and every field declared as required is written. Index signatures ([field: string])
// do not count as declaring a field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { loadCoreNode } from '../../web/core.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const core = await loadCoreNode(path.join(root, 'web/wasm'));
const dtsFile = path.join(root, 'types/index.d.ts');
const source = ts.createSourceFile(
  dtsFile,
  fs.readFileSync(dtsFile, 'utf8'),
  ts.ScriptTarget.ES2022,
  true,
);

/** name -> Map(field -> {optional, type: the type node}) for every interface in the file */
const interfaces = new Map();
for (const s of source.statements) {
  if (!ts.isInterfaceDeclaration(s)) continue;
  const fields = new Map();
  for (const m of s.members) {
    if (ts.isPropertySignature(m))
      fields.set(m.name.getText(source), { optional: !!m.questionToken, type: m.type });
  }
  interfaces.set(s.name.text, fields);
}

/** The declared fields of a type node: an interface by name, an intersection of them, or an
 *  inline object type; null for anything else (a matrix, a number, a list). */
function declared(type) {
  if (!type) return null;
  if (ts.isTypeReferenceNode(type)) {
    const name = type.typeName.getText(source);
    if (name === 'Omit') {
      // Omit<T, 'a' | 'b'>: T's fields without those
      const [of, keys] = type.typeArguments;
      const left = new Map(declared(of));
      for (const k of keys.getText(source).split('|')) left.delete(k.trim().replace(/'/g, ''));
      return left;
    }
    return name === 'Matrix' ? null : (interfaces.get(name) ?? null);
  }
  if (ts.isIntersectionTypeNode(type)) {
    const all = new Map();
    for (const t of type.types) for (const [k, v] of declared(t) ?? []) all.set(k, v);
    return all;
  }
  if (ts.isTypeLiteralNode(type)) {
    const fields = new Map();
    for (const m of type.members) {
      if (ts.isPropertySignature(m))
        fields.set(m.name.getText(source), { optional: !!m.questionToken, type: m.type });
    }
    return fields;
  }
  return null;
}

/** The element type of T[] (a list of interfaces), else null. */
function elementOf(type) {
  return type && ts.isArrayTypeNode(type) ? type.elementType : null;
}

/** Compares a value with a declared object type, recursing into fields that are interfaces or
 *  lists of them. Returns the problems as "path: what". */
function compare(value, fields, where) {
  const problems = [];
  for (const key of Object.keys(value)) {
    if (!fields.has(key)) problems.push(`${where}.${key}: written by the core, not declared`);
  }
  for (const [key, { optional, type }] of fields) {
    const v = value[key];
    if (v === undefined) {
      if (!optional) problems.push(`${where}.${key}: declared, not written by the core`);
      continue;
    }
    const inner = declared(type);
    if (inner && v && typeof v === 'object' && !Array.isArray(v)) {
      problems.push(...compare(v, inner, `${where}.${key}`));
    }
    const item = declared(elementOf(type));
    if (item && Array.isArray(v)) {
      v.forEach((x, i) => problems.push(...compare(x, item, `${where}.${key}[${i}]`)));
    }
  }
  return problems;
}

function check(value, name) {
  assert.ok(interfaces.has(name), `types/index.d.ts declares ${name}`);
  assert.deepEqual(compare(value, interfaces.get(name), name), []);
}

test('a trace through the shipped model matches the Trace type', () => {
  check(core.trace('The animal was tired because it walked far.'), 'Trace');
});

test('a trace through random weights, with positions, matches the Trace type', () => {
  check(core.trace('小猫吃鱼，它很开心', { model: 'random', positions: true }), 'Trace');
});

test("the NumPy article's trace matches the Trace type", () => {
  check(core.trace('小猫爱吃鱼', { model: 'numpy' }), 'Trace');
});

test('limits(), the defaults, scaleDemo and softmaxSteps match their types', () => {
  check(core.limits(), 'Limits');
  check(core.module.defaults(), 'Settings');
  check(core.scaleDemo(16, 8, 4, '42'), 'ScaleDemo');
  check(core.softmaxSteps([1, 2, 3]), 'SoftmaxSteps');
});

test('the comparison can fail: a field the type lacks, and one it requires, are both named', () => {
  const t = core.trace('我爱你');
  const extra = { ...t, not_a_field: 1 };
  assert.deepEqual(compare(extra, interfaces.get('Trace'), 'Trace'), [
    'Trace.not_a_field: written by the core, not declared',
  ]);
  const missing = { ...t };
  delete missing.X;
  assert.deepEqual(compare(missing, interfaces.get('Trace'), 'Trace'), [
    'Trace.X: declared, not written by the core',
  ]);
});
