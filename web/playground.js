// playground.js: the wiring of one playground. mountPlayground(root, options) finds its parts
// under `root` (the page's document, or a custom element's shadow root), reads the initial state,
// runs the core when the state changes, hands the trace to the views and reports what happened
// (data-* markers on `host`, options.onEvent). It draws nothing itself and computes no attention.
// Page boot is main.js; the custom element is embed/element.js; the iframe protocol embed/frame.js.
import { Core, layerView, isRealTrace, VERSION, LIMITS } from './core.js';
import {
  parse,
  serialize,
  linkSearch,
  clampValue,
  coreSettings,
  pickLang,
  defaults,
  defaultFocus,
  STAGES,
  HIDE_PARTS,
  numpyPreset,
} from './state.js';
import { readOptions, readStep, linkBase } from './outside-api.js';
import { RealModelHost } from './real-host.js';
import { Player } from './player.js';
import { Walkthrough } from './views/walkthrough.js';
import { PlayerBar } from './views/player-bar.js';
import { SettingsView } from './views/settings.js';
import { InputView } from './views/input.js';
import { ArcView } from './views/arcs.js';
import { splitTokenText } from './views/tokens.js';
import { Shortcuts } from './views/shortcuts.js';
import { ShareView, shareLinks } from './views/share.js';
import { FormulaPanel } from './views/panels/formula.js';
import { ModelInfoView } from './views/model.js';
import { TrainView } from './views/train.js';
import { GradientView } from './views/gradient.js';
import { LimitsView, LimitsNote } from './views/limits.js';
import { Later, inputPending } from './views/later.js';
import { panelFailed } from './views/dom.js';
import { predictionKey } from './views/predict.js';
import { veil } from './views/veil.js';
import { withMark } from './views/taught.js';
import { ProgramView } from './views/program.js';
import { highlightCells } from './views/highlight.js';
import { renderLayerPicker, renderHeadPicker } from './views/pickers.js';

// The teaching panels under the walkthrough (views/panels/):
//   constructor(container, {core, t, onHighlight}), update({result, state}).
// The library analogy, the 2-D plane and the softmax lab live inside the stages that use them
// (stage-extras.js), not here.
const PANELS = [FormulaPanel];

// a frame at 60 Hz; a typed run that takes longer to draw waits for a pause in the keys at least
// this long (App.scheduleTypedRun)
const FRAME_MS = 16;
const MIN_PAUSE_MS = 120;

// while the learner types, the panels below the walkthrough and the URL wait for the keys to pause
// this long (App.schedulePanels, App.writeUrl)
const TYPING_PAUSE_MS = 300;

// the player's moves that bring the stage into view (not typing's 'refresh', nor 'speed')
const FOLLOW = new Set(['stage', 'step', 'scrub', 'frame', 'play']);

/** @typedef {import('./i18n.js').Translator} Translator */
/** @typedef {import('./state.js').Notice} Notice */
/** @typedef {import('./views/view-types.d.ts').Actions} Actions */
/** @typedef {import('./player.js').Snapshot} Snapshot */
/** @typedef {import('./views/view-types.d.ts').Translate} Translate */
/** @typedef {import('./views/view-types.d.ts').StageModel} StageModel */
/** @typedef {import('./views/view-types.d.ts').ShownTrace} ShownTrace */
/** The state of the URL table's keys (state.js parse), with the ones the wiring reads.
 *  @typedef {Record<string, any> & {s: string, q: number, head: number, layer: number,
 *             step: number}} PageState */
/** A <details> of the shell's markup. */
const details = (/** @type {HTMLElement} */ el) => /** @type {HTMLDetailsElement} */ (el);
/** A line under the text box (input.js showMessages); action: a button after the text.
 *  @typedef {{kind: string, text: string, action?: {label: string, run: () => void}}} Message */
/** What the shown trace was computed from; guesses and layers: traced apart when asked for.
 *  @typedef {{text: string, settings: Record<string, unknown>,
 *             detail?: {layer?: number, layers?: boolean, guesses?: boolean},
 *             guesses?: unknown, layers?: unknown}} RunFrom */
/** @typedef {import('./real-host.js').LoadHow} LoadHow */

/**
 * What mountPlayground takes (its comment says each field).
 * @typedef {object} MountOptions
 * @property {AttentionModule} module
 * @property {(lang: string) => Promise<Translator>} translatorFor
 * @property {Translator} [translator]
 * @property {HTMLElement} host
 * @property {string} [search]
 * @property {readonly string[]} [languages]
 * @property {boolean} [url]
 * @property {Document | ShadowRoot} [keyTarget]
 * @property {string} [pageUrl]
 * @property {string} [embedScriptUrl]
 * @property {Notice[]} [notices]
 * @property {(type: string, detail: Record<string, unknown>) => void} [onEvent]
 * @property {{base?: string, corpus?: string, workerSource?: () => string}} [training]
 * @property {{moduleUrl?: string, cache?: {module?: Promise<AttentionRealModule> | null}} | null} [realModels]
 * @property {boolean} [modelSrcAuto]
 */

