// The shapes of benchmarks/parser-strings.bench.mjs: a text (an event stream as one string) and a way to
// cut it into the strings a parser is fed.
//
// The texts: the distinct texts of the parser benchmark's 16 fixtures (../fixtures.mjs; several
// fixtures are one text cut differently: 9 texts), decoded as a TextDecoderStream hands them over but
// with a BOM kept for the parser to drop; then texts of our own for what the fixtures leave out (CJK
// and emoji text, CRLF and CR token streams, a 1 MiB line on its own). Each fixture text is fed per
// event, in 64-character, 16 KiB and 64 KiB feeds and in 1- to 7-character feeds (sizes from a seeded
// PRNG, so every run and every parser gets the same strings).
//
// No cut splits a surrogate pair: TextDecoderStream never hands over half a character, so neither does
// the benchmark (a cut that would is moved one unit on). And each string fed is what a TextDecoder
// makes of that piece's UTF-8 bytes, a flat string of its own (one byte per character when it can), as
// TextDecoderStream hands them over, not a slice of the text: V8 reads a slice through its parent,
// which changed the ratio on some shapes (UTF-8 text in one 20,000-character feed, Node 26: 1.04x as
// slices, 0.50x as decoded strings).

import { buildFixtures, digest, prng } from '../fixtures.mjs'

const STREAM = { stream: true }

// Whether cutting `text` before index `i` would split a surrogate pair.
function splitsPair (text, i) {
  const c = text.charCodeAt(i)
  return c >= 0xdc00 && c <= 0xdfff && i > 0 && (text.charCodeAt(i - 1) & 0xfc00) === 0xd800
}

/** `text` cut into strings of `size()` UTF-16 units each (one more where a pair would split). */
function cut (text, size) {
  const out = []
  for (let i = 0; i < text.length;) {
    let end = Math.min(text.length, i + size())
    if (end < text.length && splitsPair(text, end)) end++
    out.push(text.slice(i, end))
    i = end
  }
  return out
}

/** `text` cut after each blank line: one string per event (and whatever follows the last one). */
export function perEvent (text) {
  const out = []
  let start = 0
  let lineStart = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c !== 0x0a && c !== 0x0d) continue
    const blank = i === lineStart
    if (c === 0x0d && text.charCodeAt(i + 1) === 0x0a) i++
    lineStart = i + 1
    if (blank) {
      out.push(text.slice(start, lineStart))
      start = lineStart
    }
  }
  if (start < text.length) out.push(text.slice(start))
  return out
}

export const FEEDINGS = {
  'per event': perEvent,
  '64-char feeds': (text) => cut(text, () => 64),
  '16 KiB feeds': (text) => cut(text, () => 16 * 1024),
  '64 KiB feeds': (text) => cut(text, () => 64 * 1024),
  '1–7-char feeds': (text) => {
    const next = prng(0x51ce)
    return cut(text, () => 1 + Math.floor(next() * 7))
  },
  '1 KiB feeds': (text) => cut(text, () => 1024),
  '7-char feeds': (text) => cut(text, () => 7)
}
const FIXTURE_FEEDINGS = ['per event', '64-char feeds', '16 KiB feeds', '64 KiB feeds', '1–7-char feeds']

// A fixture's chunks as one string, as TextDecoderStream decodes them, the BOM kept (ignoreBOM).
function fixtureText (chunks) {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true })
  let text = ''
  for (const chunk of chunks) text += decoder.decode(chunk, STREAM)
  return text + decoder.decode()
}

// "250 events, BOM + 8-byte chunks" → "250 events, BOM": a fixture's name without its chunking.
const textName = (fixture) => fixture.replace(/(?:, | \+ )[^,+]*(?:chunks?|slices)$/, '')

/** The fixtures' distinct texts: [{ name, fixtures (names), text, events, retries }]. */
function fixtureTexts () {
  const out = []
  for (const f of buildFixtures()) {
    const text = fixtureText(f.chunks)
    const same = out.find((t) => t.text === text)
    if (same) {
      same.fixtures.push(f.name)
      continue
    }
    out.push({ name: textName(f.name), fixtures: [f.name], text, events: f.events, retries: f.retries })
  }
  if (new Set(out.map((t) => t.name)).size !== out.length) throw new Error('two fixture texts got the same name')
  return out
}

