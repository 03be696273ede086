// The idle-memory targets of issue 28, stated once: the runner (./run.mjs) prints them, the report
// (../report/whole-client.mjs, ../report/tls.mjs) and the chart show them. On every Node:
//
//   HTTP/1.1  ours' heap per idle connection at most 0.3x undici 7's EventSource's, at each count
//   h2        ours at most 4 KiB of heap and 12 KiB of RSS per idle source, at the largest count
//             (10,000), shown next to the floor: a bare node:http2 client stream per source on one
//             session, what any h2 client costs at least

export const MEMORY_TARGET = { peer: 'undici', key: 'heapUsedPerConnection', goal: 0.3, what: 'idle heap per connection: ours ÷ undici 7 EventSource' }

export const H2_TARGETS = [
  { what: 'heap per idle source', key: 'heapUsedPerConnection', goal: 4 },
  { what: 'RSS per idle source', key: 'rssPerConnection', goal: 12 }
]
