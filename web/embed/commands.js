// commands.js: commands from outside (setSentence, goToStep, setOptions) that wait for the
// playground, merged key by key: a key keeps only its last value, in the place of its last
// command, so applying them gives what applying each in order would, and there is never more than
// one entry per URL key of the table (keys the table does not know are dropped here, as
// setOptions would ignore them). The element queues what it is told while it loads; the iframe
// also what arrives between two frames. Not the reading of the values (outside-api.js).
import { TABLE, urlKey } from '../state.js';

const KNOWN = new Set(TABLE.map((e) => e.name));

/** What the commands are applied to: a playground (playground.js's App). Each reads its value.
 *  @typedef {{setSentence(s: unknown): void, goToStep(step: unknown): void,
 *             setOptions(options: unknown): void}} Commandable */

export class Commands {
  constructor() {
    /** URL key -> {how: 'sentence' | 'step' | 'option', value}, in the order last set
     *  @type {Map<string, {how: 'sentence' | 'step' | 'option', value: unknown}>} */
    this.keys = new Map();
  }

  get size() {
    return this.keys.size;
  }

  /** @param {string} key @param {'sentence' | 'step' | 'option'} how @param {unknown} value */
  put(key, how, value) {
    this.keys.delete(key); // moves to the end: after whatever came before it
    this.keys.set(key, { how, value });
  }

  /** @param {unknown} s */
  setSentence(s) {
    if (typeof s === 'string') this.put('s', 'sentence', s);
  }

  /** @param {unknown} step */
  goToStep(step) {
    this.put('step', 'step', step);
  }

  /** @param {unknown} options */
  setOptions(options) {
    if (!options || typeof options !== 'object') return;
    for (const [name, value] of Object.entries(options)) {
      const key = urlKey(name);
      if (KNOWN.has(key)) this.put(key, 'option', value);
    }
  }

  /** Hands every waiting command to `app` in order (runs of options as one setOptions call) and
   *  empties the queue.
   *  @param {Commandable} app */
  applyTo(app) {
    const entries = [...this.keys];
    this.keys.clear();
    /** @type {Record<string, unknown> | null} */
    let options = null;
    const flush = () => {
      if (options) app.setOptions(options);
      options = null;
    };
    for (const [key, { how, value }] of entries) {
      if (how === 'option') {
        options ??= {};
        options[key] = value;
        continue;
      }
      flush();
      if (how === 'sentence') app.setSentence(value);
      else app.goToStep(value);
    }
    flush();
  }
}
