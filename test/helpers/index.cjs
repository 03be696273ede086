'use strict'

// The test fixture: one module per job, re-exported here. test/README.md says what each helper does.
// Child processes (test/children/) require the modules they need directly, to stay light.

module.exports = {
  ...require('./wait.cjs'), // TIMEOUT, bounded, onceBounded, deferred, macrotask
  ...require('./server.cjs'), // SSE_HEADERS, listen, serve, sse, rawServer, closedPort
  ...require('./raw-client.cjs'), // rawGet, RawResponse
  ...require('./serving.cjs'), // writerServer, channelServer
  ...require('./eventsource.cjs'), // open, closeAtTeardown, reconnectionCycle
  ...require('./recorder.cjs'), // Recorder, record, recordExpected, ChannelRecorder, recordChannels, CHANNELS, TRACING_EVENTS
  ...require('./proxy.cjs'), // proxyServer
  ...require('./child.cjs'), // runChild, runHeapChild, childEnv
  ...require('./tls.cjs'), // tlsFixture
  ...require('./dispatcher.cjs'), // countingDispatcher, loopbackLookup
  ...require('./fake-clock.cjs'), // fakeClock, withFakeTimers, stamped, stepThrough
  ...require('./prng.cjs'), // prng
  ...require('./redis.cjs'), // redisServer, redisMissing, freePort
  ...require('./relay.cjs'), // tcpRelay
  // toBytes, readableStreamOf, split, splitString, cutSets, everySplit, sizeCuts, randomCuts, randomSplit,
  // describeBytes,
  // describeSizes, quadraticCopies
  ...require('./chunks.cjs'),
  ...require('./parse.cjs'), // recordingParser, parseAll, parseStreams, feedStrings
  ...require('./reference.cjs'), // reference
  ...require('./errors.cjs'), // catchError, checkError, throwsError
  ...require('./bundle.cjs'), // packedInstall, bundle, runBundled, NODE_ONLY, BUNDLERS, TARGETS, WEB_GLOBALS
  // Scenarios shared by a test and its soak run, and the CLI.
  ...require('./cli.cjs'), // CLI, runCli, lines
  ...require('./lifecycle-server.cjs'), // lifecycleServer, runLeakChild
  ...require('./resume-after-cuts.cjs'), // runResume, buildLog, serialize
  ...require('./patch.cjs') // withPatched
}
