'use strict'

// lib/platform/listeners-node.js: the listeners an EventTarget has for a type, as a live count, read from
// Node's own listener map, or through node:events' getEventListeners() where that map is not there.

const t = require('tap')
const path = require('node:path')
const { pathToFileURL } = require('node:url')
const { EventEmitter } = require('node:events')

const MODULE = path.join(__dirname, '..', '..', 'lib', 'platform', 'listeners-node.js')

function check (t, { listenersOf }) {
  const target = new EventTarget()
  t.equal(listenersOf(target, 'x').size, 0)
  const a = () => {}
  target.addEventListener('x', a)
  // Read once, then again after the listeners change: the count is live.
  const listeners = listenersOf(target, 'x')
  target.addEventListener('x', () => {}, { once: true })
  t.equal(listeners.size, 2)
  target.dispatchEvent(new Event('x'))
  t.equal(listeners.size, 1, 'the once listener is gone')
  target.removeEventListener('x', a)
  t.equal(listeners.size, 0)
  t.equal(listenersOf(target, 'x').size, 0)
  t.equal(listenersOf(target, 'y').size, 0, 'a type never listened for')
}

t.test('on Node: the listener map', async (t) => {
  const module = require(MODULE)
  t.equal(module.usesListenerMap, true, 'Node\'s EventTarget keeps its listeners where expected')
  check(t, module)
  t.equal(module.listenersOf(new EventEmitter(), 'x').size, 1, 'not an EventTarget with that map: counted as listened-for')
})

t.test('elsewhere: getEventListeners(), and 1 for an object with a listeners() method of its own', async (t) => {
  // Evaluate the module again (a URL of its own is a new instance) where an EventTarget shows no symbol
  // properties, as on a runtime whose EventTarget has no listener map. Only EventTargets: anything else
  // running meanwhile sees the real function.
  const getOwnPropertySymbols = Object.getOwnPropertySymbols
  Object.getOwnPropertySymbols = (object) => object instanceof EventTarget ? [] : getOwnPropertySymbols(object)
  let fallback
  try {
    fallback = await import(`${pathToFileURL(MODULE).href}?no-listener-map`)
  } finally {
    Object.getOwnPropertySymbols = getOwnPropertySymbols
  }
  t.not(fallback, require(MODULE), 'an instance of its own')
  t.equal(fallback.usesListenerMap, false)
  check(t, fallback)
  t.equal(fallback.listenersOf(new EventEmitter(), 'x').size, 1, 'cannot be asked: counted as listened-for')
})