// CJK and emoji: IDs, types and data of CJK characters (one UTF-16 unit each) and emoji (surrogate
// pairs, some joined by ZWJ), two data lines per event.
function cjkEmojiText () {
  const cjk = ['中文字符', '日本語テキスト', '한국어', '漢字かな交じり文', '你好世界', '東京', '서울특별시']
  const emoji = ['😀', '🚀🌍✨', '👩‍💻', '🎉', '🧪🔬', '👍🏽', '🇯🇵']
  const next = prng(0xc7e0)
  const pick = (list) => list[Math.floor(next() * list.length)]
  let text = ''
  const events = []
  for (let i = 0; i < 2000; i++) {
    const line1 = Array.from({ length: 8 }, () => pick(cjk)).join(' ')
    const line2 = Array.from({ length: 8 }, () => `${pick(cjk)}${pick(emoji)}`).join(' ')
    const type = i % 3 === 0 ? `事件${pick(emoji)}` : 'message'
    const id = `标识-${i}-🔑`
    text += `id: ${id}\n${type === 'message' ? '' : `event: ${type}\n`}data: ${line1}\ndata: ${line2}\n\n`
    events.push({ type, data: `${line1}\n${line2}`, lastEventId: id })
  }
  return { name: 'CJK and emoji text', text, events, retries: [] }
}

// An LLM token stream (one small JSON event per event) with CRLF or CR line ends.
function tokensText (eol, name) {
  const n = 5000
  const data = '{"choices":[{"delta":{"content":"tok"}}]}'
  return { name, text: `data: ${data}${eol}${eol}`.repeat(n), events: Array.from({ length: n }, () => ({ type: 'message', data, lastEventId: '' })), retries: [] }
}

// Many tiny events with CRLF or CR line ends.
function tinyText (eol, name) {
  const n = 10000
  return { name, text: `data: x${eol}${eol}`.repeat(n), events: Array.from({ length: n }, () => ({ type: 'message', data: 'x', lastEventId: '' })), retries: [] }
}

// One 1 MiB data line alone (printable ASCII from a seeded PRNG).
function mibLineText () {
  const next = prng(0x1b1e)
  const alphabet = Buffer.from('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 {}[]",.:-_')
  const bytes = Buffer.allocUnsafe(1024 * 1024)
  for (let i = 0; i < bytes.length; i++) bytes[i] = alphabet[Math.floor(next() * alphabet.length)]
  const value = bytes.toString('latin1')
  return { name: '1 MiB data line', text: `data: ${value}\n\n`, events: [{ type: 'message', data: value, lastEventId: '' }], retries: [] }
}

/**
 * Every shape: { name, text (its name), feeding, feeds (how many strings), strings() (what is fed,
 * cut afresh on each call: the benchmark holds one shape's strings at a time, so a full GC before a
 * sample does not walk hundreds of thousands of strings of other shapes), chars, events (the model:
 * { type, data, lastEventId }[]), retries, digest, fixtures (the parser-benchmark fixtures of that
 * text, [] for our own texts) }.
 */
export function buildShapes () {
  const encoder = new TextEncoder()
  // ignoreBOM: a BOM at the start of a stream stays in its first string, for the parsers to drop.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true })
  const shapes = []
  const add = (t, feeding) => {
    const strings = () => FEEDINGS[feeding](t.text).map((piece) => decoder.decode(encoder.encode(piece)))
    const first = strings()
    if (first.join('') !== t.text) throw new Error(`${t.name}, ${feeding}: the feeds do not make the text`)
    shapes.push({
      name: `${t.name}, ${feeding}`,
      text: t.name,
      feeding,
      feeds: first.length,
      strings,
      chars: t.text.length,
      events: t.events,
      retries: t.retries,
      digest: digest(t.events, t.retries),
      fixtures: t.fixtures ?? []
    })
  }
  for (const t of fixtureTexts()) for (const feeding of FIXTURE_FEEDINGS) add(t, feeding)
  const cjk = cjkEmojiText()
  for (const feeding of FIXTURE_FEEDINGS) add(cjk, feeding)
  add(tokensText('\r\n', '5,000 LLM-token events CRLF'), 'per event')
  add(tokensText('\r', '5,000 LLM-token events CR'), 'per event')
  add(tinyText('\r\n', '10,000 tiny events CRLF'), '64 KiB feeds')
  add(tinyText('\r', '10,000 tiny events CR'), '64 KiB feeds')
  const mib = mibLineText()
  add(mib, '1 KiB feeds')
  add(mib, '7-char feeds')
  return shapes
}
