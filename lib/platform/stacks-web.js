// `#stacks` in browsers and workers: an error's stack is the engine's own (docs/browser.md). Node's form of it
// (./stacks-node.js) is what a developer reads in a terminal; a browser's devtools show the error's `code`
// beside it anyway, and the form would cost every browser bundle its bytes.

// captureStack() does nothing here: error-class.js asks this before it checks whether an error is one of
// ours, so that a bundler drops the check too (esbuild 0.28 inlines the constant in the modules that
// import it only when it comes first in its file).
const capturesStacks = false

function captureStack () {}

export { captureStack, capturesStacks }
