// playground.js: the wiring of one playground. mountPlayground(root, options) finds its parts
// under `root` (the page's document, or a custom element's shadow root), reads the initial state,
// runs the core when the state changes, hands the trace to the views and reports what happened
// (data-* markers on `host`, options.onEvent). It draws nothing itself and computes no attention.
// Page boot is main.js; the custom element is embed/element.js; the iframe protocol embed/frame.js.
import { parse, serialize, clampValue, coreSettings, pickLang, defaults, STAGES, TABLE } from './state.js';
import { Player } from './player.js';
import { Walkthrough } from './views/walkthrough.js';
import { PlayerBar } from './views/playerbar.js';
import { SettingsView } from './views/settings.js';
import { InputView } from './views/input.js';
import { ArcView } from './views/arcs.js';
import { splitTokenText } from './views/tokens.js';
import { Shortcuts } from './views/shortcuts.js';
import { ShareView } from './views/share.js';
import { ExportView } from './views/export.js';
import { AnalogyPanel } from './views/panels/analogy.js';
import { FormulaPanel } from './views/panels/formula.js';
import { SoftmaxLabPanel } from './views/panels/softmax_lab.js';
import { Plane2DPanel } from './views/panels/plane2d.js';
import { ModelInfoView } from './views/model.js';
import { TrainView } from './views/train.js';
import { GradientView } from './views/gradient.js';
import { onSettle, refresh } from './views/later.js';

// Panels by the other engineer: constructor(container, {core, t, onHighlight}), update({result, state}).
const PANELS = [FormulaPanel, SoftmaxLabPanel, AnalogyPanel, Plane2DPanel];

// the token followed when the link does not say (q = -1): the pronoun the seed articles follow
const PRONOUNS = ['它', '他', '她', 'it'];

// which stage shows a matrix, for panels that ask to highlight one
const MATRIX_STAGE = { X: 1, W_Q: 2, W_K: 2, W_V: 2, Q: 2, K: 2, V: 2, scores: 3, scaled: 4, masked: 5, weights: 6, head_output: 7, concat: 8, W_O: 8, output: 8 };

// `hide` names -> the parts they hide (ids under the root)
const HIDE_PARTS = {
  header: ['top'], input: ['input'], settings: ['whatif'], controls: ['stage-nav-wrap', 'toolbar'],
  arcs: ['arcs'], panels: ['panels'], share: ['share'], export: ['export'], footer: ['foot'], train: ['train'],
};

