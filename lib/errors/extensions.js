// The code of an extension used on an EventSource composed without the extensions (lib/entries/web-eventsource.js,
// the main entry's in browsers and workers). Its message says where they are, the
// same on every platform (lib/errors/error-class.js), since it is a browser's developer who reads it. A table of
// its own so that a bundle of a parser, which never makes it, holds none of it.

import { declare } from './error-class.js'

const codes = declare({
  ERR_EVENTSOURCE_EXTENSION_NOT_LOADED: [1, TypeError, null, (member) =>
    `${member} is an extension of whatwg-eventsource, not part of this build: ` +
    "the EventSource of 'whatwg-eventsource/extensions' has it"]
})

export { codes }