class App {
  /** ctx: {root, host, options} (see mountPlayground)
   *  @param {Core} core @param {Translator} translator
   *  @param {{state: Record<string, any>, notices: Notice[]}} parsed
   *  @param {{root: Document | ShadowRoot, host: HTMLElement, options: MountOptions}} ctx */
  constructor(core, translator, parsed, ctx) {
    this.core = core;
    this.root = ctx.root;
    this.host = ctx.host;
    this.options = ctx.options;
    this.translator = translator;
    // every language asked for so far, as its Translator or the promise of it: going back to one
    // fetches nothing (the hosted page fetches each language's strings, strings.js), and works
    // offline
    /** @type {Map<string, Translator | Promise<Translator>>} */
    this.translators = new Map([[translator.lang, translator]]);
    /** @type {import('./views/view-types.d.ts').Translate} */
    const t = (key, params) => this.translator.t(key, params);
    this.t = t;
    /** @type {PageState} */
    this.state = /** @type {PageState} */ (parsed.state); // parse gives every key of the table
    // whether the followed token was chosen (by the learner, or by the link's q); if not, a new
    // text follows its pronoun (clampToTrace)
    this.pickedQ = this.state.q >= 0;
    this.urlNotices = parsed.notices;
    this.result = null; // the last good trace
    /** @type {RunFrom | null} */
    this.resultFrom = null; // {text, settings} the shown trace was computed from
    /** @type {Message[]} */
    this.messages = [];
    this.renders = 0;
    this.pendingRun = 0; // a requestAnimationFrame handle (runs coming from setText), 0 when none
    /** @type {any} the timer of a typed run after its keystroke's frame, 0 when none */
    this.typedRun = 0;
    this.stageMs = 0; // how long the last run took to reach the screen (run, scheduleTypedRun)
    /** @type {boolean | undefined} whether the host says data-settled=1 (markSettled) */
    this.settledShown = undefined;
    /** @type {boolean | undefined} whether the model summary was last refreshed veiled */
    this.modelInfoVeiled = undefined;
    const root = this.root;
    // the element of the shell's markup (index.html) with this id; the parts a shell may lack are
    // looked up first (`$(id) ? ... : null`)
    const $ = (/** @type {string} */ id) =>
      /** @type {HTMLElement} */ (
        root.getElementById ? root.getElementById(id) : root.querySelector(`#${CSS.escape(id)}`)
      );
    this.$ = $;
    /** @type {Actions & {loadRealFrom?: (address: string, how: LoadHow) => Promise<void>}} */
    const actions = {
      setFocus: (i) => {
        this.pickedQ = true;
        this.set({ q: i });
      },
      setHead: (h) => this.set({ head: h }),
      setSetting: (name, v) => this.setSetting(name, v),
      setMany: (changes) => this.setMany(changes),
      setText: (s, immediate) => this.setText(s, immediate),
      splitToken: (i) =>
        this.result &&
        this.setText(splitTokenText(this.state.s, this.result.token_details[i]), true),
      gotoStage: (i) => this.player.goto(i),
      // a stage of another layer (layer: 0-based; the last is written -1, clampToTrace)
      gotoLayerStage: (layer, i) => {
        this.setLayer(layer);
        this.player.goto(i);
      },
      scrubTo: (k) => this.player.scrub(k),
      announce: (text) => this.announce(this.walk.named(text, this.player.stage)),
      moveFocus: (d) =>
        this.result &&
        (this.pickedQ = true) &&
        this.set({ q: Math.min(this.result.config.n - 1, Math.max(0, this.state.q + d)) }),
      cycleHead: () =>
        this.result && this.set({ head: (this.state.head + 1) % this.result.config.heads }),
      toggleLang: () => this.setLang(this.state.lang === 'zh' ? 'en' : 'zh'),
      focusText: () => $('text').focus(),
      hasCustomModel: () => this.core.hasCustomModel(),
      useCustomModel: () => this.setMany({ model: 'custom' }),
      hasRealModel: () => !!this.core.realModel(),
      realInfo: () => this.core.realModel(),
      // a real model (GPT-2, BERT): its files are read by a second module, fetched with the first
      // one loaded (real-model.js); absent where no such module sits beside the page
      loadReal: this.options.realModels
        ? (files, how) =>
            this.real.load(/** @type {ArrayLike<File>} */ (files), /** @type {LoadHow} */ (how))
        : undefined,
      unloadReal: () => this.real.unload(),
      // a converted model at an http(s) address (model-src)
      loadRealFrom: this.options.realModels
        ? (address, how) => this.real.loadFrom(address, how)
        : undefined,
      // the words that name a real model's head where the stages name one (real-heads.js; '' for
      // the other models, and before a real model's views have loaded)
      realName: (result, head, stage) => this.real.name(result, head, stage),
      realWords: (kind, vars) => this.real.words(kind, vars),
      // a real model's head from its grid: the layer is traced again in full
      openHead: (layer, head) => this.setMany({ layer, head }),
      errorText: (e) => this.errorText(e),
      // predict, then reveal: play stops at the question until the learner guesses or skips, then
      // goes on from where it stopped (after the frame that asked has finished drawing, so the
      // bar shows the paused state)
      waitForGuess: () =>
        queueMicrotask(() => {
          if (!this.player.playing) return;
          this.player.pause();
          this.resumeAfterGuess = true;
        }),
      guessMade: () => {
        this.player.refresh();
        if (this.side.modelInfo) this.later.refresh(this.side.modelInfo, this.modelInfoArgs());
        if (this.resumeAfterGuess && !this.walk.ctx.asking()) {
          this.resumeAfterGuess = false;
          this.player.play();
        }
      },
      rerender: () => {
        this.walk.stale = true;
        this.walk.drawn = -1;
        this.player.refresh();
      },
      predictOn: () => this.predictOn(),
    };
    this.actions = actions;
    const reduced = matchMedia('(prefers-reduced-motion: reduce)').matches;
    this.later = new Later(); // views out of sight, refreshed when idle or scrolled to
    /** @type {Walkthrough} */
    this.walk = new Walkthrough(
      {
        nav: $('stage-nav'),
        title: $('stage-title'),
        what: $('stage-what'),
        body: $('stage-body'),
      },
      {
        core,
        t,
        actions,
        stages: STAGES,
        later: this.later,
        // views whose code is fetched on demand wait for the strings fetched with them (i18n.js)
        wholeStrings: () => this.translator.whole(),
        // guesses per sentence and followed token (predict.js); asking is off in embeds unless the
        // link or the element says predict=1
        predictions: new Map(),
        predictOn: () => this.predictOn(),
        // whether the followed row's weights wait for the learner's guess (predict.js)
        asking: () =>
          !!this.result &&
          this.predictOn() &&
          !this.walk.ctx.predictions.has(predictionKey(this.result.tokens, this.state.q)),
        sentence: () => this.resultFrom?.text,
        layers: () => this.allLayers(),
      },
    );
    this.player = new Player({
      stages: STAGES.length,
      unitsOf: (s) => this.walk.units(s),
      holdOf: (s, k) => this.walk.holdOf(s, k),
      reducedMotion: reduced,
      onChange: (snap, why) => this.onPlayer(snap, why),
    });
    this.bar = new PlayerBar($('player'), { t, player: this.player });
    this.settings = new SettingsView($('settings'), { t, actions, core });
    this.input = new InputView(
      {
        text: /** @type {HTMLTextAreaElement} */ ($('text')),
        presets: $('presets'),
        messages: $('messages'),
        count: $('token-count'),
      },
      { t, actions },
    );
    this.arcs = new ArcView($('arcs'), { t, actions });
    this.shortcuts = new Shortcuts(
      { dialog: /** @type {HTMLDialogElement} */ ($('shortcuts')), open: $('open-shortcuts') },
      { t, player: this.player, actions },
      this.options.keyTarget,
    );
    this.share = new ShareView($('share-body'), { t, links: () => this.links() });
    // the export panel sits in a closed <details>: its code comes with its first opening
    this.exporter = null;
    this.exporterLoading = null;
    $('export').addEventListener('toggle', () => {
      if (!details($('export')).open || this.exporterLoading) return;
      this.exporterLoading = this.later.wait(
        Promise.all([import('./views/export.js'), this.translator.whole()]).then(
          ([{ ExportView }]) => {
            this.exporter = new ExportView($('export-body'), {
              t: this.t,
              view: () => this.exportView(),
              core: this.core,
            });
          },
          (e) => {
            this.exporterLoading = null; // opened again, it tries again
            panelFailed($('export-body'), e, this.t);
          },
        ),
      );
    });
    $('lang').addEventListener('click', () => actions.toggleLang());
    // the pickers are <select>s: a change's target is the one changed
    const picked = (/** @type {Event} */ e) => +(/** @type {HTMLSelectElement} */ (e.target).value);
    $('head-picker').addEventListener('change', (e) => this.set({ head: picked(e) }));
    $('layer-picker').addEventListener('change', (e) => this.setLayer(picked(e)));
    // the model: what it is and what its heads learned; training it here; one example's gradient
    // (each part only where the shell has its box)
    const common = { t, core, actions };
    this.modelInfo = $('model-info')
      ? new ModelInfoView($('model-info'), { ...common, lang: () => this.translator.lang })
      : null;
    this.trainer = $('train-body')
      ? new TrainView($('train-body'), { ...common, training: this.options.training || {} })
      : null;
    // a real model's parts: their code comes when What if…? first opens, and with the first
    // model loaded (the hosted page fetches it then; the first trace does not wait for it)
    this.real = new RealModelHost(
      this,
      parsed.state.model === 'real' ? { layer: parsed.state.layer, head: parsed.state.head } : null,
    );
    this.gradient = $('gradient-body')
      ? new GradientView($('gradient-body'), {
          ...common,
          errorText: (/** @type {unknown} */ e) => this.errorText(e),
        })
      : null;
    // what the model cannot be trusted with: next to the narration, and the model's note
    this.limits = $('limits') ? new LimitsView($('limits'), common) : null;
    this.limitsNote = $('model-limits-body')
      ? new LimitsNote($('model-limits-body'), { ...common, lang: () => this.translator.lang })
      : null;
    if (this.limitsNote)
      $('model-limits').addEventListener('toggle', () => this.renderLimitsNote());
    if (this.gradient) $('gradient').addEventListener('toggle', () => this.renderGradient());
    // the seed article's NumPy program beside the stages (model=numpy), and its preset
    this.program = $('program') ? new ProgramView($('program'), common) : null;
    $('preset-numpy')?.addEventListener('click', () => this.useNumpyPreset());
    /** @type {{el: HTMLElement, update: (model: StageModel) => void}[]} */
    this.panels = [];
    this.mountPanels();
    // parts that are usually out of sight (below the stage, or in a closed <details>): a new trace
    // reaches them through `later`, at once when they are on screen, else when idle or scrolled to
    const modelInfo = this.modelInfo;
    this.side = {
      settings: {
        el: $('settings'),
        update: (/** @type {PageState} */ s, /** @type {ShownTrace} */ r) =>
          this.settings.update(s, r),
      },
      modelInfo: modelInfo && {
        el: $('model-info'),
        update: (/** @type {StageModel} */ m) =>
          modelInfo.update({
            ...m,
            guesses: this.guesses(),
            veiled: this.veiledAt(this.player.stage),
          }),
      },
      share: { el: $('share-body'), update: () => this.share.update() },
    };
    // matrices out of sight are refreshed when typing pauses or scrolled to, the panels after a
    // timer (schedulePanels): "settled" = all show this trace
    this.unsettle = this.later.onSettle(() => this.markSettled());
  }

