// Compiled with entries.mts by test/types/tsconfig.json, tsconfig.dom-libcheck.json, tsconfig.nodom.json and
// tsconfig.nodom-libcheck.json (`npm run test:types`): whatwg-eventsource/server/redis with node-redis's own
// client (a RedisClientType is a RedisClientLike), a URL, and the writers of whatwg-eventsource/server.
import { createServer } from 'node:http'
import { createClient } from 'redis'
import { EventStreamWriter, type ServerSentEvent } from 'whatwg-eventsource/server'
import { RedisChannel, type RedisChannelOptions, type RedisClientLike } from 'whatwg-eventsource/server/redis'

const client = createClient({ url: 'redis://127.0.0.1:6379' })
const likeOne: RedisClientLike = client
const channel = new RedisChannel({ client, stream: 'news', maxLength: 10_000, retry: 1000, retryJitter: 2000 })
const options: RedisChannelOptions = {
  url: 'redis://127.0.0.1:6379',
  stream: 'news',
  maxLength: Infinity,
  exactLength: true,
  history: 100,
  gapEvent: null,
  onError: (error: Error) => console.error(error.message)
}
const fromUrl = new RedisChannel(options)

createServer((req, res) => {
  const subscriber: EventStreamWriter = channel.subscribe(res, { heartbeat: 0 })
  const made = new EventStreamWriter(res)
  fromUrl.subscribe(made)
  const event: ServerSentEvent = { data: 'x', event: 'news' }
  const id: Promise<string> = channel.publish(event)
  void id.then((entry) => subscriber.send({ comment: entry + channel.stream + channel.lastEventId + channel.size }))
})
const done: Promise<void> = Promise.all([channel.ready, fromUrl.close()]).then(() => {})
void [likeOne, done]

// @ts-expect-error: a client or a URL is required
void new RedisChannel({ stream: 'news', maxLength: 1 })
// @ts-expect-error: the retention bound has no default
void new RedisChannel({ client, stream: 'news' })
// @ts-expect-error: not both
void new RedisChannel({ client, url: 'redis://127.0.0.1', stream: 'news', maxLength: 1 })
