import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';

// The rooms of the house (README § Layout) and what each may import. A room lists the rooms *below* it; an
// import of any other room is an upward or sideways import and fails `npm run lint`, as does any import cycle.
// hack/ and test/ stand above all rooms (they may import everything; nothing imports them).
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
const ALL = [...Object.keys(ROOMS), 'hack', 'test'];
// A room nested in another (sdk/testing in sdk) is its own room: the outer one's rule does not cover it.
const nested = (room) => Object.keys(ROOMS).filter((r) => r !== room && r.startsWith(`${room}/`)).map((r) => `./${r.slice(room.length + 1)}/**`);
// A room with a nested room is its own files only (sdk/*.ts; sdk/testing/ follows its own rule).
const filesOf = (room) => (nested(room).length ? `./${room}/*` : `./${room}/**`);
const zones = Object.entries(ROOMS).flatMap(([room, below]) => ALL
  .filter((other) => other !== room && !below.includes(other) && !room.startsWith(`${other}/`))
  .map((other) => ({
    target: filesOf(room), from: `./${other}`, except: nested(other).filter((n) => below.includes(`${other}/${n.slice(2, -3)}`)),
    message: `${room}/ may import only ${below.join(', ') || 'nothing of this project'} (README § Layout)`,
  })));
// Where a room may reach only another's public face: the SDK's index (its accessor core is internal).
zones.push({ target: './controllers/**', from: './sdk', except: ['./index.ts'], message: 'controllers/ reach the SDK through sdk/index.ts, its public API' });
// Hosted mode engages the operator's controllers on a cluster through one seam (multicluster-runtime's shape).
zones.push({ target: './hosted/**', from: './controllers', except: ['./operator-cluster.ts'], message: 'hosted/ reaches the operator\'s controllers through controllers/operator-cluster.ts, their one seam' });
// A nested room below its outer one: the outer room must not import it back (the product never imports its test helpers).
zones.push({ target: filesOf('sdk'), from: './sdk/testing', message: 'the SDK does not import its test helpers (sdk/testing)' });

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.cache/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
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
