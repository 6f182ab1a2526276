// settings.js: the what-if controls (heads, d_model, d_k, causal, scaling, temperature, tied
// W_K = W_Q, positions, seed) and one-click experiments. It reflects the state and reports
// changes through actions.setSetting; ranges come from the URL table, not from here.
import { el } from './util.js';
import { TABLE } from '../state.js';

const range = (name) => TABLE.find((e) => e.name === name);

export class SettingsView {
  constructor(root, { t, actions }) {
    this.root = root;
    this.t = t;
    this.actions = actions;
    this.inputs = {};
    this.build();
  }

  field(name, control, hintKey) {
    const id = `set-${name}`;
    control.id = id;
    this.inputs[name] = control;
    return el('div', { class: `field field-${name}` }, [
      el('label', { text: this.t(`set.${name}`), attrs: { for: id } }), control,
      hintKey ? el('p', { class: 'hint', text: this.t(hintKey) }) : null,
    ]);
  }

  build() {
    const { t, actions } = this;
    const num = (name, extra = {}) => {
      const e = range(name);
      return el('input', {
        attrs: { type: 'number', min: e.min, max: e.max, step: extra.step ?? 1, inputmode: 'numeric' },
        on: { change: (ev) => actions.setSetting(name, ev.target.value) },
      });
    };
    const check = (name) => el('input', { attrs: { type: 'checkbox' }, on: { change: (ev) => actions.setSetting(name, ev.target.checked) } });
    const heads = el('select', { on: { change: (ev) => actions.setSetting('heads', ev.target.value) } },
      Array.from({ length: range('heads').max }, (_, i) => el('option', { text: String(i + 1), attrs: { value: i + 1 } })));
    this.tempOut = el('output', { attrs: { for: 'set-temp' } });
    const temp = el('input', {
      attrs: { type: 'range', min: 0.1, max: 5, step: 0.1 },
      on: { input: (ev) => actions.setSetting('temp', ev.target.value) },
    });
    const seed = el('input', {
      attrs: { type: 'text', inputmode: 'numeric', pattern: '[0-9]*', maxlength: 20, spellcheck: 'false' },
      on: { change: (ev) => actions.setSetting('seed', ev.target.value.trim()) },
    });
    const experiment = (key, changes) => el('button', {
      class: 'action small', text: t(key), attrs: { type: 'button' }, on: { click: () => actions.setMany(changes) },
    });
    // the model switch: the trained model fixes heads/d_model/d_k (update() disables them)
    this.modelSel = el('select', { attrs: { id: 'set-model' }, on: { change: (ev) => actions.setSetting('model', ev.target.value) } },
      ['default', 'random', 'custom'].map((m) => el('option', { text: t(`model.option.${m}`), attrs: { value: m } })));
    this.fixedNote = el('p', { class: 'hint model-fixed', text: t('model.fixed') });
    const modelField = el('div', { class: 'field field-model' }, [
      el('label', { text: t('model.switch'), attrs: { for: 'set-model' } }), this.modelSel,
      el('p', { class: 'hint', text: t('model.switchHint') }), this.fixedNote,
    ]);
    this.root.replaceChildren(
      modelField,
      el('div', { class: 'fields' }, [
        this.field('heads', heads, 'set.headsHint'),
        this.field('dmodel', num('dmodel'), 'set.dmodelHint'),
        this.field('dk', num('dk'), 'set.dkHint'),
        el('div', { class: 'field field-temp' }, [
          el('label', { text: t('set.temp'), attrs: { for: 'set-temp' } }), el('div', { class: 'inline' }, [temp, this.tempOut]),
          el('p', { class: 'hint', text: t('set.tempHint') }),
        ]),
        this.field('seed', seed, 'set.seedHint'),
        this.field('max', num('max'), 'set.maxHint'),
      ]),
      el('div', { class: 'checks' }, ['causal', 'scale', 'tie', 'pos'].map((name) => {
        const c = check(name);
        c.id = `set-${name}`;
        this.inputs[name] = c;
        return el('div', { class: 'check' }, [c, el('label', { text: t(`set.${name}`), attrs: { for: c.id } }),
          el('p', { class: 'hint', text: t(`set.${name}Hint`) })]);
      })),
      el('div', { class: 'experiments' }, [
        el('span', { class: 'exp-title', text: t('set.try') }),
        experiment('exp.bigNoScale', { model: 'random', heads: 1, dmodel: 64, dk: 64, scale: false }),
        experiment('exp.bigScale', { model: 'random', heads: 1, dmodel: 64, dk: 64, scale: true }),
        experiment('exp.tie', { tie: true }),
        experiment('exp.causal', { causal: true }),
        experiment('exp.reset', { model: 'default', heads: 2, dmodel: 8, dk: 0, causal: false, scale: true, temp: 1, tie: false, pos: true, seed: '42' }),
      ]),
    );
    this.inputs.temp = temp;
  }

  /** result (optional): the trace shown, so a trained model's fixed shape is what the controls show. */
  update(state, result) {
    for (const [name, input] of Object.entries(this.inputs)) {
      if (input.getRootNode().activeElement === input && input.type !== 'checkbox' && input.type !== 'range') continue;
      if (input.type === 'checkbox') input.checked = !!state[name];
      else if (input.value !== String(state[name])) input.value = String(state[name]);
    }
    const temp = Number(state.temp).toFixed(2);
    if (this.tempOut.textContent !== temp) this.tempOut.textContent = temp;
    // a trained model fixes the shape: show its numbers, disabled, with the reason
    this.modelSel.value = state.model;
    const custom = this.modelSel.options[2];
    custom.hidden = custom.disabled = state.model !== 'custom' && !(this.actions.hasCustomModel && this.actions.hasCustomModel());
    const fixed = state.model !== 'random';
    const m = fixed && result && result.model;
    const shown = m ? { heads: m.heads, dmodel: m.dModel, dk: m.dK } : {};
    for (const name of ['heads', 'dmodel', 'dk']) {
      const input = this.inputs[name];
      input.disabled = fixed;
      if (fixed) input.setAttribute('aria-describedby', 'model-fixed-note');
      else input.removeAttribute('aria-describedby');
      if (name in shown && input.value !== String(shown[name])) input.value = String(shown[name]);
    }
    this.fixedNote.id = 'model-fixed-note';
    this.fixedNote.hidden = !fixed;
  }
}
