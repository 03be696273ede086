'use strict'

// lib/parser/field-rules.js, the standard's interpretation of a field as both parsers can share it: the names
// as code units, `retry` digits, the NUL rule of `id`, data lines joined with LF. The parsers' own tests
// (test/parser/parser-vectors.test.cjs, test/compat/eventsource-parser/parser-drop-in*.test.cjs) check it in
// use.

const t = require('tap')
const rules = require('../../lib/parser/field-rules')

const {
  FIELD_UNKNOWN, FIELD_DATA, FIELD_EVENT, FIELD_ID, FIELD_RETRY, FIELD_NAMES,
  fieldStartingWith, digitValue, retryValue, isAcceptedId, appendData, TAIL_LINES, joinTail
} = rules

t.test('the names', async (t) => {
  t.same(FIELD_NAMES, ['', 'data', 'event', 'id', 'retry'])
})

t.test('fieldStartingWith: the one kind each first letter can start', async (t) => {
  t.equal(fieldStartingWith(0x64), FIELD_DATA)
  t.equal(fieldStartingWith(0x65), FIELD_EVENT)
  t.equal(fieldStartingWith(0x69), FIELD_ID)
  t.equal(fieldStartingWith(0x72), FIELD_RETRY)
  for (const other of ['D', 'E', ':', ' ', 'x', '\u0000']) t.equal(fieldStartingWith(other.charCodeAt(0)), FIELD_UNKNOWN, JSON.stringify(other))
  t.equal(fieldStartingWith(NaN), FIELD_UNKNOWN, 'past the end of a string')
})

t.test('retry: only ASCII digits, empty excluded; exact up to 15 digits, rounded as parseInt beyond', async (t) => {
  t.equal(digitValue(0x30), 0)
  t.equal(digitValue(0x39), 9)
  t.equal(digitValue(0x2f), -1)
  t.equal(digitValue(0x3a), -1)
  t.equal(digitValue(0xff10), -1, 'a fullwidth digit is not an ASCII digit')
  t.equal(retryValue('0'), 0)
  t.equal(retryValue('0015'), 15)
  t.equal(retryValue('3000'), 3000)
  t.equal(retryValue('999999999999999'), 999999999999999)
  for (const digits of ['9007199254740993', '86288864886024208288', '1' + '0'.repeat(30)]) {
    t.equal(retryValue(digits), parseInt(digits, 10), digits)
  }
  t.equal(retryValue('9'.repeat(400)), Infinity)
  for (const bad of ['', ' 1', '1 ', '-1', '+1', '1.5', '1e3', '0x10', '１', '1\u0000']) t.equal(retryValue(bad), -1, JSON.stringify(bad))
})

t.test('id: a value with U+0000 is ignored', async (t) => {
  t.ok(isAcceptedId(''))
  t.ok(isAcceptedId('abc'))
  t.ok(isAcceptedId('\ud800'), 'a lone surrogate is not U+0000')
  t.notOk(isAcceptedId('\u0000'))
  t.notOk(isAcceptedId('a\u0000b'))
})

t.test('data: lines joined with LF; the first line is the buffer itself', async (t) => {
  let data = ''
  let lines = 0
  for (const value of ['a', '', 'b']) data = appendData(data, lines++, value)
  t.equal(data, 'a\n\nb')
  t.equal(appendData('', 0, ''), '', 'one empty line')
  t.equal(appendData('', 1, ''), '\n', 'two empty lines')
})

// Whether the rope was flattened does not show in the string: test/parser/parser-memory.test.cjs measures it.
t.test('joinTail(): the head with the rope of the last lines after it, short lines or long', async (t) => {
  let short = ''
  for (let i = 0; i < TAIL_LINES; i++) short = appendData(short, i + 1, 'x')
  let long = ''
  for (let i = 0; i < TAIL_LINES; i++) long = appendData(long, i + 1, 'y'.repeat(400))
  for (const [name, tail] of [['short lines', short], ['long lines', long], ['none', '']]) {
    t.equal(joinTail('head', tail), `head${tail}`, name)
  }
})

// The byte parser spells the names out on bytes, for speed (lib/parser/parser.js, #field): it must
// know exactly FIELD_NAMES, no more and no less. Every name, each of its prefixes and each with one
// letter more or changed, with and without a value.
t.test('the byte parser and the string drop-in know exactly these names', async (t) => {
  const { EventSourceParser } = require('../..')
  const { createParser } = require('../../lib/entries/parser.js')
  const candidates = new Set()
  for (const name of FIELD_NAMES.slice(1)) {
    for (let i = 1; i <= name.length; i++) candidates.add(name.slice(0, i))
    candidates.add(`${name}x`)
    for (let i = 0; i < name.length; i++) candidates.add(`${name.slice(0, i)}${name[i].toUpperCase()}${name.slice(i + 1)}`)
  }
  for (const name of candidates) {
    for (const line of [`${name}:7`, `${name}: 7`, name]) {
      const seen = []
      const parser = new EventSourceParser({ onEvent: (type, data, id) => seen.push(['event', type, data, id]), onRetry: (ms) => seen.push(['retry', ms]) })
      parser.write(Buffer.from(`${line}\ndata\n\n`))
      const strings = []
      createParser({ onEvent: (e) => strings.push(['event', e.event ?? 'message', e.data, e.id ?? '']), onRetry: (ms) => strings.push(['retry', ms]) }).feed(`${line}\ndata\n\n`)
      const value = line === name ? '' : '7'
      const expected = {
        data: [['event', 'message', `${value}\n`, '']],
        event: [['event', value || 'message', '', '']],
        id: [['event', 'message', '', value]],
        retry: value === '' ? [['event', 'message', '', '']] : [['retry', 7], ['event', 'message', '', '']]
      }[FIELD_NAMES.includes(name) ? name : 'none'] ?? [['event', 'message', '', '']]
      t.same(seen, expected, `bytes: ${JSON.stringify(line)}`)
      t.same(strings, expected, `strings: ${JSON.stringify(line)}`)
    }
  }
})
