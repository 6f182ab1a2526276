// later.js: views out of sight (a stage's lower blocks, the other heads, a long bar list below
// the fold) are refreshed when they come near the viewport or when the page is idle (while the
// learner types: once the keys pause), not with the stage: only what the learner sees is redrawn
// at once. A view is any object with
// update(...args) and an element (`table` or `el`).
// One Later per playground (two widgets on a page never wait for each other's views):
// settled() says whether every view shows what it was last given; onSettle(fn) hears when that
// changes (the wiring marks the page, so tests and tools know when to read it).

/** A view Later refreshes: update(...args), its element (`table` or `el`), and what Later and the
 *  view note on it: whether it is on screen, watched, and left behind by its update (catchUp).
 *  @typedef {{update: (...args: any[]) => void, table?: Element, el?: Element, visible?: boolean,
 *    watched?: boolean, behind?: boolean, catchUp?: () => void}} LaterView */
/** A view's element, with the view it belongs to (for the IntersectionObserver's entries).
 *  @typedef {Element & {apView?: LaterView}} ViewElement */

/** @param {LaterView} view @returns {ViewElement} */
const elementOf = (view) => /** @type {Element} */ (view.table || view.el); // a view has one

/** Whether a key press or click is waiting for the main thread (Chromium's
 *  navigator.scheduling.isInputPending; false where there is none). */
export const inputPending = () =>
  /** @type {any} */ (navigator).scheduling?.isInputPending?.({ includeContinuous: false }) ===
  true;

/** How long typing must pause before views out of sight are redrawn (typing()). */
const QUIET_MS = 250;
/** A pending view's arguments when only its catchUp() is left to do.
 *  @type {unknown[]} */
const BEHIND = [];

export class Later {
  constructor() {
    /** @type {Map<LaterView, unknown[]>} view -> the arguments of its update() not yet applied */
    this.pending = new Map();
    /** @type {Set<(settled: boolean) => void>} */
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
   *  later, like a view out of sight.
   *  @param {LaterView} view @param {...unknown} args */
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
   *  `promise` ends (it should end after the view has drawn). Returns `promise`.
   *  @template T @param {Promise<T>} promise @returns {Promise<T>} */
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

  /** @param {(settled: boolean) => void} fn */
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

  /** an IntersectionObserver on the view's element, a little ahead of the viewport
   *  @param {LaterView} view */
  watch(view) {
    if (view.watched || typeof IntersectionObserver === 'undefined') return;
    if (!this.observer) {
      this.observer = new IntersectionObserver(
        (entries) => {
          for (const e of entries) {
            // every observed element has its view (watch)
            const v = /** @type {LaterView} */ (/** @type {ViewElement} */ (e.target).apView);
            if (!e.target.isConnected) {
              // its stage was drawn anew: forget it
              this.observer?.unobserve(e.target);
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

  /** @param {LaterView} view */
  flush(view) {
    const args = this.pending.get(view);
    if (!args) return;
    this.pending.delete(view);
    if (!elementOf(view).isConnected) {
      this.observer?.unobserve(elementOf(view));
      return;
    }
    if (args !== BEHIND) view.update(...args);
    // a view left behind has its catchUp
    if (view.behind) /** @type {Required<LaterView>} */ (view).catchUp();
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
    const run = (/** @type {IdleDeadline | undefined} */ deadline) => {
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
