// Side-effect entry: makes every extension of the EventSourceInit dictionary, and `for await`, available
// in a browser or worker build (on Node, Bun and Deno they always are). It exports nothing; the types of
// the extensions are in EventSourceInit (types/index.d.ts), whatever the build.
export {}
