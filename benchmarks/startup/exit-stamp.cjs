'use strict'

// Preloaded (node -r) into the ssecat processes of the startup benchmark: at process exit, writes
// performance.now() (milliseconds since this process's performance.timeOrigin) to file descriptor 3,
// a pipe the parent reads, so ssecat's own stdout and stderr stay untouched. Loading this file is the
// only cost it adds to the process (one small CommonJS module).

const { writeSync } = require('node:fs')

process.on('exit', () => {
  try {
    writeSync(3, `${performance.now()}\n`)
  } catch {
    // Not started by the benchmark (no fd 3): nothing to report.
  }
})
