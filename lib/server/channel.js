// Fan-out: an event published once reaches every subscriber, encoded once, and the events of one tick go to
// each subscriber as one write of one shared buffer. A bounded history keeps the last events, so that a client
// that reconnects with Last-Event-ID resumes where it stopped, and a subscriber that does not read keeps
// nothing of its own: it falls back to a cursor in the history and catches up when it reads again, or, once
// the history has moved past its cursor, is disconnected (its client then reconnects, and is told what it
// missed cannot be resumed). A subscriber costs its writer, one set entry, and a cursor while it is behind
// (durable-streams #4661: an idle subscriber is a cursor over shared bytes).
//
// The history is the events' encoded bytes; ids map to positions in it (`seq`, counted from the channel's
// first event). Ids are the channel's own, `<epoch>-<seq>`, unless the publisher gives its own (a backplane's):
// the epoch, drawn when the channel is made, keeps an id of a previous process from naming an event of this
// one.

import { concatBytes } from '#bytes'
import { encodeEvent } from './encoder.js'
import { writerInternals } from './writer.js'
import { codes as argumentCodes } from '../errors/arguments.js'
import { codes as serverCodes } from '../errors/server.js'
import { validateObject, validateLimit, validateString } from '../validators/values.js'

const { ERR_INVALID_ARG_VALUE } = argumentCodes
const { ERR_EVENTSOURCE_CHANNEL_CLOSED, ERR_EVENTSOURCE_CLIENT_TOO_SLOW } = serverCodes

const DEFAULT_HISTORY = 1000
// The option by which a backplane that feeds a channel from a shared log (./redis-channel.js) takes over where the
// history ends: options[kMissed](writer, lastEventId, resume) is called instead of the gap event for a subscriber
// whose Last-Event-ID is not in the history, and the channel writes it nothing until the backplane calls
// resume(id), which resumes it after `id` if the history has that event and has written it to live subscribers
// (else returns false), or resume(null), which writes the gap event. The events older than the history may be in
// the log, and a process behind the others may be about to receive the one named. A symbol, so that the public
// options stay the documented ones.
const kMissed = Symbol('kMissed')
const DEFAULT_HISTORY_BYTES = 4 * 1024 * 1024
const resolved = /* @__PURE__ */ Promise.resolve()

/**
 * The Channel class of an entry point, over its EventStreamWriter (./writer.js).
 * @param {Function} EventStreamWriter what defineEventStreamWriter() returned
 */
