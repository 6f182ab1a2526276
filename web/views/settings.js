// settings.js: the what-if controls (heads, d_model, d_k, causal, scaling, temperature, tied
// W_K = W_Q, positions, seed) and one-click experiments. It reflects the state and reports
// changes through actions.setSetting; ranges come from the URL table, not from here.
import { el } from './dom.js';
import { TABLE } from '../state.js';
import { MODELS } from '../core.js';

const range = (name) => TABLE.find((e) => e.name === name);

export class SettingsView {
  /** ctx: {t, actions, core}; core.models() says which settings each model fixes. */
  constructor(root, { t, actions, core }) {
    this.root = root;
    this.t = t;
    this.actions = actions;
    this.modelList = core.models();
    this.inputs = {};
    this.build();
  }

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
    const num = (name, extra = {}) => {
      const e = range(name);
      return el('input', {
        type: 'number',
        min: e.min,
        max: e.max,
        step: extra.step ?? 1,
        inputmode: 'numeric',
        on: { change: (ev) => actions.setSetting(name, ev.target.value) },
      });
    };
    const check = (name) =>
      el('input', {
        type: 'checkbox',
        on: { change: (ev) => actions.setSetting(name, ev.target.checked) },
      });
    const heads = el(
      'select',
      { on: { change: (ev) => actions.setSetting('heads', ev.target.value) } },
      Array.from({ length: range('heads').max }, (_, i) =>
        el('option', { text: String(i + 1), value: i + 1 }),
      ),
    );
    this.tempOut = el('output', { for: 'set-temp' });
    const temp = el('input', {
      type: 'range',
      min: 0.1,
      max: 5,
      step: 0.1,
      on: { input: (ev) => actions.setSetting('temp', ev.target.value) },
    });
    const seed = el('input', {
      type: 'text',
      inputmode: 'numeric',
      pattern: '[0-9]*',
      maxlength: 20,
      spellcheck: 'false',
      on: { change: (ev) => actions.setSetting('seed', ev.target.value.trim()) },
    });
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
      { id: 'set-model', on: { change: (ev) => actions.setSetting('model', ev.target.value) } },
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

  /** result (optional): the trace shown, so a trained model's fixed shape is what the controls show. */
  update(state, result) {
    for (const [name, input] of Object.entries(this.inputs)) {
      if (
        input.getRootNode().activeElement === input &&
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
    this.modelSel.value = state.model;
    // a model trained here, or a real one loaded here, is offered once it exists
    const offer = (name, has) => {
      const option = this.modelSel.querySelector(`option[value="${name}"]`);
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
    for (const e of TABLE.filter((x) => fixable.has(x.core))) {
      const input = this.inputs[e.name];
      const isFixed = fixes.includes(e.core);
      input.disabled = isFixed;
      if (isFixed) input.setAttribute('aria-describedby', 'model-fixed-note');
      else input.removeAttribute('aria-describedby');
      if (!isFixed || !used) continue;
      if (input.type === 'checkbox') input.checked = !!used[e.core];
      else if (input.value !== String(used[e.core])) input.value = String(used[e.core]);
    }
    this.fixedNote.id = note === this.fixedNote ? 'model-fixed-note' : '';
    this.fixedNoteNumpy.id = note === this.fixedNoteNumpy ? 'model-fixed-note' : '';
    this.fixedNote.hidden = note !== this.fixedNote || !fixes.length;
    this.fixedNoteNumpy.hidden = note !== this.fixedNoteNumpy;
  }
}
