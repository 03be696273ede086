'use strict'

// The path of a message from the socket to its listener is short (issue 47, item 7): at most 10 frames of lib/, in
// at most 5 of its files. Structural, not timed: it counts the frames of lib/ in stacks captured on the path,
// `new Error().stack` in a message listener, with Error.stackTraceLimit = Infinity.
//
// What it counts. undici hands a chunk to the transport, which hands it to the source, whose parser calls back with
// each event; the callback queues the event as a task (lib/eventsource/task-queue.js), which runs either at once,
// inside that same call (the queue was idle: the first message of a chunk), or later, from a promise job or after a
// microtask checkpoint (the messages after it). So:
// - a listener of a message dispatched at once has the whole path in its stack: every frame of lib/ from undici's
//   call to the listener;
// - a listener of a message dispatched later has the queue's side only: its path is the frames of the whole path
//   below the queue (the socket to the parser's callback, where the issue measured its first half) and its own.
// Where the queue's side starts is read from the stacks, not named, so that the test holds as files are renamed or
// merged: a later message's stack starts with frames that are not on the whole path (the wait that ran it), then
// comes the first it shares with it, the queue's loop that runs tasks; on the whole path, the frames below that one
// in its file are the queue's entry from the parser's callback, and the frames below those go from the socket to
// the callback.
//
// Each case is a source whose messages 1 and 2 come in one chunk with or after the response's head, then 3 and 4 in
// a chunk of their own once the queue is idle: 3 is dispatched at once, 2 after one promise job, and 4, after a
// listener that left (a `once` one), after a full checkpoint. Both of undici's handler APIs (the controller API,
// which undici 7 wraps; the older one, which the transport uses on a dispatcher that wrapped it, and which undici
// 6 speaks), and both of the parser's loops (an ASCII chunk's text, and the byte loop, which a CR sends it to),
// for an identity body: a decoded one costs the decoder's frames.

const t = require('tap')
const path = require('node:path')
const { pathToFileURL } = require('node:url')
const { EventSource } = require('../../')
const { serve, closeAtTeardown, bounded } = require('../helpers/index.cjs')

Error.stackTraceLimit = Infinity

const MAX_FRAMES = 10
const MAX_FILES = 5
const LIB = `${pathToFileURL(path.join(__dirname, '..', '..', 'lib')).href}/`

const [NODE_MAJOR, NODE_MINOR] = process.versions.node.split('.').map(Number)
const UNDICI8_SKIP = NODE_MAJOR > 22 || (NODE_MAJOR === 22 && NODE_MINOR >= 19)
  ? false
  : `undici 8 needs Node >= 22.19 (this is ${process.version})`

// The frames of lib/ in a stack, from the event loop's end to the listener's: { name, file } (file from lib/).
function framesOf (stack) {
  const frames = []
  for (const line of stack.split('\n').slice(1)) {
    const match = /^\s*at (?:(.+?) \()?(\S+?):\d+:\d+\)?$/.exec(line)
    if (match !== null && match[2].startsWith(LIB)) {
      frames.push({ name: match[1] ?? '', file: match[2].slice(LIB.length) })
    }
  }
  return frames.reverse()
}

const key = (frame) => `${frame.name} (${frame.file})`
const describe = (frames) => frames.map(key).join(' -> ')

// Opens a source with `init` on a server whose lines end with `eol`, and returns its listener's stacks by message.
async function stacksOf (t, init, eol) {
  let response
  const server = await serve(t, (req, res) => {
    response = res
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.write(`data: 1${eol}${eol}data: 2${eol}${eol}`)
  })
  const es = closeAtTeardown(t, new EventSource(server.url('/'), init))
  const stacks = {}
  await bounded(new Promise((resolve) => {
    es.addEventListener('message', (event) => {
      stacks[event.data] = new Error().stack
      if (event.data === '2') {
        // A chunk of its own, which reaches a queue that has run out of tasks.
        response.write(`data: 3${eol}${eol}data: 4${eol}${eol}`)
        es.addEventListener('message', () => {}, { once: true })
      }
      if (event.data === '4') resolve()
    })
  }), 'four messages')
  es.close()
  return stacks
}

// Checks the paths of one source's messages.
function checkPaths (t, stacks) {
  const whole = framesOf(stacks['3'])
  const onWholePath = new Set(whole.map(key))
  const later = ['1', '2', '4']
    .map((data) => ({ data, frames: framesOf(stacks[data]) }))
    .filter(({ frames }) => !onWholePath.has(key(frames[0])))
  t.ok(later.length >= 2, `messages dispatched later: ${later.map(({ data }) => data).join(', ')}`)
  const paths = [{ label: 'message 3, at once', frames: whole }]
  for (const { data, frames } of later) {
    const shared = frames.find((frame) => onWholePath.has(key(frame)))
    if (!t.ok(shared, `message ${data} runs on the queue's frames of the whole path: ${describe(frames)}`)) continue
    let end = whole.findIndex((frame) => key(frame) === key(shared))
    while (end > 0 && whole[end - 1].file === shared.file) end--
    paths.push({ label: `message ${data}, later`, frames: whole.slice(0, end).concat(frames) })
  }
  for (const { label, frames } of paths) {
    const files = new Set(frames.map((frame) => frame.file))
    t.ok(frames.length <= MAX_FRAMES, `${label}: ${frames.length} frames (at most ${MAX_FRAMES}): ${describe(frames)}`)
    t.ok(files.size <= MAX_FILES, `${label}: ${files.size} files (at most ${MAX_FILES}): ${[...files].join(', ')}`)
  }
}

for (const [eol, loop] of [['\n', 'the text of an ASCII chunk'], ['\r\n', 'the byte loop']]) {
  t.test(`undici's global dispatcher, the parser on ${loop}`, async (t) => {
    // The first source speaks the controller API (undici 7 wraps it); a dispatcher that wrapped it gets the older
    // API from then on, as the second source does.
    for (const source of ['first', 'second']) {
      await t.test(`the ${source} source`, async (t) => checkPaths(t, await stacksOf(t, {}, eol)))
    }
  })

  t.test(`undici 6's Agent (the older API), the parser on ${loop}`, async (t) => {
    const agent = new (require('undici6').Agent)()
    t.teardown(() => agent.destroy())
    checkPaths(t, await stacksOf(t, { dispatcher: agent }, eol))
  })

  t.test(`undici 8's Agent (the controller API), the parser on ${loop}`, { skip: UNDICI8_SKIP }, async (t) => {
    const agent = new (require('undici8').Agent)()
    t.teardown(() => agent.destroy())
    checkPaths(t, await stacksOf(t, { dispatcher: agent }, eol))
  })
}