  markSettled() {
    const done = this.later.settled() && !this.panelTimer && !this.pendingRun && !this.typedRun;
    if (this.settledShown === done) return;
    this.settledShown = done;
    this.host.dataset.settled = done ? '1' : '0';
  }

  // predict, then reveal: the link's or element's predict key, else on in the page, off in embeds
  predictOn() {
    return this.state.predict ?? !(this.options.url === false || window.parent !== window);
  }

  mountPanels() {
    const root = this.$('panels');
    root.replaceChildren();
    this.panels = PANELS.map((P) => {
      const box = document.createElement('div');
      box.className = 'panel';
      root.append(box);
      try {
        const panel = new P(box, {
          core: this.core,
          t: this.t,
          onHighlight: (spec) => this.highlight(spec),
        });
        // a panel out of sight is updated when it comes near the viewport or the page is idle
        return {
          el: box,
          update: (/** @type {StageModel} */ model) => {
            try {
              panel.update(model);
            } catch (e) {
              panelFailed(box, e, this.t);
            }
          },
        };
      } catch (e) {
        panelFailed(box, e, this.t);
        return null;
      }
    }).filter((p) => p !== null);
  }

  start() {
    const step = this.state.step; // rendering reports the player's stage back into the state
    this.input.setText(this.state.s);
    this.player.stage = step - 1;
    const refused = this.real.refuseModelSrc();
    if (refused) this.urlNotices.push(refused);
    this.run(true);
    this.player.goto(step - 1);
    this.revealing = true; // from now on the player's moves are the learner's: they bring the stage into view
    this.applyHide();
    this.applyTheme();
    this.host.dataset.ready = '1';
    performance.mark('attention-playground:first-trace');
    this.emit('ready', {
      step: this.state.step,
      stage: STAGES[this.state.step - 1],
      appVersion: VERSION, // the project's; `version` in the iframe protocol is the protocol's
    });
    this.changedAs = this.stateKey(); // from now on every change of the state is an event
    this.real.followModelSrc();
  }

