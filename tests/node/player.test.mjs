// player.test.mjs: the walkthrough's clock (web/player.js) under a fake clock: steps a stage asks
// to hold (holdOf) are never skipped while playing and stay on screen for their time, scaled by
// the speed; other steps go by at the stage's rate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Player } from '../../web/player.js';

/** A clock the test moves by hand: frames run only when advance() is called. */
function fakeClock() {
  let now = 0;
  let next = null;
  return {
    now: () => now,
    request: (fn) => {
      next = fn;
      return 1;
    },
    cancel: () => {
      next = null;
    },
    /** ms of frames of `frame` ms each */
    advance(ms, frame = 16) {
      for (let t = 0; t < ms; t += frame) {
        now += frame;
        const fn = next;
        next = null;
        if (fn) fn();
      }
    },
  };
}

/** A player over one stage of `units` steps holding `holds` {k: ms}; records each step shown. */
function playerWith(units, holds) {
  const clock = fakeClock();
  const seen = [];
  const player = new Player({
    stages: 2,
    unitsOf: (s) => (s === 0 ? units : 10),
    holdOf: (s, k) => (s === 0 ? holds[k] || 0 : 0),
    onChange: (snap) => {
      if (snap.stage === 0) seen.push({ k: snap.k, at: clock.now() });
    },
    clock,
  });
  return { player, clock, seen };
}

test('held steps are each shown while playing, for their time; the rest at the stage rate', () => {
  // 600 units: 100 units/s at speed 1, so a 16 ms frame moves 1.6 units and would skip steps
  const { player, clock, seen } = playerWith(600, { 0: 500, 1: 500, 2: 500, 3: 500 });
  player.goto(0, { atStart: true });
  player.play();
  clock.advance(1200);
  // steps 0 and 1 held 500 ms each: after 1.2 s the player is on step 2
  assert.equal(player.k, 2);
  clock.advance(1000);
  const ks = seen.map((s) => s.k);
  for (const k of [1, 2, 3]) assert.ok(ks.includes(k), `step ${k} was shown (saw ${ks})`);
  assert.equal(player.k >= 4, true, 'after the held steps it moves on');
  const at = (k) => seen.find((s) => s.k === k).at;
  assert.ok(at(2) - at(1) >= 480, `step 1 held ${at(2) - at(1)} ms`);
  assert.ok(at(3) - at(2) >= 480, `step 2 held ${at(3) - at(2)} ms`);
  // no step after 3 is held: the rest of the stage plays at 100 units/s, about 6 s
  clock.advance(6500);
  assert.equal(player.stage === 1 || player.k === 600, true);
});

test('speed scales the hold; stepping and scrubbing ignore it', () => {
  const { player, clock } = playerWith(600, { 0: 800, 5: 800 });
  player.setSpeed(4);
  player.goto(0, { atStart: true });
  player.play();
  clock.advance(150);
  assert.equal(player.k, 0, 'held 800 / 4 = 200 ms');
  clock.advance(100);
  assert.ok(player.k > 0);
  clock.advance(40);
  assert.equal(player.k, 5, 'stops on the next held step, never past it');
  player.pause();
  player.stepForward();
  assert.equal(player.k, 6);
  player.scrub(3);
  assert.equal(player.k, 3);
});

test('a stage without holds plays as before', () => {
  const { player, clock } = playerWith(60, {});
  player.goto(0, { atStart: true });
  player.play();
  clock.advance(1000);
  // 60 units in 6 s: 10 units/s
  assert.ok(player.k >= 9 && player.k <= 11, `k = ${player.k}`);
});
