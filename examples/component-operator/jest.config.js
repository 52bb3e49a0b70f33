// Jest for a TypeScript ESM component (see feature-gates.jest.test.ts): @swc/jest strips the types, the
// mapper lets `./x.js` imports find `./x.ts`. Needs jest, @jest/globals, @swc/core and @swc/jest.
/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  testMatch: ['**/*.jest.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }] },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
};