function defineChannel (EventStreamWriter) {
  const {
    writeNow, attachChannel, isFull, isOpen, cut: cutWriter
  } = writerInternals(EventStreamWriter)

  class Channel {
    // Subscribers that have read all they were written; subscribers behind, each with the seq of the last event
    // written to it.
    #live = new Set()
    #behind = new Map()
    // The history: events from #firstSeq to #seq, oldest first, from #head in #entries ({ id, bytes }).
    #entries = []
    #head = 0
    #firstSeq = 1
    #seq = 0
    #historyBytes = 0
    #ids = new Map()
    // The seq of the last event written to live subscribers; the bytes of events published since.
    #flushedSeq = 0
    #pending = null
    #maxEvents
    #maxBytes
    #epoch
    #gap
    #writerOptions
    #closed = false
    // A backplane's options[kMissed] (above), or null.
    #missed
    // What its subscribers' writers tell the channel: one object per channel.
    #hooks = {
      drained: (writer) => this.#drained(writer),
      left: (writer) => this.#left(writer)
    }

    /** @param {import('../../types/server').ChannelOptions} [options] */
    constructor (options = undefined) {
      if (options !== undefined) validateObject(options, 'options')
      this.#maxEvents = options?.history ?? DEFAULT_HISTORY
      validateLimit(this.#maxEvents, 'options.history')
      this.#maxBytes = options?.historyBytes ?? DEFAULT_HISTORY_BYTES
      validateLimit(this.#maxBytes, 'options.historyBytes', { allowInfinity: true })
      const gapEvent = options?.gapEvent === undefined ? 'gap' : options.gapEvent
      if (gapEvent !== null) validateString(gapEvent, 'options.gapEvent')
      // Checked now, as the event it names (with no line end): a bad name fails here, not at a client's resume.
      if (gapEvent !== null) encodeEvent({ event: gapEvent, data: '' })
      this.#gap = gapEvent
      // What subscribe() makes its writers with (checked by the first writer).
      this.#writerOptions = {
        heartbeat: options?.heartbeat, retry: options?.retry, maxBufferedBytes: options?.maxBufferedBytes
      }
      this.#epoch = Math.floor(Math.random() * 2 ** 32).toString(36)
      this.#missed = options?.[kMissed] ?? null
    }

    /** Subscribers, reading or behind. */
    get size () {
      return this.#live.size + this.#behind.size
    }

    /** The id of the newest event, '' before the first. */
    get lastEventId () {
      return this.#seq < this.#firstSeq ? '' : this.#entry(this.#seq).id
    }

    /**
     * Publishes an event to every subscriber; returns its id.
     * @param {import('../../types/server').ServerSentEvent} event
     */
    publish (event) {
      if (this.#closed) throw new ERR_EVENTSOURCE_CHANNEL_CLOSED()
      validateObject(event, 'event')
      const seq = this.#seq + 1
      let id = event.id
      if (id === undefined) {
        id = `${this.#epoch}-${seq}`
      } else if (id === '' || this.#ids.has(id)) {
        throw new ERR_INVALID_ARG_VALUE('event.id', id, id === ''
          ? 'must not be empty in a channel: its id is how a subscriber resumes'
          : 'is the id of an event in the channel\'s history already')
      }
      const { comment, event: type, retry, data } = event
      const bytes = encodeEvent({ comment, event: type, id, retry, data })
      this.#seq = seq
      this.#entries.push({ id, bytes })
      this.#ids.set(id, seq)
      this.#historyBytes += bytes.length
      if (this.#pending === null) {
        this.#pending = [bytes]
        resolved.then(() => this.#flush())
      } else {
        this.#pending.push(bytes)
      }
      this.#trim()
      return id
    }

    /**
     * Subscribes a client: resumes it from its Last-Event-ID, then writes it every event published.
     * @param {object} target a writer, or what a writer is made for (a node:http response...)
     * @param {import('../../types/server').EventStreamWriterOptions} [options] for the writer made here
     */
    subscribe (target = undefined, options = undefined) {
      if (this.#closed) throw new ERR_EVENTSOURCE_CHANNEL_CLOSED()
      const writer = target instanceof EventStreamWriter
        ? target
        : new EventStreamWriter(target, options === undefined
          ? this.#writerOptions
          : { ...this.#writerOptions, ...options })
      if (!attachChannel(writer, this.#hooks)) return writer
      const lastEventId = writer.lastEventId
      if (lastEventId === '') {
        this.#catchUp(writer, this.#flushedSeq)
      } else if (lastEventId === null || !this.#resumeAfter(writer, lastEventId)) {
        // Not in the history. A backplane may find it elsewhere (an id too long to be one is not looked for).
        if (this.#missed !== null && lastEventId !== null) {
          this.#missed(writer, lastEventId,
            (id) => id === null ? this.#resumeWithGap(writer) : this.#resumeAfter(writer, id))
        } else {
          this.#resumeWithGap(writer)
        }
      }
      return writer
    }

    /** Ends every subscriber's response; publish() and subscribe() throw from now on. */
    close () {
      if (this.#closed) return
      this.#closed = true
      this.#flush()
      const writers = [...this.#live, ...this.#behind.keys()]
      for (const writer of writers) writer.close()
      // The history goes, but for its newest event, which lastEventId still names.
      this.#entries = this.#seq < this.#firstSeq ? [] : [this.#entry(this.#seq)]
      this.#head = 0
      this.#firstSeq = Math.max(this.#seq, 1)
      this.#ids.clear()
    }

    #entry (seq) {
      return this.#entries[this.#head + seq - this.#firstSeq]
    }

    // Resumes a subscriber after the event `id` if the history has it and live subscribers have been written it
    // (a subscriber resumed after an event of this tick would be written it again by the flush); false if not.
    #resumeAfter (writer, id) {
      const seq = this.#ids.get(id)
      if (seq === undefined || seq > this.#flushedSeq) return false
      this.#catchUp(writer, seq)
      return true
    }

    // What the subscriber missed cannot be resumed (older than the history, or never this channel's). The gap
    // event carries the newest id, so that the client's next reconnection resumes from here; before the first
    // event, an empty one, which resets the client's (else every reconnection would get a gap).
    #resumeWithGap (writer) {
      if (this.#gap !== null) {
        const newest = this.#flushedSeq < this.#firstSeq ? '' : this.#entry(this.#flushedSeq).id
        writeNow(writer, encodeEvent({ event: this.#gap, id: newest, data: '' }))
      }
      this.#catchUp(writer, this.#flushedSeq)
    }

    // Writes the events after `cursor` that live subscribers have had, the history's own bytes (no copy), then
    // takes the writer among them; or leaves it behind at the last event written, once the client stops taking
    // them. One write past that would be the socket's to keep instead of the history's: a
    // backlog written at once made a client that reads slowly pass maxBufferedBytes (cut, for what it was never
    // given the time to read), and then, closed in the middle of the loop, be put back among the subscribers
    // behind, counted and kept for good. A write the client takes cannot close it, so the writer is open when the
    // loop ends.
    #catchUp (writer, cursor) {
      this.#behind.delete(writer)
      let seq = cursor
      // Not corked: on Node 22 and later a corked response whose write() says false never emits 'drain', and the
      // subscriber would wait behind for good.
      while (seq < this.#flushedSeq && !isFull(writer)) writeNow(writer, this.#entry(++seq).bytes)
      if (seq === this.#flushedSeq && !isFull(writer)) this.#live.add(writer)
      else this.#behind.set(writer, seq)
    }

    // The events of this tick, in one buffer, to every live subscriber.
    #flush () {
      const pending = this.#pending
      if (pending === null) return
      this.#pending = null
      const bytes = pending.length === 1 ? pending[0] : concatBytes(pending)
      const flushed = this.#flushedSeq
      this.#flushedSeq = this.#seq
      for (const writer of this.#live) {
        if (isFull(writer)) {
          // Full since its last write (a heartbeat, or a write of its own): nothing more until it reads.
          this.#live.delete(writer)
          this.#behind.set(writer, flushed)
        } else if (!writeNow(writer, bytes) && isOpen(writer)) {
          this.#live.delete(writer)
          this.#behind.set(writer, this.#seq)
        }
      }
    }

    // Drops the oldest events past the bounds, and the subscribers whose cursor they held.
    #trim () {
      const entries = this.#entries
      let dropped = false
      while (this.#seq - this.#firstSeq + 1 > this.#maxEvents || this.#historyBytes > this.#maxBytes) {
        // The newest event stays, whatever its size: it is what live subscribers are about to be written.
        if (this.#firstSeq === this.#seq) break
        const entry = entries[this.#head]
        entries[this.#head++] = undefined
        this.#ids.delete(entry.id)
        this.#historyBytes -= entry.bytes.length
        this.#firstSeq++
        dropped = true
      }
      if (!dropped) return
      if (this.#head > 1024 && this.#head * 2 > entries.length) {
        this.#entries = entries.slice(this.#head)
        this.#head = 0
      }
      for (const [writer, cursor] of this.#behind) {
        if (cursor + 1 < this.#firstSeq) {
          cutWriter(writer, new ERR_EVENTSOURCE_CLIENT_TOO_SLOW('it fell behind the channel\'s history'))
        }
      }
    }

    #drained (writer) {
      const cursor = this.#behind.get(writer)
      if (cursor !== undefined) this.#catchUp(writer, cursor)
    }

    #left (writer) {
      this.#live.delete(writer)
      this.#behind.delete(writer)
    }
  }

  Object.defineProperty(Channel.prototype, Symbol.toStringTag, { value: 'Channel', configurable: true })
  return Channel
}

export { defineChannel, kMissed, DEFAULT_HISTORY }
