// Extension (init.signal): an AbortSignal that closes the source, as close() does, when it aborts. The
// entry points whose EventSource has the extensions give followSignal to it (lib/entries/node-eventsource.js,
// web-extended-eventsource.js); the browsers' standard EventSource leaves this file out.

/**
 * Calls `onAbort` once `signal` aborts, or at once if it has.
 * @param {AbortSignal} signal
 * @param {() => void} onAbort
 * @returns {(() => void) | null} what stops following the signal; null when it had aborted already
 */
function followSignal (signal, onAbort) {
  if (signal.aborted) {
    onAbort()
    return null
  }
  signal.addEventListener('abort', onAbort, { once: true })
  return () => signal.removeEventListener('abort', onAbort)
}

export { followSignal }