class App {
  /** ctx: {root, host, options} (see mountPlayground) */
  constructor(core, translator, parsed, ctx) {
    this.core = core;
    this.root = ctx.root;
    this.host = ctx.host;
    this.options = ctx.options;
    this.translator = translator;
    const t = (key, params) => this.translator.t(key, params);
    this.t = t;
    this.state = parsed.state;
    this.urlNotices = parsed.notices;
    this.result = null;      // the last good trace
    this.messages = [];
    this.renders = 0;
    this.pendingRun = 0;
    const root = this.root;
    const $ = (id) => (root.getElementById ? root.getElementById(id) : root.querySelector(`#${CSS.escape(id)}`));
    this.$ = $;
    const actions = {
      setFocus: (i) => this.set({ q: i }),
      setHead: (h) => this.set({ head: h }),
      setSetting: (name, v) => this.setSetting(name, v),
      setMany: (changes) => this.setMany(changes),
      setText: (s, immediate) => this.setText(s, immediate),
      splitToken: (i) => this.result && this.setText(splitTokenText(this.state.s, this.result.tokens[i]), true),
      gotoStage: (i) => this.player.goto(i),
      scrubTo: (k) => this.player.scrub(k),
      announce: (text) => this.announce(text),
      moveFocus: (d) => this.result && this.set({ q: Math.min(this.result.trace.n - 1, Math.max(0, this.state.q + d)) }),
      cycleHead: () => this.result && this.set({ head: (this.state.head + 1) % this.result.trace.heads }),
      toggleLang: () => this.setLang(this.state.lang === 'zh' ? 'en' : 'zh'),
      focusText: () => $('text').focus(),
      hasCustomModel: () => this.hasCustom,
      useCustomModel: () => { this.hasCustom = true; this.setMany({ model: 'custom' }); },
    };
    this.actions = actions;
    const reduced = matchMedia('(prefers-reduced-motion: reduce)').matches;
    this.walk = new Walkthrough({ nav: $('stage-nav'), title: $('stage-title'), what: $('stage-what'), body: $('stage-body') },
      { core, t, actions, stages: STAGES });
    this.player = new Player({
      stages: STAGES.length, unitsOf: (s) => this.walk.units(s), reducedMotion: reduced,
      onChange: (snap, why) => this.onPlayer(snap, why),
    });
    this.bar = new PlayerBar($('player'), { t, player: this.player });
    this.settings = new SettingsView($('settings'), { t, actions });
    this.input = new InputView({ text: $('text'), presets: $('presets'), messages: $('messages'), count: $('token-count') }, { t, actions });
    this.arcs = new ArcView($('arcs'), { t, actions });
    this.shortcuts = new Shortcuts({ dialog: $('shortcuts'), open: $('open-shortcuts') }, { t, player: this.player, actions },
      this.options.keyTarget);
    this.share = new ShareView($('share-body'), { t, links: () => this.links() });
    this.exporter = new ExportView($('export-body'), { t, view: () => this.exportView() });
    $('lang').addEventListener('click', () => actions.toggleLang());
    $('head-picker').addEventListener('change', (e) => this.set({ head: +e.target.value }));
    // the model: what it is and what its heads learned; training it here; one example's gradient
    this.hasCustom = false;   // a model trained in this page was handed to the core
    const part = (id, View, extra = {}) => ($(id) ? new View($(id), { t, core, actions, ...extra }) : null);
    this.modelInfo = part('model-info', ModelInfoView, { lang: () => this.translator.lang });
    this.trainer = part('train-body', TrainView);
    this.gradient = part('gradient-body', GradientView);
    if (this.gradient) $('gradient').addEventListener('toggle', () => this.renderGradient());
    this.mountPanels();
    // matrices out of sight are refreshed when idle or scrolled to: "settled" = all show this trace
    this.unsettle = onSettle((done) => {
      if (this.settledShown === done) return;
      this.settledShown = done;
      this.host.dataset.settled = done ? '1' : '0';
    });
  }

  mountPanels() {
    const root = this.$('panels');
    root.replaceChildren();
    this.panels = PANELS.map((P) => {
      const box = document.createElement('div');
      box.className = 'panel';
      root.append(box);
      try {
        const panel = new P(box, { core: this.core, t: this.t, onHighlight: (spec) => this.highlight(spec) });
        // a panel out of sight is updated when it comes near the viewport or the page is idle
        return {
          el: box,
          update: (model) => { try { panel.update(model); } catch (e) { console.warn('panel update failed', e); } },
        };
      } catch (e) {
        console.warn('panel failed to start', e);
        return null;
      }
    }).filter(Boolean);
  }

  start() {
    const step = this.state.step;   // rendering reports the player's stage back into the state
    this.input.setText(this.state.s);
    this.player.stage = step - 1;
    this.run(true);
    this.player.goto(step - 1);
    this.applyHide();
    this.host.dataset.ready = '1';
    performance.mark('attention-playground:first-trace');
    this.emit('ready', { step: this.state.step, stage: STAGES[this.state.step - 1] });
  }

  // ---- state changes ----

  set(changes) {
    Object.assign(this.state, changes);
    if (this.result) this.clampToTrace(false);
    this.render();
  }

  setSetting(name, value) { this.setMany({ [name]: value }); }

  setMany(changes) {
    for (const [name, v] of Object.entries(changes)) this.state[name] = clampValue(name, v);
    this.run(false);
  }

  setText(s, immediate) {
    this.state.s = s;
    this.typing = !immediate;  // keystrokes write the URL once typing pauses (see writeUrl)
    if (!immediate) this.typedAt = performance.now();
    if (immediate) this.state.q = -1;
    if (immediate) this.input.setText(s);
    // coalesce fast typing into one run per frame
    cancelAnimationFrame(this.pendingRun);
    this.pendingRun = requestAnimationFrame(() => this.run(false));
  }

