'use strict'

// The test fixture: one module per job, re-exported here. test/README.md says what each helper does.
// Child processes (test/children/) require the modules they need directly, to stay light.

module.exports = {
  ...require('./wait'), // TIMEOUT, bounded, onceBounded, deferred, macrotask
  ...require('./server'), // SSE_HEADERS, listen, serve, sse, rawServer, closedPort
  ...require('./eventsource'), // open, closeAtTeardown, reconnectionCycle
  ...require('./recorder'), // Recorder, record, recordExpected, ChannelRecorder, recordChannels, CHANNELS, TRACING_EVENTS
  ...require('./proxy'), // proxyServer
  ...require('./child'), // runChild, runHeapChild, childEnv
  ...require('./tls'), // tlsFixture
  ...require('./dispatcher'), // countingDispatcher, loopbackLookup
  ...require('./fake-clock'), // fakeClock, withFakeTimers, stamped, stepThrough
  ...require('./prng'), // prng
  ...require('./chunks'), // toBytes, split, splitString, cutSets, everySplit, sizeCuts, randomCuts, randomSplit, describeBytes, describeSizes
  ...require('./parse'), // recordingParser, parseAll, parseStreams, feedStrings
  ...require('./reference'), // reference
  ...require('./errors'), // catchError, checkError, throwsError
  ...require('./bundle'), // packedInstall, bundle, runBundled, NODE_ONLY, BUNDLERS, TARGETS, WEB_GLOBALS
  // Scenarios shared by a test and its soak run, and the CLI.
  ...require('./cli'), // CLI, runCli, lines
  ...require('./lifecycle-server'), // lifecycleServer, runLeakChild
  ...require('./resume-after-cuts'), // runResume, buildLog, serialize
  ...require('./patch') // withPatched
}
