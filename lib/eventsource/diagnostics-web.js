// The diagnostics of a source where there is no diagnostics_channel (browsers, workers): nobody can
// subscribe, so nothing is counted or published (package.json's "imports" maps `#diagnostics` here for
// any runtime that does not match the `node` condition). The interface of
// lib/eventsource/diagnostics-node.js, which says what each call is for; only startAttempt() has work to do.

class SourceDiagnostics {
  received () {}
  message () {}

  startAttempt (request, lastEventId, connection) {
    connection.start()
  }

  attemptOver () {}
  opened () {}
  readyStateChanged () {}
  error () {}
  closed () {}
}

export { SourceDiagnostics }
