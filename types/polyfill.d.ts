// Side-effect entry: defines globalThis.EventSource when absent. It declares no global type: lib.dom
// already types the global for browser code, and declaring it again here would clash with it.
export {}
