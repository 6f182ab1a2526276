// softmax-lab.js: "enter raw scores yourself". Parses a typed row of scores and a temperature,
// then shows the core's softmaxSteps stage by stage: max, subtract, exp, sum, divide.
// It does not compute softmax; parsing and layout only. Bad input is a message, never a throw.

import { uid, el, clear } from '../dom.js';
import { fmt, rowOf, clampIndex } from '../format.js';
import { num, bar } from '../readouts.js';
import { LIMITS } from '../../core.js';

/** @typedef {import('../view-types.js').Translate} Translate */
/** @typedef {import('../view-types.js').StageModel} StageModel */
/** @typedef {import('../view-types.js').ViewContext} ViewContext */
/** @typedef {import('../../../types/index.js').SoftmaxSteps} SoftmaxSteps */
/** @typedef {{ok: true, values: number[]} | {ok: false, code: string, token?: string, count?: number}} ParsedScores */
/** @typedef {{ok: true, value: number} | {ok: false, code: string}} ParsedTemperature */
/** A row of example scores, with the weights its article claims.
 *  @typedef {{id: string, scores: number[], claimed?: number[]}} Preset */
/** The followed token's row of the shown trace.
 *  @typedef {{values: number[], labels: string[], temperature: number, token: string, head: number}} SentenceRow */

// the longest row of scores the core's softmaxSteps takes
export const MAX_SCORES = LIMITS.max_scores;
const FLOAT32_MAX = 3.4028234663852886e38;
const NUMBER = /^[+\-−‑]?(\d+\.?\d*|\.\d+)(e[+\-−‑]?\d+)?$/i;
const MINUS_INF = /^[-−‑](inf|infinity|∞)$/i;
const PLUS_INF = /^\+?(inf|infinity|∞)$/i;

/** Text -> {ok: true, values} or {ok: false, code, token?, count?}. Accepts commas (also "，"
 *  and "、"), semicolons and spaces between numbers, and -inf / -∞ for a masked score.
 * @param {unknown} text @returns {ParsedScores} */
export function parseScores(text) {
  const parts = String(text ?? '')
    .split(/[\s,，、;；]+/)
    .filter((p) => p.length > 0);
  if (parts.length === 0) return { ok: false, code: 'empty' };
  if (parts.length > MAX_SCORES) return { ok: false, code: 'too_many', count: parts.length };
  const values = [];
  for (const p of parts) {
    if (MINUS_INF.test(p)) {
      values.push(-Infinity);
      continue;
    }
    if (PLUS_INF.test(p)) return { ok: false, code: 'plus_inf', token: p };
    if (/^[+\-−]?nan$/i.test(p)) return { ok: false, code: 'nan', token: p };
    if (!NUMBER.test(p)) return { ok: false, code: 'not_number', token: p };
    const x = Number(p.replace(/[−‑]/g, '-'));
    if (!Number.isFinite(x) || Math.abs(x) > FLOAT32_MAX)
      return { ok: false, code: 'too_big', token: p };
    values.push(x);
  }
  return { ok: true, values };
}

/** Temperature text -> {ok: true, value} or {ok: false, code}.
 * @param {unknown} text @param {number} max @returns {ParsedTemperature} */
export function parseTemperature(text, max) {
  const s = String(text ?? '').trim();
  if (!s) return { ok: false, code: 'temp_empty' };
  if (!NUMBER.test(s)) return { ok: false, code: 'temp_bad' };
  const x = Number(s.replace(/[−‑]/g, '-'));
  if (!(x > 0) || !(x <= max)) return { ok: false, code: 'temp_range' };
  return { ok: true, value: x };
}

// The seed articles' example rows, with the weights their tables claim (illustrative only).
/** @type {Preset[]} */
const PRESETS = [
  { id: 'animal', scores: [3.2, 1.8, 0.4], claimed: [0.72, 0.22, 0.06] },
  {
    id: 'ta',
    scores: [8.0, 1.2, 3.5, 2.0, 0.5, 1.0],
    claimed: [0.72, 0.03, 0.12, 0.06, 0.02, 0.05],
  },
  { id: 'woaini', scores: [0.1, 0.8, 0.1], claimed: [0.05, 0.9, 0.05] },
];

