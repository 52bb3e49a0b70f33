#!/usr/bin/env node
// Writes Kubernetes' own feature-gate rules, per supported minor, into api-types/kubernetes-gates/ — never typed by
// hand. From each release's k8s.io/kubernetes module (the Go module proxy, via `go mod download`):
//  - test/compatibility_lifecycle/reference/versioned_feature_list.yaml: every gate's versioned specs (version,
//    default, lockToDefault, preRelease, minCompatibilityVersion) — the gates of the Kubernetes components, the
//    generic API server and component-base that every component registers;
//  - client-go's gates, which every component registers too and that file does not list: features/known_features.go
//    of k8s.io/client-go at the matching v0.X.Y;
//  - the dependency map `defaultKubernetesFeatureGateDependencies` of pkg/features/kube_features.go (from 1.35;
//    cross-checked against feature_list.md's Dependencies column where the release has that file);
//  - the gates k8s.io/controller-manager's pkg/features declares that kube_features.go does not register itself:
//    only binaries that import controller-manager's `features/register` package (through k8s.io/cloud-provider's
//    options) have them — `go list -deps` at v1.36.3: kube-apiserver, kube-controller-manager and kubelet do,
//    kube-scheduler does not (its v1.36.3 binary refuses ControllerManagerReleaseLeaderElectionLockOnExit).
// Usage: node hack/update-gate-rules.mjs [--check]   (--check: exit 1 if a generated file would change)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { homedir } from 'node:os';
import { parse } from 'yaml';

/** The releases whose rules are generated: one per supported minor (the newest patch the module proxy serves). */
export const RELEASES = ['v1.33.9', 'v1.34.4', 'v1.35.4', 'v1.36.3', 'v1.37.2'];
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, 'api-types', 'kubernetes-gates');

/** Where the Go module proxy's copy of one release of a module is. */
export function moduleDir(version, module = 'k8s.io/kubernetes') {
  return downloadModule(`${module}@${version}`, join(ROOT, 'hack', 'envtest')).Dir;
}

/**
 * `go mod download -json` of one module (a bare path: the version the go.mod in `cwd` requires): its folder and exact
 * version. Without Go, the module cache a Go run filled before is read ($GOMODCACHE, else $GOPATH/pkg/mod, else
 * ~/go/pkg/mod), or the run stops naming the folder it looked for.
 */
export function downloadModule(query, cwd) {
  let out;
  try {
    out = execFileSync('go', ['mod', 'download', '-json', query], { cwd, encoding: 'utf8' });
  } catch (e) {
    if (e.code !== 'ENOENT') throw e;
    return cachedModule(query, cwd);
  }
  const { Dir, Version, Error: error } = JSON.parse(out);
  if (error || !Dir) throw new Error(`go mod download ${query}: ${error ?? 'no Dir'}`);
  return { Dir, Version };
}

