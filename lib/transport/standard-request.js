'use strict'

// The standard's request (HTML, the EventSource constructor, steps 7-13): a GET of the source's URL, or
// of the final URL of the last redirected response, that accepts `text/event-stream`, with Last-Event-ID
// once there is a last event ID, in the credentials mode withCredentials says. It is all a source sends
// when its init uses no extension, and all a browser build without `whatwg-eventsource/extensions` can
// send: there lib/transport/standard-fetch.js sends it. Once the extensions are registered (always on
// Node) the source builds its requests with lib/transport/request.js instead, which adds what their
// members describe; the header rule below is the same for both.
// https://html.spec.whatwg.org/multipage/server-sent-events.html#dom-eventsource
// https://html.spec.whatwg.org/multipage/server-sent-events.html#reestablish-the-connection (Last-Event-ID)

const { utf8AsLatin1 } = require('#bytes')
const { isSendableLastEventId } = require('../validators/http')

/**
 * Adds Last-Event-ID to `headers` (lower-case names) when the last event ID string is one to send.
 * @param {Record<string, string>} headers
 * @param {string} lastEventId the source's last event ID string
 */
function addLastEventId (headers, lastEventId) {
  // Processing model, reestablish step 5.3: "If the EventSource object's last event ID string is not
  // the empty string, set (`Last-Event-ID`, last event ID string, encoded as UTF-8)". Header values
  // are written as latin1, so the UTF-8 bytes are spelled one character per byte.
  // An ID with a control character (a server may send one) cannot be sent as a header by undici or
  // Node's http; the header is left out rather than the request failing again at every attempt.
  if (lastEventId !== '' && isSendableLastEventId(lastEventId)) {
    headers['last-event-id'] = utf8AsLatin1(lastEventId)
  }
}

/**
 * The request of one attempt of a source whose init uses no extension: the members of an
 * EventSourceRequest (./request.js) that lib/transport/standard-fetch.js reads, with the standard's values.
 * @param {object} init the source's resolved init (lib/eventsource/init.js), withCredentials alone given
 * @param {import('./request').RequestTarget} target
 */
function standardRequest (init, target) {
  const headers = { accept: 'text/event-stream' }
  addLastEventId(headers, target.lastEventId)
  return Object.freeze({
    attempt: target.attempt,
    url: target.url,
    method: 'GET',
    headers: Object.freeze(headers),
    withCredentials: init.withCredentials,
    allowInsecureRedirect: false,
    connectTimeout: init.connectTimeout,
    idleTimeout: 0
  })
}

module.exports = { standardRequest, addLastEventId }