/** @param {number[]} values */
const scoresText = (values) => values.map((x) => (x === -Infinity ? '-inf' : String(x))).join(', ');

export class SoftmaxLabPanel {
  /** @param {HTMLElement} container
   *  @param {Pick<ViewContext, 'core' | 't'> & {onHighlight?: (names: string[]) => void}} ctx */
  constructor(container, { core, t, onHighlight = (_names) => {} }) {
    this.core = core;
    this.t = t;
    this.onHighlight = onHighlight;
    this.preset = PRESETS[0];
    /** @type {SentenceRow | null} */
    this.sentenceRow = null;
    this.maxTemperature = core.limits().max_temperature;

    const titleId = uid('panel-title');
    const scoresId = uid('panel-scores');
    const tempId = uid('panel-temp');
    const msgId = uid('panel-msg');
    this.root = el('section', { class: 'panel-card panel-softmax', 'aria-labelledby': titleId });
    this.title = el('h2', { id: titleId, class: 'panel-title' });
    this.intro = el('p', { class: 'panel-intro' });
    this.presetLabel = el('p', { class: 'panel-sub-inline' });
    this.presetBox = el('div', { class: 'panel-presets', role: 'group' });
    /** @type {Map<string, HTMLButtonElement>} */
    this.presetButtons = new Map();
    for (const p of PRESETS) {
      const b = el('button', {
        type: 'button',
        class: 'panel-button',
        'data-preset': p.id,
        on: { click: () => this.usePreset(p) },
      });
      this.presetButtons.set(p.id, b);
      this.presetBox.append(b);
    }
    this.sentenceButton = el('button', {
      type: 'button',
      class: 'panel-button',
      'data-preset': 'sentence',
      hidden: true,
      on: { click: () => this.useSentenceRow() },
    });
    this.presetBox.append(this.sentenceButton);

    this.scoresLabel = el('label', { for: scoresId });
    this.scoresInput = el('input', {
      id: scoresId,
      type: 'text',
      class: 'panel-input panel-scores-input',
      spellcheck: 'false',
      autocomplete: 'off',
      'aria-describedby': msgId,
      on: { input: () => this.compute() },
    });
    this.tempLabel = el('label', { for: tempId });
    this.tempInput = el('input', {
      id: tempId,
      type: 'text',
      inputmode: 'decimal',
      class: 'panel-input panel-temp-input',
      value: '1',
      spellcheck: 'false',
      autocomplete: 'off',
      'aria-describedby': msgId,
      on: { input: () => this.compute() },
    });
    this.hint = el('p', { class: 'panel-hint' });
    this.message = el('p', {
      id: msgId,
      class: 'panel-message',
      role: 'status',
      'aria-live': 'polite',
    });
    this.note = el('p', { class: 'panel-note' });
    this.steps = el('div', { class: 'panel-steps' });
    this.root.append(
      this.title,
      this.intro,
      this.presetLabel,
      this.presetBox,
      el('div', { class: 'panel-fields' }, [
        el('div', { class: 'panel-field panel-field-wide' }, [this.scoresLabel, this.scoresInput]),
        el('div', { class: 'panel-field' }, [this.tempLabel, this.tempInput]),
      ]),
      this.hint,
      this.message,
      this.note,
      this.steps,
    );
    container.append(this.root);
    this.scoresInput.value = scoresText(this.preset.scores);
  }

  /** @param {Preset} p */
  usePreset(p) {
    this.preset = p;
    this.scoresInput.value = scoresText(p.scores);
    this.tempInput.value = '1';
    this.compute();
  }

  useSentenceRow() {
    if (!this.sentenceRow) return;
    this.preset = { id: 'sentence', scores: this.sentenceRow.values };
    this.scoresInput.value = scoresText(this.sentenceRow.values);
    this.tempInput.value = String(this.sentenceRow.temperature);
    this.compute();
  }

