'use strict'

// Assertions on the Node-style errors of lib/errors/index.js: class, code, message, the
// `Name [CODE]: message` form of toString() and of the first stack line, and a plain `name`.

/** Calls `fn` and returns what it throws; fails the test if it does not throw. */
function catchError (t, fn, what = 'throws') {
  try {
    fn()
  } catch (err) {
    return err
  }
  t.fail(`expected to throw: ${what}`)
  return null
}

/**
 * @param {import('tap').Test} t
 * @param {unknown} err
 * @param {{ type: Function, code: string, message: string | RegExp }} expected
 */
function checkError (t, err, { type, code, message }) {
  t.ok(err instanceof type, `an instance of ${type.name}`)
  t.equal(err.name, type.name, 'name is the plain class name')
  t.notOk(Object.hasOwn(err, 'name'), 'no own name property')
  t.equal(err.code, code)
  if (typeof message === 'string') t.equal(err.message, message)
  else t.match(err.message, message)
  t.equal(String(err), `${type.name} [${code}]: ${err.message}`, 'toString() is "Name [CODE]: message"')
  t.equal(err.stack.split('\n')[0], `${type.name} [${code}]: ${err.message}`, 'so is the first stack line')
}

/** catchError + checkError in one step; returns the error. */
function throwsError (t, fn, expected) {
  const err = catchError(t, fn, expected.code)
  if (err !== null) checkError(t, err, expected)
  return err
}

module.exports = { catchError, checkError, throwsError }
