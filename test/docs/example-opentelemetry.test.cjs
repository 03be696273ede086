'use strict'

// examples/opentelemetry.js against the OpenTelemetry SDK's in-memory span exporter and in-memory
// metric exporter: one span per attempt with its reconnection and failure events, the metrics of
// open sources and events received, and no span per message.

const t = require('tap')
const { SpanKind, SpanStatusCode } = require('@opentelemetry/api')
const { BasicTracerProvider, SimpleSpanProcessor, InMemorySpanExporter } = require('@opentelemetry/sdk-trace-base')
const {
  MeterProvider, PeriodicExportingMetricReader, InMemoryMetricExporter, AggregationTemporality
} = require('@opentelemetry/sdk-metrics')
const { instrument } = require('../../examples/opentelemetry')
const { SSE_HEADERS, serve, sse, record, onceBounded } = require('../helpers/index.cjs')

function setUp (t) {
  const spans = new InMemorySpanExporter()
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] })
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE)
  // Exported on forceFlush() only: the interval is longer than any test.
  const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 })
  const meterProvider = new MeterProvider({ readers: [reader] })
  const uninstrument = instrument({ tracerProvider, meterProvider })
  t.teardown(async () => {
    uninstrument()
    await meterProvider.shutdown()
    await tracerProvider.shutdown()
  })
  return {
    spans: () => spans.getFinishedSpans(),
    /** The current value of each metric: { name: value }. */
    async metrics () {
      metricExporter.reset()
      await reader.forceFlush()
      const values = {}
      for (const { scopeMetrics } of metricExporter.getMetrics()) {
        for (const { metrics } of scopeMetrics) {
          for (const metric of metrics) values[metric.descriptor.name] = metric.dataPoints.reduce((sum, point) => sum + point.value, 0)
        }
      }
      return values
    }
  }
}

const eventsOf = (span) => span.events.map((event) => [event.name, event.attributes])

t.test('spans per attempt, with reconnection and failure events; metrics of open sources and events received', async (t) => {
  const otel = setUp(t)
  const srv = await serve(t, (req, res) => {
    const n = srv.requests.filter((r) => r.url === req.url).length - 1
    if (req.url === '/steady') sse(res, 'data: a\n\ndata: b\n\n', { end: false })
    else if (n === 0) sse(res, 'id: 1\ndata: 1\n\ndata: 2\n\n')
    else if (n === 1) {
      res.writeHead(200, SSE_HEADERS)
      res.write('data: 3\n\n', () => res.socket.destroy())
    } else res.writeHead(503, { 'content-type': 'text/plain' }).end('busy')
  })
  // One source that stays open, one that reconnects twice and then fails.
  const steady = srv.eventSource('/steady')
  const steadyEvents = record(steady)
  await steadyEvents.wait('message', 2)
  t.same(await otel.metrics(), { 'eventsource.sources.open': 1, 'eventsource.events.received': 2 })

  const failing = srv.eventSource('/failing', { reconnectionTime: 5 })
  const events = record(failing)
  await events.wait('error', 3)
  t.equal(events.of('error').at(-1).event.willReconnect, false)
  t.same(await otel.metrics(), { 'eventsource.sources.open': 1, 'eventsource.events.received': 5 },
    'the failed source is no longer open; its three events were received')

  const spans = otel.spans()
  t.equal(spans.length, 3, 'one span per attempt of the failing source, none per message; the steady one is still open')
  const [first, second, third] = spans
  for (const [i, span] of spans.entries()) {
    t.equal(span.name, 'EventSource GET')
    t.equal(span.kind, SpanKind.CLIENT)
    t.match(span.attributes, {
      'url.full': srv.url('/failing'), 'http.request.method': 'GET', 'eventsource.attempt': i + 1
    })
  }
  t.match(first.attributes, { 'http.response.status_code': 200, 'eventsource.final_url': srv.url('/failing') })
  t.notOk('eventsource.last_event_id' in first.attributes, 'no last event ID yet')
  t.equal(second.attributes['eventsource.last_event_id'], '1')
  t.ok(first.attributes['eventsource.time_to_open_ms'] >= 0)

  t.strictSame(eventsOf(first), [['eventsource.reconnect', { 'error.type': 'ERR_EVENTSOURCE_STREAM_ENDED', 'eventsource.reconnect_delay_ms': 5 }]])
  t.equal(first.status.code, SpanStatusCode.UNSET, 'the end of a stream is no error')

  t.strictSame(eventsOf(second).map(([name]) => name), ['exception', 'eventsource.reconnect'])
  t.equal(second.events[0].attributes['exception.type'], 'ERR_EVENTSOURCE_NETWORK')
  t.strictSame(second.events[1].attributes, { 'error.type': 'ERR_EVENTSOURCE_NETWORK', 'eventsource.reconnect_delay_ms': 5 })
  t.equal(second.status.code, SpanStatusCode.ERROR)

  t.strictSame(eventsOf(third).map(([name]) => name), ['exception', 'eventsource.failure'])
  t.strictSame(third.events[1].attributes, { 'error.type': 'ERR_EVENTSOURCE_BAD_STATUS', 'http.response.status_code': 503 })
  t.equal(third.status.code, SpanStatusCode.ERROR)
  t.equal(third.attributes['http.response.status_code'], undefined, 'never opened')
  // Each span covers its attempt: the next one starts after it ended.
  t.ok(first.endTime[0] * 1e9 + first.endTime[1] <= second.startTime[0] * 1e9 + second.startTime[1])

  steady.close()
  t.same(await otel.metrics(), { 'eventsource.sources.open': 0, 'eventsource.events.received': 5 })
  const last = otel.spans().at(-1)
  t.equal(otel.spans().length, 4)
  t.equal(last.attributes['url.full'], srv.url('/steady'))
  t.equal(last.attributes['eventsource.close_reason'], 'close')
  t.strictSame(eventsOf(last), [['eventsource.close', {
    'eventsource.close_reason': 'close',
    'eventsource.events': 2,
    'eventsource.bytes': Buffer.byteLength('data: a\n\ndata: b\n\n'),
    'eventsource.attempts': 1,
    'eventsource.ms_open': last.events[0].attributes['eventsource.ms_open']
  }]])
  t.ok(last.events[0].attributes['eventsource.ms_open'] > 0)
})

t.test('after uninstrument() nothing is recorded', async (t) => {
  const spans = new InMemorySpanExporter()
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] })
  const uninstrument = instrument({ tracerProvider })
  uninstrument()
  const srv = await serve(t, (req, res) => sse(res))
  const es = srv.eventSource('/')
  await onceBounded(es, 'open')
  es.close()
  t.strictSame(spans.getFinishedSpans(), [])
})
