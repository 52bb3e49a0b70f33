// Jest 30 in ESM mode (node --experimental-vm-modules, see package.json "test"); @swc/jest strips types,
// `npm run typecheck` type-checks. One real control plane per run: test/global-setup.js.
/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/test', '<rootDir>/api-types', '<rootDir>/standalone', '<rootDir>/sdk', '<rootDir>/runtime', '<rootDir>/controllers'],
  testMatch: ['**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  globalSetup: '<rootDir>/test/global-setup.js',
  globalTeardown: '<rootDir>/test/global-teardown.js',
  testTimeout: 60000,
  maxWorkers: 2,
};
