'use strict'

// The budgets of issue 29 for what a browser application ships (benchmarks/size/measure.mjs measures: an
// import statement bundled by esbuild for browsers, minified, gzip -9), and what tree-shaking must leave
// out: no module of the EventSource with a parser. A budget not met yet is asserted as todo, with why,
// beside a ceiling at today's size that no change may raise unnoticed. `npm run size` prints the same
// figures and publishes them in benchmarks/README.md.

const t = require('tap')

const measureModule = () => import('../../benchmarks/size/measure.mjs')

// Today's sizes, gzipped, with a little room: a change that adds more to a browser bundle than that fails
// here and says so. Lower them as the bundles shrink.
const CEILINGS = {
  // Raised for one byte parser and one task queue in every runtime (issue 47): a browser bundle holds the parser
  // Node runs, with its fast paths, and the task queue that counts listeners where it can. Lowered for the
  // runtime's own MessageEvent in browsers (lib/eventsource/message-event.js, runtimeMessageEvent), and for the
  // code only the extensions run, given to the core as parts by the extended builds (lib/entries/).
  // Raised for issue 48: EventSource.fromReadableStream() (a proposal, in the standard build too), the
  // lastEventId and reconnectionTime getters and reset(); in the core, init.onBatch and init.incompleteEvent;
  // in the parser, options.incompleteEvent.
  EventSource: 9_900,
  'whatwg-eventsource/extensions': 17_000,
  EventSourceParser: 3_540,
  // On the one string parser every runtime runs (lib/compat/eventsource-parser/string-parser.js): the stream
  // at issue 47's target, still over the package's budget (NOT_YET).
  'whatwg-eventsource/parser': 3_072,
  'whatwg-eventsource/parser/stream': 3_100,
  // Serving (issue 49), for workers: the encoder, the writer on a Response's stream, the channel; and the encoder
  // alone, which a bundle that takes nothing else keeps alone. Raised for what the tests found (headers as pairs and
  // refused line ends in them, an aborted request, a non-ASCII Last-Event-ID, a client cut rather than ended) and
  // for a synchronous loop's backpressure. Raised for issue 50's seam, by which a backplane resumes a subscriber
  // where the history ends (kMissed in lib/server/channel.js: 69 B).
  'whatwg-eventsource/server': 5_900,
  encodeEvent: 1_800
}

// Why a budget is not met yet (benchmarks/README.md, "Bundle size", has the figures).
const NOT_YET = {
  EventSource: 'one byte parser for every runtime (issue 47) brings Node\'s fast paths and the task queue that counts ' +
    'listeners into a browser bundle; issue 47 sets the EventSource at 8,500 B',
  'whatwg-eventsource/parser/stream': 'the one string parser (issue 47) keeps the paths that the string benchmark ' +
    'shows on Node (data lines and the one-line event read in feed(), data: matched letter by letter), and the ' +
    'TransformStream on it'
}

let rows
t.before(async () => {
  const { measureAll, ENTRIES } = await measureModule()
  rows = Object.fromEntries((await measureAll(ENTRIES)).map((row) => [row.name, row]))
})

t.test('each budget, in gzipped bytes', async (t) => {
  const { BUDGETS } = await measureModule()
  for (const [name, budget] of Object.entries(BUDGETS)) {
    const row = rows[name]
    const options = NOT_YET[name] === undefined ? {} : { todo: NOT_YET[name] }
    if (row.error !== undefined) {
      t.fail(`${name}: it bundles (${row.error})`, options)
      continue
    }
    t.ok(row.gzipped <= budget, `${name}: ${row.gzipped} B gzipped, budget ${budget} B`, options)
  }
})

t.test('no bundle grows past today\'s size', async (t) => {
  for (const [name, ceiling] of Object.entries(CEILINGS)) {
    t.ok(rows[name].gzipped <= ceiling, `${name}: ${rows[name].gzipped} B gzipped, at most ${ceiling} B`)
  }
})

