// How a code of this package becomes a class, as Node core declares its own in lib/internal/errors.js,
// and `codes`, the one registry every class is in. The codes are declared in tables, one per layer that
// makes them (./index.js loads them all), and a module imports the table it throws from, so a bundle holds
// the codes it can make and not the others. A throw site writes `throw new ERR_X(...args)`.
//
// Each code's class extends Base (TypeError, RangeError or Error), so `err instanceof ERR_X` and
// `err instanceof TypeError` both hold; `name` stays the plain class name (inherited, not own), `code`
// is its one own enumerable property, and it prints as Node's errors do: `Name [CODE]: message`. Codes that
// Node also uses keep Node's meaning and wording; this package's own carry the ERR_EVENTSOURCE_ prefix.
// Every code that is not internal is in docs/errors.md (test/errors/errors-documented.test.cjs checks).

// Node's wording on Node, Bun and Deno; a short message elsewhere (./messages-web.js says why).
import { message as messageOf } from '#error-messages'
// Node's form of a stack (lib/platform/stacks-node.js), or the engine's own in browsers.
import { captureStack, capturesStacks } from '#stacks'

// code -> class, of every table loaded
const codes = {}

// Kinds of declaration. A connection error says why a connection failed or was re-established, and
// reaches user code on an error event: its constructor takes two more arguments after the message's,
// `details` (what is known of the response: status, statusText, headers, url), copied onto the error,
// and `cause`. An internal error never reaches user code.
const kConnection = 'connection'
const kInternal = 'internal'

function toString () {
  return `${this.name} [${this.code}]: ${this.message}`
}

// Declares one code. arity: how many of the constructor's leading arguments the message is made from
// (test/errors/errors-table.test.cjs checks each message takes as many); fixed: the message whatever the
// platform, another package's wording or a function of those arguments for one that must say the same everywhere.
function E (code, arity, Base, kind, fixed) {
  const connection = kind === kConnection
  const EventSourceError = class extends Base {
    constructor (...args) {
      const cause = connection ? args[arity + 1] : undefined
      const message = typeof fixed === 'function'
        ? fixed(...args.slice(0, arity))
        : fixed ?? messageOf(code, args.slice(0, arity))
      super(message, cause === undefined ? undefined : { cause })
      this.code = code
      captureStack(this, new.target)
      if (connection && args[arity] !== undefined) Object.assign(this, args[arity])
    }
  }
  Object.defineProperties(EventSourceError, {
    name: { value: code },
    // The arguments the message takes, as a function's length says (a connection error's details and
    // cause are optional).
    length: { value: arity },
    // What kind of code this is: test/errors/errors-documented.test.cjs leaves the internal ones out.
    kind: { value: kind ?? null }
  })
  Object.defineProperties(EventSourceError.prototype, {
    name: { value: Base.name, configurable: true, writable: true },
    toString: { value: toString, configurable: true, writable: true }
  })
  codes[code] = EventSourceError
  return EventSourceError
}

// Declares a table's codes (code -> [arity, Base, kind, fixed]) into `codes`; returns its classes, code -> class.
function declare (table) {
  const declared = {}
  for (const [code, [arity, Base, kind, fixed]] of Object.entries(table)) {
    declared[code] = E(code, arity, Base, kind, fixed)
  }
  return declared
}

// An error of ours thrown out of a public entry point (`entry`: a constructor's new.target, createParser)
// gets a stack that starts at the user's call, as Node's validators do with hideStackFrames: the frames of
// our option checks below it are noise to the user. Anything else is returned as it is.
function fromCallerOf (error, entry) {
  if (capturesStacks && error instanceof Error && Object.hasOwn(codes, error.code) &&
      error instanceof codes[error.code]) {
    captureStack(error, entry)
  }
  return error
}

export { codes, declare, fromCallerOf, kConnection, kInternal }
