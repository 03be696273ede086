// Browsers and workers (package.json's "imports" maps `#stacks` here for any runtime that does not match
// the `node` condition): an error's stack is the engine's own, as it made it where the error was made,
// first line `TypeError: message`. Node's form of it (lib/platform/stacks-node.js: the code in the first
// line, the package's own frames left out) is what a developer reads in a terminal; a browser's devtools
// show the error's `code` beside it anyway, and the form costs every browser bundle its bytes.
// docs/browser.md lists this.

// captureStack() does nothing here: error-class.js asks this before it checks whether an error is one of
// ours, so that a bundler drops the check too (esbuild 0.28 inlines the constant in the modules that
// import it only when it comes first in its file).
const capturesStacks = false

function captureStack () {}

export { captureStack, capturesStacks }
