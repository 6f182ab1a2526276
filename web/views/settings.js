// settings.js: the what-if controls (heads, d_model, d_k, causal, scaling, temperature, tied
// W_K = W_Q, positions, seed) and one-click experiments. It reflects the state and reports
// changes through actions.setSetting; ranges come from the URL table, not from here.
import { el } from './dom.js';
import { TABLE } from '../state.js';
import { MODELS } from '../core.js';
/** @typedef {import('./view-types.js').ViewContext} ViewContext */
/** @typedef {import('./view-types.js').ShownTrace} ShownTrace */
/** A control's event: its target is the control (an input, or a select, which reads alike).
 *  @typedef {Event & {target: HTMLInputElement}} ControlEvent */

/** The URL table's line for a key (every key this view asks for is in it).
 * @param {string} name */
const range = (name) => {
  const e = TABLE.find((e) => e.name === name);
  if (!e) throw new Error(`settings: no URL key ${name}`);
  return e;
};

export class SettingsView {
  /** ctx: {t, actions, core}; core.models() says which settings each model fixes.
   * @param {HTMLElement} root @param {Pick<ViewContext, 't' | 'actions' | 'core'>} ctx */
  constructor(root, { t, actions, core }) {
    this.root = root;
    this.t = t;
    this.actions = actions;
    /** @type {{name: string, fixes: string[]}[]} the models and the settings each fixes */
    this.modelList = core.models();
    /** @type {Record<string, HTMLInputElement>} by URL key; the heads select reads and writes
     *  `value` as the inputs do */
    this.inputs = {};
    // the parts build() makes
    /** @type {HTMLOutputElement} */ this.tempOut;
    /** @type {HTMLSelectElement} */ this.modelSel;
    /** @type {HTMLElement} */ this.fixedNote;
    /** @type {HTMLElement} */ this.fixedNoteNumpy;
    this.build();
  }

  /** @param {string} name @param {HTMLInputElement} control @param {string} hintKey */
  field(name, control, hintKey) {
    const id = `set-${name}`;
    control.id = id;
    this.inputs[name] = control;
    return el('div', { class: `field field-${name}` }, [
      el('label', { text: this.t(`set.${name}`), for: id }),
      control,
      hintKey ? el('p', { class: 'hint', text: this.t(hintKey) }) : null,
    ]);
  }

  build() {
    const { t, actions } = this;
    /** @param {string} name @param {{step?: number}} [extra] */
    const num = (name, extra = {}) => {
      const e = range(name);
      return el('input', {
        type: 'number',
        min: e.min,
        max: e.max,
        step: extra.step ?? 1,
        inputmode: 'numeric',
        on: {
          change: (/** @type {ControlEvent} */ ev) => actions.setSetting(name, ev.target.value),
        },
      });
    };
    /** @param {string} name */
    const check = (name) =>
      el('input', {
        type: 'checkbox',
        on: {
          change: (/** @type {ControlEvent} */ ev) => actions.setSetting(name, ev.target.checked),
        },
      });
    const heads = el(
      'select',
      {
        on: {
          change: (/** @type {ControlEvent} */ ev) => actions.setSetting('heads', ev.target.value),
        },
      },
      Array.from({ length: range('heads').max ?? 0 }, (_, i) =>
        el('option', { text: String(i + 1), value: i + 1 }),
      ),
    );
    this.tempOut = el('output', { for: 'set-temp' });
    const temp = el('input', {
      type: 'range',
      min: 0.1,
      max: 5,
      step: 0.1,
      on: {
        input: (/** @type {ControlEvent} */ ev) => actions.setSetting('temp', ev.target.value),
      },
    });
    const seed = el('input', {
      type: 'text',
      inputmode: 'numeric',
      pattern: '[0-9]*',
      maxlength: 20,
      spellcheck: 'false',
      on: {
        change: (/** @type {ControlEvent} */ ev) =>
          actions.setSetting('seed', ev.target.value.trim()),
      },
    });
    /** @param {string} key @param {Record<string, unknown>} changes */
    const experiment = (key, changes) =>
      el('button', {
        class: 'action small',
        text: t(key),
        type: 'button',
        on: { click: () => actions.setMany(changes) },
      });
    // the model switch: the trained model fixes heads/d_model/d_k (update() disables them)
    this.modelSel = el(
      'select',
      {
        id: 'set-model',
        on: {
          change: (/** @type {ControlEvent} */ ev) => actions.setSetting('model', ev.target.value),
        },
      },
      MODELS.map((m) => el('option', { text: t(`model.option.${m}`), value: m })),
    );
    this.fixedNote = el('p', { class: 'hint model-fixed', text: t('model.fixed') });
    this.fixedNoteNumpy = el('p', { class: 'hint model-fixed', text: t('model.fixedNumpy') });
    const modelField = el('div', { class: 'field field-model' }, [
      el('label', { text: t('model.switch'), for: 'set-model' }),
      this.modelSel,
      el('p', { class: 'hint', text: t('model.switchHint') }),
      this.fixedNote,
      this.fixedNoteNumpy,
    ]);
    this.root.replaceChildren(
      modelField,
      el('div', { class: 'fields' }, [
        this.field('heads', heads, 'set.headsHint'),
        this.field('dmodel', num('dmodel'), 'set.dmodelHint'),
        this.field('dk', num('dk'), 'set.dkHint'),
        el('div', { class: 'field field-temp' }, [
          el('label', { text: t('set.temp'), for: 'set-temp' }),
          el('div', { class: 'inline' }, [temp, this.tempOut]),
          el('p', { class: 'hint', text: t('set.tempHint') }),
        ]),
        this.field('seed', seed, 'set.seedHint'),
        this.field('max', num('max'), 'set.maxHint'),
      ]),
      el(
        'div',
        { class: 'checks' },
        ['causal', 'scale', 'tie', 'pos', 'predict'].map((name) => {
          const c = check(name);
          c.id = `set-${name}`;
          this.inputs[name] = c;
          return el('div', { class: 'check' }, [
            c,
            el('label', { text: t(`set.${name}`), for: c.id }),
            el('p', { class: 'hint', text: t(`set.${name}Hint`) }),
          ]);
        }),
      ),
      el('div', { class: 'experiments' }, [
        el('span', { class: 'exp-title', text: t('set.try') }),
        experiment('exp.bigNoScale', {
          model: 'random',
          heads: 1,
          dmodel: 64,
          dk: 64,
          scale: false,
        }),
        experiment('exp.bigScale', { model: 'random', heads: 1, dmodel: 64, dk: 64, scale: true }),
        experiment('exp.tie', { tie: true }),
        experiment('exp.causal', { causal: true }),
        // every setting the core takes back to its default, except the token cap
        experiment(
          'exp.reset',
          Object.fromEntries(
            TABLE.filter((e) => e.core && e.name !== 'max').map((e) => [e.name, e.def]),
          ),
        ),
      ]),
    );
    this.inputs.temp = temp;
  }

