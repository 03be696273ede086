'use strict'

// Built-in methods swapped for counting wrappers while a function runs: the linear-work tests meter
// what a parser copies, searches and allocates this way, without a clock.

/**
 * Runs `fn` synchronously with each `[owner, name, wrap]` of `patches` replaced by `wrap(original)`;
 * puts every original back whatever happens, and returns what `fn` returned.
 * @param {Array<[object, string, (original: Function) => Function]>} patches
 * @param {() => unknown} fn
 */
function withPatched (patches, fn) {
  const originals = patches.map(([owner, name]) => [owner, name, owner[name]])
  try {
    for (const [owner, name, wrap] of patches) owner[name] = wrap(owner[name])
    return fn()
  } finally {
    for (const [owner, name, original] of originals) owner[name] = original
  }
}

module.exports = { withPatched }
