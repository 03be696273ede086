'use strict'

// The undici Dispatcher behind --proxy, --cacert and --insecure, or the proxy environment variables.
// With none of them, null: EventSource then uses undici's global dispatcher, as any library user's
// code would. --http2 uses none: its sessions take the TLS settings (http2Options).

const PROXY_VARIABLES = ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY']

/** The proxy variables that are set (either case, not empty), as EnvHttpProxyAgent reads them. */
function proxyEnvironment (env) {
  const set = []
  for (const name of PROXY_VARIABLES) {
    for (const spelling of [name, name.toLowerCase()]) {
      if (env[spelling] !== undefined && env[spelling] !== '') set.push(spelling)
    }
  }
  return set
}

function tlsOptions (config) {
  const tls = {}
  if (config.cacert !== undefined) tls.ca = config.cacert
  if (config.insecure) tls.rejectUnauthorized = false
  return tls
}

/**
 * init.http2 for --http2: its sessions get the TLS settings of --cacert and --insecure.
 * @param {{ cacert?: Buffer, insecure: boolean }} config
 */
function http2Options (config) {
  return { connect: tlsOptions(config) }
}

/**
 * @param {{ proxy?: string, cacert?: Buffer, insecure: boolean }} config
 * @param {Record<string, string | undefined>} env
 * @returns {{ dispatcher: import('undici').Dispatcher, via: string | null } | null}
 */
function createDispatcher (config, env) {
  const tls = tlsOptions(config)
  // undici is loaded only for a dispatcher of our own: without one the library takes the global
  // dispatcher, whose Agent costs a third of what all of undici does to load (lib/transport/dispatchers.js).
  if (config.proxy !== undefined) {
    const undici = require('undici')
    // TLS settings apply both to the origin (through the tunnel) and to an https: proxy itself.
    return { dispatcher: new undici.ProxyAgent({ uri: config.proxy, requestTls: tls, proxyTls: tls }), via: config.proxy }
  }
  const variables = proxyEnvironment(env)
  if (variables.length > 0) {
    const undici = require('undici')
    // EnvHttpProxyAgent hands these options to its direct Agent (connect) and to its ProxyAgents.
    const dispatcher = new undici.EnvHttpProxyAgent({ connect: tls, requestTls: tls, proxyTls: tls })
    return { dispatcher, via: variables.join(', ') }
  }
  if (Object.keys(tls).length > 0) return { dispatcher: new (require('undici').Agent)({ connect: tls }), via: null }
  return null
}

module.exports = { createDispatcher, proxyEnvironment, http2Options }
