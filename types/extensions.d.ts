// `whatwg-eventsource/extensions`: the EventSource with every extension of the EventSourceInit dictionary,
// and `for await`. On Node, Bun and Deno it is the main entry's EventSource; in a browser or worker build,
// where the main entry's is the standard's alone, it is the one to import for the extensions. The
// extensions' types are in EventSourceInit (types/index.d.ts), whatever the build.
export { EventSource } from './index'