  /** result (optional): the trace shown, so a trained model's fixed shape is what the controls show.
   * @param {Record<string, unknown>} state the page's state (state.js parse) @param {ShownTrace} [result] */
  update(state, result) {
    for (const [name, input] of Object.entries(this.inputs)) {
      if (
        /** @type {Node & Partial<DocumentOrShadowRoot>} */ (input.getRootNode()).activeElement ===
          input &&
        input.type !== 'checkbox' &&
        input.type !== 'range'
      )
        continue;
      if (name === 'predict')
        input.checked = this.actions.predictOn ? this.actions.predictOn() : !!state[name];
      else if (input.type === 'checkbox') input.checked = !!state[name];
      else if (input.value !== String(state[name])) input.value = String(state[name]);
    }
    const temp = Number(state.temp).toFixed(2);
    if (this.tempOut.textContent !== temp) this.tempOut.textContent = temp;
    this.modelSel.value = String(state.model);
    // a model trained here, or a real one loaded here, is offered once it exists
    /** @param {string} name @param {(() => boolean) | undefined} has */
    const offer = (name, has) => {
      // MODELS names every option
      const option = /** @type {HTMLOptionElement} */ (
        this.modelSel.querySelector(`option[value="${name}"]`)
      );
      option.hidden = option.disabled = state.model !== name && !(has && has());
    };
    offer('custom', this.actions.hasCustomModel);
    offer('real', this.actions.hasRealModel);
    // what the model fixes (the core applies it; these controls only show it, disabled), by the
    // URL keys of those settings, with the values the core used (result.config)
    const kind = this.modelList.find((m) => m.name === state.model);
    const fixes = kind ? kind.fixes : [];
    const note = state.model === 'numpy' ? this.fixedNoteNumpy : this.fixedNote;
    const used = result && result.config;
    const fixable = new Set(this.modelList.flatMap((m) => m.fixes));
    for (const e of TABLE) {
      const core = e.core;
      if (!core || !fixable.has(core)) continue;
      const input = this.inputs[e.name];
      const isFixed = fixes.includes(core);
      input.disabled = isFixed;
      if (isFixed) input.setAttribute('aria-describedby', 'model-fixed-note');
      else input.removeAttribute('aria-describedby');
      if (!isFixed || !used) continue;
      if (input.type === 'checkbox') input.checked = !!used[core];
      else if (input.value !== String(used[core])) input.value = String(used[core]);
    }
    this.fixedNote.id = note === this.fixedNote ? 'model-fixed-note' : '';
    this.fixedNoteNumpy.id = note === this.fixedNoteNumpy ? 'model-fixed-note' : '';
    this.fixedNote.hidden = note !== this.fixedNote || !fixes.length;
    this.fixedNoteNumpy.hidden = note !== this.fixedNoteNumpy;
  }
}
