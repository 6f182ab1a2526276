// real-host.js: a playground's real model (GPT-2, BERT): reading a learner's Hugging Face files or
// a converted model at an address (model-src) into the second module, and the views that come
// with it (the loader under What if…?, the grid of heads, the model-src box). Their code and the
// second module are fetched on first use, never for the first trace. It draws nothing itself: the
// playground (playground.js) owns the state and hands changes back through `app`.
import { webAddress } from './outside-api.js';
import { panelFailed } from './views/dom.js';

/** How a real model's files or address load: its signal, and progress as bytes arrive.
 *  @typedef {{signal?: AbortSignal, onProgress?: (p: {loaded: number, total: number}) => void}} LoadHow */
/** @typedef {import('./views/view-types.d.ts').Translate} Translate */
/** @typedef {import('./views/view-types.d.ts').Actions} Actions */
/** @typedef {import('./views/view-types.d.ts').ShownTrace} ShownTrace */

/**
 * What the host reads of its playground.
 * @typedef {object} RealHostApp
 * @property {import('./core.js').Core} core
 * @property {Record<string, any>} state the page state (model, layer, head, 'model-src')
 * @property {{realModels?: {moduleUrl?: string, cache?: object} | null, modelSrcAuto?: boolean}} options
 * @property {Translate} t
 * @property {{whole: () => Promise<unknown>}} translator
 * @property {Actions} actions
 * @property {(id: string) => HTMLElement} $ the shell's element with this id (null where absent)
 * @property {(changes: Record<string, unknown>) => void} setMany
 * @property {(type: string, detail: Record<string, unknown>) => void} emit
 * @property {(e: unknown) => string} errorText
 */

export class RealModelHost {
  /** @param {RealHostApp} app
   *  @param {{layer: number, head: number} | null} linkView a link's layer and head of a real
   *    model (model=real), used once its model-src has loaded */
  constructor(app, linkView) {
    this.app = app;
    this.linkView = linkView;
    /** @type {import('./views/real-loader.js').RealLoaderView | null} */
    this.loader = null;
    /** @type {import('./views/real-heads.js').RealHeadsView | null} */
    this.heads = null;
    /** @type {Promise<void> | null} */
    this.loading = null;
    /** @type {{name: (result: unknown, head: number, stage: unknown) => string | undefined,
     *          words: (kind: string, vars: Record<string, unknown>) => string} | null} */
    this.names = null; // real-heads.js's, once loaded
    /** @type {import('./views/model-src.js').ModelSrcView | null} */
    this.modelSrc = null; // the model-src box's view (views/model-src.js), made when one is given
    this.modelSrcFollowed = ''; // the model-src last shown in it
    // the loader's code comes when What if…? first opens
    const whatif = app.$('whatif');
    if (whatif && app.$('real-model')) {
      const open = () => /** @type {HTMLDetailsElement} */ (whatif).open;
      const load = () =>
        this.views().catch((/** @type {unknown} */ e) =>
          panelFailed(app.$('real-model'), e, app.t),
        );
      if (open()) load();
      else whatif.addEventListener('toggle', () => open() && load());
    }
  }

  /** The words that name a real model's head where the stages name one ('' for the other
   *  models, and before the views have loaded). */
  /** @param {unknown} result @param {number} head @param {unknown} stage */
  name(result, head, stage) {
    return this.names?.name(result, head, stage) || '';
  }

  /** @param {string} kind @param {Record<string, unknown>} vars */
  words(kind, vars) {
    return this.names?.words(kind, vars) || '';
  }

  /** The views that exist so far, for a change of language. */
  translated() {
    return [this.loader, this.heads, this.modelSrc];
  }

  /** @param {{result: ShownTrace, state: import('./views/view-types.d.ts').ViewState}} model */
  update(model) {
    this.heads?.update(model);
  }

  /** A model-src that is not an http(s) address (relative ones are read against the host page)
   *  is dropped from the state: -> its notice ({key, problem, raw}), or null when there is none. */
  refuseModelSrc() {
    const { state } = this.app;
    const raw = state['model-src'];
    if (!raw || webAddress(raw, document.baseURI)) return null;
    state['model-src'] = '';
    this.app.emit('error', { code: 'model_src_refused', message: `model-src ${raw}` });
    return { key: 'model-src', problem: 'modelSrcRefused', raw: raw.slice(0, 100) };
  }

