// `import 'whatwg-eventsource/extensions'`: the same as the CommonJS entry (extensions.js).
import './extensions.js'
