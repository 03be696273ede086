'use strict'

// A reference model of HTML 9.2.5 "Parsing an event stream" and 9.2.6 "Interpreting an event
// stream", written to be obviously right rather than fast: it sees each stream whole, decodes it
// first and then works on strings, step by step as the standard words it.
// https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream
//
// It records what EventSourceParser reports, in the same shape as test/helpers/parse.cjs:
// ['event', type, data, lastEventId], ['retry', ms], ['comment', text].

/**
 * @param {Uint8Array[]} streams one or more streams; the parser sees reset() between them
 * @param {{ lastEventId?: string }} [options]
 * @returns {Array<Array<string | number>>}
 */
function reference (streams, { lastEventId = '' } = {}) {
  const records = []
  // The event source's "last event ID string"; it survives reconnection.
  let lastEventIdString = lastEventId

  for (const bytes of streams) {
    // "Streams must be decoded using the UTF-8 decode algorithm": it drops one leading BOM (and
    // only one) and turns invalid sequences into U+FFFD. TextDecoder's defaults are exactly that.
    const text = new TextDecoder('utf-8').decode(bytes)

    // Lines end at CRLF, LF or CR. The alternation tries CRLF first, so a CRLF is one line end.
    // What follows the last line end is an unterminated line: "once the end of the file is
    // reached, any pending data must be discarded", so it is dropped (it is '' when the stream
    // ends with a line end).
    const lines = text.split(/\r\n|\r|\n/)
    lines.pop()

    // The buffers start empty, except that, as in Chromium and Firefox, the last event ID buffer
    // of a new stream starts as the last event ID string (see EventSourceParser#reset).
    let data = ''
    let eventType = ''
    let idBuffer = lastEventIdString

    for (const line of lines) {
      // "If the line is empty (a blank line): dispatch the event."
      if (line === '') {
        lastEventIdString = idBuffer
        if (data === '') {
          eventType = ''
          continue
        }
        if (data.endsWith('\n')) data = data.slice(0, -1)
        records.push(['event', eventType === '' ? 'message' : eventType, data, lastEventIdString])
        data = ''
        eventType = ''
        continue
      }
      // "If the line starts with a U+003A COLON character (:)": a comment. The parser hands its
      // text to onComment with one leading space removed, like a field value.
      if (line.startsWith(':')) {
        records.push(['comment', withoutOneLeadingSpace(line.slice(1))])
        continue
      }
      // "If the line contains a U+003A COLON character": name before the first colon, value after
      // it with one leading space removed. "Otherwise": the whole line is the name, value empty.
      const colon = line.indexOf(':')
      const name = colon === -1 ? line : line.slice(0, colon)
      const value = colon === -1 ? '' : withoutOneLeadingSpace(line.slice(colon + 1))

      if (name === 'event') {
        eventType = value
      } else if (name === 'data') {
        data += value + '\n'
      } else if (name === 'id') {
        if (!value.includes('\u0000')) idBuffer = value
      } else if (name === 'retry') {
        // "If the field value consists of only ASCII digits": an empty value is not taken as a
        // number (Chromium and Firefox ignore `retry:` with nothing after it).
        if (/^[0-9]+$/.test(value)) records.push(['retry', Number(value)])
      }
      // Any other name: "the field is ignored".
    }
    // End of the stream: an event without its blank line is discarded with its buffers.
  }
  return records
}

function withoutOneLeadingSpace (value) {
  return value.startsWith(' ') ? value.slice(1) : value
}

module.exports = { reference }
