// `import 'whatwg-eventsource/polyfill'`: the same as the CommonJS polyfill.
import './polyfill.js'
