// embed-resize.js: the course page's side of the Attention Playground iframe protocol (see the
// README, "Embedding"). Every <iframe data-attention-playground> gets the height the widget asks
// for; messages from any other window or origin are ignored. Copy it next to your page.
window.addEventListener('message', (e) => {
  const data = e.data;
  if (!data || typeof data.type !== 'string' || !data.type.startsWith('attention-playground:'))
    return;
  for (const frame of document.querySelectorAll('iframe[data-attention-playground]')) {
    if (frame.contentWindow !== e.source || new URL(frame.src, location.href).origin !== e.origin)
      continue;
    if (data.type === 'attention-playground:resize' && Number.isFinite(data.height)) {
      frame.style.height = `${Math.min(20000, Math.max(200, data.height))}px`;
    }
    frame.dispatchEvent(
      new CustomEvent(data.type.slice('attention-playground:'.length), { detail: data }),
    );
  }
});
