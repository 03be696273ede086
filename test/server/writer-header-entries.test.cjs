'use strict'

// options.headers of EventStreamWriter as types/server.d.ts has it: a record, or an iterable of [name, value]
// pairs (Headers, a Map, an array). An array of pairs was read as a record, so `[['x-a', '1']]` sent a header
// named `0`, and a forbidden header given that way got through.

const t = require('tap')
const { EventStreamWriter } = require('../../lib/entries/server.js')

// The head a writer made for no request answers with, as [name, value] pairs.
function head (headers) {
  const writer = new EventStreamWriter(undefined, { headers, heartbeat: 0 })
  const names = [...writer.response().headers].filter(([name]) => name.startsWith('x-my-'))
  writer.close()
  return names
}

t.test('every form of options.headers gives the same head', async (t) => {
  t.same(head({ 'X-My-A': '1' }), [['x-my-a', '1']], 'a record')
  t.same(head([['X-My-A', '1']]), [['x-my-a', '1']], 'an array of pairs')
  t.same(head(new Map([['X-My-A', '1']])), [['x-my-a', '1']], 'a Map')
  t.same(head(new Headers({ 'X-My-A': '1' })), [['x-my-a', '1']], 'Headers')
})

t.test('a header that says how the body is framed is refused in every form', async (t) => {
  for (const headers of [{ Connection: 'close' }, [['Connection', 'close']], new Map([['Connection', 'close']])]) {
    t.throws(() => new EventStreamWriter(undefined, { headers, heartbeat: 0 }),
      { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' }, `${headers.constructor.name}`)
  }
})
