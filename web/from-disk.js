// from-disk.js: the hosted page (dist/site/index.html) opened from disk cannot start: file:// allows
// neither its ES module nor fetching its split WebAssembly. This classic script (it runs where
// modules do not) hands over to the single file one folder up, which can, keeping the state (the
// search and the hash). Over http and https it does nothing. Only the built site loads it.
if (location.protocol === 'file:') {
  const single = new URL(
    `../attention-playground.html${location.search}${location.hash}`,
    location.href,
  );
  location.replace(single.href);
}