/** A module's folder in the Go module cache, found without Go (module paths escape capitals as `!` + lower case). */
function cachedModule(query, cwd) {
  const [path, asked] = query.split('@');
  const version = asked ?? readFileSync(join(cwd, 'go.mod'), 'utf8').split('\n').map((l) => l.trim().replace(/^require\s+/, '').split(/\s+/))
    .find(([p, v]) => p === path && v?.startsWith('v'))?.[1];
  if (!version) throw new Error(`${join(cwd, 'go.mod')} requires no ${path}; Go is not on PATH to ask the module proxy`);
  const cache = process.env.GOMODCACHE || join(process.env.GOPATH || join(homedir(), 'go'), 'pkg', 'mod');
  const Dir = join(cache, `${path.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`)}@${version}`);
  if (!existsSync(Dir)) throw new Error(`Go is not on PATH and the module cache has no ${path}@${version} (${Dir}): install Go, or set GOMODCACHE to a module cache that holds it`);
  return { Dir, Version: version };
}

/** The dependency map literal of kube_features.go: gate → the gates it depends on (identifiers' last part are the names). */
export function parseDependencies(goSource) {
  const start = goSource.indexOf('var defaultKubernetesFeatureGateDependencies = map[featuregate.Feature][]featuregate.Feature{');
  if (start < 0) return {};
  const body = goSource.slice(goSource.indexOf('{', start) + 1);
  const end = body.search(/\n}\n/);
  const literal = body.slice(0, end).replace(/\/\/[^\n]*/g, '');
  const deps = {};
  for (const m of literal.matchAll(/([\w.]+)\s*:\s*\{([^}]*)\}/g)) {
    const name = (id) => id.trim().replace(/^[\w.]+\((.*)\)$/, '$1').split('.').at(-1); // featuregate.Feature(pkg.X) → X
    const list = m[2].split(',').map((s) => s.trim()).filter(Boolean).map(name);
    if (list.length) deps[name(m[1])] = list;
  }
  return deps;
}

/**
 * client-go's gates (features/known_features.go of the matching k8s.io/client-go): every component registers them,
 * and versioned_feature_list.yaml does not list them. Versioned specs from 0.35; before, one unversioned spec each
 * (registered with version 0.0: in force at every emulated version).
 */
export function parseClientGoGates(goSource) {
  const versioned = goSource.match(/var defaultVersionedKubernetesFeatureGates = map\[Feature\]VersionedSpecs\{\n([\s\S]*?)\n\}\n/);
  const plain = goSource.match(/var defaultKubernetesFeatureGates = map\[Feature\]FeatureSpec\{\n([\s\S]*?)\n\}\n/);
  const spec = (fields, version) => {
    const flag = (f) => new RegExp(`\\b${f}:\\s*true`).test(fields);
    const pre = fields.match(/PreRelease:\s*(\w+)/)?.[1];
    if (!pre) throw new Error(`client-go feature spec without PreRelease: ${fields}`);
    return [version, flag('Default'), flag('LockToDefault'), pre];
  };
  const gates = {};
  if (versioned) {
    for (const m of versioned[1].matchAll(/^\t(\w+):\s*\{\n([\s\S]*?)\n\t\},?$/gm)) {
      gates[m[1]] = [...m[2].matchAll(/\{([^}]*)\}/g)].map((x) => spec(x[1], x[1].match(/MustParse\("([\d.]+)"\)/)[1]));
    }
  } else if (plain) {
    for (const m of plain[1].matchAll(/^\t(\w+):\s*\{([^}]*)\},?$/gm)) gates[m[1]] = [spec(m[2], '0.0')];
  } else {
    throw new Error('client-go features/known_features.go: no feature map found');
  }
  return gates;
}

/** feature_list.md's Dependencies column (where the release has the file): the cross-check of parseDependencies. */
function markdownDependencies(md) {
  const all = md.split('\n');
  const first = all.findIndex((l) => l.startsWith('| Feature |'));
  const after = all.findIndex((l, i) => i > first && !l.startsWith('|'));
  const lines = all.slice(first, after < 0 ? undefined : after); // the gates' table only (a legend table follows)
  const header = lines[0].split('|').map((c) => c.trim());
  const col = header.indexOf('Dependencies');
  const deps = {};
  for (const line of lines.slice(2)) {
    const cells = line.split('|').map((c) => c.trim());
    const list = cells[col].split('<br>').map((s) => s.trim()).filter(Boolean);
    if (list.length) deps[cells[1]] = list;
  }
  return deps;
}

const literal = (v) => (typeof v === 'string' ? `'${v}'` : String(v));
const sortedObject = (o) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** The gates controller-manager's features file declares that kube_features.go (`kcmfeatures.X`) does not take in. */
export function controllerManagerOnlyGates(controllerManagerSource, kubeFeaturesSource) {
  const declared = [...controllerManagerSource.matchAll(/^\s*(\w+) featuregate\.Feature = "(\w+)"/gm)].map((m) => m[2]);
  return declared.filter((n) => !new RegExp(`kcmfeatures\\.${n}\\b`).test(kubeFeaturesSource)).sort();
}

export function renderRules(version, yamlText, deps, clientGoGates, controllerManagerGates) {
  const gates = { ...clientGoGates };
  for (const g of parse(yamlText)) {
    gates[g.name] = g.versionedSpecs.map((s) => [String(s.version), s.default === true, s.lockToDefault === true, s.preRelease,
      ...(s.minCompatibilityVersion ? [String(s.minCompatibilityVersion)] : [])]);
  }
  const minor = version.replace(/^v(\d+)\.(\d+)\..*$/, '$1.$2');
  const ident = `KUBERNETES_${minor.replace('.', '_')}`;
  const lines = [
    `// Generated by hack/update-gate-rules.mjs from k8s.io/kubernetes@${version} — do not edit.`,
    '// test/compatibility_lifecycle/reference/versioned_feature_list.yaml and k8s.io/client-go\'s features/known_features.go',
    '// (every gate\'s versioned specs: [version, default, lockToDefault, preRelease, minCompatibilityVersion?]) and',
    '// pkg/features/kube_features.go\'s defaultKubernetesFeatureGateDependencies.',
    "import type { KubernetesGateRules } from './types.js';",
    '',
    '// A function, so that V8 compiles and builds the data only for the minor a process asks for (gate-rules.ts keeps it).',
    `export const ${ident} = (): KubernetesGateRules => ({`,
    `  kubernetesVersion: '${version.slice(1)}',`,
    '  gates: {',
    ...Object.entries(sortedObject(gates)).map(([n, specs]) => `    ${n}: [${specs.map((s) => `[${s.map(literal).join(', ')}]`).join(', ')}],`),
    '  },',
    `  controllerManagerGates: [${controllerManagerGates.map(literal).join(', ')}],`,
    '  dependencies: {',
    ...Object.entries(sortedObject(deps)).map(([n, d]) => `    ${n}: [${d.map(literal).join(', ')}],`),
    '  },',
    '});',
    '',
  ];
  return { file: `kube-${minor}.ts`, ident, minor, text: lines.join('\n') };
}