  async setLang(lang) {
    this.translator = await this.options.translatorFor(lang);
    this.state.lang = lang;
    this.applyStrings();
    this.walk.setTranslator(this.t);
    this.bar.build(this.t);
    this.settings = new SettingsView(this.$('settings'), { t: this.t, actions: this.actions });
    this.shortcuts.setTranslator(this.t);
    this.share.setTranslator(this.t);
    this.exporter.setTranslator(this.t);
    for (const v of [this.modelInfo, this.trainer, this.gradient]) v?.setTranslator(this.t);
    this.mountPanels();
    this.run(false);
  }

  applyStrings() {
    const lang = this.state.lang === 'zh' ? 'zh-CN' : 'en';
    this.translator.apply(this.root);
    if (this.options.url) {
      document.documentElement.lang = lang;
      document.title = this.translator.t('app.title');
    } else {
      this.$('ap').lang = lang;
    }
  }

  // ---- running the core ----

  run(initial) {
    const started = performance.now();
    const messages = [];
    if (initial) for (const n of this.urlNotices) messages.push({ kind: 'notice', text: this.translator.t(`notice.${n.problem}`, n) });
    try {
      const settings = coreSettings(this.state);
      let result;
      try {
        result = this.core.trace(this.state.s, settings);
      } catch (e) {
        // model=custom from a link: that model was trained in another visit and is gone
        if (e.code !== 'no_custom_model') throw e;
        this.state.model = settings.model = 'default';
        messages.push({ kind: 'notice', text: this.translator.t('model.customGone') });
        result = this.core.trace(this.state.s, settings);
      }
      this.result = result;
    } catch (e) {
      if (!e.code) throw e;
      messages.push({ kind: 'error', text: this.errorText(e) });
      if (!this.result) this.fallback(messages);
      else messages.push({ kind: 'notice', text: this.translator.t('notice.lastGood') });
    }
    this.clampToTrace(initial, messages);
    this.messages = messages;
    this.input.showMessages(messages);
    this.render();
    this.host.dataset.runMs = (performance.now() - started).toFixed(1);   // read by the speed test
  }

  // No good trace yet (a bad link): show the default sentence and settings instead of nothing.
  fallback(messages) {
    const d = defaults();
    const settings = coreSettings(d);
    this.result = this.core.trace(d.s, settings);
    messages.push({ kind: 'notice', text: this.translator.t('notice.fallback') });
  }

  errorText(e) {
    const key = `error.${e.code}`;
    return this.translator.has(key) ? this.translator.t(key, { ...e.details, max: this.state.max, message: e.message }) : e.message;
  }

  clampToTrace(fromUrl, messages = this.messages) {
    const tr = this.result.trace;
    if (this.state.q < 0) {
      const i = this.result.tokens.findIndex((x) => PRONOUNS.includes(x.text.toLowerCase()));
      this.state.q = Math.max(0, i);
    }
    if (this.state.q > tr.n - 1) {
      if (fromUrl) messages.push({ kind: 'notice', text: this.translator.t('notice.clamped', { key: 'q', raw: this.state.q, used: tr.n - 1, min: 0, max: tr.n - 1 }) });
      this.state.q = tr.n - 1;
    }
    if (this.state.head > tr.heads - 1) {
      if (fromUrl) messages.push({ kind: 'notice', text: this.translator.t('notice.clamped', { key: 'head', raw: this.state.head, used: tr.heads - 1, min: 0, max: tr.heads - 1 }) });
      this.state.head = tr.heads - 1;
    }
  }

  render() {
    const result = this.result;
    const view = { q: this.state.q, head: this.state.head };
    this.walk.setModel({ result, state: view });
    this.player.refresh();
    this.arcs.update({ result, state: view });
    this.settings.update(this.state, result);
    this.modelInfo?.update({ result, state: view });
    this.renderGradient();
    this.renderHeadPicker(result.trace.heads);
    this.input.showCount(this.translator.t('input.count', { n: result.tokens.length, max: result.settings.maxTokens }));
    this.schedulePanels();
    this.writeUrl();
    this.renders++;
    this.host.dataset.renders = String(this.renders);
    this.share.update();
  }

