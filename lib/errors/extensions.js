// The code of an extension used on an EventSource composed without them (lib/entries/web-eventsource.js). Its
// message says where they are, on every platform: a browser's developer reads it. A table of its own so that
// a bundle of a parser holds none of it.

import { declare } from './error-class.js'

const codes = declare({
  ERR_EVENTSOURCE_EXTENSION_NOT_LOADED: [1, TypeError, null, (member) =>
    `${member} is an extension of whatwg-eventsource, not part of this build: ` +
    "the EventSource of 'whatwg-eventsource/extensions' has it"]
})

export { codes }
