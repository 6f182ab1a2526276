// shell.js: the page's markup and styles in a shadow root, for the custom element and the npm
// package's mountPlayground. One constructed style sheet serves every shadow root on the page.
// Needs the bundler's AP_SHELL (index.html's markup) and AP_CSS (the page's styles rewritten for a
// shadow root): it does not work unbundled.

/* global AP_SHELL, AP_CSS */
const sharedSheet = memo(() => {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(AP_CSS); // adopted sheets are not inline styles: a strict CSP allows them
  return sheet;
});

/** make() once, on first use; the same value after.
 *  @template T @param {() => T} make @returns {() => T} */
export function memo(make) {
  /** @type {T | null} */
  let value = null;
  return () => (value ??= make());
}

/** Attaches (or reuses) host's open shadow root, adopts the styles and puts the page's markup in
 *  it. -> the shadow root, ready for playground.js's mountPlayground.
 *  @param {HTMLElement} host */
export function shadowShell(host) {
  const root = host.shadowRoot ?? host.attachShadow({ mode: 'open' });
  // without constructable style sheets (support.js shadow_dom) the markup stays unstyled, and the
  // playground says what the browser lacks
  if ('adoptedStyleSheets' in root) root.adoptedStyleSheets = [sharedSheet()];
  const shell = document.createElement('div');
  shell.id = 'ap';
  shell.className = 'ap-body';
  shell.innerHTML = AP_SHELL; // our own static markup (index.html's body), never user text
  root.append(shell);
  return root;
}
