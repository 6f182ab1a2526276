// walkthrough.js: the stage list and the stage panel. It owns one view per stage, draws only the
// stage being shown (others are redrawn lazily when reached) and asks it to show progress k.
// Not the clock (player.js) and not the wiring (main.js).
import { el } from './util.js';
import { TokensStage } from './tokens.js';
import { EmbedStage } from './embed.js';
import { ProjectStage } from './project.js';
import { ScoreStage } from './score.js';
import { ScaleStage } from './scale.js';
import { MaskStage } from './mask.js';
import { SoftmaxStage } from './softmax.js';
import { MixStage } from './mix.js';
import { HeadsStage } from './heads.js';

const CLASSES = [TokensStage, EmbedStage, ProjectStage, ScoreStage, ScaleStage, MaskStage, SoftmaxStage, MixStage, HeadsStage];

export class Walkthrough {
  /** @param {object} dom {nav, title, what, body}  @param {object} ctx {core, t, actions, stages} */
  constructor(dom, ctx) {
    this.dom = dom;
    this.ctx = ctx;
    this.stages = CLASSES.map((C) => new C(dom.body, ctx));
    this.drawn = -1;   // which stage the body currently holds
    this.model = null;
    this.current = 0;
    this.buildNav();
  }

  buildNav() {
    const { t, stages, actions } = this.ctx;
    this.navButtons = stages.map((id, i) => el('button', {
      class: 'stage-btn', attrs: { type: 'button', 'data-stage': id },
      on: { click: () => actions.gotoStage(i) },
    }, [el('span', { class: 'num', text: String(i + 1) }), el('span', { class: 'name', text: t(`stage.${id}.short`) })]));
    this.dom.nav.replaceChildren(...this.navButtons.map((b) => el('li', {}, [b])));
  }

  setTranslator(t) { this.ctx.t = t; this.buildNav(); this.drawn = -1; }

  // A new trace (or focus/head): the shown stage refreshes in place if it can (update(model) !==
  // false), else it is drawn anew; other stages are drawn when reached.
  setModel(model) { this.model = model; this.stale = true; }

  units(stage) { return this.model ? this.stages[stage].units(this.model) : 0; }

  show(snap) {
    if (!this.model) return;
    const { t, stages } = this.ctx;
    const view = this.stages[snap.stage];
    const fresh = this.drawn === snap.stage && (!this.stale || (view.update && view.update(this.model) !== false));
    this.stale = false;
    if (!fresh) {
      const id = stages[snap.stage];
      this.dom.title.textContent = `${snap.stage + 1}. ${t(`stage.${id}.title`)}`;
      this.dom.what.textContent = t(`stage.${id}.what`);
      this.dom.body.dataset.stage = id;
      view.render(this.model);
      this.drawn = snap.stage;
      this.navButtons.forEach((b, i) => {
        if (i === snap.stage) b.setAttribute('aria-current', 'step'); else b.removeAttribute('aria-current');
        b.classList.toggle('done', i < snap.stage);
      });
    }
    view.show(snap.k);
    this.current = snap.stage;
  }

  narrate(snap) { return this.model && this.drawn === snap.stage ? this.stages[snap.stage].narrate(snap.k) : ''; }
}
