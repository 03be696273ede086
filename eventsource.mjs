// ESM entry of `whatwg-eventsource/eventsource`: the same objects as the CommonJS entry, as named exports
// (that package has no default export).
import cjs from './eventsource.js'

export const { ErrorEvent, EventSource } = cjs
