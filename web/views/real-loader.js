// real-loader.js: "Load a real model…" under What if…?: a learner's Hugging Face files (several
// files, a folder, or dropped on the box) handed to actions.loadReal, with the bytes read so far,
// a Cancel, and what came of it (the model's name and shape, or the error). It reads no file and
// computes nothing itself: actions.loadReal (playground.js, real-model.js) does.
import { el, setText } from './dom.js';
import { grouped } from './format.js';
/** @typedef {import('./view-types.js').Translate} Translate */
/** @typedef {import('./view-types.js').Actions} Actions */

export class RealLoaderView {
  /** @param {HTMLElement} root
   *  @param {{t: Translate,
   *    actions: Pick<Actions, 'loadReal' | 'unloadReal' | 'realInfo' | 'errorText'>}} ctx
   *  actions.loadReal is absent where real models cannot load (the single file). */
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    /** @type {AbortController | null} the running load's */
    this.abort = null;
    /** @type {boolean | undefined} whether the last load failed or was cancelled */
    this.failed;
    this.build();
  }

  build() {
    const { t, actions } = this.ctx;
    /** @param {Record<string, unknown>} attrs @param {string} key */
    const picker = (attrs, key) => {
      const input = el('input', { type: 'file', class: 'real-input', ...attrs });
      input.addEventListener('change', () => {
        if (input.files && input.files.length) this.load([...input.files]);
        input.value = '';
      });
      const label = el('label', { class: 'action small real-pick' }, [t(key), input]);
      return { input, label };
    };
    this.files = picker({ multiple: true, 'data-real': 'files' }, 'real.pickFiles');
    this.folder = picker({ webkitdirectory: true, 'data-real': 'folder' }, 'real.pickFolder');
    this.bar = el('progress', { class: 'real-progress', max: 1, value: 0 });
    this.barText = el('span', { class: 'real-progress-text' });
    this.cancel = el('button', {
      class: 'action small',
      type: 'button',
      text: t('real.cancel'),
      on: { click: () => this.abort?.abort() },
    });
    this.progress = el('div', { class: 'real-loading', hidden: true }, [
      this.bar,
      this.barText,
      this.cancel,
    ]);
    this.status = el('p', { class: 'real-status', role: 'status' });
    this.unload = el('button', {
      class: 'action small',
      type: 'button',
      text: t('real.unload'),
      'data-real': 'unload',
      hidden: true,
      on: {
        click: () => {
          this.failed = false;
          actions.unloadReal();
        },
      },
    });
    const can = !!actions.loadReal;
    this.box = el('div', { class: 'real-drop', 'data-real': 'drop' }, [
      el('p', { class: 'hint', text: t(can ? 'real.hint' : 'real.needsHosted') }),
      can ? el('div', { class: 'real-picks' }, [this.files.label, this.folder.label]) : null,
      can ? el('p', { class: 'hint', text: t('real.drop') }) : null,
    ]);
    if (can) {
      this.box.addEventListener('dragover', (/** @type {DragEvent} */ e) => {
        e.preventDefault();
        this.box.classList.add('over');
      });
      this.box.addEventListener('dragleave', () => this.box.classList.remove('over'));
      this.box.addEventListener('drop', (/** @type {DragEvent} */ e) => {
        e.preventDefault();
        this.box.classList.remove('over');
        if (e.dataTransfer) droppedFiles(e.dataTransfer).then((files) => this.load(files));
      });
    }
    this.root.replaceChildren(
      el('h3', { class: 'real-title', text: t('real.title') }),
      this.box,
      this.progress,
      this.status,
      this.unload,
    );
    this.update();
  }

  /** @param {Translate} t */
  setTranslator(t) {
    this.ctx = { ...this.ctx, t };
    if (!this.abort) this.build();
  }

  /** Shows the loaded real model (actions.realInfo(), or null) in the status line. */
  update() {
    const info = this.ctx.actions.realInfo();
    this.unload.hidden = !info;
    // while loading, and after a failed or cancelled load, the status says that
    if (this.abort || this.failed) return;
    setText(this.status, info ? this.ctx.t('real.loaded', cardVars(info)) : '');
  }

  /** @param {File[]} files */
  async load(files) {
    if (this.abort || !files.length) return;
    const { t, actions } = this.ctx;
    this.abort = new AbortController();
    this.failed = false;
    this.progress.hidden = false;
    this.bar.value = 0;
    setText(this.barText, '');
    setText(this.status, t('real.reading'));
    this.root.dataset.state = 'loading';
    try {
      await actions.loadReal?.(files, {
        signal: this.abort.signal,
        onProgress: (/** @type {{loaded: number, total: number}} */ { loaded, total }) => {
          this.bar.max = Math.max(total, 1);
          this.bar.value = loaded;
          setText(
            this.barText,
            t('real.progress', { loaded: megabytes(loaded), total: megabytes(total) }),
          );
        },
      });
      this.root.dataset.state = 'loaded';
    } catch (/** @type {any} */ e) {
      this.failed = true;
      this.root.dataset.state = e?.code === 'aborted' ? 'cancelled' : 'failed';
      setText(
        this.status,
        e?.code === 'aborted'
          ? t('real.cancelled')
          : t('real.failed', { why: this.ctx.actions.errorText(e) }),
      );
    } finally {
      this.abort = null;
      this.progress.hidden = true;
      this.update();
    }
  }
}

/** The card's fields a sentence names: {name, type, layers, heads, d_model, parameters}.
 *  @param {Record<string, unknown>} info a real model's card (core.js realModel) */
export function cardVars(info) {
  return {
    name: info.name || info.model_type,
    type: info.model_type,
    layers: info.layers,
    heads: info.heads,
    d_model: info.d_model,
    parameters: grouped(/** @type {number} */ (info.parameters)),
  };
}

// bytes in MB with one decimal, for the progress line
const megabytes = (/** @type {number} */ n) => (n / 1048576).toFixed(1);

/** The files of a drop: loose files, and the files of a dropped folder (one level deep, as a
 *  model folder is). */
/** @param {DataTransfer} dt @returns {Promise<File[]>} */
async function droppedFiles(dt) {
  const entries = /** @type {FileSystemEntry[]} */ (
    [...dt.items].map((i) => i.webkitGetAsEntry?.()).filter(Boolean)
  );
  if (!entries.some((e) => e.isDirectory)) return [...dt.files];
  /** @type {File[]} */
  const out = [];
  /** @param {FileSystemEntry} entry a file's (isFile) @returns {Promise<File>} */
  const fileOf = (entry) =>
    new Promise((resolve, reject) =>
      /** @type {FileSystemFileEntry} */ (entry).file(resolve, reject),
    );
  for (const entry of entries) {
    if (entry.isFile) out.push(await fileOf(entry));
    else {
      // a folder's (not a file, so a directory)
      const reader = /** @type {FileSystemDirectoryEntry} */ (entry).createReader();
      for (;;) {
        /** @type {FileSystemEntry[]} */
        const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
        if (!batch.length) break;
        for (const e of batch) if (e.isFile) out.push(await fileOf(e));
      }
    }
  }
  return out;
}
