// `whatwg-eventsource/extensions`: makes every extension of the EventSourceInit dictionary (and
// `for await`) available where a build leaves them out, browsers' and workers' (lib/extension-registry.js
// says how). Loaded once, for its effect; it exports nothing. On Node, Bun and Deno every extension is
// there already, and this does nothing more.

import '../eventsource/extensions-all.js'
