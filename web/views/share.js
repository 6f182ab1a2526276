// share.js: "Share / Embed": the current state as a link, an iframe snippet and an element
// snippet (shareLinks), each with a Copy button. The wiring hands the view a links() that calls
// shareLinks with its state. Not the place for URL rules (state.js) or the iframe protocol
// (embed/).
import { el } from './dom.js';
import { linkSearch, TABLE, outsideName, LINK_TEXT_CHARS } from '../state.js';

const KINDS = /** @type {const} */ (['link', 'iframe', 'element']);

/** @typedef {import('./view-types.js').Translate} Translate */
/** @typedef {(typeof KINDS)[number]} Kind */
/** @typedef {ReturnType<typeof shareLinks>} ShareLinks */

export class ShareView {
  /** @param {HTMLElement} root @param {{t: Translate, links: () => ShareLinks}} ctx */
  constructor(root, { t, links }) {
    this.root = root;
    this.links = links;
    // setTranslator builds them
    /** @type {Translate} */ this.t;
    /** @type {Record<string, HTMLTextAreaElement>} the snippet boxes by kind */ this.fields;
    this.setTranslator(t);
  }

  /** @param {Translate} t */
  setTranslator(t) {
    this.t = t;
    this.fields = {};
    this.status = el('p', { class: 'hint share-status', role: 'status', 'aria-live': 'polite' });
    // the sentence is longer than a link carries: the links hold its beginning only
    this.shortened = el('p', {
      class: 'hint share-shortened',
      text: t('share.shortened', { max: LINK_TEXT_CHARS }),
    });
    const rows = KINDS.map((kind) => {
      const id = `share-${kind}`;
      const box = el('textarea', {
        class: 'snippet',
        id,
        readonly: '',
        rows: kind === 'link' ? 2 : 3,
        spellcheck: 'false',
      });
      this.fields[kind] = box;
      return el('div', { class: 'share-row' }, [
        el('label', { text: t(`share.${kind}`), for: id }),
        el('p', { class: 'hint', text: t(`share.${kind}Hint`) }),
        box,
        el('button', {
          class: 'action small',
          text: t('share.copy'),
          type: 'button',
          'data-copy': kind,
          on: { click: () => this.copy(kind) },
        }),
      ]);
    });
    this.root.replaceChildren(this.shortened, ...rows, this.status);
    this.update();
  }

  update() {
    const links = this.links();
    this.shortened.hidden = !links.shortened;
    for (const kind of KINDS)
      if (this.fields[kind].value !== links[kind]) this.fields[kind].value = links[kind];
  }

  /** @param {Kind} kind */
  async copy(kind) {
    this.update();
    const box = this.fields[kind];
    let ok = false;
    try {
      await navigator.clipboard.writeText(box.value);
      ok = true;
    } catch {
      // no clipboard permission (an iframe without allow="clipboard-write"): select it for Ctrl+C
      box.focus();
      box.select();
    }
    this.status.textContent = this.t(ok ? 'share.copied' : 'share.selectCopy');
  }
}

/** The state as a link, an iframe snippet and an element snippet: {link, iframe, element,
 *  shortened}. The sentence is cut as the address bar's is (state.js linkSearch); shortened says
 *  so. pageUrl: the hosted page; embedScriptUrl: the element's script; title: the iframe's title. */
/** @param {Record<string, unknown>} state
 *  @param {{pageUrl?: string, embedScriptUrl?: string, title: string}} where */
export function shareLinks(state, { pageUrl, embedScriptUrl, title }) {
  const { search, shortened } = linkSearch({ ...state, parent: '' });
  /** @type {Record<string, unknown>} */
  const shared = { ...state, parent: '', s: new URLSearchParams(search).get('s') ?? state.s };
  const link = `${pageUrl}?${search}`;
  const attrs = TABLE.filter(
    (e) =>
      e.name !== 'parent' &&
      shared[e.name] !== '' &&
      shared[e.name] != null &&
      String(shared[e.name]) !== String(e.def),
  ).map(
    (e) =>
      `${outsideName(e)}="${escapeAttr(e.type === 'bool' ? (shared[e.name] ? '1' : '0') : String(shared[e.name]))}"`,
  );
  const quoted = escapeAttr(title);
  return {
    link,
    shortened,
    iframe: `<iframe src="${escapeAttr(link)}" title="${quoted}" width="100%" height="720" loading="lazy" style="border:0"></iframe>`,
    element: `<script src="${escapeAttr(embedScriptUrl)}" defer></script>\n<attention-playground ${attrs.join(' ')}></attention-playground>`,
  };
}

/** @param {unknown} s */
function escapeAttr(s) {
  return String(s)
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}
