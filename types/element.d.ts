// element.d.ts: the types of <attention-playground> (package.json exports "./element", the ES
// module that defines it; the classic script attention-playground.js defines the same element).
// Hand-written against web/embed/element.js; dist/custom-elements.json describes the same
// attributes and events (tests/browser/package.test.mjs checks they agree).

/** The playground's state: its URL keys and their values (`s` is the sentence). */
export interface PlaygroundState {
  s: string;
  /** an unsigned 64-bit integer as a decimal string */
  seed: string;
  model: string;
  heads: number;
  dmodel: number;
  dk: number;
  causal: boolean;
  scale: boolean;
  temp: number;
  tie: boolean;
  pos: boolean;
  max: number;
  /** 1 to 9 */
  step: number;
  head: number;
  layer: number;
  q: number;
  predict: boolean | null;
  lang: '' | 'en' | 'zh';
  theme: '' | 'auto' | 'light' | 'dark';
  /** a comma list of parts to hide */
  hide: string;
  /** a converted real model's http(s) address (.apm), downloaded and shown; '' for none */
  'model-src': string;
}

/** What the widget shows (a copy): heads[h].weights[i][j] = head h's weight of query i on key j. */
export interface PlaygroundTrace {
  sentence: string;
  tokens: string[];
  config: { n: number; heads: number; d_k: number; causal: boolean; [field: string]: unknown };
  heads: { weights: number[][] }[];
}

/** event.detail of each of the element's events. */
export interface AttentionPlaygroundEventDetails {
  /** the first trace is shown */
  ready: { step: number; stage: string; appVersion: string };
  /** the shown stage changes */
  stepchange: { step: number; stage: string };
  /** the state changed after ready, once per change */
  change: { state: PlaygroundState };
  /** the core refused the input, or the widget could not start (boot_failed, unsupported);
   *  does not bubble */
  error: { code: string; message: string };
  /** the model named by model-src is downloading: bytes so far and of the total (0: unknown) */
  modelprogress: { loaded: number; total: number };
  /** the model named by model-src is loaded and shown; name is its card's */
  modelload: { address: string; name: string };
}

export type AttentionPlaygroundEventMap = {
  [K in keyof AttentionPlaygroundEventDetails]: CustomEvent<AttentionPlaygroundEventDetails[K]>;
};

export class AttentionPlayground extends HTMLElement {
  /** A copy of what the widget shows; null before `ready`. Read-only. */
  readonly trace: PlaygroundTrace | null;
  /** Settles when the widget has started (or failed to). */
  readonly ready: Promise<void>;
  setSentence(sentence: string): void;
  /** 1 to 9 */
  goToStep(step: number): void;
  /** Several URL keys at once (`sentence` may stand for `s`); bad values are ignored or clamped. */
  setOptions(options: Partial<PlaygroundState> & { sentence?: string }): void;

  addEventListener<K extends keyof AttentionPlaygroundEventMap>(
    type: K,
    listener: (this: AttentionPlayground, ev: AttentionPlaygroundEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener<K extends keyof HTMLElementEventMap>(
    type: K,
    listener: (this: AttentionPlayground, ev: HTMLElementEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | AddEventListenerOptions,
  ): void;
  removeEventListener<K extends keyof AttentionPlaygroundEventMap>(
    type: K,
    listener: (this: AttentionPlayground, ev: AttentionPlaygroundEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
  removeEventListener<K extends keyof HTMLElementEventMap>(
    type: K,
    listener: (this: AttentionPlayground, ev: HTMLElementEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
  removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | EventListenerOptions,
  ): void;
}

declare global {
  interface HTMLElementTagNameMap {
    'attention-playground': AttentionPlayground;
  }
}
