// panels.js: the test page for the four teaching panels (tests/browser/panels.test.mjs). It mounts
// them alone, with the page's own core, translator and focus rule, and a few plain controls the
// test drives (language, sentence, focus, head, scale, causal, read from the URL). Test-only: it
// does not ship, and its labels are not user strings.

import { loadCore, CoreError } from '../../../web/core.js';
import { loadTranslator } from '../../../web/i18n.js';
import { defaultFocus } from '../../../web/state.js';
import { AnalogyPanel } from '../../../web/views/panels/analogy.js';
import { FormulaPanel } from '../../../web/views/panels/formula.js';
import { SoftmaxLabPanel } from '../../../web/views/panels/softmax-lab.js';
import { Plane2DPanel } from '../../../web/views/panels/plane2d.js';

const PANELS = [
  ['slot-formula', FormulaPanel],
  ['slot-softmax', SoftmaxLabPanel],
  ['slot-analogy', AnalogyPanel],
  ['slot-plane', Plane2DPanel],
];
const WEB = new URL('../../../web/', import.meta.url).href; // locales/ is in it
const $ = (id) => document.getElementById(id);

function readUrlState() {
  const p = new URLSearchParams(location.search);
  const int = (k) => (/^\d{1,3}$/.test(p.get(k) || '') ? Number(p.get(k)) : null);
  return {
    lang: p.get('lang') === 'en' ? 'en' : 'zh',
    text: p.get('text') || '小猫吃鱼，它很开心',
    head: int('head') ?? 0,
    q: int('q'),
    scale: p.get('scale') !== '0',
    causal: p.get('causal') === '1',
  };
}

async function main() {
  const state = readUrlState();
  const status = $('demo-status');
  const [core, en, zh] = await Promise.all([
    loadCore(),
    loadTranslator('en', WEB),
    loadTranslator('zh', WEB),
  ]);
  const translators = { en, zh };
  const t = (key, params) => translators[state.lang].t(key, params);
  const hl = $('demo-highlight');
  const onHighlight = (names) => {
    hl.dataset.names = names.join(',');
    hl.textContent = names.join(', ');
  };
  const panels = PANELS.map(([id, Panel]) => new Panel($(id), { core, t, onHighlight }));

  const select = (node, options, value) => {
    node.replaceChildren(
      ...options.map((label, i) => {
        const o = document.createElement('option');
        o.value = String(i);
        o.textContent = label;
        return o;
      }),
    );
    node.value = String(value);
  };

  function render() {
    document.documentElement.lang = state.lang === 'en' ? 'en' : 'zh-CN';
    $('demo-lang').value = state.lang;
    let result;
    try {
      result = core.trace(state.text, { scale: state.scale, causal: state.causal });
      status.textContent = '';
    } catch (e) {
      status.textContent = e instanceof CoreError ? t(`error.${e.code}`) : String(e);
      return;
    }
    const n = result.tokens.length;
    if (state.q == null) state.q = defaultFocus(result.token_details);
    state.q = Math.min(Math.max(0, state.q), Math.max(0, n - 1));
    state.head = Math.min(Math.max(0, state.head), result.config.heads - 1);
    select(
      $('demo-focus'),
      result.tokens.map((x, i) => `${i + 1}: ${x}`),
      state.q,
    );
    select(
      $('demo-head'),
      Array.from({ length: result.config.heads }, (_, i) => String(i + 1)),
      state.head,
    );
    for (const p of panels) p.update({ result, state: { ...state } });
    document.body.dataset.ready = 'true';
  }

  $('demo-text').value = state.text;
  $('demo-scale').checked = state.scale;
  $('demo-causal').checked = state.causal;
  $('demo-lang').addEventListener('change', (e) => {
    state.lang = e.target.value === 'en' ? 'en' : 'zh';
    render();
  });
  $('demo-text').addEventListener('input', (e) => {
    state.text = e.target.value;
    state.q = null;
    render();
  });
  $('demo-focus').addEventListener('change', (e) => {
    state.q = Number(e.target.value);
    render();
  });
  $('demo-head').addEventListener('change', (e) => {
    state.head = Number(e.target.value);
    render();
  });
  $('demo-scale').addEventListener('change', (e) => {
    state.scale = e.target.checked;
    render();
  });
  $('demo-causal').addEventListener('change', (e) => {
    state.causal = e.target.checked;
    render();
  });
  $('demo-controls').addEventListener('submit', (e) => e.preventDefault());
  render();
}

main().catch((e) => {
  $('demo-status').textContent = String(e && e.message ? e.message : e);
  throw e;
});
