// numpy.test.mjs: the preset "the article's NumPy example". It sets model=numpy with the article's
// seed and sizes on a 4-token sentence; the article's program is shown beside the stages, each
// stage highlights the lines the core says compute it, the numbers shown equal the core's trace,
// and the program, run with Debian's NumPy, prints the weights shown (as the page says it does).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import {
  newPage,
  setup,
  teardown,
  gotoStage,
  cells,
  renders,
  waitRender,
  root,
  Axe,
} from './harness.mjs';
import { STAGES, numpyPreset, parse, coreSettings } from '../../web/state.js';

after(teardown);

const EN = JSON.parse(fs.readFileSync(path.join(root, 'web/locales/en.json'), 'utf8'));
const article = fs.readFileSync(path.join(root, 'src/data/numpy_example.py'), 'utf8');

function assertShown(shown, m, label) {
  assert.equal(shown.length, m.rows * m.cols, `${label}: every cell is shown`);
  for (const c of shown) {
    const v = m.data[c.row * m.cols + c.col];
    assert.ok(
      Math.abs(c.value - v) < 1e-6,
      `${label}[${c.row}][${c.col}]: shown ${c.value}, core ${v}`,
    );
  }
}

// runs Python code with NumPy and returns what it printed after the marker, parsed
function runPython(code, expr) {
  const out = execFileSync('/usr/bin/python3', ['-'], {
    input: `${code}\nimport json\nprint("JSON" + json.dumps(${expr}))\n`,
    encoding: 'utf8',
  });
  return JSON.parse(
    out
      .split('\n')
      .find((l) => l.startsWith('JSON'))
      .slice(4),
  );
}

