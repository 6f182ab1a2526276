// from-source.js: lets this example open from the source tree as well as from dist/examples/.
// Built, the widget's files sit beside this folder (../embed/, ../site/); in the source tree they
// are under ../dist/ after scripts/build. When the element's script did not load from ../embed/,
// this loads it from ../dist/embed/ and points the iframes there too. A course page of your own
// needs none of this: it names where you put the files.
(() => {
  if (customElements.get('attention-playground')) return; // loaded from ../embed/: the built site
  const s = document.createElement('script');
  s.src = '../dist/embed/attention-playground.js';
  document.head.append(s);
  for (const frame of document.querySelectorAll('iframe[data-attention-playground]')) {
    const src = frame.getAttribute('src') || '';
    if (src.startsWith('../site/')) frame.setAttribute('src', `../dist/${src.slice(3)}`);
  }
})();
