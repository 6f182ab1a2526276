// later.js: views out of sight (a stage's lower blocks, the other heads, a long bar list below
// the fold) are refreshed when they come near the viewport or when the page is idle, not inside
// the keystroke's frame: only what the learner sees is redrawn at once (issue 7: a keystroke
// repaints within a frame). A view is any object with update(...args) and an element (`table`
// or `el`). settled() says whether every view shows what it was last given; onSettle(fn) hears
// when that changes (the wiring marks the page, so tests and tools know when to read it).

const pending = new Map();   // view -> the arguments of its update() not yet applied
const listeners = new Set();
let observer = null;
let idle = 0;

const elementOf = (view) => view.table || view.el;

/** view.update(...args) now if the view is on screen (or not watched yet), else a little later. */
export function refresh(view, ...args) {
  watch(view);
  if (view.visible !== false) {
    pending.delete(view);
    view.update(...args);
  } else {
    pending.set(view, args);
    schedule();
  }
  tell();
}

export function settled() { return pending.size === 0; }

export function onSettle(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

// an IntersectionObserver on the view's element, a little ahead of the viewport
function watch(view) {
  if (view.watched || typeof IntersectionObserver === 'undefined') return;
  if (!observer) {
    observer = new IntersectionObserver((entries) => {
      for (const e of entries) {
        const v = e.target.apView;
        if (!e.target.isConnected) {   // its stage was drawn anew: forget it
          observer.unobserve(e.target);
          pending.delete(v);
          continue;
        }
        v.visible = e.isIntersecting;
        if (v.visible) flush(v);
      }
      tell();
    }, { rootMargin: '100px' });
  }
  view.watched = true;
  elementOf(view).apView = view;
  observer.observe(elementOf(view));
}

function flush(view) {
  const args = pending.get(view);
  if (!args) return;
  pending.delete(view);
  if (elementOf(view).isConnected) view.update(...args);
  else observer.unobserve(elementOf(view));
}

// When the page is idle, a few views at a time (while the idle period lasts), so a keystroke
// arriving meanwhile waits for one view at most.
function schedule() {
  if (idle) return;
  const run = (deadline) => {
    idle = 0;
    let done = 0;
    for (const v of [...pending.keys()]) {
      // in an idle moment, while it lasts; when none came for 200 ms (steady typing), one view
      if (deadline && (deadline.didTimeout ? done > 0 : deadline.timeRemaining() < 4)) break;
      flush(v);
      done += 1;
    }
    if (pending.size) schedule();
    tell();
  };
  idle = typeof requestIdleCallback === 'function' ? requestIdleCallback(run, { timeout: 200 }) : setTimeout(run, 50);
}

function tell() { for (const fn of listeners) fn(pending.size === 0); }
