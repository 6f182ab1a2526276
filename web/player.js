// player.js: the walkthrough's clock. It owns which stage is shown and how far its animation has
// got (k of `units` small steps), and plays, pauses, steps, scrubs, replays and changes speed.
// It knows nothing about attention or the DOM; it calls onChange(snapshot) when anything moves.

export const SPEEDS = Object.freeze([0.5, 1, 2, 4]);

/** Where the walkthrough is: the stage, its step k of `units`, and the clock's state.
 * @typedef {{stage: number, k: number, units: number, playing: boolean, speed: number}} Snapshot */
/** The animation clock: the time now, and a frame requested and cancelled.
 * @typedef {{now: () => number, request: (fn: FrameRequestCallback) => number,
 *   cancel: (id: number) => void}} Clock */

export class Player {
  /**
   * @param {object} o
   * @param {number} o.stages        number of stages
   * @param {(stage:number)=>number} o.unitsOf  how many small steps a stage's animation has
   * @param {(stage:number, k:number)=>number} [o.holdOf]  ms (at speed 1) that playing stays on
   *   step k of a stage before going on; 0 for most steps (a stage's slow, explained steps)
   * @param {(snap: Snapshot, why: string) => void} o.onChange
   * @param {boolean} [o.reducedMotion]  no in-between frames: a stage is shown whole
   * @param {Clock} [o.clock]  {now(), request(fn), cancel(id)} (tests may pass a fake)
   */
  constructor({ stages, unitsOf, holdOf = () => 0, onChange, reducedMotion = false, clock }) {
    this.stages = stages;
    this.unitsOf = unitsOf;
    this.holdOf = holdOf;
    this.onChange = onChange;
    this.reducedMotion = reducedMotion;
    /** @type {Clock} */
    this.clock = clock || {
      now: () => performance.now(),
      request: (fn) => requestAnimationFrame(fn),
      cancel: (id) => cancelAnimationFrame(id),
    };
    this.stage = 0;
    this.units = Math.max(0, unitsOf(0));
    this.k = this.units; // a stage opens fully drawn; "replay" animates it
    this.playing = false;
    this.speed = 1;
    this.frameId = 0;
    this.lastTime = 0;
    this.acc = 0; // fractional units (or hold time) accumulated between frames
    this.holding = 0; // ms left to hold a finished stage before moving on
    this.stepHold = 0; // ms left on a step the stage asked to stay on (holdOf)
    this.tick = this.tick.bind(this);
  }

  /** @returns {Snapshot} */
  snapshot() {
    return {
      stage: this.stage,
      k: this.k,
      units: this.units,
      playing: this.playing,
      speed: this.speed,
    };
  }

  /** @param {string} why */
  emit(why) {
    this.onChange(this.snapshot(), why);
  }

  /** Units per second at speed 1: short stages go slowly, long ones finish in about 6 s. */
  rate() {
    return Math.max(1.5, this.units / 6) * this.speed;
  }

  /** Re-read the unit count (after a new trace); keeps the position when it still fits. */
  refresh() {
    const finished = this.k >= this.units;
    this.units = Math.max(0, this.unitsOf(this.stage));
    this.k = finished ? this.units : Math.min(this.k, this.units);
    this.emit('refresh');
  }

  /** @param {number} stage @param {{atStart?: boolean}} [o] */
  goto(stage, { atStart = false } = {}) {
    this.stage = Math.min(this.stages - 1, Math.max(0, stage));
    this.units = Math.max(0, this.unitsOf(this.stage));
    this.k = atStart && !this.reducedMotion ? 0 : this.units;
    this.holding = 0;
    this.stepHold = this.k < this.units ? this.holdOf(this.stage, this.k) / this.speed : 0;
    this.emit('stage');
  }

  nextStage() {
    if (this.stage < this.stages - 1) this.goto(this.stage + 1, { atStart: this.playing });
  }
  prevStage() {
    if (this.stage > 0) this.goto(this.stage - 1);
  }

  stepForward() {
    this.pause();
    if (this.k < this.units) {
      this.k++;
      this.emit('step');
    } else this.nextStageAtStart();
  }

  nextStageAtStart() {
    if (this.stage < this.stages - 1) this.goto(this.stage + 1, { atStart: true });
  }

  stepBack() {
    this.pause();
    if (this.k > 0) {
      this.k--;
      this.emit('step');
    } else if (this.stage > 0) this.goto(this.stage - 1);
  }

  /** @param {number} k */
  scrub(k) {
    this.pause();
    this.k = Math.min(this.units, Math.max(0, Math.round(k)));
    this.emit('scrub');
  }

  /** @param {number} s */
  setSpeed(s) {
    if (SPEEDS.includes(s)) {
      this.speed = s;
      this.emit('speed');
    }
  }

  replay() {
    this.k = this.reducedMotion ? this.units : 0;
    this.play();
  }

  play() {
    if (this.playing) return;
    if (this.k >= this.units && this.stage === this.stages - 1)
      this.k = this.reducedMotion ? this.units : 0;
    this.playing = true;
    this.acc = 0;
    this.holding = this.k >= this.units ? this.holdMs() : 0;
    this.stepHold = this.k < this.units ? this.holdOf(this.stage, this.k) / this.speed : 0;
    this.lastTime = this.clock.now();
    this.frameId = this.clock.request(this.tick);
    this.emit('play');
  }

  pause() {
    if (!this.playing) return;
    this.playing = false;
    this.clock.cancel(this.frameId);
    this.emit('pause');
  }

  toggle() {
    if (this.playing) this.pause();
    else this.play();
  }

  holdMs() {
    return (this.reducedMotion ? 3500 : 1200) / this.speed;
  }

  tick() {
    if (!this.playing) return;
    const now = this.clock.now();
    const dt = Math.min(250, now - this.lastTime);
    this.lastTime = now;
    if (this.k < this.units && this.stepHold > 0) {
      this.stepHold -= dt;
    } else if (this.k < this.units) {
      this.acc += (dt / 1000) * this.rate();
      const whole = Math.floor(this.acc);
      if (whole > 0) {
        this.acc -= whole;
        // never run past a step the stage wants held: stop on it and stay
        let to = Math.min(this.units, this.k + whole);
        for (let j = this.k + 1; j <= to; j++) {
          const hold = this.holdOf(this.stage, j);
          if (hold > 0) {
            to = j;
            this.stepHold = hold / this.speed;
            this.acc = 0;
            break;
          }
        }
        this.k = to;
        if (this.k >= this.units) this.holding = this.holdMs();
        this.emit('frame');
      }
    } else if (this.holding > 0) {
      this.holding -= dt;
    } else if (this.stage < this.stages - 1) {
      this.goto(this.stage + 1, { atStart: true });
      if (this.k >= this.units) this.holding = this.holdMs();
    } else {
      this.pause();
      return;
    }
    this.frameId = this.clock.request(this.tick);
  }
}