  // Panels sit below the walkthrough: they are updated after the walkthrough has painted, so
  // typing never waits for them, and while the learner types only once typing pauses (300 ms):
  // rebuilding them per keystroke made enough garbage for collector pauses inside keystrokes.
  schedulePanels() {
    clearTimeout(this.panelTimer);
    const typing = this.typedAt && performance.now() - this.typedAt < 300;
    this.panelTimer = setTimeout(() => {
      const result = this.result;
      for (const p of this.panels) refresh(p, { result, state: { ...this.state } });
    }, typing ? 300 : 30);
  }

  // the gradient is a second trace through the core: only while its section is open
  renderGradient() {
    if (!this.gradient || !this.result || !this.$('gradient').open) return;
    this.gradient.update({ result: this.result, state: { q: this.state.q, head: this.state.head }, text: this.state.s, settings: coreSettings(this.state) });
  }

  renderHeadPicker(heads) {
    const sel = this.$('head-picker');
    if (sel.options.length !== heads) {
      sel.replaceChildren(...Array.from({ length: heads }, (_, h) => {
        const o = document.createElement('option');
        o.value = String(h);
        o.textContent = String(h + 1);
        return o;
      }));
    }
    sel.value = String(this.state.head);
  }

  onPlayer(snap, why) {
    const started = performance.now();
    this.walk.show(snap);
    this.bar.update(snap);
    if (this.state.step !== snap.stage + 1) {
      this.state.step = snap.stage + 1;
      this.writeUrl();
      this.share.update();
      this.emit('stepchange', { step: this.state.step, stage: STAGES[snap.stage] });
    }
    const settled = why !== 'frame' || snap.k >= snap.units;
    if (settled && why !== 'speed' && why !== 'play') this.announce(this.walk.narrate(snap));
    this.host.dataset.stage = STAGES[snap.stage];
    this.host.dataset.k = String(snap.k);
    if (why === 'frame') this.host.dataset.frameMs = (performance.now() - started).toFixed(2);
  }

  announce(text) {
    const live = this.$('narration');
    if (text && live.textContent !== text) live.textContent = text;
  }

  // history.replaceState costs ~25 ms with a long sentence in the URL (measured in Chromium), so
  // while the learner types it waits for a 300 ms pause; every other change writes at once.
  writeUrl() {
    if (!this.options.url) return;
    clearTimeout(this.urlTimer);
    const write = () => {
      const search = `?${serialize(this.state)}`;
      if (location.search !== search) history.replaceState(null, '', search + location.hash);
    };
    if (this.typing) {
      this.typing = false;
      this.urlTimer = setTimeout(write, 300);
    } else {
      write();
    }
  }

  // Panels name matrices (['Q', 'K'] or {matrix, head, row, col}); their cells light up here.
  highlight(spec) {
    for (const e of this.root.querySelectorAll('.panel-hl')) e.classList.remove('panel-hl');
    const specs = Array.isArray(spec) ? spec.map((m) => ({ matrix: m })) : spec && spec.matrix ? [spec] : [];
    for (const one of specs) {
      let sel = `#walkthrough [data-matrix="${CSS.escape(String(one.matrix))}"]`;
      for (const k of ['head', 'row', 'col']) if (one[k] != null) sel += `[data-${k}="${CSS.escape(String(one[k]))}"]`;
      let found = this.root.querySelectorAll(sel);
      if (!found.length && !Array.isArray(spec) && one.matrix in MATRIX_STAGE) {
        this.player.goto(MATRIX_STAGE[one.matrix]);
        found = this.root.querySelectorAll(sel);
      }
      for (const e of found) e.classList.add('panel-hl');
    }
  }

  // ---- embedding: hidden parts, share links, export, outside commands ----

  applyHide() {
    const hidden = new Set(String(this.state.hide || '').split(',').filter(Boolean));
    for (const [name, ids] of Object.entries(HIDE_PARTS)) {
      for (const id of ids) {
        const node = this.$(id);
        if (node) node.hidden = hidden.has(name);
      }
    }
  }

