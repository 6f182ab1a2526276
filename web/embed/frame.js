// frame.js: the iframe side of the embedding protocol (README, "Embedding"). It tells the parent
// window `ready`, `resize` {height} and `stepchange` {step, stage}, and obeys `setSentence`,
// `goToStep` and `setOptions` — only from the parent window at the allowed origin (the `parent`
// URL key, else this page's own origin). Everything else is ignored and counted. No DOM beyond
// measuring the body's height.

export const PREFIX = 'attention-playground:';
export const VERSION = 1;

/** win: the framed window; parentOrigin: '' (same origin) or an origin from the URL. */
export function connectParent(win, parentOrigin) {
  const origin = parentOrigin || win.location.origin;
  const doc = win.document;
  if (!origin || origin === 'null') return null;   // file:// without `parent`: nobody to talk to
  let app = null;
  const queue = [];
  let ignored = 0;
  let lastHeight = 0;

  const send = (type, detail = {}) => win.parent.postMessage({ ...detail, type: PREFIX + type, version: VERSION }, origin);

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
    if (app) handle(type, data);
    else queue.push([type, data]);
  });

  const measure = () => {
    const h = Math.ceil(doc.body.getBoundingClientRect().height);
    if (h !== lastHeight) {
      lastHeight = h;
      send('resize', { height: h });
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
