// Where an error's stack starts, and its first line, as Node's own errors have them (lib/errors/error-class.js
// calls it): the stack is captured from the caller of `callee` on, as Node's hideStackFrames does (the
// constructor's frames and those of our option checks are noise); its first line is `Name [CODE]: message`:
// the code is in the name only while the stack is captured and formatted, as in Node core.
// lib/platform/stacks-web.js is the same elsewhere than Node, Bun and Deno.

// Where the runtime cannot capture a stack from a given frame, the stack starts where the error was made.
const captureStackTrace = typeof Error.captureStackTrace === 'function' ? Error.captureStackTrace : null

// `callee`: the first frame left out.
function captureStack (error, callee) {
  Object.defineProperty(error, 'name', { value: `${error.name} [${error.code}]`, configurable: true, writable: true })
  if (captureStackTrace !== null) captureStackTrace(error, callee)
  error.stack // eslint-disable-line no-unused-expressions
  delete error.name
}

// (lib/platform/stacks-web.js's is false.)
const capturesStacks = true

export { captureStack, capturesStacks }
