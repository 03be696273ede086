// The messages of the codes in browsers and workers (`#error-messages`; docs/browser.md): the code in words
// and the values it was made from, "bad status: 404, Not Found". Node's wording of every code
// (./messages-node.js) would be a large share of what a browser bundle of the EventSource downloads, and a
// browser shows the code and the values with the error anyway.

// A value as the message shows it: a primitive as a string, an object or a function by its type alone
// (converting one to a string could run its code, or throw).
function show (value) {
  return (typeof value === 'object' && value !== null) || typeof value === 'function' ? typeof value : String(value)
}

function message (code, args) {
  const words = code.replace(/^ERR_(?:EVENTSOURCE_)?/, '').toLowerCase().replaceAll('_', ' ')
  return args.length === 0 ? words : `${words}: ${args.map(show).join(', ')}`
}

export { message }