  /** The state's model-src, a converted model (.apm). Embedded (the element, an iframe:
   *  options.modelSrcAuto) it downloads at once: the embedding page chose it. A link opened as a
   *  page only offers a button: a link from anyone must not make its visitor download hundreds
   *  of MB from a host the link chose, nor tell that host the visitor came by. */
  followModelSrc() {
    const app = this.app;
    const raw = app.state['model-src'];
    if (!raw || raw === this.modelSrcFollowed || !app.$('model-src')) return;
    const address = webAddress(raw, document.baseURI);
    if (!address) return;
    this.modelSrcFollowed = raw;
    Promise.all([import('./views/model-src.js'), app.translator.whole()])
      .then(([{ ModelSrcView }]) => {
        if (this.modelSrcFollowed !== raw) return; // another address came meanwhile
        this.modelSrc ??= new ModelSrcView(app.$('model-src'), {
          t: app.t,
          actions: app.actions,
        });
        this.modelSrc.show(address, { auto: !!app.options.modelSrcAuto });
      })
      .catch((e) => panelFailed(app.$('model-src'), e, app.t));
  }

  /** Downloads the converted model at `address` (absolute http(s)) and shows it; the model the
   *  page had stays until the new one has loaded. Rejects with the loader's or the core's error,
   *  which is also the playground's `error` event. */
  /** @param {string} address @param {LoadHow} how */
  async loadFrom(address, how) {
    const app = this.app;
    const raw = app.state['model-src'] || address;
    let said = 0; // the bytes the last modelprogress event reported
    const onProgress = (/** @type {{loaded: number, total: number}} */ p) => {
      how.onProgress?.(p);
      // an event per MiB at most (a chunk is often 64 KiB), and the last one
      if (p.loaded - said < 1048576 && p.loaded !== p.total) return;
      said = p.loaded;
      app.emit('modelprogress', { loaded: p.loaded, total: p.total });
    };
    try {
      const [{ fetchConvertedModel }] = await Promise.all([
        import('./real-model.js'),
        this.views(),
      ]);
      const model = await fetchConvertedModel(address, {
        ...app.options.realModels,
        signal: how.signal,
        onProgress,
      });
      app.core.setRealModel(model);
      const view = this.linkView || { layer: -1, head: 0 };
      this.linkView = null;
      app.setMany({ model: 'real', ...view, 'model-src': raw });
      this.loader?.update();
      app.emit('modelload', { address, name: model.info.name || model.info.model_type });
    } catch (/** @type {any} */ e) {
      if (e?.code !== 'aborted')
        app.emit('error', { code: e?.code || 'internal', message: app.errorText(e) });
      throw e;
    }
  }

  /** Reads a learner's Hugging Face files (real-model.js, in the second module) and shows the
   *  model; the model the page had stays until the new one has loaded. Rejects with the loader's
   *  or the core's error (code, message). */
  /** @param {ArrayLike<File>} files @param {LoadHow} how */
  async load(files, how) {
    const app = this.app;
    const [{ openRealModel }] = await Promise.all([import('./real-model.js'), this.views()]);
    const model = await openRealModel(files, { ...app.options.realModels, ...how });
    app.core.setRealModel(model);
    // the model shown is the learner's files, not the address a link named
    app.setMany({ model: 'real', layer: -1, head: 0, 'model-src': '' });
    this.loader?.update();
  }

  /** Frees the real model; the page goes back to the shipped one if it was showing it. */
  unload() {
    const app = this.app;
    app.core.setRealModel(null);
    if (app.state.model === 'real')
      app.setMany({ model: 'default', layer: -1, head: 0, 'model-src': '' });
    else app.setMany({ 'model-src': '' });
    this.loader?.update();
  }

  /** The real model's views (real-loader.js, real-heads.js), made once. */
  views() {
    const app = this.app;
    if (!this.loading) {
      this.loading = Promise.all([
        import('./views/real-loader.js'),
        import('./views/real-heads.js'),
        app.translator.whole(),
      ]).then(
        ([{ RealLoaderView }, { RealHeadsView, realHeadName, realWords }]) => {
          this.names = {
            // Actions.realName passes the shown trace and stage name through untyped
            name: (result, head, stage) =>
              realHeadName(
                app.t,
                /** @type {ShownTrace} */ (result),
                head,
                /** @type {string | null} */ (stage),
              ),
            words: (kind, vars) => realWords(app.t, kind, vars),
          };
          const ctx = { t: app.t, core: app.core, actions: app.actions };
          this.loader = new RealLoaderView(app.$('real-model'), ctx);
          if (app.$('real-heads')) this.heads = new RealHeadsView(app.$('real-heads'), ctx);
        },
        (e) => {
          this.loading = null; // opened again, it tries again
          throw e;
        },
      );
    }
    return this.loading;
  }
}
