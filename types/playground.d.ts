// playground.d.ts: the types of mountPlayground (package.json exports "./playground"), a playground
// in the shadow root of any element. Hand-written against web/lib/playground.js.
import type {
  AttentionPlaygroundEventDetails,
  PlaygroundState,
  PlaygroundTrace,
} from './element.js';

export type {
  AttentionPlaygroundEventDetails,
  PlaygroundState,
  PlaygroundTrace,
} from './element.js';

export interface MountOptions {
  /** the initial state: URL keys and values (`sentence` may stand for `s`) */
  state?: Partial<PlaygroundState> & { sentence?: string };
  /** ready, stepchange, change and error, with the element's event details */
  onEvent?: <K extends keyof AttentionPlaygroundEventDetails>(
    type: K,
    detail: AttentionPlaygroundEventDetails[K],
  ) => void;
}

/** A mounted playground. */
export interface Playground {
  setSentence(sentence: string): void;
  goToStep(step: number): void;
  setOptions(options: Partial<PlaygroundState> & { sentence?: string }): void;
  /** A copy of what it shows; null before its first trace. */
  traceSnapshot(): PlaygroundTrace | null;
  /** Stops it and frees its core session. */
  destroy(): void;
}

/** Mounts a playground in host's shadow root (created if needed). Rejects, after showing the
 *  reason in the host, when the browser lacks what it needs. */
export function mountPlayground(host: HTMLElement, options?: MountOptions): Promise<Playground>;
