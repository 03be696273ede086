// Compiled by `tsc -p test/types/tsconfig.json` with lib.dom: our EventSource must be usable wherever
// lib.dom's EventSource is expected, so browser code type-checks unchanged on Node.
import { EventSource as NodeEventSource } from '../../types/index.js'

const source = new NodeEventSource('http://127.0.0.1/events')
const asDom: globalThis.EventSource = source
const DomEventSource: typeof globalThis.EventSource = NodeEventSource

function browserCode (es: globalThis.EventSource): void {
  es.onmessage = (event) => console.log(event.data, event.lastEventId)
  es.addEventListener('open', () => console.log(es.readyState === es.OPEN))
  es.close()
}

browserCode(source)
browserCode(new DomEventSource('/events'))
void asDom
