/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  // '^pkogen$': code written against the public API (kickstart output, consumer modules) runs from source.
  moduleNameMapper: { '^pkogen$': '<rootDir>/src/index.ts',
    '^pkogen/schema/runtime$': '<rootDir>/src/public/schema-runtime.ts',
    '^pkogen/(model|hypershift|pko|oci|rollout|kube|yaml|schema)$': '<rootDir>/src/public/$1.ts', '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, diagnostics: false }],
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  // Integration suites start real servers; keep them from competing for the two cores.
  maxWorkers: 2,
  testTimeout: 120000,
};