  /** @param {StageModel} model */
  update({ result, state }) {
    const t = this.t;
    this.title.textContent = t('panel.softmax.title');
    this.intro.textContent = t('panel.softmax.intro');
    this.presetLabel.textContent = t('panel.softmax.presets');
    this.presetBox.setAttribute('aria-label', t('panel.softmax.presets'));
    for (const [id, b] of this.presetButtons) b.textContent = t(`panel.softmax.preset.${id}`);
    this.scoresLabel.textContent = t('panel.softmax.scores.label');
    this.tempLabel.textContent = t('panel.softmax.temp.label');
    this.hint.textContent = t('panel.softmax.hint', { max: MAX_SCORES });
    // the focus token's row of the current trace (scaled and masked, before softmax)
    const tr = result;
    if (tr && tr.heads && tr.heads.length) {
      const h = clampIndex(state && state.head, tr.heads.length);
      const q = clampIndex(state && state.q, tr.config.n);
      const token = result.tokens[q] ?? String(q + 1);
      this.sentenceRow = {
        values: Array.from(rowOf(tr.heads[h].masked, q)),
        labels: result.tokens,
        temperature: tr.config.temperature,
        token,
        head: h + 1,
      };
      this.sentenceButton.hidden = false;
      this.sentenceButton.textContent = t('panel.softmax.preset.sentence', { token, head: h + 1 });
    } else {
      this.sentenceRow = null;
      this.sentenceButton.hidden = true;
    }
    this.compute();
  }

  /** The labels for the typed row: the preset's words while the text is the preset's row.
   * @param {number[]} values @returns {string[]} */
  labelsFor(values) {
    /** @param {number[]} [a] */
    const same = (a) =>
      a &&
      a.length === values.length &&
      a.every((x, i) => Object.is(Math.fround(x), Math.fround(values[i])));
    if (this.preset.id === 'sentence' && this.sentenceRow && same(this.sentenceRow.values))
      return this.sentenceRow.labels;
    if (this.preset.id !== 'sentence' && same(this.preset.scores)) {
      const words = this.t(`panel.softmax.preset.${this.preset.id}.labels`).split(/\s*[,，]\s*/);
      if (words.length === values.length) return words;
    }
    return values.map((_, j) => this.t('panel.softmax.col', { j: j + 1 }));
  }

  /** @param {string} code @param {Record<string, unknown>} [params] */
  showError(code, params = {}) {
    clear(this.steps);
    this.note.textContent = '';
    this.message.textContent = this.t(`panel.softmax.error.${code}`, params);
    this.message.classList.add('panel-error');
    this.scoresInput.setAttribute('aria-invalid', String(!code.startsWith('temp')));
    this.tempInput.setAttribute('aria-invalid', String(code.startsWith('temp')));
  }

  compute() {
    const parsed = parseScores(this.scoresInput.value);
    if (parsed.ok === false)
      return this.showError(parsed.code, {
        token: parsed.token,
        count: parsed.count,
        max: MAX_SCORES,
      });
    const temp = parseTemperature(this.tempInput.value, this.maxTemperature);
    if (temp.ok === false) return this.showError(temp.code, { max: this.maxTemperature });
    let s;
    try {
      s = this.core.softmaxSteps(parsed.values, temp.value);
    } catch (e) {
      const err = Object(e); // whatever was thrown, read as an object
      return this.showError(err.code === 'bad_temperature' ? 'temp_range' : 'core', {
        message: e && err.message,
        max: this.maxTemperature,
      });
    }
    this.scoresInput.setAttribute('aria-invalid', 'false');
    this.tempInput.setAttribute('aria-invalid', 'false');
    this.message.classList.remove('panel-error');
    this.message.textContent = '';
    this.renderNote(parsed.values);
    this.markPreset(parsed.values);
    this.renderSteps(s, this.labelsFor(parsed.values), temp.value);
  }

  /** aria-pressed on the preset whose row is in the field (none after the learner edits it).
   * @param {number[]} values */
  markPreset(values) {
    /** @param {number[]} [a] */
    const same = (a) =>
      a &&
      a.length === values.length &&
      a.every((x, i) => Object.is(Math.fround(x), Math.fround(values[i])));
    for (const p of PRESETS)
      this.presetButtons.get(p.id)?.setAttribute('aria-pressed', String(same(p.scores)));
    this.sentenceButton.setAttribute(
      'aria-pressed',
      String(Boolean(this.sentenceRow && same(this.sentenceRow.values))),
    );
  }

