// later.js: views out of sight (a stage's lower blocks, the other heads, a long bar list below
// the fold) are refreshed when they come near the viewport or when the page is idle (while the
// learner types: once the keys pause), not with the stage: only what the learner sees is redrawn
// at once. A view is any object with
// update(...args) and an element (`table` or `el`).
// One Later per playground (two widgets on a page never wait for each other's views):
// settled() says whether every view shows what it was last given; onSettle(fn) hears when that
// changes (the wiring marks the page, so tests and tools know when to read it).

const elementOf = (view) => view.table || view.el;

/** Whether a key press or click is waiting for the main thread (Chromium's
 *  navigator.scheduling.isInputPending; false where there is none). */
export const inputPending = () =>
  /** @type {any} */ (navigator).scheduling?.isInputPending?.({ includeContinuous: false }) ===
  true;

/** How long typing must pause before views out of sight are redrawn (typing()). */
const QUIET_MS = 250;
/** A pending view's arguments when only its catchUp() is left to do. */
const BEHIND = [];

export class Later {
  constructor() {
    this.pending = new Map(); // view -> the arguments of its update() not yet applied
    this.listeners = new Set();
    /** @type {IntersectionObserver | null} */
    this.observer = null;
    /** @type {any} an idle callback or timeout handle, 0 when none is scheduled */
    this.idle = 0;
    /** @type {any} the timer that waits for typing to pause (schedule), 0 when none runs */
    this.quiet = 0;
    this.quietUntil = 0;
    this.loading = 0; // code being fetched for a view that will draw when it arrives (wait)
  }

  /** view.update(...args) now if the view is on screen (or not yet watched), else later. A view
   *  left `behind` by its update (a compact table's hidden cells, MatrixTable.catchUp) catches up
   *  later, like a view out of sight. */
  refresh(view, ...args) {
    this.watch(view);
    if (view.visible !== false) {
      this.pending.delete(view);
      view.update(...args);
      if (view.behind) {
        this.pending.set(view, BEHIND);
        this.schedule();
      }
    } else {
      this.pending.set(view, args);
      this.schedule();
    }
    this.tell();
  }

  settled() {
    return this.pending.size === 0 && this.loading === 0;
  }

  /** A view whose code is still being fetched has not drawn yet: the page is not settled until
   *  `promise` ends (it should end after the view has drawn). Returns `promise`. */
  wait(promise) {
    this.loading += 1;
    this.tell();
    const done = () => {
      this.loading -= 1;
      this.tell();
    };
    promise.then(done, done);
    return promise;
  }

  onSettle(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Stops watching and forgets every view (the playground is being removed). */
  destroy() {
    this.observer?.disconnect();
    if (this.idle)
      (typeof cancelIdleCallback === 'function' ? cancelIdleCallback : clearTimeout)(this.idle);
    this.idle = 0;
    clearTimeout(this.quiet);
    this.quiet = 0;
    this.pending.clear();
    this.listeners.clear();
  }

  // an IntersectionObserver on the view's element, a little ahead of the viewport
  watch(view) {
    if (view.watched || typeof IntersectionObserver === 'undefined') return;
    if (!this.observer) {
      this.observer = new IntersectionObserver(
        (entries) => {
          for (const e of entries) {
            const v = /** @type {any} */ (e.target).apView;
            if (!e.target.isConnected) {
              // its stage was drawn anew: forget it
              this.observer.unobserve(e.target);
              this.pending.delete(v);
              continue;
            }
            v.visible = e.isIntersecting;
            if (v.visible) this.flush(v);
          }
          this.tell();
        },
        { rootMargin: '100px' },
      );
    }
    view.watched = true;
    elementOf(view).apView = view;
    this.observer.observe(elementOf(view));
  }

  flush(view) {
    const args = this.pending.get(view);
    if (!args) return;
    this.pending.delete(view);
    if (!elementOf(view).isConnected) {
      this.observer?.unobserve(elementOf(view));
      return;
    }
    if (args !== BEHIND) view.update(...args);
    if (view.behind) view.catchUp();
  }

  /** Refreshes are coming one per keystroke: views out of sight wait until the keys pause for
   *  QUIET_MS (redrawing them after every key was more work than the key's own frame, and the
   *  next key's frame paid for what was left). */
  typing() {
    this.quietUntil = performance.now() + QUIET_MS;
    if (this.idle) {
      (typeof cancelIdleCallback === 'function' ? cancelIdleCallback : clearTimeout)(this.idle);
      this.idle = 0;
    }
    if (this.pending.size) this.schedule();
  }

  // After typing has paused (typing()), then when the page is idle, a few views at a time (while
  // the idle period lasts), so a keystroke arriving meanwhile waits for one view at most.
  schedule() {
    if (this.idle) return;
    const wait = this.quietUntil - performance.now();
    if (wait > 0) {
      clearTimeout(this.quiet);
      this.quiet = setTimeout(() => {
        this.quiet = 0;
        this.schedule();
      }, wait);
      return;
    }
    this.whenIdle();
  }

  whenIdle() {
    if (this.idle) return;
    const run = (deadline) => {
      this.idle = 0;
      let done = 0;
      for (const v of [...this.pending.keys()]) {
        // in an idle moment, while it lasts; when none came for 200 ms (steady typing), one view
        if (deadline && (deadline.didTimeout ? done > 0 : deadline.timeRemaining() < 4)) break;
        if (done > 0 && inputPending()) break; // a key is waiting: it goes first
        this.flush(v);
        done += 1;
      }
      if (this.pending.size) this.whenIdle();
      this.tell();
    };
    this.idle =
      typeof requestIdleCallback === 'function'
        ? requestIdleCallback(run, { timeout: 200 })
        : setTimeout(run, 50);
  }

  tell() {
    for (const fn of this.listeners) fn(this.settled());
  }
}
