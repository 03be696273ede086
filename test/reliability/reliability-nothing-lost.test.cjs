'use strict'

// Nothing lost across disconnects: a server keeps an event log and resumes from Last-Event-ID, and
// cuts connection after connection at random byte offsets (partial events, half UTF-8 characters,
// half CRLFs, half BOMs). The client must receive every event exactly once, in order. This is the
// short run for `npm test`; `npm run test:soak` runs test/soak/nothing-lost.cjs with 1,000 cuts.
// Set RELIABILITY_SEED to replay a run.

const t = require('tap')
const { runResume } = require('../helpers/index.cjs')
const { EventSource } = require('../../')

const DISCONNECTS = 300
const seed = Number(process.env.RELIABILITY_SEED ?? 0x5eed)

t.test(`${DISCONNECTS} disconnects at random byte offsets (seed ${seed}): every event exactly once, in order`, async (t) => {
  const stats = await runResume({ disconnects: DISCONNECTS, seed, timeout: 30_000, t })
  t.comment(JSON.stringify({ ...stats, mismatches: stats.mismatches.length, headerMismatches: stats.headerMismatches.length }))
  t.equal(stats.disconnects, DISCONNECTS, 'the server cut every connection it was meant to')
  t.ok(stats.cutsInsideAnEvent > DISCONNECTS / 2, 'most cuts fall inside an event')
  t.ok(Object.values(stats.kills).every((n) => n > 0), 'every kind of cut happened')
  t.equal(stats.received, stats.events, 'as many events as the log holds')
  t.same(stats.mismatches, [], 'each event in order, with its type, data and id')
  t.equal(stats.duplicates, 0, 'no event twice')
  t.equal(stats.errors, DISCONNECTS, 'one error event per cut')
  t.same(stats.headerMismatches, [], 'each reconnection sent the id of the last event received')
  t.equal(stats.badHeaders, 0, 'no Last-Event-ID that the log does not know')
  t.equal(stats.firstRequestHeader, '', 'no Last-Event-ID on the first request')
  t.equal(stats.requests, DISCONNECTS + 1)
  t.equal(stats.readyState, EventSource.OPEN)
})
