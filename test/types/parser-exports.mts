// Compiled by `tsc -p test/types/tsconfig.json` (nodenext; .mts, so that tsd, which resolves as
// node10 does, leaves it alone): the exports map gives whatwg-eventsource/parser and /parser/stream their types.
import { createParser, ParseError, type EventSourceMessage } from 'whatwg-eventsource/parser'
import { EventSourceParserStream } from 'whatwg-eventsource/parser/stream'

const parser = createParser({ onEvent: (event: EventSourceMessage) => console.log(event.data) })
parser.feed('data: x\n\n')
const stream: TransformStream<string, EventSourceMessage> = new EventSourceParserStream({ onError: 'terminate' })
const error: Error = new ParseError('m', { type: 'unknown-field' })
void stream
void error