  // ---- state changes ----

  /** @param {Record<string, unknown>} changes */
  set(changes) {
    Object.assign(this.state, changes);
    if (this.result) this.clampToTrace(false);
    this.render();
  }

  // A real model's trace holds one layer in full: another layer is traced again. A trained
  // model's trace holds every layer's matrices, so its layers are views of one trace.
  /** @param {number} layer */
  setLayer(layer) {
    if (isRealTrace(this.result)) this.setMany({ layer });
    else this.set({ layer });
  }

  /** @param {string} name @param {unknown} value */
  setSetting(name, value) {
    this.setMany({ [name]: value });
  }

  /** @param {Record<string, unknown>} changes */
  setMany(changes) {
    for (const [name, v] of Object.entries(changes)) this.state[name] = clampValue(name, v);
    this.run(false);
  }

  /** @param {string} s @param {boolean} [immediate] */
  setText(s, immediate) {
    this.state.s = s;
    this.typing = !immediate; // keystrokes write the URL once typing pauses (see writeUrl)
    if (!immediate) {
      this.typedAt = performance.now();
      this.later.typing(); // views out of sight wait until the keys pause
    }
    if (immediate) this.pickedQ = false;
    if (!this.pickedQ) this.state.q = -1;
    if (immediate) this.input.setText(s);
    this.cancelRun();
    if (immediate) this.pendingRun = requestAnimationFrame(() => this.run(false));
    else this.scheduleTypedRun();
    this.markSettled();
  }

  // A keystroke's own frame paints the sentence box alone: the new trace and the stage follow in
  // a task after that frame, so the key shows at once whatever the stage costs. A stage that takes
  // longer than a frame to draw (long sentences, slow devices) waits until the keys pause for
  // twice its drawing time, so that the next key rarely lands while it is drawn; each key restarts
  // the wait (keys coalesce into one run).
  scheduleTypedRun() {
    const wait = this.stageMs > FRAME_MS ? Math.max(MIN_PAUSE_MS, 2 * this.stageMs) : 0;
    this.pendingRun = requestAnimationFrame(() => {
      this.pendingRun = 0;
      this.typedRun = setTimeout(() => {
        this.typedRun = 0;
        // a key already waiting brings its own run: this one would only delay it
        if (inputPending()) this.scheduleTypedRun();
        else this.run(false);
        this.markSettled();
      }, wait);
    });
  }

  cancelRun() {
    cancelAnimationFrame(this.pendingRun);
    clearTimeout(this.typedRun);
    this.pendingRun = 0;
    this.typedRun = 0;
  }

  /** @param {string} lang */
  async setLang(lang) {
    // the last language asked for wins; each language's strings are fetched once, however often
    // it is asked for (a fetch still under way is shared)
    this.langWanted = lang;
    let pending = this.translators.get(lang);
    if (!pending) {
      pending = this.options.translatorFor(lang);
      this.translators.set(lang, pending);
    }
    let translator;
    try {
      translator = await pending;
      // the views fetched on demand are drawn again in the new language: its strings come whole
      if (this.translator.wholeAsked()) await translator.whole();
    } catch {
      this.translators.delete(lang); // asked again later (back online), it is fetched again
      if (this.langWanted !== lang) return;
      // the hosted page fetches a language's strings when it is first shown (strings.js);
      // offline it cannot
      this.input.showMessages([
        ...(this.messages ?? []),
        { kind: 'notice', text: this.translator.t('notice.langUnavailable') },
      ]);
      return;
    }
    if (this.langWanted !== lang || this.translator === translator) return;
    this.translator = translator;
    // a new function for the new language: views that keep what they drew in one language
    // compare their t with the one they are given, and draw again when it differs
    /** @type {Translate} */
    const t = (key, params) => this.translator.t(key, params);
    this.t = t;
    this.state.lang = lang;
    this.applyStrings();
    this.walk.setTranslator(this.t);
    this.bar.build(this.t);
    this.settings = new SettingsView(this.$('settings'), {
      t: this.t,
      actions: this.actions,
      core: this.core,
    });
    this.shortcuts.setTranslator(this.t);
    this.share.setTranslator(this.t);
    this.exporter?.setTranslator(this.t);
    for (const v of [
      this.modelInfo,
      this.trainer,
      this.gradient,
      this.limits,
      this.limitsNote,
      this.program,
      ...this.real.translated(),
    ])
      v?.setTranslator(this.t);
    this.mountPanels();
    this.run(false);
  }

  applyStrings() {
    const lang = this.state.lang === 'zh' ? 'zh-CN' : 'en';
    this.translator.apply(this.root);
    this.applyAbout();
    if (this.options.url) {
      document.documentElement.lang = lang;
      document.title = this.translator.t('app.title');
    } else {
      this.$('ap').lang = lang;
    }
  }

  // The footer's version and licence links: the files sit next to the page (scripts/bundle.mjs),
  // so they resolve against the page's address, also from a custom element on another site.
  applyAbout() {
    const version = this.$('app-version');
    if (version) version.textContent = this.t('app.version', { version: VERSION });
    const base = this.options.pageUrl;
    const licence = this.$('licence-link');
    if (licence)
      /** @type {HTMLAnchorElement} */ (licence).href = new URL('LICENSE.txt', base).href;
    const notices = this.$('notices-link');
    if (notices)
      /** @type {HTMLAnchorElement} */ (notices).href = new URL(
        'THIRD_PARTY_NOTICES.txt',
        base,
      ).href;
  }

