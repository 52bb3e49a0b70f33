import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';

// The rooms of the house (README § Layout) and what each may import. A room lists the rooms *below* it; an
// import of any other room is an upward or sideways import and fails `npm run lint`, as does any import cycle.
// hack/ and test/ stand above all rooms (they may import everything; nothing imports them).
// A room that lists `runtime` may import every room of runtime/ (RUNTIME_ROOMS).
export const ROOMS = {
  'api-types': [],
  runtime: ['api-types'],
  sdk: ['api-types', 'runtime'],
  'control-plane': ['api-types', 'runtime'],
  'sdk/testing': ['api-types', 'runtime', 'sdk', 'control-plane'],
  controllers: ['api-types', 'runtime', 'sdk'],
  standalone: ['api-types', 'runtime'],
  hosted: ['api-types', 'runtime', 'controllers'],
  cmd: ['api-types', 'runtime', 'sdk', 'control-plane', 'controllers', 'standalone', 'hosted'],
};
// runtime/ one floor down (docs/runtime.md § Rooms), lowest first, each with the rooms of runtime/ below it (all may
// import api-types/). runtime/index.ts, the barrel, stands above them all; none of them imports it.
export const RUNTIME_ROOMS = {
  'runtime/log': [],
  'runtime/util': ['runtime/log'],
  'runtime/metrics': ['runtime/util'],
  'runtime/rest': ['runtime/log', 'runtime/util', 'runtime/metrics'],
  'runtime/cache': ['runtime/log', 'runtime/util', 'runtime/metrics', 'runtime/rest'],
  'runtime/controller': ['runtime/log', 'runtime/util', 'runtime/metrics', 'runtime/rest'],
  'runtime/leaderelection': ['runtime/log', 'runtime/util', 'runtime/metrics', 'runtime/rest'],
  'runtime/events': ['runtime/log', 'runtime/util', 'runtime/rest'],
  'runtime/serving': ['runtime/log', 'runtime/util', 'runtime/metrics', 'runtime/rest', 'runtime/cache'],
  'runtime/manifests': ['runtime/util'],
  'runtime/components': ['runtime/log', 'runtime/util', 'runtime/rest'],
};
const RUNTIME = Object.keys(RUNTIME_ROOMS);
const EVERY_ROOM = {
  ...Object.fromEntries(Object.entries(ROOMS).map(([room, below]) =>
    [room, below.flatMap((r) => (r === 'runtime' ? ['runtime', ...RUNTIME] : [r])).concat(room === 'runtime' ? RUNTIME : [])])),
  ...Object.fromEntries(Object.entries(RUNTIME_ROOMS).map(([room, below]) => [room, ['api-types', ...below]])),
};
const ALL = [...Object.keys(EVERY_ROOM), 'hack', 'test'];
// A room's own files: a room with rooms nested in it (sdk/ with sdk/testing/, runtime/ with its rooms) is the files
// directly in its folder; the nested rooms follow their own rules.
const hasNested = (room) => ALL.some((r) => r.startsWith(`${room}/`));
const filesOf = (room) => (hasNested(room) ? `./${room}/*` : `./${room}/**`);
// The message names the rooms as declared (`runtime` for the whole of runtime/).
const below = (room) => (ROOMS[room] ?? ['api-types', ...RUNTIME_ROOMS[room]]).join(', ') || 'nothing of this project';
const zones = Object.entries(EVERY_ROOM).flatMap(([room, allowed]) => ALL
  .filter((other) => other !== room && !allowed.includes(other))
  .map((other) => ({ target: filesOf(room), from: filesOf(other), message: `${room}/ may import only ${below(room)} (README § Layout)` })));
// Where a room may reach only another's public face: the SDK's index (its accessor core is internal).
zones.push({ target: './controllers/**', from: './sdk/*', except: ['**/sdk/index.ts'], message: 'controllers/ reach the SDK through sdk/index.ts, its public API' });
// Hosted mode engages the operator's controllers on a cluster through one seam (multicluster-runtime's shape).
zones.push({ target: './hosted/**', from: './controllers', except: ['./operator-cluster.ts'], message: 'hosted/ reaches the operator\'s controllers through controllers/operator-cluster.ts, their one seam' });

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.cache/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // Lines a reader can hold: 140 columns, but for a string, template or pattern that would only be cut (messages
      // users see are reproduced whole, and a grep for one must find it).
      'max-len': ['error', { code: 140, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    files: ['**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      // no-cycle parses the files an import leads to: with the TypeScript parser (the default one fails on types).
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/extensions': ['.ts', '.js', '.mjs'],
      // Imports name the emitted .js; the source is the .ts beside it.
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.mjs', '.json'], extensionAlias: { '.js': ['.ts', '.js'] } })],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': ['error', { zones }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', structuredClone: 'readonly' } },
  },
);
