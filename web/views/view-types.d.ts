// view-types.d.ts: the types of what the wiring (playground.js) hands every view: the translator,
// the actions, the context object and a stage's model. For the type checker only (tsconfig.json);
// the trace and its parts are the package's types (types/index.d.ts).
import type { Layer, Matrix, Trace } from '../../types/index.js';
import type { Core } from '../core.js';
import type { Later } from './later.js';
import type { Says } from './dom.js';

/** A locale string by key, with its {placeholders} filled (i18n.js's Translator.t). */
export type Translate = (key: string, vars?: Record<string, unknown>) => string;

/** A trace as the stages show it: one layer's matrices (core.js layerView). */
export type ShownTrace = Trace & { layer?: number; layerCount?: number };

/** The followed token and the chosen head. */
export interface ViewState {
  q: number;
  head: number;
}

/** What a stage (and most views) draws: the shown trace and the followed token and head. */
export interface StageModel {
  result: ShownTrace;
  state: ViewState;
}

/** A stage of the walkthrough (walkthrough.js states the contract each one follows). */
export interface Stage {
  /** how many steps the stage's animation has */
  units(model: StageModel): number;
  render(model: StageModel): void;
  /** refreshes in place; false: the stage must be drawn anew */
  update?(model: StageModel): boolean | void;
  show(k: number): void;
  narrate(k: number): string | Says;
  active?(k: number): (Element | null | undefined)[];
  /** ms (at speed 1) that playing stays on step k */
  holdOf?(k: number, model: StageModel): number;
  /** the locale key of the stage's introduction when the common one is not true for the model */
  whatKey?(model: StageModel): string | null;
  /** set by the walkthrough: this show() only refreshes (no replay) */
  still?: boolean;
}

/** A view's way back to the wiring (playground.js builds them; a view calls only some). */
export interface Actions {
  setFocus(i: number): void;
  setHead(h: number): void;
  setSetting(name: string, value: unknown): void;
  setMany(changes: Record<string, unknown>): void;
  setText(text: string, immediate?: boolean): void;
  splitToken(i: number): void;
  gotoStage(i: number): void;
  gotoLayerStage(layer: number, i: number): void;
  scrubTo(k: number): void;
  /** a sentence for the narration line: plain text, or says()'s with its data-says */
  announce(said: string | Says): void;
  moveFocus(d: number): void;
  cycleHead(): void;
  toggleLang(): void;
  focusText(): void;
  hasCustomModel(): boolean;
  useCustomModel(): void;
  hasRealModel(): boolean;
  /** the real model's card (core.js realModel), or null without one */
  realInfo(): Record<string, unknown> | null;
  /** absent where no real-model module sits beside the page */
  loadReal?: (files: unknown, how?: unknown) => Promise<unknown>;
  unloadReal(): void;
  openHead(layer: number, head: number): void;
  /** the words naming a real model's head on a stage ('' for the other models) */
  realName?: (result: unknown, head: number, stage: unknown) => string;
  /** a real model's narration or title with its head named ('' before its views load) */
  realWords(kind: string, vars: Record<string, unknown>): string;
  errorText(e: unknown): string;
  waitForGuess(): void;
  guessMade(): void;
  rerender(): void;
  predictOn(): boolean;
}

/** The context views are built with; each view takes the fields it needs (Pick<ViewContext, ...>). */
export interface ViewContext {
  t: Translate;
  core: Core;
  actions: Actions;
  later: Later;
  /** the walkthrough's stage ids, in order */
  stages: readonly string[];
  /** resolves once the strings fetched with a view's code are in (i18n.js) */
  wholeStrings: () => Promise<unknown>;
  /** guesses per sentence and followed token (predict.js) */
  predictions: Map<string, number>;
  predictOn: () => boolean;
  /** whether the followed row's weights wait for the learner's guess (predict.js) */
  asking: () => boolean;
  /** the text the shown trace was computed from */
  sentence: () => string | undefined;
  /** every layer of the shown trace's model (traced again in full when the trace left them out) */
  layers: () => Layer[] | undefined;
}

/** A matrix as views take it: the core's, or one built in JS with plain numbers. */
export type MatrixLike = Matrix | { rows: number; cols: number; data: ArrayLike<number> };
