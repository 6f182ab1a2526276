// panels-demo.js: wiring for panels-demo.html. Loads the core and both panel locale files, keeps a
// small state ({lang, text, head, q, scale, causal}, read from the URL), traces the sentence and
// hands the result to the four panels. Not the main page's state or i18n module.

import { loadCore, CoreError } from './core.js';
import { AnalogyPanel } from './views/panels/analogy.js';
import { FormulaPanel } from './views/panels/formula.js';
import { SoftmaxLabPanel } from './views/panels/softmax_lab.js';
import { Plane2DPanel } from './views/panels/plane2d.js';

const PANELS = [
  ['panel-formula', FormulaPanel],
  ['panel-softmax', SoftmaxLabPanel],
  ['panel-analogy', AnalogyPanel],
  ['panel-plane', Plane2DPanel],
];
const DEFAULT_TEXT = '小猫吃鱼，它很开心';
const $ = (id) => document.getElementById(id);

function readUrlState() {
  const p = new URLSearchParams(location.search);
  const int = (k) => (/^\d{1,3}$/.test(p.get(k) || '') ? Number(p.get(k)) : null);
  const text = p.get('text');
  return {
    lang: p.get('lang') === 'en' ? 'en' : 'zh',
    text: text && text.length <= 500 ? text : DEFAULT_TEXT,
    head: int('head') ?? 0,
    q: int('q'),
    scale: p.get('scale') !== '0',
    causal: p.get('causal') === '1',
  };
}

function makeTranslator(dicts, state) {
  return (key, params = {}) => {
    const s = dicts[state.lang][key] ?? dicts.en[key] ?? key;
    return s.replace(/\{(\w+)\}/g, (m, k) => (k in params && params[k] != null ? String(params[k]) : m));
  };
}

async function main() {
  const state = readUrlState();
  const status = $('demo-status');
  const [core, en, zh] = await Promise.all([
    loadCore(),
    fetch('locales/panels.en.json').then((r) => r.json()),
    fetch('locales/panels.zh.json').then((r) => r.json()),
  ]);
  const t = makeTranslator({ en, zh }, state);
  const hl = $('demo-highlight');
  const onHighlight = (names) => {
    hl.dataset.names = names.join(',');
    hl.textContent = names.length ? t('panel.demo.highlight', { names: names.join(', ') }) : t('panel.demo.highlight.none');
  };
  const panels = PANELS.map(([id, Panel]) => new Panel($(id), { core, t, onHighlight }));

  let result = null;
  const select = (node, options, value) => {
    while (node.firstChild) node.removeChild(node.firstChild);
    options.forEach((label, i) => {
      const o = document.createElement('option');
      o.value = String(i);
      o.textContent = label;
      node.append(o);
    });
    node.value = String(value);
  };

  function render() {
    document.documentElement.lang = state.lang === 'en' ? 'en' : 'zh-CN';
    document.title = t('panel.demo.title');
    $('demo-title').textContent = t('panel.demo.title');
    $('demo-intro').textContent = t('panel.demo.intro');
    for (const k of ['lang', 'focus', 'head', 'scale', 'causal']) $(`demo-${k}-label`).textContent = t(`panel.demo.${k}`);
    $('demo-text-label').textContent = t('panel.demo.sentence');
    $('demo-lang').value = state.lang;
    try {
      result = core.trace(state.text, { scale: state.scale, causal: state.causal });
      status.textContent = '';
      status.classList.remove('pn-error');
    } catch (e) {
      const known = e instanceof CoreError && e.code === 'empty_text';
      status.textContent = known ? t('panel.demo.error.empty_text') : t('panel.demo.error', { message: e instanceof CoreError ? e.message : String(e) });
      status.classList.add('pn-error');
      return;
    }
    const n = result.tokens.length;
    if (state.q == null) state.q = Math.max(0, result.tokens.findIndex((x) => x.text === '它' || x.text.toLowerCase() === 'it'));
    state.q = Math.min(Math.max(0, state.q), Math.max(0, n - 1));
    state.head = Math.min(Math.max(0, state.head), result.trace.heads - 1);
    select($('demo-focus'), result.tokens.map((x, i) => `${i + 1}: ${x.text}`), state.q);
    select($('demo-head'), Array.from({ length: result.trace.heads }, (_, i) => String(i + 1)), state.head);
    onHighlight(hl.dataset.names ? hl.dataset.names.split(',') : []);
    for (const p of panels) p.update({ result, state: { ...state } });
    document.body.dataset.ready = 'true';
  }

  $('demo-text').value = state.text;
  $('demo-scale').checked = state.scale;
  $('demo-causal').checked = state.causal;
  $('demo-lang').addEventListener('change', (e) => { state.lang = e.target.value === 'en' ? 'en' : 'zh'; render(); });
  $('demo-text').addEventListener('input', (e) => { state.text = e.target.value; state.q = null; render(); });
  $('demo-focus').addEventListener('change', (e) => { state.q = Number(e.target.value); render(); });
  $('demo-head').addEventListener('change', (e) => { state.head = Number(e.target.value); render(); });
  $('demo-scale').addEventListener('change', (e) => { state.scale = e.target.checked; render(); });
  $('demo-causal').addEventListener('change', (e) => { state.causal = e.target.checked; render(); });
  $('demo-controls').addEventListener('submit', (e) => e.preventDefault());
  render();
}

main().catch((e) => {
  const status = document.getElementById('demo-status');
  status.textContent = String(e && e.message ? e.message : e);
  status.classList.add('pn-error');
});