  /** @param {number[]} values */
  renderNote(values) {
    const t = this.t;
    const p = this.preset;
    clear(this.note);
    const same =
      p.scores &&
      p.scores.length === values.length &&
      p.scores.every((x, i) => Object.is(Math.fround(x), Math.fround(values[i])));
    if (!same) return;
    if (p.id === 'sentence' && this.sentenceRow) {
      this.note.textContent = t('panel.softmax.note.sentence', {
        token: this.sentenceRow.token,
        head: this.sentenceRow.head,
      });
      return;
    }
    if (!p.claimed) return;
    // the article's table against the exact softmax at temperature 1, both shown
    const exact = this.core.softmaxSteps(p.scores, 1).weights;
    /** @param {ArrayLike<number>} xs @param {number} d */
    const list = (xs, d) => Array.from(xs, (x) => fmt(x, d)).join(' / ');
    this.note.textContent = t('panel.softmax.note.illustrative', {
      claimed: list(p.claimed, 2),
      exact: list(exact, 3),
    });
  }

  /** @param {SoftmaxSteps} s @param {string[]} labels @param {number} temperature */
  renderSteps(s, labels, temperature) {
    const t = this.t;
    clear(this.steps);
    const n = s.input.length;
    const allMasked = s.max === -Infinity;
    // the check "weights add up to 1" is also the core's sum (a dot product with ones)
    const total = this.core.dotSteps(s.weights, new Float32Array(n).fill(1)).dot;
    const scalars = el('ol', { class: 'panel-step-list' }, [
      el('li', {}, [
        t('panel.softmax.step.max'),
        ' ',
        num(s.max, 'max', 0, 0, 4, 'span', 'panel-strong'),
      ]),
      el('li', {}, [
        t(temperature === 1 ? 'panel.softmax.step.shift' : 'panel.softmax.step.shiftTemp', {
          T: fmt(temperature, 3),
        }),
      ]),
      el('li', {}, [t('panel.softmax.step.exp')]),
      el('li', {}, [
        t('panel.softmax.step.sum'),
        ' ',
        num(s.sum, 'sum', 0, 0, 4, 'span', 'panel-strong'),
      ]),
      el('li', {}, [
        t('panel.softmax.step.divide'),
        ' ',
        num(total, 'weightsSum', 0, 0, 6, 'span', 'panel-strong'),
      ]),
    ]);
    if (allMasked)
      scalars.append(el('li', { class: 'panel-warn', text: t('panel.softmax.allMasked') }));

    const cols = [
      t('panel.softmax.col.label'),
      t('panel.softmax.col.score'),
      t(temperature === 1 ? 'panel.softmax.col.shifted' : 'panel.softmax.col.shiftedTemp'),
      t('panel.softmax.col.exp'),
      t('panel.softmax.col.weight'),
    ];
    const head = el(
      'tr',
      {},
      cols.map((c) => el('th', { scope: 'col', text: c })),
    );
    const body = el('tbody');
    for (let j = 0; j < n; j++) {
      const masked = s.input[j] === -Infinity;
      body.append(
        el('tr', { class: masked ? 'panel-masked' : null }, [
          el('th', { scope: 'row', class: 'panel-rowlabel', text: labels[j] }),
          el('td', { 'data-label': cols[1] }, [num(s.input[j], 'input', 0, j, 4)]),
          el('td', { 'data-label': cols[2] }, [num(s.shifted[j], 'shifted', 0, j, 4)]),
          el('td', { class: 'panel-barcell', 'data-label': cols[3] }, [
            bar(s.exps[j]),
            num(s.exps[j], 'exps', 0, j, 4),
          ]),
          el('td', { class: 'panel-barcell', 'data-label': cols[4] }, [
            bar(s.weights[j]),
            num(s.weights[j], 'weights', 0, j, 4, 'span', 'panel-strong'),
            el('span', {
              class: 'panel-aside',
              text: t('panel.common.percent', { p: fmt(s.weights[j] * 100, 1) }),
            }),
          ]),
        ]),
      );
    }
    const table = el('table', { class: 'panel-table' }, [
      el('caption', { text: t('panel.softmax.caption', { n }) }),
      el('thead', {}, [head]),
      body,
    ]);
    this.steps.append(
      scalars,
      el(
        'div',
        {
          class: 'panel-scroll',
          tabindex: '0',
          role: 'region',
          'aria-label': t('panel.softmax.caption', { n }),
        },
        [table],
      ),
    );
  }
}
