// lib/element.js: the <attention-playground> custom element as an ES module (package.json exports
// "./element"); importing it defines the element. The classic-script bundle
// (embed/attention-playground.js) is the same element with the WebAssembly inline.
export { AttentionPlayground } from '../embed/element.js';
