// player-bar.js: the play / pause / step / scrub / replay / speed controls. It forwards clicks to
// the Player and reflects the Player's snapshot; it does not keep time itself.
import { el, writeOnce } from './dom.js';
import { SPEEDS } from '../player.js';
/** @typedef {import('./view-types.js').Translate} Translate */
/** @typedef {import('../player.js').Snapshot} Snapshot */

export class PlayerBar {
  /** @param {HTMLElement} root
   *  @param {{t: Translate, player: import('../player.js').Player}} ctx */
  constructor(root, { t, player }) {
    this.root = root;
    this.player = player;
    this.playing = false;
    // the controls (build)
    /** @type {Translate} */ this.t;
    /** @type {HTMLButtonElement} */ this.playBtn;
    /** @type {HTMLInputElement} */ this.scrubber;
    /** @type {HTMLSelectElement} */ this.speed;
    /** @type {HTMLElement} */ this.pos;
    /** @type {HTMLButtonElement} */ this.more;
    this.build(t);
  }

  /** @param {Translate} t */
  build(t) {
    const p = this.player;
    /** @param {string} cls @param {string} key @param {string} label @param {() => void} fn */
    const btn = (cls, key, label, fn) =>
      el('button', {
        class: `pbtn ${cls}`,
        text: label,
        type: 'button',
        'aria-label': t(key),
        title: t(key),
        on: { click: fn },
      });
    this.playBtn = btn('play', 'player.play', '▶', () => p.toggle());
    this.scrubber = el('input', {
      class: 'scrub',
      type: 'range',
      min: 0,
      max: 1,
      step: 1,
      value: 0,
      'aria-label': t('player.scrub'),
      on: {
        input: (/** @type {Event} */ e) =>
          p.scrub(+(/** @type {HTMLInputElement} */ (e.target).value)),
      },
    });
    this.speed = el(
      'select',
      {
        'aria-label': t('player.speed'),
        on: {
          change: (/** @type {Event} */ e) =>
            p.setSpeed(+(/** @type {HTMLSelectElement} */ (e.target).value)),
        },
      },
      SPEEDS.map((s) => el('option', { text: `${s}×`, value: s })),
    );
    this.speed.value = String(p.speed);
    this.pos = el('span', { class: 'ppos', 'aria-hidden': 'true' });
    // on a phone the secondary controls (stages, replay, speed, and the toolbar's layer and head
    // pickers) fold behind this button, so the sticky bar keeps one line (style.css)
    this.more = el('button', {
      class: 'pbtn more',
      text: '⋯',
      type: 'button',
      'aria-label': t('player.more'),
      title: t('player.more'),
      'aria-expanded': 'false',
      on: { click: () => this.unfold(!this.bar().hasAttribute('data-more')) },
    });
    this.t = t;
    this.root.replaceChildren(
      btn('prev-stage', 'player.prevStage', '«', () => p.prevStage()),
      btn('step-back', 'player.stepBack', '◀|', () => p.stepBack()),
      this.playBtn,
      btn('step-fwd', 'player.stepFwd', '|▶', () => p.stepForward()),
      btn('next-stage', 'player.nextStage', '»', () => p.nextStage()),
      btn('replay', 'player.replay', '↺', () => p.replay()),
      el('label', { class: 'speed' }, [el('span', { text: t('player.speedShort') }), this.speed]),
      this.scrubber,
      this.pos,
      this.more,
    );
  }

  bar() {
    return this.root.closest('.toolbar') || this.root;
  }

  // open: the folded controls show under the one line; closed: they fold behind ⋯ again, and a
  // focus inside them moves to ⋯ (it would be lost on a control that is not shown any more)
  /** @param {boolean} open */
  unfold(open) {
    const bar = this.bar();
    bar.toggleAttribute('data-more', open);
    this.more.setAttribute('aria-expanded', String(open));
    const focused = /** @type {Document | ShadowRoot} */ (this.root.getRootNode()).activeElement;
    if (!open && focused instanceof HTMLElement && bar.contains(focused) && !focused.offsetParent)
      this.more.focus();
  }

  // written only when they differ (util.writeOnce): a keystroke refreshes the bar with the same
  // snapshot, and setting a range input's value or a button's text costs a layout even unchanged
  /** @param {Snapshot} snap */
  update(snap) {
    // play (▶, ↺ from under ⋯, a shortcut) folds the controls again: while the stage plays the
    // sticky bar is one line of controls over the narration, not two more rows
    if (snap.playing && !this.playing && this.bar().hasAttribute('data-more')) this.unfold(false);
    this.playing = snap.playing;
    writeOnce(this.playBtn, 'text', snap.playing ? '❚❚' : '▶');
    const label = this.t(snap.playing ? 'player.pause' : 'player.play');
    writeOnce(this.playBtn, 'aria-label', label);
    writeOnce(this.playBtn, 'title', label);
    writeOnce(this.playBtn, 'aria-pressed', String(snap.playing));
    if (this.scrubber.max !== String(snap.units)) this.scrubber.max = String(snap.units);
    if (this.scrubber.value !== String(snap.k)) this.scrubber.value = String(snap.k);
    writeOnce(
      this.scrubber,
      'aria-valuetext',
      this.t('player.pos', { k: snap.k, units: snap.units }),
    );
    writeOnce(this.pos, 'text', `${snap.k}/${snap.units}`);
    if (this.speed.value !== String(snap.speed)) this.speed.value = String(snap.speed);
  }
}
