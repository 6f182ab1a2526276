// share.js: "Share / Embed": the current state as a link, an iframe snippet and an element
// snippet (shareLinks), each with a Copy button. The wiring hands the view a links() that calls
// shareLinks with its state. Not the place for URL rules (state.js) or the iframe protocol
// (embed/).
import { el } from './dom.js';
import { serialize, TABLE, outsideName } from '../state.js';

const KINDS = ['link', 'iframe', 'element'];

export class ShareView {
  constructor(root, { t, links }) {
    this.root = root;
    this.links = links;
    this.setTranslator(t);
  }

  setTranslator(t) {
    this.t = t;
    this.fields = {};
    this.status = el('p', { class: 'hint share-status', role: 'status', 'aria-live': 'polite' });
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
    this.root.replaceChildren(...rows, this.status);
    this.update();
  }

  update() {
    const links = this.links();
    for (const kind of KINDS)
      if (this.fields[kind].value !== links[kind]) this.fields[kind].value = links[kind];
  }

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

/** The state as a link, an iframe snippet and an element snippet: {link, iframe, element}.
 *  pageUrl: the hosted page; embedScriptUrl: the element's script; title: the iframe's title. */
export function shareLinks(state, { pageUrl, embedScriptUrl, title }) {
  const shared = { ...state, parent: '' };
  const link = `${pageUrl}?${serialize(shared)}`;
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
    iframe: `<iframe src="${escapeAttr(link)}" title="${quoted}" width="100%" height="720" loading="lazy" style="border:0"></iframe>`,
    element: `<script src="${escapeAttr(embedScriptUrl)}" defer></script>\n<attention-playground ${attrs.join(' ')}></attention-playground>`,
  };
}

function escapeAttr(s) {
  return String(s)
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}