  /** The current state as a link, an iframe snippet and an element snippet. */
  links() {
    const { pageUrl, embedScriptUrl } = this.options;
    const state = { ...this.state, parent: '' };
    const link = `${pageUrl}?${serialize(state)}`;
    const attrs = TABLE.filter((e) => e.name !== 'parent' && state[e.name] !== '' && state[e.name] != null &&
      String(state[e.name]) !== String(e.def))
      .map((e) => `${e.name === 's' ? 'sentence' : e.name}="${escapeAttr(e.type === 'bool' ? (state[e.name] ? '1' : '0') : String(state[e.name]))}"`);
    const title = escapeAttr(this.t('app.title'));
    return {
      link,
      iframe: `<iframe src="${escapeAttr(link)}" title="${title}" width="100%" height="720" loading="lazy" style="border:0"></iframe>`,
      element: `<script src="${escapeAttr(embedScriptUrl)}" defer></script>\n<attention-playground ${attrs.join(' ')}></attention-playground>`,
    };
  }

  /** What the export view needs: the trace, the shown head and stage, and labels. */
  exportView() {
    return { result: this.result, state: { ...this.state }, stage: STAGES[this.state.step - 1], t: this.t };
  }

  emit(type, detail) {
    if (this.options.onEvent) this.options.onEvent(type, detail);
  }

  /** From outside (iframe parent, element attributes): a new sentence. */
  setSentence(s) {
    if (typeof s !== 'string') return;
    this.setText(s, true);  // the core refuses what is too long, with a message
  }

  /** From outside: go to step (1-based). */
  goToStep(step) {
    const { state, notices } = parse(`step=${encodeURIComponent(String(step))}`);
    if (!notices.some((n) => n.problem === 'malformed')) this.player.goto(state.step - 1);
  }

  /** From outside: several URL keys at once ({seed, heads, step, hide, lang, sentence|s, ...}).
   *  Values go through the state table's parsers, so bad ones are ignored or clamped. */
  setOptions(options) {
    if (!options || typeof options !== 'object') return;
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(options)) {
      if (v == null) continue;
      params.set(k === 'sentence' ? 's' : k, typeof v === 'boolean' ? (v ? '1' : '0') : String(v));
    }
    const { state, notices } = parse(params.toString());
    const bad = new Set(notices.filter((n) => n.problem !== 'clamped').map((n) => n.key));
    const given = TABLE.filter((e) => params.has(e.name) && !bad.has(e.name)).map((e) => e.name);
    const changes = Object.fromEntries(given.filter((k) => !['step', 'lang', 'parent'].includes(k)).map((k) => [k, state[k]]));
    if ('s' in changes) { this.input.setText(changes.s); this.state.q = -1; }
    Object.assign(this.state, changes);
    if ('hide' in changes) this.applyHide();
    this.run(false);
    if (given.includes('step')) this.goToStep(state.step);
    if (given.includes('lang') && state.lang && state.lang !== this.state.lang) this.setLang(state.lang);
  }

  destroy() {
    this.unsettle();
    clearTimeout(this.panelTimer);
    cancelAnimationFrame(this.pendingRun);
    this.player.pause?.();
    this.shortcuts.destroy?.();
    this.trainer?.destroy();
  }
}

function escapeAttr(s) {
  return String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Mounts one playground on markup that is already under `root` (index.html's, or the same
 * markup in a shadow root) and starts it.
 * options: {
 *   core: Core (shared by every instance), translatorFor(lang) -> Promise<Translator>,
 *   host: element for data-* markers (document.body, or the custom element),
 *   search: the initial state as a URL search string, languages: browser languages,
 *   url: write the state into location (the page only), keyTarget: where shortcuts listen,
 *   pageUrl, embedScriptUrl: for the share snippets, onEvent(type, detail): ready, stepchange }
 * Returns the App (setSentence, goToStep, setOptions, destroy).
 */
export async function mountPlayground(root, options) {
  const parsed = parse(options.search || '');
  parsed.state.lang = pickLang(parsed.state, options.languages || []);
  const translator = await options.translatorFor(parsed.state.lang);
  const app = new App(options.core, translator, parsed, { root, host: options.host, options });
  app.applyStrings();
  app.start();
  return app;
}
