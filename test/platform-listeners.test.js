'use strict'

// lib/platform/listeners-node.js: how many listeners an EventTarget has for a type, read from Node's own
// listener map, or through node:events' getEventListeners() where that map is not there.

const t = require('tap')
const path = require('node:path')
const { EventEmitter } = require('node:events')

const MODULE = path.join(__dirname, '..', 'lib', 'platform', 'listeners-node.js')

function check (t, { listenerCount }) {
  const target = new EventTarget()
  t.equal(listenerCount(target, 'x'), 0)
  const a = () => {}
  target.addEventListener('x', a)
  target.addEventListener('x', () => {}, { once: true })
  t.equal(listenerCount(target, 'x'), 2)
  target.dispatchEvent(new Event('x'))
  t.equal(listenerCount(target, 'x'), 1, 'the once listener is gone')
  target.removeEventListener('x', a)
  t.equal(listenerCount(target, 'x'), 0)
  t.equal(listenerCount(target, 'y'), 0, 'a type never listened for')
}

t.test('on Node: the listener map', async (t) => {
  const module = require(MODULE)
  t.equal(module.usesListenerMap, true, 'Node\'s EventTarget keeps its listeners where expected')
  check(t, module)
  t.equal(module.listenerCount(new EventEmitter(), 'x'), 1, 'not an EventTarget with that map: counted as listened-for')
})

t.test('elsewhere: getEventListeners(), and 1 for an object with a listeners() method of its own', async (t) => {
  // Load a copy that finds no listener map, as on a runtime whose EventTarget has none.
  const getOwnPropertySymbols = Object.getOwnPropertySymbols
  delete require.cache[MODULE]
  Object.getOwnPropertySymbols = () => []
  let fallback
  try {
    fallback = require(MODULE)
  } finally {
    Object.getOwnPropertySymbols = getOwnPropertySymbols
    delete require.cache[MODULE]
  }
  t.equal(fallback.usesListenerMap, false)
  check(t, fallback)
  t.equal(fallback.listenerCount(new EventEmitter(), 'x'), 1, 'cannot be asked: counted as listened-for')
})