  // ---- running the core ----

  /** @param {boolean} initial */
  run(initial) {
    const started = performance.now();
    this.cancelRun(); // this run reads the state as it is now: a run still waiting has nothing left
    const messages = [];
    if (initial)
      for (const n of this.urlNotices)
        messages.push({ kind: 'notice', text: this.translator.t(`notice.${n.problem}`, n) });
    try {
      const settings = coreSettings(this.state);
      // every layer's matrices only while a layer other than the last is shown: they are most of
      // a trained model's trace, and typing makes one trace per key; the model's guesses (an n x
      // vocabulary softmax) are traced apart when the model summary is drawn (guesses())
      // (a real model's trace: the shown layer in full, and every layer's weights for the grid)
      const real = settings.model === 'real';
      const detail = real
        ? { layer: this.state.layer, layers: true }
        : { layers: this.state.layer !== -1, guesses: false };
      let result;
      try {
        result = this.core.trace(this.state.s, settings, detail);
      } catch (/** @type {any} */ e) {
        // model=custom or real from a link: that model was trained or loaded in another visit
        if (e.code !== 'no_custom_model' && e.code !== 'no_real_model') throw e;
        this.state.model = settings.model = 'default';
        this.state.layer = -1;
        const gone = e.code === 'no_real_model' ? 'model.realGone' : 'model.customGone';
        // a link with a model-src: its box says where the model comes from
        if (!(e.code === 'no_real_model' && this.state['model-src']))
          messages.push({ kind: 'notice', text: this.translator.t(gone) });
        result = this.core.trace(this.state.s, settings, { layers: false, guesses: false });
      }
      this.result = result;
      this.resultFrom = { text: this.state.s, settings, detail }; // what the shown trace came from
      this.overCount = null;
    } catch (/** @type {any} */ e) {
      if (!e.code) throw e;
      // too many tokens: the counter says how many were typed, not the last trace's count
      this.overCount = e.code === 'too_many_tokens' ? this.typedTokens() : null;
      messages.push({ kind: 'error', text: this.errorText(e) });
      this.emit('error', { code: e.code, message: this.errorText(e) });
      if (!this.result) this.fallback(messages);
      else messages.push({ kind: 'notice', text: this.translator.t('notice.lastGood') });
    }
    this.clampToTrace(initial, messages);
    this.messages = messages;
    this.input.showMessages(messages);
    this.render();
    const ran = performance.now() - started;
    this.host.dataset.runMs = ran.toFixed(1); // read by the speed test
    // how long this trace took to reach the screen: the run, then the style, layout and paint of
    // the frame that shows it (what the next typed run expects to cost, scheduleTypedRun)
    requestAnimationFrame((frameStart) =>
      setTimeout(() => {
        this.stageMs = ran + performance.now() - Math.max(frameStart, started + ran);
      }, 0),
    );
  }

  /** How many tokens the typed text has, when it has more than the cap: {n, more} (more: above
   *  the largest cap the core takes, so n is that cap). */
  typedTokens() {
    try {
      return { n: this.core.tokenize(this.state.s, LIMITS.max_tokens).tokens.length, more: false };
    } catch {
      return { n: LIMITS.max_tokens, more: true };
    }
  }

  /** The word the model reads at each token of the shown trace ([{word, probability}], or
   *  undefined with random weights): the typing trace leaves them out, so they are traced once
   *  per shown trace, when the model summary is drawn (out of sight: when idle). */
  guesses() {
    const r = this.result;
    const from = this.resultFrom;
    if (!r || !from || !r.model || r.guesses || isRealTrace(r)) return r?.guesses;
    if (!from.guesses)
      from.guesses = this.core.trace(from.text, from.settings, { layers: false }).guesses;
    return from.guesses;
  }

  /** Every layer's matrices of the shown trace (the typing trace of the last layer leaves them
   *  out): traced once per shown trace, when a view asks. undefined with random weights. */
  allLayers() {
    const r = this.result;
    const from = this.resultFrom;
    if (!r || !from || !r.model || r.layers) return r?.layers;
    if (!from.layers)
      from.layers = this.core.trace(from.text, from.settings, { guesses: false }).layers;
    return from.layers;
  }

  // No good trace yet (a bad link): show the default sentence and settings instead of nothing.
  /** @param {Message[]} messages */
  fallback(messages) {
    const d = defaults();
    const settings = coreSettings(d);
    const text = String(d.s); // the table's default sentence
    this.result = this.core.trace(text, settings);
    this.resultFrom = { text, settings };
    messages.push({ kind: 'notice', text: this.translator.t('notice.fallback') });
  }

  /** @param {any} e a thrown value: a CoreError's code, details and message when it has them */
  errorText(e) {
    const key = `error.${e.code}`;
    return this.translator.has(key)
      ? this.translator.t(key, {
          max: this.state.max,
          ...this.translator.numbers(e.details),
          message: e.message,
        })
      : e.message;
  }

  /** @param {boolean} fromUrl @param {Message[]} [messages] */
  clampToTrace(fromUrl, messages = this.messages) {
    const tr = this.result;
    if (this.state.q < 0) {
      this.state.q = defaultFocus(this.result.token_details);
    }
    // a value past the trace's last becomes `used` (the last, or what stands for it), with a
    // notice when the value came from the URL
    const clamp = (/** @type {string} */ key, /** @type {number} */ last, used = last) => {
      if (!(this.state[key] > last)) return;
      if (fromUrl)
        messages.push({
          kind: 'notice',
          text: this.translator.t('notice.clamped', {
            key,
            raw: this.state[key],
            used: last,
            min: 0,
            max: last,
          }),
        });
      this.state[key] = used;
    };
    clamp('q', tr.config.n - 1);
    clamp('head', tr.config.heads - 1);
    // layer: 0-based; the last layer is written -1, so a link keeps meaning "the last" across models
    const layers = tr.model ? tr.model.layers : 1;
    clamp('layer', layers - 1, -1);
    if (this.state.layer === layers - 1) this.state.layer = -1;
  }