t.test('a parser comes without the EventSource', async (t) => {
  const parser = rows.EventSourceParser
  t.ok(parser.inputs.includes('lib/parser/event-source-parser.js'), 'EventSourceParser: the parser')
  t.ok(parser.inputs.includes('lib/parser/parser.js'), 'EventSourceParser: on the one byte parser')
  t.same(parser.inputs.filter((file) => /^(?:lib|web)\/(?:eventsource|transport)\//.test(file)), [], 'EventSourceParser: no EventSource, no transport')
  t.ok(parser.gzipped < rows.EventSource.gzipped / 2, `EventSourceParser: ${parser.gzipped} B, under half of the EventSource's ${rows.EventSource.gzipped} B`)
  for (const name of ['whatwg-eventsource/parser', 'whatwg-eventsource/parser/stream']) {
    const row = rows[name]
    t.equal(row.error, undefined, `${name}: it bundles`)
    t.same(row.inputs.filter((file) => /^(?:lib|web)\/(?:eventsource|transport)\//.test(file)), [], `${name}: no EventSource, no transport`)
    // One string parser, the file Node runs: no twin for browsers.
    t.ok(row.inputs.includes('lib/compat/eventsource-parser/string-parser.js'), `${name}: on the string parser`)
    t.same(row.inputs.filter((file) => /compact-string/.test(file)), [], `${name}: no compact twin`)
  }
})

t.test('the EventSource comes from lib/, without the Node-only modules and with the web side of each import', async (t) => {
  const { inputs } = rows.EventSource
  t.same(inputs.filter((file) => /-node\.js$|^lib\/entries\/index\.js$|^lib\/transport\/(?:dispatcher|http2)/.test(file)), [])
  t.ok(inputs.every((file) => file.startsWith('lib/')), 'every module from lib/')
  // The web redirect rules come with the extensions (FetchAttempt): the standard attempt's fetch
  // follows redirects itself (lib/transport/standard-fetch.js).
  t.ok(rows['whatwg-eventsource/extensions'].inputs.includes('lib/transport/redirect-policy-web.js'), 'with the extensions: redirect-policy-web.js')
  for (const file of ['lib/errors/messages-web.js', 'lib/transport/transport-web.js', 'lib/platform/bytes-web.js',
    // #listeners' web side: the task queue asks it, and learns that listeners cannot be counted.
    'lib/platform/listeners-web.js', 'lib/parser/parser.js', 'lib/eventsource/task-queue.js']) {
    t.ok(inputs.includes(file), file)
  }
  // The source's parser takes its options from a resolved init: the public class's option checks stay out.
  t.same(inputs.filter((file) => /event-source-parser|validators\/values/.test(file)), [], 'no parser option checks')
  // Nor the error codes only Node's transports make: every request goes through a fetch.
  t.notOk(inputs.includes('lib/errors/node-transports.js'), 'no error table of the Node transports')
})

// The extensions are opt-in in a browser build: the main entry's EventSource (lib/entries/web-eventsource.js)
// holds none of their modules, and the one of whatwg-eventsource/extensions (web-extended-eventsource.js) every one.
t.test('the extensions come with whatwg-eventsource/extensions, and only with it', async (t) => {
  const EXTENSIONS = ['lib/eventsource/init-extensions.js', 'lib/eventsource/reconnect-policy.js', 'lib/eventsource/message-iterator.js',
    'lib/transport/request-init.js', 'lib/validators/options.js', 'lib/errors/reconnect-policy.js',
    'lib/transport/fetch-transport.js', 'lib/transport/redirect-policy-web.js', 'lib/eventsource/abort-signal.js']
  const standard = rows.EventSource.inputs
  t.same(EXTENSIONS.filter((file) => standard.includes(file)), [], 'EventSource: none of them')
  for (const file of ['lib/eventsource/reconnect.js', 'lib/transport/request.js',
    'lib/transport/standard-fetch.js', 'lib/transport/attempt-timers.js']) {
    t.ok(standard.includes(file), `EventSource: ${file}`)
  }
  const extended = rows['whatwg-eventsource/extensions']
  t.same(EXTENSIONS.filter((file) => !extended.inputs.includes(file)), [], 'with the extensions: every one')
  t.ok(extended.gzipped > rows.EventSource.gzipped, `${extended.gzipped} B with them, ${rows.EventSource.gzipped} B without`)
})
