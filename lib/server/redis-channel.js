// Many processes, one channel (issue 50): a Channel (./channel.js) in each process, fed by one Redis stream. A
// publish on any process appends the event to the stream (XADD, trimmed to the retention bound the user sets);
// each process follows the stream with one reader (XREAD BLOCK from the last entry it delivered) and publishes
// what it reads into its local channel under the entry's ID, so that an event has the same id on every process
// and a client's Last-Event-ID names a position in the stream wherever it reconnects. What a subscriber costs is
// the local channel's: the reader is per process, not per subscriber.
//
// A reconnecting subscriber is resumed from the local history first (loaded from the stream at start, so that a
// process that just started has the recent events too); only what is older is read from the stream (XRANGE, in
// pages, at the client's pace), and only as far as the local history, which then takes over. An id the stream no
// longer has (trimmed, or lost with Redis's data) gets the local channel's gap event. An id newer than this
// process has delivered (its reader is behind the process the client left) is waited for.
//
// Faults. Redis unreachable: publish() rejects at once (ERR_EVENTSOURCE_REDIS_UNAVAILABLE: nothing was sent), or,
// when the connection is lost while Redis has yet to answer, with ERR_EVENTSOURCE_PUBLISH_UNCONFIRMED (it may
// have been appended); the reader's client reconnects by itself, and the reader goes on from the last entry it
// delivered, so a subscriber that stayed connected gets nothing twice and, if Redis kept its data, misses nothing.
// A process that dies: its clients reconnect to the others with their Last-Event-ID; each subscriber is sent its
// own `retry:`, drawn from [retry, retry + retryJitter], so that they do not all come back in the same instant.
//
// The Redis client is node-redis (the `redis` package: an optional peer dependency), given by the user or made
// from a URL; the entry point (lib/entries/server-redis.js) hands this module its createClient, so that nothing
// else of the package loads it.

import { encodeEvent } from './encoder.js'
import { writerInternals } from './writer.js'
import { kMissed, DEFAULT_HISTORY } from './channel.js'
import { codes as argumentCodes } from '../errors/arguments.js'
import { codes as serverCodes } from '../errors/server.js'
import { codes as redisCodes } from '../errors/server-redis.js'
import {
  validateObject, validateLimit, validateString, validateTime, validateOptionalFunction
} from '../validators/values.js'

const { ERR_INVALID_ARG_TYPE, ERR_INVALID_ARG_VALUE } = argumentCodes
const { ERR_EVENTSOURCE_CHANNEL_CLOSED } = serverCodes
const { ERR_EVENTSOURCE_REDIS_UNAVAILABLE, ERR_EVENTSOURCE_PUBLISH_UNCONFIRMED } = redisCodes

const DEFAULT_RETRY = 1000
const DEFAULT_RETRY_JITTER = 2000
// Entries one XREAD returns at most: the events a process delivers in one tick after a pause.
const READ_COUNT = 1000
// How long one XREAD waits for an entry. Finite, so that the reader's connection carries a command now and then
// (a connection that died silently is found when the next one fails) and close() has nothing long to wait for.
const BLOCK_MS = 5000
// Entries per XRANGE of a subscriber resumed from the stream: a page is written, then the next read.
const RANGE_COUNT = 500
// After Redis refused a read (not a lost connection, which the client retries itself): wait, then read again.
const RETRY_READ_MS = 1000

const resolved = /* @__PURE__ */ Promise.resolve()

// A stream entry ID as Redis writes them: milliseconds and a sequence number, both 64-bit.
const ENTRY_ID = /^(\d{1,20})-(\d{1,20})$/

/** -1, 0 or 1 as entry ID `a` is before, the same as, or after `b` (both valid). */
function compareIds (a, b) {
  if (a === b) return 0
  const [, aMs, aSeq] = ENTRY_ID.exec(a)
  const [, bMs, bSeq] = ENTRY_ID.exec(b)
  const ms = BigInt(aMs) - BigInt(bMs)
  const diff = ms === 0n ? BigInt(aSeq) - BigInt(bSeq) : ms
  return diff < 0n ? -1 : diff > 0n ? 1 : 0
}

