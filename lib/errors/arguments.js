// The codes of bad arguments and options, with Node's codes, classes and meaning: (name, expected or
// reason, value); those of a bad header, method or last event ID are ./http.js's.

import { declare } from './error-class.js'

const codes = declare({
  ERR_INVALID_ARG_TYPE: [3, TypeError],
  ERR_INVALID_ARG_VALUE: [3, TypeError],
  ERR_OUT_OF_RANGE: [3, RangeError]
})

export { codes }
