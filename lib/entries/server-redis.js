// `whatwg-eventsource/server/redis` on Node, Bun and Deno: a channel shared by many processes through a Redis
// stream (docs/server-redis.md). The one module of the package that loads the Redis client, node-redis (the
// `redis` package, an optional peer dependency: install it to use this entry point). Its RedisChannel takes the
// writers of `whatwg-eventsource/server`, whose classes it is built on.

import { createClient, ErrorReply } from 'redis'
import { Channel, EventStreamWriter } from './server.js'
import { defineRedisChannel } from '../server/redis-channel.js'

const RedisChannel = defineRedisChannel({ Channel, EventStreamWriter, createClient, ErrorReply })

export { RedisChannel }