function generate() {
  const files = [];
  for (const version of RELEASES) {
    const dir = moduleDir(version);
    const ref = join(dir, 'test', 'compatibility_lifecycle', 'reference');
    const kubeFeatures = readFileSync(join(dir, 'pkg', 'features', 'kube_features.go'), 'utf8');
    const deps = parseDependencies(kubeFeatures);
    const md = join(ref, 'feature_list.md');
    if (existsSync(md)) {
      const sortedDeps = (o) => JSON.stringify(sortedObject(Object.fromEntries(Object.entries(o).map(([k, v]) => [k, [...v].sort()]))));
      const fromMd = sortedDeps(markdownDependencies(readFileSync(md, 'utf8')));
      if (fromMd !== sortedDeps(deps)) throw new Error(`${version}: kube_features.go's dependencies differ from feature_list.md's: ${fromMd}`);
    }
    const clientGo = moduleDir(version.replace(/^v1\./, 'v0.'), 'k8s.io/client-go');
    const clientGoGates = parseClientGoGates(readFileSync(join(clientGo, 'features', 'known_features.go'), 'utf8'));
    const controllerManager = moduleDir(version.replace(/^v1\./, 'v0.'), 'k8s.io/controller-manager');
    const cmGates = controllerManagerOnlyGates(readFileSync(join(controllerManager, 'pkg', 'features', 'kube_features.go'), 'utf8'), kubeFeatures);
    files.push(renderRules(version, readFileSync(join(ref, 'versioned_feature_list.yaml'), 'utf8'), deps, clientGoGates, cmGates));
  }
  return [...files.map((f) => [f.file, f.text]), ['index.ts', indexModule(files, {
    script: 'hack/update-gate-rules.mjs', what: 'Kubernetes\' feature-gate rules', type: 'KubernetesGateRules', from: './types.js',
    doc: 'The rules of each supported Kubernetes minor ("1.36"), from that release\'s own files, built when called.', name: 'KUBERNETES_GATE_RULES',
  })]];
}

/** The index of a folder of generated per-minor modules: each minor's builder by its minor. */
export function indexModule(files, { script, what, type, from, doc, name }) {
  return [
    `// Generated by ${script} — do not edit. ${what} per supported minor.`,
    `import type { ${type} } from '${from}';`,
    ...files.map((f) => `import { ${f.ident} } from './${f.file.replace(/\.ts$/, '.js')}';`),
    '',
    `/** ${doc} */`,
    `export const ${name}: Readonly<Record<string, () => ${type}>> = {`,
    ...files.map((f) => `  '${f.minor}': ${f.ident},`),
    '};',
    '',
  ].join('\n');
}

/**
 * Writes generated files into `out` (a folder of the project), or with `--check` only says which differ; exits 1 on
 * a difference under --check. `label` names what is generated in the messages.
 */
export function writeGenerated(out, files, { script, label }) {
  const check = process.argv.includes('--check');
  const rel = relative(ROOT, out);
  let stale = 0;
  mkdirSync(out, { recursive: true });
  for (const [file, text] of files) {
    const path = join(out, file);
    const now = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
    if (now === text) continue;
    stale++;
    if (check) process.stderr.write(`${rel}/${file} is not what ${script} generates\n`);
    else writeFileSync(path, text);
  }
  process.stdout.write(check ? (stale ? `${stale} generated file(s) stale\n` : `generated ${label} up to date\n`) : `wrote ${stale} file(s) in ${rel}/\n`);
  process.exit(check && stale ? 1 : 0);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeGenerated(OUT, generate(), { script: 'hack/update-gate-rules.mjs', label: 'gate rules' });