// The event of a stream entry: its fields are the event's (publish() writes data, event, retry and comment; any
// other field is not the event's), its ID the event's id.
function eventOf ({ id, message }) {
  const { data, event, retry, comment } = message
  return { id, data, event, retry: retry === undefined ? undefined : Number(retry), comment }
}

function withCause (error, cause) {
  Object.defineProperty(error, 'cause', { value: cause, writable: true, configurable: true })
  return error
}

/**
 * The RedisChannel class of an entry point.
 * @param {{ Channel: Function, EventStreamWriter: Function, createClient: Function, ErrorReply: Function }} parts
 *   the server entry's Channel and EventStreamWriter (a writer made there can be subscribed here), and
 *   node-redis's createClient and ErrorReply (an answer of Redis's, as opposed to a lost connection)
 */
function defineRedisChannel ({ Channel, EventStreamWriter, createClient, ErrorReply }) {
  const { writeNow, isOpen, isFull, cut: cutWriter } = writerInternals(EventStreamWriter)

  /**
   * A channel shared by every process that makes one on the same Redis stream.
   */
  class RedisChannel {
    #client
    #ownsClient
    // The reader's own connection (XREAD BLOCK holds a connection while it waits), a duplicate of #client.
    #reader = null
    #stream
    #trim
    #channel
    #writerOptions
    #retry
    #retryJitter
    #preload
    #onError
    // The ID of the last entry the reader delivered to the local channel: where it reads from next.
    #lastId = '0-0'
    // Writers subscribed before the history was loaded (null once it is), and those being resumed from the
    // stream: subscribers the local channel does not count yet.
    #waiting = new Set()
    #resuming = new Set()
    // Resolves what waits for the reader's next delivery (a resumed subscriber, in a process behind).
    #wakers = []
    #ready
    #readyResolve
    #closed = false
    #closedPromise = null
    // Settles the wait between two reads after an error, when the channel closes.
    #stopWaiting = null

    /** @param {import('../../types/server-redis').RedisChannelOptions} options */
    constructor (options) {
      validateObject(options, 'options')
      const { client, url, stream, maxLength } = options
      if (client === undefined) {
        validateString(url, 'options.url')
        this.#client = createClient({ url })
        this.#ownsClient = true
      } else {
        validateObject(client, 'options.client')
        if (typeof client.duplicate !== 'function' || typeof client.xAdd !== 'function') {
          throw new ERR_INVALID_ARG_VALUE('options.client', client, 'is not a client of node-redis (the redis package)')
        }
        this.#client = client
        this.#ownsClient = false
      }
      validateString(stream, 'options.stream')
      if (stream === '') throw new ERR_INVALID_ARG_VALUE('options.stream', stream, 'must name a key')
      // No default: how many events Redis keeps is how far back a client can resume, the user's choice.
      validateLimit(maxLength, 'options.maxLength', { min: 1, allowInfinity: true })
      const exact = options.exactLength ?? false
      if (typeof exact !== 'boolean') throw new ERR_INVALID_ARG_TYPE('options.exactLength', 'of type boolean', exact)
      this.#stream = stream
      // '~' lets Redis trim whole nodes of its radix tree only: it keeps at least maxLength entries, a little more
      // at times, for much less work per XADD than '='.
      this.#trim = maxLength === Infinity
        ? undefined
        : { TRIM: { strategy: 'MAXLEN', strategyModifier: exact ? '=' : '~', threshold: maxLength } }
      this.#retry = options.retry ?? DEFAULT_RETRY
      validateTime(this.#retry, 'options.retry')
      this.#retryJitter = options.retryJitter ?? DEFAULT_RETRY_JITTER
      validateTime(this.#retryJitter, 'options.retryJitter')
      validateOptionalFunction(options.onError, 'options.onError')
      this.#onError = options.onError ?? null
      const history = options.history ?? DEFAULT_HISTORY
      this.#channel = new Channel({
        history,
        historyBytes: options.historyBytes,
        gapEvent: options.gapEvent,
        heartbeat: options.heartbeat,
        [kMissed]: (writer, lastEventId, resume) => this.#missed(writer, lastEventId, resume)
      })
      this.#preload = history
      this.#writerOptions = { heartbeat: options.heartbeat, maxBufferedBytes: options.maxBufferedBytes }
      // Checked now, as the first subscribe() would.
      if (options.maxBufferedBytes !== undefined) {
        validateLimit(options.maxBufferedBytes, 'options.maxBufferedBytes', { allowInfinity: true })
      }
      this.#ready = new Promise((resolve) => { this.#readyResolve = resolve })
      this.#run()
    }

    /** The stream's key. */
    get stream () {
      return this.#stream
    }

    /** Resolves once the channel follows the stream: its history loaded, its reader reading. */
    get ready () {
      return this.#ready
    }

    /** Subscribers, reading, behind, or being resumed. */
    get size () {
      return this.#channel.size + (this.#waiting?.size ?? 0) + this.#resuming.size
    }

    /** The ID of the newest entry this process has delivered, '' before the first. */
    get lastEventId () {
      return this.#channel.lastEventId
    }

    /**
     * Appends an event to the stream; resolves with its entry ID, which is its id on every process. It reaches
     * this process's subscribers as it reaches the others': through the reader.
     * @param {import('../../types/server').ServerSentEvent} event
     * @returns {Promise<string>}
     */
    async publish (event) {
      if (this.#closed) throw new ERR_EVENTSOURCE_CHANNEL_CLOSED()
      validateObject(event, 'event')
      const { id, data, event: type, retry, comment } = event
      if (id !== undefined) {
        throw new ERR_INVALID_ARG_VALUE('event.id', id, 'is the stream entry\'s ID in a RedisChannel: leave it out')
      }
      // Encoded once here only to be refused here: a bad event must fail its publisher, not every reader.
      encodeEvent({ comment, event: type, retry, data })
      const fields = {}
      if (data !== undefined) fields.data = data
      if (type !== undefined) fields.event = type
      if (retry !== undefined) fields.retry = `${retry}`
      if (comment !== undefined) fields.comment = comment
      // Sent only on a connection that is up: node-redis would otherwise queue the command until the connection
      // is back, and the publisher would wait for an outage to end without knowing.
      if (!this.#client.isReady) throw new ERR_EVENTSOURCE_REDIS_UNAVAILABLE('the event was not published')
      try {
        return await this.#client.xAdd(this.#stream, '*', fields, this.#trim)
      } catch (err) {
        if (err instanceof ErrorReply) throw err
        throw withCause(new ERR_EVENTSOURCE_PUBLISH_UNCONFIRMED(), err)
      }
    }

    /**
     * Subscribes a client: resumes it from its Last-Event-ID, here or from the stream, then writes it every event.
     * @param {object} target a writer, or what a writer is made for (a node:http response...)
     * @param {import('../../types/server').EventStreamWriterOptions} [options] for the writer made here
     */
    subscribe (target = undefined, options = undefined) {
      if (this.#closed) throw new ERR_EVENTSOURCE_CHANNEL_CLOSED()
      const writer = target instanceof EventStreamWriter
        ? target
        : new EventStreamWriter(target, { ...this.#writerOptions, retry: this.#nextRetry(), ...options })
      if (this.#waiting !== null) this.#waiting.add(writer)
      else this.#channel.subscribe(writer)
      return writer
    }

    /** Ends every subscriber's response and stops reading; publish() and subscribe() throw from then on. */
    close () {
      if (this.#closedPromise !== null) return this.#closedPromise
      this.#closed = true
      this.#stopWaiting?.()
      this.#wake()
      for (const writer of [...this.#waiting ?? [], ...this.#resuming]) writer.close()
      this.#waiting?.clear()
      this.#resuming.clear()
      this.#channel.close()
      this.#closedPromise = this.#closeClients()
      return this.#closedPromise
    }

    async #closeClients () {
      // destroy(), not close(): close() would wait for the reader's XREAD, blocked for up to BLOCK_MS.
      if (this.#reader?.isOpen) this.#reader.destroy()
      if (!this.#ownsClient || !this.#client.isOpen) return
      // Gracefully while Redis answers (publishes under way get their answer), else at once.
      if (this.#client.isReady) await this.#client.close()
      else this.#client.destroy()
    }

    #nextRetry () {
      return this.#retry + Math.floor(Math.random() * (this.#retryJitter + 1))
    }

    #report (error) {
      if (this.#onError !== null && !this.#closed) this.#onError(error)
    }

    // The reader: connects, loads the history, then follows the stream until the channel closes.
    async #run () {
      try {
        // node-redis emits 'error' at every lost connection, then reconnects; without a listener, 'error' throws.
        if (this.#ownsClient) this.#client.on('error', (error) => this.#report(error))
        if (!this.#client.isOpen) await this.#client.connect()
        if (this.#closed) return
        // With its offline queue whatever the user's client has: a read sent while the connection is down waits
        // for it to be back, rather than fail at once, again and again.
        this.#reader = this.#client.duplicate({ disableOfflineQueue: false })
        this.#reader.on('error', (error) => this.#report(error))
        await this.#reader.connect()
      } catch (error) {
        // The client gave up connecting (its reconnectStrategy), or the channel closed while it connected.
        this.#report(error)
        return
      }
      while (!this.#closed && this.#waiting !== null) {
        try {
          await this.#load()
        } catch (error) {
          if (!await this.#afterError(error)) return
        }
      }
      while (!this.#closed) {
        let reply
        try {
          reply = await this.#reader.xRead({ key: this.#stream, id: this.#lastId },
            { COUNT: READ_COUNT, BLOCK: BLOCK_MS })
        } catch (error) {
          if (!await this.#afterError(error)) return
          continue
        }
        if (reply !== null && !this.#closed) this.#deliver(reply[0].messages)
      }
    }

    // The newest events of the stream, as many as the local history keeps, into the local channel: a process that
    // just started resumes the clients of one that died from its own history, as the others do. Then the writers
    // subscribed meanwhile, which have been written nothing yet: once the channel has flushed those events (in a
    // promise job queued as they were published), which would otherwise reach them as new.
    async #load () {
      const newest = await this.#reader.xRevRange(this.#stream, '+', '-', { COUNT: this.#preload })
      if (this.#closed) return
      this.#deliver(newest.reverse())
      await resolved
      if (this.#closed) return
      const waiting = this.#waiting
      this.#waiting = null
      for (const writer of waiting) this.#channel.subscribe(writer)
      this.#readyResolve()
    }

    // A read that failed; false when reading is over. A lost connection is reported by the client's 'error'
    // event, and the next read waits in node-redis's queue for the connection to be back. Anything else would
    // fail again at once (Redis refusing the read: the key holds something else than a stream...): it is
    // reported, and the read is tried again after a while. A client that gave up reconnecting (a
    // reconnectStrategy of the user's) cannot read again.
    async #afterError (error) {
      if (this.#closed) return false
      if (!this.#reader.isOpen) {
        this.#report(error)
        return false
      }
      if (!this.#reader.isReady) return true
      this.#report(error)
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, RETRY_READ_MS)
        this.#stopWaiting = () => {
          clearTimeout(timer)
          resolve()
        }
      })
      this.#stopWaiting = null
      return !this.#closed
    }

    #deliver (entries) {
      for (const entry of entries) {
        try {
          this.#channel.publish(eventOf(entry))
        } catch (error) {
          // An entry that is not an event (written by something else than a RedisChannel): skipped, and said.
          this.#report(withCause(new ERR_INVALID_ARG_VALUE(`the stream entry ${entry.id}`, entry.message,
            'is not an event this channel can write'), error))
        }
        this.#lastId = entry.id
      }
      // After the channel's flush of these events (queued as they were published): a subscriber resumed after one
      // of them must not be written it again by that flush.
      if (entries.length > 0 && this.#wakers.length > 0) resolved.then(() => this.#wake())
    }

    #wake () {
      const wakers = this.#wakers
      this.#wakers = []
      for (const wake of wakers) wake()
    }

    // Resolves after the reader's next delivery (or once the channel closes).
    #nextDelivery () {
      return new Promise((resolve) => this.#wakers.push(resolve))
    }

    // The local channel has not the subscriber's Last-Event-ID: it may be older than the local history, or newer
    // than what this process has delivered; anything but an entry ID is neither.
    // `resume(id)` resumes the subscriber after `id` from the local history (false if it has not that event);
    // resume(null) writes the gap event.
    #missed (writer, lastEventId, resume) {
      if (!ENTRY_ID.test(lastEventId)) {
        resume(null)
        return
      }
      this.#resuming.add(writer)
      this.#resumeFromStream(writer, lastEventId, resume).then(null, (error) => {
        this.#report(error)
        cutWriter(writer, withCause(new ERR_EVENTSOURCE_REDIS_UNAVAILABLE('the subscriber could not be resumed'),
          error))
      }).finally(() => this.#resuming.delete(writer))
    }

    // Writes the entries after `from` that the stream has, until the local history has the last one written: the
    // local channel resumes the subscriber from there. What the client has not read yet is waited for, page by page.
    async #resumeFromStream (writer, from, resume) {
      let last = from
      let page = []
      let next = 0
      let found = false
      while (!this.#closed && isOpen(writer)) {
        if (resume(last)) return
        if (next === page.length) {
          page = await this.#client.xRange(this.#stream, found ? `(${last}` : last, '+', { COUNT: RANGE_COUNT })
          next = 0
          if (!found) {
            found = page.length > 0 && page[0].id === from
            if (!found) {
              // Trimmed from the stream (or lost with Redis's data), or never one of its entries. The reader may have
              // delivered it meanwhile (a process behind), hence one more look here.
              if (!resume(from)) resume(null)
              return
            }
            next = 1
          }
          if (next === page.length) {
            // The stream has nothing after `last` yet: the local history takes over once it has `last`. This
            // process may not have delivered it yet (its reader is behind the process the client left): until it
            // has, and the channel has flushed it.
            while (!this.#closed && compareIds(this.#lastId, last) < 0) await this.#nextDelivery()
            await resolved
            if (this.#closed || !isOpen(writer) || resume(last)) return
            // Delivered, and not in the history: not an event (skipped), or trimmed from it already. What follows
            // is read from the stream once there is more.
            await this.#nextDelivery()
            continue
          }
        }
        // The page, until the client has as much as it takes at once, or the local history has the last one written.
        // Not corked: on Node 22 and later a node:http response whose write() said false while corked emits no
        // 'drain' once uncorking hands it all to the socket, and the client would wait for ever.
        let resumed = false
        while (next < page.length && !isFull(writer) && isOpen(writer)) {
          if ((resumed = resume(last))) break
          const entry = page[next++]
          let bytes = null
          try {
            bytes = encodeEvent(eventOf(entry))
          } catch {
            // Not an event: the reader skipped it too.
          }
          if (bytes !== null) writeNow(writer, bytes)
          last = entry.id
        }
        if (resumed) return
        if (isFull(writer)) await writer.ready.catch(() => {})
      }
    }
  }

  Object.defineProperty(RedisChannel.prototype, Symbol.toStringTag, { value: 'RedisChannel', configurable: true })
  return RedisChannel
}

export { defineRedisChannel, compareIds }
