// `npm run lint`, and the first step of `npm test`: neostandard, the flat-config successor of
// `standard`, whose style this code is written in.
import neostandard from 'neostandard'

export default [
  ...neostandard({
    // Also the hand-written declarations (types/*.d.ts) and the type tests (test/types/*.ts, *.mts),
    // with typescript-eslint's parser and no type information (no tsconfig is read).
    ts: true,
    filesTs: ['**/*.mts'],
    // What .gitignore lists (node_modules, coverage/, .tap/...), and what the benchmarks write.
    ignores: [
      ...neostandard.resolveIgnoresFromGitignore(),
      'benchmarks/results/**'
    ]
  }),
  {
    // A disable comment that no longer disables anything fails the lint rather than lingering.
    linterOptions: { reportUnusedDisableDirectives: 'error' }
  },
  {
    // The type tests are only compiled, never run: `new X(...)` alone and `void x` are statements
    // written for the type checker (a constructor call that must compile; a value marked as used).
    files: ['test/types/**'],
    rules: {
      'no-new': 'off',
      'no-void': 'off'
    }
  }
]
