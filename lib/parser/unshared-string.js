// V8 makes a string of SLICE_MIN characters or more taken out of a longer one a view of it (a "sliced
// string"), which keeps all of the longer one alive; shorter ones are copied. The parser's values are
// such views of their network chunk's decoded text (./parser.js), so a short value can keep a whole chunk alive.
// What is kept for long (a queued event, an event's data buffer across chunks) is copied out first.

const SLICE_MIN = 13

// The same characters in a string that shares no memory with the one it was taken from: flattening the
// concatenation allocates one new string, and the slice is a view of that one alone.
function unshared (string) {
  return string.length < SLICE_MIN ? string : (string + ' ').slice(0, -1)
}

export { unshared }
