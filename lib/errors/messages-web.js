// The messages of lib/errors/index.js's codes where Node's wording is not shipped: browsers and workers
// (package.json's "imports" maps `#error-messages` here for any runtime that does not match the `node`
// condition; lib/errors/messages-node.js is the wording, on Node, Bun and Deno). The wording of every code
// would be a large share of what a browser bundle of the EventSource downloads (benchmarks/size.mjs), and a
// browser shows the code and the values with it as well: a message is the code in words and the values it
// was made from, so ERR_EVENTSOURCE_BAD_STATUS with 404 and 'Not Found' says "bad status: 404, Not Found".
// The code, the class and everything else about the error are the same as on Node; docs/browser.md lists
// this. (A code whose message is another package's wording has it in its table: lib/errors/drop-in.js.)

// A value as the message shows it: a primitive as a string, an object or a function by its type alone
// (converting one to a string could run its code, or throw).
function show (value) {
  return (typeof value === 'object' && value !== null) || typeof value === 'function' ? typeof value : String(value)
}

/**
 * @param {unknown[]} args the constructor's leading arguments, as many as the code's message takes
 */
function message (code, args) {
  const words = code.replace(/^ERR_(?:EVENTSOURCE_)?/, '').toLowerCase().replaceAll('_', ' ')
  return args.length === 0 ? words : `${words}: ${args.map(show).join(', ')}`
}

export { message }
