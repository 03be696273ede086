// The types of whatwg-eventsource/eventsource: the eventsource package's API, versions 3 to 5.
export * from 'whatwg-eventsource/eventsource'
