// The rooms of the house are kept by the linter (eslint.config.js, eslint-plugin-import-x): the project's own
// lint configuration run over a small tree that breaks each rule once — an upward import, a product file
// importing the test helpers, controllers/ reaching past the SDK's public API, hosted/ reaching past the controllers'
// one seam, an import cycle, a room of runtime/ importing a room above or beside it or the runtime barrel — fails on
// exactly those files and passes the allowed imports beside them. (`npm run lint` on the real tree is CI's.)
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { tempDirs } from '../support/temp.js';

const tempDir = tempDirs();

const TREE: Record<string, string> = {
  'api-types/index.ts': 'export const a = 1;\n',
  'api-types/upward.ts': "import { b } from '../runtime/allowed.js';\nexport const up = b;\n",
  'runtime/allowed.ts': "import { a } from '../api-types/index.js';\nexport const b = a;\n",
  'runtime/cycle-one.ts': "import { two } from './cycle-two.js';\nexport const one = (): number => two() + 1;\n",
  'runtime/cycle-two.ts': "import { one } from './cycle-one.js';\nexport const two = (): number => one() - 1;\n",
  'sdk/index.ts': "export { inner } from './inner.js';\n",
  'sdk/inner.ts': 'export const inner = 2;\n',
  'sdk/testing/index.ts': "import { inner } from '../index.js';\nexport const helper = inner;\n",
  'controllers/public.ts': "import { inner } from '../sdk/index.js';\nexport const c = inner;\n",
  'controllers/internal.ts': "import { inner } from '../sdk/inner.js';\nexport const d = inner;\n",
  'cmd/product.ts': "import { helper } from '../sdk/testing/index.js';\nexport const e = helper;\n",
  'cmd/allowed.ts': "import { c } from '../controllers/public.js';\nexport const f = c;\n",
  'controllers/operator-cluster.ts': "export { c } from './public.js';\n",
  'hosted/seam.ts': "import { c } from '../controllers/operator-cluster.js';\nexport const h = c;\n",
  'hosted/past-seam.ts': "import { d } from '../controllers/internal.js';\nexport const i = d;\n",
  'runtime/index.ts': "export { down } from './cache/down.js';\n",
  'runtime/log/logger.ts': 'export const log = 1;\n',
  'runtime/cache/down.ts': "import { log } from '../log/logger.js';\nexport const down = log;\n",
  'runtime/cache/barrel.ts': "import { down } from '../index.js';\nexport const j = down;\n",
  'runtime/cache/sideways.ts': "import { served } from '../serving/served.js';\nexport const k = served;\n",
  'runtime/serving/served.ts': "import { down } from '../cache/down.js';\nexport const served = down;\n",
  'runtime/util/upward.ts': "import { down } from '../cache/down.js';\nexport const l = down;\n",
  'test/anything.ts': "import { helper } from '../sdk/testing/index.js';\nimport { inner } from '../sdk/inner.js';\nexport const g = helper + inner;\n",
};

describe('npm run lint keeps the rooms', () => {
  it('fails an upward import, a product import of test helpers, a reach past the SDK\'s API or the controllers\' seam, and a cycle; passes the rest', () => {
    const root = tempDir('fgc-lint-rooms-');
    const repo = resolve('.');
    copyFileSync(join(repo, 'eslint.config.js'), join(root, 'eslint.config.js'));
    symlinkSync(join(repo, 'node_modules'), join(root, 'node_modules'));
    writeFileSync(join(root, 'package.json'), '{"type": "module"}\n');
    for (const [file, text] of Object.entries(TREE)) {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      writeFileSync(join(root, file), text);
    }
    const r = spawnSync(process.execPath, [join(repo, 'node_modules', 'eslint', 'bin', 'eslint.js'), '--format', 'json', '.'], { cwd: root, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(1);
    const results = JSON.parse(r.stdout) as { filePath: string; messages: { ruleId: string; message: string }[] }[];
    const found = Object.fromEntries(results.filter((f) => f.messages.length > 0)
      .map((f) => [f.filePath.slice(root.length + 1), f.messages.map((m) => `${m.ruleId}: ${m.message}`)]));
    expect(Object.keys(found).sort()).toEqual(['api-types/upward.ts', 'cmd/product.ts', 'controllers/internal.ts', 'hosted/past-seam.ts',
      'runtime/cache/barrel.ts', 'runtime/cache/sideways.ts', 'runtime/cycle-one.ts', 'runtime/cycle-two.ts', 'runtime/util/upward.ts']);
    // runtime/'s rooms: below only (util under cache), no sideways reach (cache beside serving), never the barrel
    expect(found['runtime/util/upward.ts']).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*runtime\/util\/ may import only api-types, runtime\/log \(/)]);
    expect(found['runtime/cache/sideways.ts']).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*runtime\/cache\/ may import only api-types, runtime\/log, runtime\/util, runtime\/metrics, runtime\/rest \(/)]);
    expect(found['runtime/cache/barrel.ts']).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*runtime\/cache\/ may import only/)]);
    expect(found['hosted/past-seam.ts']).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*through controllers\/operator-cluster\.ts, their one seam/)]);
    expect(found['api-types/upward.ts']).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*api-types\/ may import only nothing of this project/)]);
    expect(found['cmd/product.ts']).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*cmd\/ may import only api-types, runtime, sdk, control-plane/)]);
    expect(found['controllers/internal.ts']).toEqual([expect.stringMatching(/^import-x\/no-restricted-paths: .*through sdk\/index\.ts, its public API/)]);
    expect(found['runtime/cycle-one.ts']).toEqual([expect.stringMatching(/^import-x\/no-cycle: Dependency cycle/)]);
  });

  it('README § Layout has a paragraph per room, and every folder of code is a room (or hack/, test/, examples/)', async () => {
    const { ROOMS } = await import(resolve('eslint.config.js')) as { ROOMS: Record<string, string[]> };
    const readme = readFileSync('README.md', 'utf8');
    const layout = readme.slice(readme.indexOf('## Layout'), readme.indexOf('## Testing'));
    for (const room of [...Object.keys(ROOMS), 'hack', 'test']) expect({ room, inLayout: layout.includes(`**\`${room}/\`**`) }).toEqual({ room, inLayout: true });
    const withCode = readdirSync('.', { withFileTypes: true })
      .filter((d) => d.isDirectory() && !['node_modules', 'dist', '.cache', '.git'].includes(d.name))
      .filter((d) => readdirSync(d.name, { recursive: true, encoding: 'utf8' }).some((f) => f.endsWith('.ts') && !f.includes('node_modules')))
      .map((d) => d.name);
    expect(withCode.filter((d) => !(d in ROOMS) && !['hack', 'test', 'examples'].includes(d))).toEqual([]);
  });

  it('docs/runtime.md has a line per room of runtime/, and every folder of runtime/ is one of them', async () => {
    const { RUNTIME_ROOMS } = await import(resolve('eslint.config.js')) as { RUNTIME_ROOMS: Record<string, string[]> };
    const map = readFileSync('docs/runtime.md', 'utf8');
    for (const room of Object.keys(RUNTIME_ROOMS)) expect({ room, inMap: map.includes(`\`${room}/\``) }).toEqual({ room, inMap: true });
    const folders = readdirSync('runtime', { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => `runtime/${d.name}`);
    expect(folders.sort()).toEqual(Object.keys(RUNTIME_ROOMS).sort());
    expect(readdirSync('runtime').filter((f) => f.endsWith('.ts'))).toEqual(['index.ts']);
  });
});