test("the preset shows the article's program, highlights each stage's lines, and its numbers are the page's", async () => {
  const { core } = await setup();
  const { page, errors, open } = await newPage({ locale: 'en-US' });
  await open('');
  assert.ok(await page.isHidden('#program'), 'no program for the trained model');
  const before = await renders(page);
  const mine = await page.inputValue('#text');
  await page.click('#preset-numpy');
  await waitRender(page, before);
  // the learner's sentence was put aside, and the page says so with a way back
  const notice = await page.textContent('#messages .msg.notice');
  assert.ok(notice.includes(`“${mine}”`), `the notice names the sentence put aside: ${notice}`);
  assert.ok(await page.isVisible('#messages .msg-action'));
  // the link says what the preset set
  const { state } = parse(new URL(page.url()).search);
  // the core's article values are the ones the article's program text writes
  const sizes = core.numpyArticle();
  const written = (re) => article.match(re)[1];
  assert.deepEqual(sizes, {
    seed: written(/np\.random\.seed\((\d+)\)/),
    n: Number(written(/^seq_len = (\d+) /m)),
    d_model: Number(written(/^d_model = (\d+) /m)),
    d_k: Number(written(/^d_k = (\d+) /m)),
  });
  for (const [k, v] of Object.entries(numpyPreset(sizes)))
    assert.equal(String(state[k]), String(v), `URL ${k}`);
  const want = core.trace(state.s, coreSettings(state));
  assert.equal(want.tokens.length, sizes.n);
  assert.ok(want.program.matches);
  // the program: the article's, as printed, and the core's lines
  assert.ok(await page.isVisible('#program'));
  const code = await page.textContent('#program .program-code');
  assert.equal(code, article);
  assert.equal(code, want.program.lines.map((l) => `${l.text}\n`).join(''));
  assert.equal(await page.getAttribute('#program .program-claim', 'data-matches'), 'true');
  assert.match(await page.textContent('#program .program-claim'), /np\.random\.seed\(42\)/);
  // one head and no positions are fixed by the model: the controls show it, disabled
  await page.click('#whatif summary');
  assert.equal(await page.inputValue('#set-heads'), '1');
  assert.ok(await page.isDisabled('#set-heads'));
  assert.ok(await page.isDisabled('#set-pos'));
  assert.equal(await page.isChecked('#set-pos'), false);
  assert.ok(await page.isEnabled('#set-dmodel'));

  const tr = want;
  const { n, d_model: dModel, d_k: dK } = want.config;
  for (const [si, id] of STAGES.entries()) {
    await gotoStage(page, si, id);
    await page.waitForSelector(`#program[data-stage="${id}"]`);
    const lit = await page.$$eval('#program .program-line-current', (e) =>
      e.map((x) => x.textContent.replace(/\n$/, '')),
    );
    const lines = want.program.lines.filter((l) => l.stage === id).map((l) => l.text);
    assert.deepEqual(lit, lines, `stage ${id}: highlighted lines`);
    if (id === 'mask') {
      assert.equal(lit.length, 0);
      assert.ok(await page.isVisible('#program .program-noline'));
    } else {
      assert.ok(lit.length > 0, `stage ${id} has lines`);
      assert.ok(await page.isHidden('#program .program-noline'));
    }
    if (id === 'score') assert.deepEqual(lit, ['    scores = np.matmul(Q, K.T)']);
    if (id === 'embeddings') assertShown(await cells(page, 'X'), tr.X, 'X');
    // what the stages say is true of this program: X by position, one head, W_O the identity
    if (id === 'embeddings') {
      assert.equal(
        JSON.parse(await page.getAttribute('#stage-body p.hint[data-says]', 'data-says')).key,
        'embeddings.numpyX',
      );
      // X differs by position: no word has a row of its own, and the introduction says so
      const other = core.trace('zebra', coreSettings({ ...state, s: 'zebra' }));
      assert.deepEqual([...other.X.data.slice(0, dModel)], [...tr.X.data.slice(0, dModel)]);
      assert.equal(await page.textContent('#stage-what'), EN['stage.embeddings.whatNumpy']);
      assert.doesNotMatch(await page.innerText('#walkthrough'), /same row of E|is a vector of/);
    }
    if (id === 'heads') {
      // one head and W_O the identity in the trace: nothing is mixed, and no sentence says it is
      assert.equal(tr.config.heads, 1);
      const wo = tr.W_O;
      for (let i = 0; i < wo.rows; i++)
        for (let j = 0; j < wo.cols; j++) assert.equal(wo.data[i * wo.cols + j], i === j ? 1 : 0);
      assert.match(await page.textContent('#stage-body'), /with one head, concat is that head's/);
      assert.equal(await page.textContent('#stage-what'), EN['stage.heads.whatNumpy']);
      assert.equal(
        await page.textContent('#stage-body p.lead'),
        EN['heads.leadNumpy'].replace('{dk}', String(dK)).replace('{d}', String(dModel)),
      );
      assert.doesNotMatch(await page.innerText('#walkthrough'), /mixed back|\b1 heads\b/);
    }
    if (id === 'project') assertShown(await cells(page, 'Q'), tr.heads[0].Q, 'Q');
    if (id === 'score') assertShown(await cells(page, 'scores'), tr.heads[0].scores, 'scores');
    if (id === 'softmax') {
      const shown = await cells(page, 'weights');
      assertShown(shown, tr.heads[0].weights, 'weights');
      // what the page says: running the program gives these numbers
      const np = runPython(
        code,
        '{"weights": weights.tolist(), "output": output.tolist(), "X": X.tolist()}',
      );
      for (const c of shown)
        assert.ok(
          Math.abs(np.weights[c.row][c.col] - c.value) <= 1e-5,
          `NumPy weights[${c.row}][${c.col}]`,
        );
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < dK; j++)
          assert.ok(Math.abs(np.output[i][j] - tr.output.data[i * dK + j]) <= 1e-5);
        for (let j = 0; j < dModel; j++)
          assert.equal(Math.fround(np.X[i][j]), tr.X.data[i * dModel + j]);
      }
    }
  }

  // the program panel and the preset button pass axe (contrast of the highlight, the code's name)
  const ax = await new Axe(page)
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'])
    .include('#program')
    .include('#input')
    .analyze();
  const bad = ax.violations
    .filter((x) => ['serious', 'critical'].includes(x.impact))
    .map((x) => `${x.id}: ${x.help}`);
  assert.deepEqual(bad, []);

  // the export's NumPy script draws X and the weights with np.random.seed instead of listing them
  await page.click('#export summary');
  await page.click('[data-export="numpy"]');
  const snippet = await page.inputValue('#export-numpy');
  assert.match(snippet, /np\.random\.seed\(42\)\nX = np\.random\.randn\(4, 8\)/);
  assert.doesNotMatch(snippet, /np\.array\(/);
  const w = runPython(snippet, '[x.tolist() for x in weights]');
  const m = tr.heads[0].weights;
  for (let i = 0; i < m.rows; i++)
    for (let j = 0; j < m.cols; j++)
      assert.ok(Math.abs(w[0][i][j] - m.data[i * m.cols + j]) < 1e-6);

  // a causal mask: the program no longer computes these numbers, and the page says so
  const b2 = await renders(page);
  await page.check('#set-causal');
  await waitRender(page, b2);
  await page.waitForSelector('#program .program-claim[data-matches="false"]');
  assert.match(await page.textContent('#program .program-claim'), /not the program's/);
  assert.deepEqual(errors, []);
});

test("the preset puts the learner's sentence aside and gives it back, with its model", async () => {
  const { page, errors, open } = await newPage({ locale: 'zh-CN' });
  await open(`s=${encodeURIComponent('我爱你')}&lang=zh`);
  const b1 = await renders(page);
  await page.click('#preset-numpy');
  await waitRender(page, b1);
  assert.ok(await page.isVisible('#program'));
  assert.match(await page.textContent('#messages .msg.notice'), /“我爱你”/);
  const b2 = await renders(page);
  await page.click('#messages .msg-action');
  await waitRender(page, b2);
  assert.equal(await page.inputValue('#text'), '我爱你');
  await page.waitForSelector('#program', { state: 'hidden' });
  assert.doesNotMatch(page.url(), /model=numpy/);
  assert.deepEqual(errors, []);
});

test('in Chinese, and from a link: another seed and size fill the program in', async () => {
  const { core } = await setup();
  const { page, errors, open } = await newPage({ locale: 'zh-CN' });
  const search = 's=a%20b%20c%20d%20e&model=numpy&seed=7&dmodel=6&dk=3&step=4';
  await open(search);
  await page.waitForSelector('#program[data-stage="score"]');
  const { state } = parse(search);
  const want = core.trace(state.s, coreSettings(state));
  const code = await page.textContent('#program .program-code');
  assert.equal(code, want.program.lines.map((l) => `${l.text}\n`).join(''));
  assert.match(code, /np\.random\.seed\(7\)\nseq_len = 5 .*\nd_model = 6 .*\nd_k = 3 /);
  assert.match(await page.textContent('#program h3'), /文章里的程序/);
  assert.match(await page.textContent('#program .program-claim'), /np\.random\.seed\(7\)/);
  const np = runPython(code, 'weights.tolist()');
  const shown = await cells(page, 'scores');
  assertShown(shown, want.heads[0].scores, 'scores');
  const m = want.heads[0].weights;
  for (let i = 0; i < m.rows; i++)
    for (let j = 0; j < m.cols; j++) assert.ok(Math.abs(np[i][j] - m.data[i * m.cols + j]) <= 1e-5);
  // a seed beyond np.random.seed's range: the locale's message, the last good numbers stay
  await page.click('#whatif summary');
  await page.fill('#set-seed', '4294967296');
  await page.dispatchEvent('#set-seed', 'change');
  await page.waitForSelector('#messages .msg.error');
  assert.match(await page.textContent('#messages .msg.error'), /4294967295/);
  assert.deepEqual(errors, []);
});
