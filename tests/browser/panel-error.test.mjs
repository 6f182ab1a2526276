// panel-error.test.mjs: a teaching panel that throws is a bug the browser tests see. The page is
// served with analogy.js patched so its update() throws; the error must reach the console as an
// error (which every browser test fails on), the panel's box (inside the stage) must say so, and
// the rest of the page must keep working.
//   node --test tests/browser/panel-error.test.mjs      (needs scripts/build wasm first)
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { newPage, teardown, webDir, gotoStage } from './harness.mjs';

after(teardown);

const en = JSON.parse(fs.readFileSync(path.join(webDir, 'locales/en.json'), 'utf8'));

test('a panel that throws is reported as an error and its box says so; the walkthrough goes on', async () => {
  const { page, errors, open, context } = await newPage();
  const src = fs.readFileSync(path.join(webDir, 'views/panels/analogy.js'), 'utf8');
  const broken = `${src}\nAnalogyPanel.prototype.update = () => { throw new Error('broken on purpose'); };\n`;
  await page.route('**/views/panels/analogy.js', (r) =>
    r.fulfill({ body: broken, contentType: 'text/javascript' }),
  );
  await open('');
  // the analogy lives in the Q·K·V stage, made when its <details> is first opened
  await gotoStage(page, 2, 'project');
  await page.click('#stage-body details[data-extra="analogy"] > summary');
  const alert = page.locator('#stage-body [role="alert"]');
  await alert.waitFor();
  assert.equal(await alert.count(), 1, 'only the broken panel');
  assert.equal(await alert.innerText(), en['panel.common.failed']);
  assert.ok(
    errors.some((e) => e.includes('a teaching panel failed') && e.includes('broken on purpose')),
    `the failure is a console error: ${JSON.stringify(errors)}`,
  );
  // the walkthrough still works
  await gotoStage(page, 6, 'softmax');
  assert.ok((await page.locator('#stage-body td[data-matrix="weights"]').count()) > 0);
  await context.close();
});
