'use strict'

// OpenTelemetry for every EventSource of the process, from whatwg-eventsource's diagnostics channels
// (docs/diagnostics.md), with @opentelemetry/api alone: the application registers the SDK and the
// exporters it wants, this file only talks to the API.
//
// - One span per connection attempt ("EventSource GET", kind CLIENT), started by the attempt's
//   TracingChannel and ended when the source says what comes next: the `error` message (a span event
//   `eventsource.reconnect` with the delay, or `eventsource.failure`) or the `close` message (the
//   reason). An attempt that ended in an error records it as an exception, with status ERROR.
// - Metrics: `eventsource.sources.open`, an UpDownCounter of the sources OPEN now, and
//   `eventsource.events.received`, a Counter of the messages dispatched.
// - No span per message: a stream may carry thousands a second. The counter has no attributes: the
//   event type is chosen by the server, and a metric's attributes must stay few.
//
// In an application, after the SDK is set up (NodeSDK, or a TracerProvider and a MeterProvider
// registered as the global ones):
//
//   const { instrument } = require('./opentelemetry')
//   const stop = instrument()          // or instrument({ tracerProvider, meterProvider })
//   ...
//   stop()                             // unsubscribes: back to the zero-cost path
//
// The attempt span is not made the active context of the request: with the API alone there is no
// AsyncLocalStorage to bind. A context manager's storage bound with
// `tracingChannel('whatwg-eventsource:attempt').start.bindStore(storage, ...)` would make it the
// parent of undici's HTTP spans.

const dc = require('node:diagnostics_channel')
const { trace, metrics, SpanKind, SpanStatusCode } = require('@opentelemetry/api')
const { version } = require('../package.json')

const NAME = 'whatwg-eventsource'

/**
 * Subscribes to the channels; returns the function that unsubscribes.
 * @param {{ tracerProvider?: import('@opentelemetry/api').TracerProvider,
 *   meterProvider?: import('@opentelemetry/api').MeterProvider }} [providers] default: the global ones
 * @returns {() => void}
 */
function instrument ({ tracerProvider = trace.getTracerProvider(), meterProvider = metrics.getMeterProvider() } = {}) {
  const tracer = tracerProvider.getTracer(NAME, version)
  const meter = meterProvider.getMeter(NAME, version)
  const openSources = meter.createUpDownCounter('eventsource.sources.open', {
    description: 'EventSources whose readyState is OPEN'
  })
  const received = meter.createCounter('eventsource.events.received', {
    description: 'Messages dispatched by EventSources, listened for or not'
  })

  // Per source: the span of its current attempt (until the source says what follows it), and
  // whether it is counted as open. Weak: a source that is dropped takes its entry along.
  const states = new WeakMap()
  const stateOf = (source) => {
    let state = states.get(source)
    if (state === undefined) states.set(source, state = { span: null, open: false })
    return state
  }
  const leaveOpen = (state) => {
    if (!state.open) return
    state.open = false
    openSources.add(-1)
  }

  // The source's attempt is over (an error, or the source closed): it is no longer OPEN, and its span, if
  // any, is handed over to be ended (null when there is none).
  const endOfAttempt = (source) => {
    const state = states.get(source)
    if (state === undefined) return null
    leaveOpen(state)
    const span = state.span
    state.span = null
    return span
  }

  const attempt = {
    start ({ source, attempt, url, method, lastEventId }) {
      const attributes = { 'url.full': url, 'http.request.method': method, 'eventsource.attempt': attempt }
      if (lastEventId !== '') attributes['eventsource.last_event_id'] = lastEventId
      stateOf(source).span = tracer.startSpan(`EventSource ${method}`, { kind: SpanKind.CLIENT, attributes })
    },
    error ({ source, error }) {
      const span = states.get(source)?.span
      if (span == null) return
      span.recordException(error)
      span.setStatus({ code: SpanStatusCode.ERROR, message: error.message })
    },
    end () {},
    asyncStart () {},
    asyncEnd () {}
  }
  const onOpen = ({ source, status, url, ms }) => {
    const state = stateOf(source)
    state.span?.setAttributes({ 'http.response.status_code': status, 'eventsource.final_url': url, 'eventsource.time_to_open_ms': ms })
    if (!state.open) {
      state.open = true
      openSources.add(1)
    }
  }
  const onMessage = () => received.add(1)
  const onError = ({ source, code, status, willReconnect, delay }) => {
    const span = endOfAttempt(source)
    if (span === null) return
    const attributes = { 'error.type': code ?? 'unknown' }
    if (status !== undefined) attributes['http.response.status_code'] = status
    if (willReconnect) {
      attributes['eventsource.reconnect_delay_ms'] = delay
      span.addEvent('eventsource.reconnect', attributes)
    } else {
      span.addEvent('eventsource.failure', attributes)
      span.setStatus({ code: SpanStatusCode.ERROR, message: code })
    }
    span.end()
  }
  const onClose = ({ source, reason, events, bytes, attempts, msOpen }) => {
    const span = endOfAttempt(source)
    if (span === null) return
    span.setAttribute('eventsource.close_reason', reason)
    span.addEvent('eventsource.close', {
      'eventsource.close_reason': reason,
      'eventsource.events': events,
      'eventsource.bytes': bytes,
      'eventsource.attempts': attempts,
      'eventsource.ms_open': msOpen
    })
    span.end()
  }

  const attempts = dc.tracingChannel('whatwg-eventsource:attempt')
  attempts.subscribe(attempt)
  const subscriptions = [
    ['whatwg-eventsource:open', onOpen],
    ['whatwg-eventsource:message', onMessage],
    ['whatwg-eventsource:error', onError],
    ['whatwg-eventsource:close', onClose]
  ]
  for (const [name, onMessage] of subscriptions) dc.subscribe(name, onMessage)
  return function uninstrument () {
    attempts.unsubscribe(attempt)
    for (const [name, onMessage] of subscriptions) dc.unsubscribe(name, onMessage)
  }
}

module.exports = { instrument }
