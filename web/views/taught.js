// taught.js: whether a head of the shown layer was taught where to look. The model file's head notes
// carry the trainer's mark (numbers.taught: the weight of the extra loss on that head's attention,
// 0 or absent when the head learned only from the read-out). Random and NumPy weights have no
// notes: nothing was taught or learned there. Reads the trace's model card; computes nothing.

/** @typedef {import('./view-types.js').ShownTrace} ShownTrace */
/** @typedef {import('./view-types.js').Translate} Translate */

/** true (taught), false (learned on its own) or null (no trained model) for head h of the trace's
 *  shown layer (result.layer, else the last).
 * @param {ShownTrace | null | undefined} result @param {number} h @returns {boolean | null} */
export function headTaught(result, h) {
  const notes = result?.model?.notes;
  if (!notes || !notes.length) return null;
  const l = result.layer ?? notes.length - 1;
  const note = notes[l]?.[h];
  if (!note) return null;
  return Number(note.numbers?.taught || 0) > 0;
}

/** The short mark beside a head's name: "taught", "learned on its own", or '' (no trained model).
 * @param {Translate} t @param {ShownTrace | null | undefined} result @param {number} h */
export function taughtMark(t, result, h) {
  const v = headTaught(result, h);
  return v === null ? '' : t(v ? 'taught.mark' : 'taught.own');
}

/** A head's name with its mark: "2 (taught)"; `name` is the head's name as the caller writes it.
 * @param {Translate} t @param {ShownTrace | null | undefined} result @param {number} h
 * @param {string} name */
export function withMark(t, result, h, name) {
  const mark = taughtMark(t, result, h);
  return mark ? t('taught.with', { name, mark }) : name;
}

/** The sentence the narration adds at its first mention of head h: taught, or learned on its own.
 * @param {Translate} t @param {ShownTrace | null | undefined} result @param {number} h */
export function taughtSentence(t, result, h) {
  const v = headTaught(result, h);
  return v === null ? '' : ` ${t(v ? 'taught.narr' : 'taught.narrOwn', { h: h + 1 })}`;
}