  // the trace as the stages show it: the chosen layer's matrices (one object per trace and layer,
  // so views that compare what they were given see no change when nothing changed)
  shownTrace() {
    const r = this.result;
    let cache = this.shownCache;
    if (!cache || cache.from !== r || cache.layer !== this.state.layer)
      cache = this.shownCache = {
        from: r,
        layer: this.state.layer,
        trace: layerView(r, this.state.layer),
      };
    return cache.trace;
  }

  render() {
    const result = this.shownTrace();
    const view = { q: this.state.q, head: this.state.head };
    this.walk.setModel({ result, state: view });
    this.player.refresh();
    this.arcs.update({ result, state: view });
    this.veilAsked(this.player.stage);
    this.later.refresh(this.side.settings, this.state, result);
    if (this.side.modelInfo) this.later.refresh(this.side.modelInfo, { result, state: view });
    this.program?.update({ result }); // beside the stage: always in sight
    this.real.update({ result: this.result, state: this.state });
    // render() follows a trace: resultFrom is the trace's
    this.limits?.update({ result, text: /** @type {RunFrom} */ (this.resultFrom).text });
    this.renderLimitsNote();
    this.renderGradient();
    renderHeadPicker(
      /** @type {HTMLSelectElement} */ (this.$('head-picker')),
      result.config.heads,
      this.state.head,
      (h) => withMark(this.t, result, h, String(h + 1)),
    );
    renderLayerPicker(
      /** @type {HTMLSelectElement} */ (this.$('layer-picker')),
      this.$('toolbar'),
      this.t,
      result.layerCount || 1,
      result.layer ?? 0,
    );
    this.input.showCount(
      this.overCount
        ? this.translator.t(this.overCount.more ? 'input.countOverMax' : 'input.countOver', {
            n: this.overCount.n,
            max: this.state.max,
            shown: result.tokens.length,
          })
        : this.translator.t('input.count', {
            n: result.tokens.length,
            max: result.config.max_tokens,
          }),
    );
    this.schedulePanels();
    this.writeUrl();
    this.renders++;
    this.host.dataset.renders = String(this.renders);
    this.later.refresh(this.side.share);
    this.notifyChange();
  }

  // `change` {state}: once per change of the state (URL keys and values, as a link would carry
  // them), after the playground is ready; renders that change nothing say nothing.
  notifyChange() {
    if (this.changedAs === undefined) return;
    const key = this.stateKey();
    if (key.rest === this.changedAs.rest && key.s === this.changedAs.s) return;
    this.changedAs = key;
    const state = { ...this.state };
    delete state.parent;
    this.emit('change', { state });
  }

  // what notifyChange compares: the sentence as it is (it may be long: compared, never encoded)
  // and the other keys as a link writes them
  stateKey() {
    return { s: this.state.s, rest: serialize({ ...this.state, s: '' }) };
  }

