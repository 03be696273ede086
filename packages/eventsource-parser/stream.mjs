// `eventsource-parser/stream`, `import` and `require()` alike, where this package stands in for it: whatwg-eventsource's
// entry point for that package's API, the same objects (packages/README.md).
export * from 'whatwg-eventsource/parser/stream'
