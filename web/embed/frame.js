// frame.js: the iframe side of the embedding protocol (README, "Embedding"). It tells the parent
// window `ready`, `resize` {height}, `stepchange` {step, stage}, `change` {state, without the
// sentence} and `error` {code, message}, and obeys `setSentence`,
// `goToStep` and `setOptions` — only from the parent window at the allowed origin (the `parent`
// URL key, else this page's own origin). Everything else — another window or origin, another
// protocol version, an unknown type or a malformed field — is ignored and counted
// (body[data-ignored-messages]). No DOM beyond measuring the body's height.

export const PREFIX = 'attention-playground:';
export const VERSION = 1;
/** Heights are reported rounded up to a multiple of this (CSS px), so the parent learns the
 *  page's size in coarse steps rather than line by line as the learner types (README, protocol). */
export const RESIZE_STEP = 120;

const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Whether a message from the parent is well formed: this protocol's version, a known type and
 *  fields of the right type (a step is a whole number, a sentence a string, options an object). */
export function wellFormed(type, data) {
  if (data.version !== VERSION) return false;
  if (type === 'setSentence') return typeof data.sentence === 'string';
  if (type === 'goToStep') return Number.isInteger(data.step);
  if (type === 'setOptions') return isPlainObject(data.options);
  return false;
}

/** win: the framed window; parentOrigin: '' (same origin) or an origin from the URL. */
export function connectParent(win, parentOrigin) {
  const origin = parentOrigin || win.location.origin;
  const doc = win.document;
  if (!origin || origin === 'null') return null; // file:// without `parent`: nobody to talk to
  let app = null;
  const queue = [];
  let ignored = 0;
  let lastHeight = 0;

  const post = (type, detail = {}) =>
    win.parent.postMessage({ ...detail, type: PREFIX + type, version: VERSION }, origin);
  // The learner's text stays in the frame (README, "What the parent learns"): `change` carries
  // the state without it (a typed edit still sends a `change`, with the other keys unchanged).
  const send = (type, detail = {}) => {
    if (type !== 'change') return post(type, detail);
    const state = { ...detail.state };
    delete state.s;
    return post(type, { state });
  };

  const handle = (type, data) => {
    if (type === 'setSentence') app.setSentence(data.sentence);
    else if (type === 'goToStep') app.goToStep(data.step);
    else if (type === 'setOptions') app.setOptions(data.options);
  };

  win.addEventListener('message', (e) => {
    const data = e.data;
    if (!data || typeof data.type !== 'string' || !data.type.startsWith(PREFIX)) return;
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
    if (app) handle(type, data);
    else queue.push([type, data]);
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
    attach(a) {
      app = a;
      for (const [type, data] of queue.splice(0)) handle(type, data);
      new ResizeObserver(measure).observe(doc.body);
      measure();
    },
  };
}
