// frame.js: the iframe side of the embedding protocol (README, "Embedding"). It tells the parent
// window `ready`, `resize` {height}, `stepchange` {step, stage}, `change` {state, without the
// sentence and the followed token} and `error` {code, message}, and obeys `setSentence`,
// `goToStep` and `setOptions` — only from the parent window at the allowed origin (the `parent`
// URL key, else this page's own origin). Everything else — another window or origin, another
// protocol version, an unknown type or a malformed field — is ignored and counted
// (body[data-ignored-messages]). What the parent says is merged key by key (embed/commands.js)
// and applied once per task after the messages already sent: a flood of goToStep or setOptions
// costs one update, and what waits is never more than one entry per key. No DOM beyond measuring
// the body's height.
import { Commands } from './commands.js';

export const PREFIX = 'attention-playground:';
export const VERSION = 1;
/** Heights are reported rounded up to a multiple of this (CSS px), so the parent learns the
 *  page's size in coarse steps rather than line by line as the learner types (README, protocol). */
export const RESIZE_STEP = 120;

const isPlainObject = (/** @type {unknown} */ v) =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Whether a message from the parent is well formed: this protocol's version, a known type and
 *  fields of the right type (a step is a whole number, a sentence a string, options an object).
 *  @param {string} type @param {Record<string, unknown>} data */
export function wellFormed(type, data) {
  if (data.version !== VERSION) return false;
  if (type === 'setSentence') return typeof data.sentence === 'string';
  if (type === 'goToStep') return Number.isInteger(data.step);
  if (type === 'setOptions') return isPlainObject(data.options);
  return false;
}

/** The frame's side of the protocol: send() tells the parent an event; attach() hands it the
 *  playground its commands go to.
 *  @typedef {{send: (type: string, detail?: {state?: Record<string, unknown>,
 *               [field: string]: unknown}) => void,
 *             attach: (a: import('./commands.js').Commandable) => void}} ParentLink */

/** win: the framed window; parentOrigin: '' (same origin) or an origin from the URL.
 *  @param {Window} win @param {string} parentOrigin @returns {ParentLink | null} */
export function connectParent(win, parentOrigin) {
  const origin = parentOrigin || win.location.origin;
  const doc = win.document;
  if (!origin || origin === 'null') return null; // file:// without `parent`: nobody to talk to
  /** @type {import('./commands.js').Commandable | null} */
  let app = null;
  const waiting = new Commands();
  /** @type {any} */
  let flushTimer = 0;
  let ignored = 0;
  let lastHeight = 0;

  /** @param {string} type @param {Record<string, unknown>} [detail] */
  const post = (type, detail = {}) =>
    win.parent.postMessage({ ...detail, type: PREFIX + type, version: VERSION }, origin);
  // The learner's text stays in the frame (README, "What the parent learns"): `change` carries
  // the state without it, and without the followed token q, whose index (at first the first
  // pronoun's) says where in the text a pronoun is. A typed edit still sends a `change`, with
  // the other keys unchanged.
  /** @param {string} type @param {{state?: Record<string, unknown>, [field: string]: unknown}} [detail] */
  const send = (type, detail = {}) => {
    if (type !== 'change') return post(type, detail);
    const state = { ...detail.state };
    delete state.s;
    delete state.q;
    return post(type, { state });
  };

  // applied in a task of its own, queued behind the messages the parent has already sent
  const flush = () => {
    flushTimer = 0;
    if (app) waiting.applyTo(app);
  };
  /** @param {string} type @param {Record<string, unknown>} data */
  const handle = (type, data) => {
    if (type === 'setSentence') waiting.setSentence(data.sentence);
    else if (type === 'goToStep') waiting.goToStep(data.step);
    else if (type === 'setOptions') waiting.setOptions(data.options);
    if (app && !flushTimer) flushTimer = setTimeout(flush, 0);
  };

  win.addEventListener('message', (e) => {
    /** @type {unknown} */
    const raw = e.data; // anything any window posts
    if (!raw || typeof raw !== 'object') return;
    const data = /** @type {Record<string, unknown>} */ (raw);
    if (typeof data.type !== 'string' || !data.type.startsWith(PREFIX)) return;
    if (e.source !== win.parent || e.origin !== origin) {
      ignored++;
      doc.body.dataset.ignoredMessages = String(ignored);
      return;
    }
    const type = data.type.slice(PREFIX.length);
    if (!wellFormed(type, data)) {
      ignored++;
      doc.body.dataset.ignoredMessages = String(ignored);
      return;
    }
    handle(type, data);
  });

  const measure = () => {
    const h = Math.ceil(doc.body.getBoundingClientRect().height / RESIZE_STEP) * RESIZE_STEP;
    if (h !== lastHeight) {
      lastHeight = h;
      post('resize', { height: h });
    }
  };

  return {
    send,
    /** @param {import('./commands.js').Commandable} a */
    attach(a) {
      app = a;
      waiting.applyTo(app);
      new ResizeObserver(measure).observe(doc.body);
      measure();
    },
  };
}