  /** A copy of what the playground shows, for the embedding page (the element's `trace`): the
   *  sentence, its tokens, the trace's config and each head's attention weights (row i = query
   *  i, column j = key j) as plain arrays. Changing it changes nothing here. */
  traceSnapshot() {
    const r = this.result;
    const from = this.resultFrom;
    if (!r || !from) return null;
    const rows = (/** @type {import('../types/index.js').Matrix} */ m) =>
      Array.from({ length: m.rows }, (_, i) =>
        Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols)),
      );
    return {
      sentence: from.text,
      tokens: [...r.tokens],
      config: structuredClone(r.config),
      heads: r.heads.map((/** @type {import('../types/index.js').Head} */ h) => ({
        weights: rows(h.weights),
      })),
    };
  }

  // Panels sit below the walkthrough: they are updated after the walkthrough has painted, so
  // typing never waits for them, and while the learner types only once the keys pause:
  // rebuilding them per keystroke made enough garbage for collector pauses inside keystrokes.
  schedulePanels() {
    clearTimeout(this.panelTimer);
    const typing = this.typedAt && performance.now() - this.typedAt < TYPING_PAUSE_MS;
    this.panelTimer = setTimeout(
      () => {
        this.panelTimer = 0;
        const result = this.shownTrace();
        for (const p of this.panels) this.later.refresh(p, { result, state: { ...this.state } });
        this.markSettled();
      },
      typing ? TYPING_PAUSE_MS : 30,
    );
    this.markSettled();
  }

  // the note traces its minimal pairs through the core: only while it is open
  renderLimitsNote() {
    // the note is about the small model; a real model's card says what the page knows of it
    const box = this.$('model-limits');
    if (box) box.hidden = isRealTrace(this.result);
    if (!this.limitsNote || !this.result || !this.resultFrom || !details(box).open) return;
    this.limitsNote.update({ result: this.result, settings: this.resultFrom.settings });
  }

  // the gradient is a second trace through the core: only while its section is open
  renderGradient() {
    if (!this.gradient || !this.result || !details(this.$('gradient')).open) return;
    this.gradient.update({
      result: this.result,
      state: { q: this.state.q, head: this.state.head },
      text: this.state.s,
      settings: coreSettings(this.state),
    });
  }

  /** @param {Snapshot} snap @param {string} why */
  onPlayer(snap, why) {
    const started = performance.now();
    this.walk.show(snap, why);
    this.bar.update(snap);
    this.program?.show(STAGES[snap.stage]);
    if (this.state.step !== snap.stage + 1) {
      this.state.step = snap.stage + 1;
      this.writeUrl();
      this.later.refresh(this.side.share);
      this.emit('stepchange', { step: this.state.step, stage: STAGES[snap.stage] });
      this.notifyChange();
    }
    // the narration follows every step, during play too; screen readers hear it when play stops
    // (a sentence per frame would be cut off by the next one)
    this.$('narration').setAttribute('aria-live', snap.playing ? 'off' : 'polite');
    this.announce(this.walk.narrate(snap));
    if (this.revealing && FOLLOW.has(why)) this.revealStage(why);
    if (why === 'stage' || why === 'step' || why === 'scrub') this.resumeAfterGuess = false;
    this.veilAsked(snap.stage);
    this.host.dataset.stage = STAGES[snap.stage];
    this.host.dataset.k = String(snap.k);
    if (why === 'frame') this.host.dataset.frameMs = (performance.now() - started).toFixed(2);
  }

  /** Whether the followed row's weights are hidden at `stage`: the learner may still guess its
   *  top key, and the walkthrough has not gone past the question (the softmax stage). */
  /** @param {number} stage */
  veiledAt(stage) {
    return this.walk.ctx.asking() && stage <= STAGES.indexOf('softmax');
  }

  // while the learner may still guess, the link view (its weights) and the model's reading of the
  // followed token are hidden, each saying why
  /** @param {number} stage */
  veilAsked(stage) {
    if (!this.result) return;
    const on = this.veiledAt(stage);
    const tok = this.result.tokens[this.state.q];
    veil(this.$('arcs'), on, this.t('veil.arcs', { tok }));
    if (this.side.modelInfo && this.modelInfoVeiled !== on) {
      this.modelInfoVeiled = on;
      this.later.refresh(this.side.modelInfo, this.modelInfoArgs());
    }
  }

  modelInfoArgs() {
    return { result: this.shownTrace(), state: { q: this.state.q, head: this.state.head } };
  }

  // the stage in view: a new stage is scrolled to just under the sticky bar, and every step keeps
  // the element it computes (and its inputs) inside the viewport (Walkthrough.reveal)
  /** @param {string} why */
  revealStage(why) {
    const bar = this.$('stagebar');
    if (why === 'stage') {
      // the title just under the bar once the bar sticks to the top, with room for the bar to
      // grow as far as its narration may (a phone caps it at three lines): a longer sentence on
      // the next step must not slide the bar over the title
      const panel = this.$('stage-title');
      const narr = this.$('narration');
      const cap = narr ? parseFloat(getComputedStyle(narr).maxHeight) : NaN;
      const grow = Number.isFinite(cap) ? Math.max(0, cap - narr.offsetHeight) : 0;
      const dy =
        panel.getBoundingClientRect().top - (bar && !bar.hidden ? bar.offsetHeight + grow : 0) - 4;
      if (Math.abs(dy) >= 1) window.scrollBy({ top: dy, behavior: 'instant' });
    }
    // the bar's bottom once it sticks (its sticky top plus its height): revealing a step scrolls
    // down from where the bar may still sit lower, unstuck, and it sticks as the page moves
    const stuck =
      bar && !bar.hidden ? (parseFloat(getComputedStyle(bar).top) || 0) + bar.offsetHeight : 0;
    this.walk.reveal(Math.max(0, stuck));
  }

  // text, or a says() sentence {text, data}: its data goes to data-says (what the test checks)
  /** @param {string | {text: string, data: unknown} | null | undefined} said */
  announce(said) {
    const live = this.$('narration');
    if (!said) return;
    const text = typeof said === 'string' ? said : said.text;
    if (live.textContent !== text) live.textContent = text;
    if (typeof said === 'string') delete live.dataset.says;
    else live.dataset.says = JSON.stringify(said.data);
  }

  // history.replaceState costs ~25 ms with a long sentence in the URL (measured in Chromium), so
  // while the learner types it waits for the keys to pause; every other change writes at once.
  writeUrl() {
    if (!this.options.url) return;
    clearTimeout(this.urlTimer);
    const write = () => {
      const search = `?${linkSearch(this.state).search}`;
      if (location.search !== search) history.replaceState(null, '', search + location.hash);
    };
    if (this.typing) {
      this.typing = false;
      this.urlTimer = setTimeout(write, TYPING_PAUSE_MS);
    } else {
      write();
    }
  }

  // Panels name matrices (['Q', 'K'] or {matrix, head, row, col}); their cells light up here.
  /** @param {import('./views/highlight.js').CellSpec} spec */
  highlight(spec) {
    highlightCells(this.root, spec, (/** @type {number} */ stage) => this.player.goto(stage));
  }

  // ---- embedding: hidden parts, share links, export, outside commands ----

  applyHide() {
    const hidden = new Set(
      String(this.state.hide || '')
        .split(',')
        .filter(Boolean),
    );
    for (const [name, ids] of Object.entries(HIDE_PARTS)) {
      for (const id of ids) {
        const node = this.$(id);
        if (node) node.hidden = hidden.has(name);
      }
    }
  }

  // The theme key sets the color-scheme the styles' light-dark() colours follow: on the page's root
  // (its background is the canvas), or on the element (its shadow root inherits it). auto or
  // unset: the style sheet's `light dark`, i.e. the system's preference.
  applyTheme() {
    const theme =
      this.state.theme === 'light' || this.state.theme === 'dark' ? this.state.theme : '';
    const target = this.options.url ? document.documentElement : this.host;
    target.style.colorScheme = theme;
    this.host.dataset.theme = theme || 'auto';
  }

  /** The current state as a link, an iframe snippet and an element snippet. */
  links() {
    const { pageUrl, embedScriptUrl } = this.options;
    return shareLinks(this.state, { pageUrl, embedScriptUrl, title: this.t('app.title') });
  }

  /** What the export view needs: the trace, the shown head and stage, and labels. */
  exportView() {
    const from = this.resultFrom;
    return {
      result: this.result,
      // the shown trace with every layer's matrices, which the page leaves out while the last
      // layer is shown; the .npz program recomputes every layer and is checked against them
      full: () =>
        !from || (from.detail?.layers && from.detail.guesses !== false)
          ? this.result
          : this.core.trace(from.text, from.settings),
      sentence: this.resultFrom ? this.resultFrom.text : '',
      state: { ...this.state },
      stage: STAGES[this.state.step - 1],
      t: this.t,
    };
  }

  /** @param {string} type @param {Record<string, unknown>} detail */
  emit(type, detail) {
    if (this.options.onEvent) this.options.onEvent(type, detail);
  }

  /** From outside (iframe parent, element attributes): a new sentence. */
  /** @param {unknown} s */
  setSentence(s) {
    if (typeof s !== 'string' || this.refusedText(s)) return;
    this.setText(s, true); // the core refuses what is too long, with a message
  }

  // From outside, a text longer than the core takes is refused before it reaches the text box
  // (laying out a box of megabytes takes the browser minutes); the last good trace stays. A text
  // the learner pastes is in the box already, and the core refuses it as it runs.
  /** @param {string} s */
  refusedText(s) {
    try {
      this.core.checkTextLength(s);
      return false;
    } catch (/** @type {any} */ e) {
      if (!e.code) throw e;
      this.input.showMessages([
        { kind: 'error', text: this.errorText(e) },
        { kind: 'notice', text: this.translator.t('notice.lastGood') },
      ]);
      this.emit('error', { code: e.code, message: this.errorText(e) });
      return true;
    }
  }

  /** From outside: go to step (1-based). */
  /** @param {unknown} step */
  goToStep(step) {
    const to = readStep(step);
    if (to !== null) this.player.goto(to - 1);
  }

  /** From outside: several URL keys at once ({seed, heads, step, hide, lang, sentence|s, ...}).
   *  Values go through the state table's parsers, so bad ones are ignored or clamped. null puts
   *  a key whose default is "unset" (predict: on in the page, off in embeds) back to it. */
  // The article's NumPy example replaces the sentence and the settings it fixes: the page says so
  // and keeps the learner's own one click away
  useNumpyPreset() {
    const preset = numpyPreset(this.core.numpyArticle());
    const before = Object.fromEntries(Object.keys(preset).map((k) => [k, this.state[k]]));
    this.setOptions(preset);
    if (before.s === preset.s) return;
    const back = () => {
      Object.assign(this.state, before);
      this.input.setText(before.s);
      this.state.q = -1;
      this.pickedQ = false;
      this.run(false);
    };
    this.messages = [
      ...this.messages,
      {
        kind: 'notice',
        text: this.t('program.replaced', { s: before.s, n: preset.s }),
        action: { label: this.t('program.restore'), run: back },
      },
    ];
    this.input.showMessages(this.messages);
  }

  /** @param {unknown} options */
  setOptions(options) {
    const read = readOptions(options);
    if (!read) return;
    const { changes } = read;
    if ('s' in changes) {
      this.input.setText(changes.s);
      this.state.q = -1;
      this.pickedQ = false;
    }
    Object.assign(this.state, changes);
    if ('hide' in changes) this.applyHide();
    if ('theme' in changes) this.applyTheme();
    const refused = 'model-src' in changes ? this.real.refuseModelSrc() : null;
    this.run(false);
    if (refused) {
      this.messages = [
        ...this.messages,
        { kind: 'notice', text: this.translator.t(`notice.${refused.problem}`, refused) },
      ];
      this.input.showMessages(this.messages);
    }
    if ('model-src' in changes) this.real.followModelSrc();
    if (read.step !== null) this.goToStep(read.step);
    if (read.lang && read.lang !== this.state.lang) this.setLang(read.lang);
  }

  destroy() {
    this.unsettle();
    this.later.destroy();
    clearTimeout(this.panelTimer);
    this.cancelRun();
    this.player.pause?.();
    this.shortcuts.destroy?.();
    this.trainer?.destroy();
    this.core.close(); // frees this playground's session (its custom model and caches)
  }
}

