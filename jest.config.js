/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  // resources/ and builder/ import pkogen by package name: tests run it from source.
  moduleNameMapper: {
    '^pkogen$': '<rootDir>/pkogen/src/index.ts',
    '^pkogen/schema/runtime$': '<rootDir>/pkogen/src/public/schema-runtime.ts',
    '^pkogen/(model|hypershift|pko|oci|rollout|kube|yaml|schema)$': '<rootDir>/pkogen/src/public/$1.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, diagnostics: false }],
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  // Integration suites start real servers; keep them from competing for the two cores.
  maxWorkers: 2,
  testTimeout: 120000,
};
