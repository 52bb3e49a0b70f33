// Bundles the `featuregates` CLI into dist/cli/ with esbuild: one entry file plus a chunk per lazily
// loaded command. Why: the CLI otherwise loads ~200 ES modules (ours, yaml's, prom-client's) one file at a
// time; resolving and compiling them is most of its start-up (docs/benchmarks.md: operator start → first
// status write). esbuild because it bundles ESM and CommonJS together in well under a second and needs no
// configuration beyond this file. @kubernetes/client-node stays external: the operator loads it only for
// exec-plugin kubeconfigs, `start` for the local control plane. prom-client's files are loaded with
// createRequire at run time (runtime/metrics/prometheus.ts) and so are read from node_modules too.
// Node's built-in modules are loaded with require(), not imported: an ES import of a built-in builds its module
// namespace, which reads every export — lazy getters included (`fs.ReadStream` loads fs streams and
// fs/promises, `crypto.webcrypto` the Web Crypto implementation …), all compiled anew at start when the node
// flags differ from the defaults (no embedded code cache; the image's do). Through require() the bundle reads
// only the exports it uses, when it uses them.
// Run by `npm run build` (and by npm test and prepack, after tsc).
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'cli');
rmSync(outdir, { recursive: true, force: true });
await build({
  // The lease thread's worker is an entry of its own: runtime/leaderelection/lease-thread.ts starts the file beside it.
  entryPoints: {
    featuregates: join(root, 'dist', 'cmd', 'featuregates.js'),
    'lease-thread-worker': join(root, 'dist', 'runtime', 'leaderelection', 'lease-thread-worker.js'),
  },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  external: ['@kubernetes/client-node'],
  plugins: [builtinsThroughRequire()],
  // CommonJS dependencies (yaml, semver) call require(); give the ES module bundle one.
  banner: { js: "import { createRequire as __fgcCreateRequire } from 'node:module'; const require = __fgcCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});

/** Every import of a Node built-in becomes a CommonJS module `module.exports = require('<builtin>')`. */
function builtinsThroughRequire() {
  const names = new Set(builtinModules.flatMap((m) => (m.startsWith('node:') ? [m] : [m, `node:${m}`])));
  return {
    name: 'builtins-through-require',
    setup(b) {
      b.onResolve({ filter: /^(node:)?[a-z_/0-9]+$/ }, (args) => {
        if (!names.has(args.path)) return undefined;
        // The require() inside the stand-in module is the built-in itself (the banner's require).
        if (args.namespace === 'builtin-require') return { path: args.path, external: true };
        return { path: args.path, namespace: 'builtin-require' };
      });
      b.onLoad({ filter: /.*/, namespace: 'builtin-require' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
    },
  };
}