/**
 * Mounts one playground on markup that is already under `root` (index.html's, or the same
 * markup in a shadow root) and starts it.
 * options: {
 *   module: the loaded WebAssembly module (core.js loadModule; shared by every instance: each
 *     App makes its own Core, i.e. its own session, and closes it in destroy()),
 *   translatorFor(lang) -> Promise<Translator>, translator: the Translator to start with, if
 *     the caller loaded it already (main.js, beside the module; another language than the picked
 *     one when that one's strings could not be fetched),
 *   host: element for data-* markers (document.body, or the custom element),
 *   search: the initial state as a URL search string, languages: browser languages,
 *   url: write the state into location (the page only), keyTarget: where shortcuts listen,
 *   pageUrl, embedScriptUrl: for the share snippets and the footer's licence links (pageUrl: an
 *     http(s) address, or this page's own; anything else is replaced by this page's address),
 *   notices: [{key, problem, raw}] more notices to show with the link's (the element's refused
 *     page-url),
 *   onEvent(type, detail): ready {step, stage, appVersion}, stepchange {step, stage},
 *     change {state}, error {code, message}, modelprogress {loaded, total} and modelload
 *     {address, name} (a model-src downloading),
 *   training: {base: the folder holding train-worker.js and wasm/ (the corpus), or corpus: the
 *     corpus text itself (the single file, which trains on the page's thread)},
 *   realModels: {moduleUrl: attention-real.js's address, cache: {}} where real models can load,
 *     else null (the single file),
 *   modelSrcAuto: whether a model-src downloads at once (an embed: the element, an iframe) or is
 *     offered as a button (a link opened as a page) }
 * Returns the App (setSentence, goToStep, setOptions, traceSnapshot, destroy).
 * @param {Document | ShadowRoot} root @param {MountOptions} options
 */
export async function mountPlayground(root, options) {
  options = { ...options, pageUrl: linkBase(options.pageUrl) };
  const parsed = parse(options.search || '');
  parsed.notices.push(...(options.notices || []));
  parsed.state.lang = pickLang(parsed.state, options.languages || []);
  const translator = options.translator ?? (await options.translatorFor(parsed.state.lang));
  if (translator.lang !== parsed.state.lang) {
    // the page could not fetch its language's strings and starts in another (strings.js)
    parsed.notices.push({ key: 'lang', problem: 'langFallback' });
    parsed.state.lang = translator.lang;
  }
  const app = new App(new Core(options.module), translator, parsed, {
    root,
    host: options.host,
    options,
  });
  app.applyStrings();
  app.start();
  return app;
}
