// The real Kubernetes binaries as the judge of a `--feature-gates` set: run kube-apiserver, kube-controller-manager
// or kube-scheduler with the gates (and an emulated version) and nothing else. A set the binary refuses ends at flag
// validation with component-base's errors; a set it accepts goes on to the next check that fails without a
// cluster (`--etcd-servers must be specified`, `invalid configuration: no configuration has been provided`), so
// the verdict comes in well under a second, without a start. No Jest import: hack/ runs the larger corpus too.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { checkFeatureGates, gateSpecAt, type GateProblemKind, type GateStartCheck, type KubernetesGateRules } from '../../api-types/index.js';

export const ORACLE_COMPONENTS = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const;
export type OracleComponent = (typeof ORACLE_COMPONENTS)[number];

export interface OracleVerdict {
  starts: boolean;
  /** The gates the binary named, with the rule: `kind:gate`, sorted. */
  named: string[];
  /** What it printed last (for a failure's message). */
  said: string;
}

export const GATE_ERRORS: [RegExp, GateProblemKind][] = [
  [/unrecognized feature gate: ([A-Za-z0-9]+)/g, 'unknown'],
  [/cannot set feature gate ([A-Za-z0-9]+) to (?:true|false), feature is locked to/g, 'locked'],
  [/cannot set feature gate ([A-Za-z0-9]+) to (?:true|false), feature is PreAlpha/g, 'pre-alpha'],
  [/([A-Za-z0-9]+) is enabled, but depends on features that are disabled/g, 'dependency'],
];
/** What a binary says when the flags passed and it needs a cluster next. */
const PASSED_FLAGS = /--etcd-servers must be specified|invalid configuration: no configuration has been provided/;

export function gateFlag(gates: ReadonlyMap<string, boolean>): string {
  return [...gates].map(([n, v]) => `${n}=${v}`).join(',');
}

/** Runs `component` from `binDir` with the gates at the emulated version; its verdict. */
export function oracle(
  binDir: string,
  component: OracleComponent,
  gates: ReadonlyMap<string, boolean>,
  emulatedVersion: string,
): Promise<OracleVerdict> {
  const args = [`--emulated-version=${emulatedVersion}`, ...(gates.size ? [`--feature-gates=${gateFlag(gates)}`] : [])];
  return new Promise((resolve, reject) => {
    execFile(join(binDir, component), args, { timeout: 30_000, env: { PATH: process.env.PATH ?? '' } }, (error, stdout, stderr) => {
      const out = `${stdout}${stderr}`;
      const failed = out
        .split('\n')
        .filter((l) => l.includes('"command failed"'))
        .join('\n');
      if (!failed)
        return reject(new Error(`${component} ${args.join(' ')}: no "command failed" line (exit ${error?.code}): ${out.slice(-500)}`));
      const named = new Set<string>();
      for (const [re, kind] of GATE_ERRORS) for (const m of failed.matchAll(re)) named.add(`${kind}:${m[1]}`);
      if (named.size === 0 && !PASSED_FLAGS.test(failed))
        return reject(new Error(`${component} ${args.join(' ')}: neither a gate error nor past the flags: ${failed}`));
      resolve({ starts: named.size === 0, named: [...named].sort(), said: failed.slice(-600) });
    });
  });
}

/**
 * Whether our check and the binary agree: the same verdict, and the same gates and rules named — except that a vanilla
 * binary stops at the first unknown name it meets (Go map order), so then what it names need only be among ours.
 */
export function oracleAgrees(ours: GateStartCheck, theirs: OracleVerdict): { agrees: boolean; named: string[] } {
  const named = [...new Set(ours.problems.map((p) => `${p.kind}:${p.gate}`))].sort(); // a binary names a gate once per rule
  const agrees = ours.starts === theirs.starts && (named.some((n) => n.startsWith('unknown:'))
    ? theirs.named.every((n) => named.includes(n)) : JSON.stringify(named) === JSON.stringify(theirs.named));
  return { agrees, named };
}

/** Runs `jobs` two at a time (two cores). */
export async function inPairs<T>(jobs: (() => Promise<T>)[]): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all([0, 1].map(async () => { for (let i = next++; i < jobs.length; i = next++) out[i] = await jobs[i]!(); }));
  return out;
}

/** A small deterministic PRNG (mulberry32): the corpus is the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface CorpusCase { name: string; emulatedVersion: string; gates: Map<string, boolean> }

/**
 * Gate sets that exercise each rule several times at `emulatedVersion` of a binary with `rules`: locked gates flipped
 * (and set to their value), dependencies turned off directly and through defaults, gates not there yet, typos,
 * AllAlpha / AllBeta, and `randomMixes` random sets of 2–6 gates.
 */
export function gateCorpus(rules: KubernetesGateRules, emulatedVersion: string, randomMixes: number, seed = 1): CorpusCase[] {
  const random = prng(seed + Number(emulatedVersion.split('.')[1]));
  const names = Object.keys(rules.gates).sort();
  const verdictOf = (gates: Map<string, boolean>) =>
    checkFeatureGates({ kubernetesVersion: rules.kubernetesVersion, emulatedVersion, gates }, rules);
  const spec = (name: string) => gateSpecAt(rules, name, emulatedVersion)!;
  const pick = <T>(xs: T[], n: number) => [...xs].sort(() => random() - 0.5).slice(0, n);
  const cases: CorpusCase[] = [];
  const add = (name: string, entries: [string, boolean][]) => cases.push({ name: `${name} @${emulatedVersion}`, emulatedVersion, gates: new Map(entries) });
  const locked = names.filter((n) => spec(n).lockToDefault);
  for (const n of pick(locked, 4)) add(`locked ${n} flipped`, [[n, !spec(n).default]]);
  for (const n of pick(locked, 2)) add(`locked ${n} at its value`, [[n, spec(n).default]]);
  const open = (n: string) => spec(n).preRelease !== 'PreAlpha' && !spec(n).lockToDefault;
  const pairs = Object.entries(rules.dependencies)
    .flatMap(([g, deps]) => deps.map((d) => [g, d] as const))
    .filter(([g, d]) => open(g) && open(d));
  for (const [g, d] of pick(pairs, 3)) add(`${g} on, its dependency ${d} off`, [[g, true], [d, false]]);
  for (const [g, d] of pick(pairs.filter(([g]) => spec(g).default), 3)) add(`${d} off under ${g}, on by default`, [[d, false]]);
  for (const [g, d] of pick(pairs, 2)) add(`${g} and ${d} on`, [[g, true], [d, true]]);
  const later = names.filter((n) => spec(n).preRelease === 'PreAlpha');
  for (const n of pick(later, 2)) add(`${n} not there yet, on`, [[n, true]]);
  for (const n of pick(later, 1)) add(`${n} not there yet, off`, [[n, false]]);
  add('a typo', [['DynamicResourceAlocation', true]]);
  const valid = names.find(open)!;
  add('an unknown name beside a valid one', [['NoSuchGate', true], [valid, spec(valid).default]]);
  for (const g of rules.controllerManagerGates) add(`${g}, a controller-manager gate`, [[g, spec(g).default]]);
  add('AllAlpha on', [['AllAlpha', true]]);
  add('AllBeta off', [['AllBeta', false]]);
  add('AllAlpha off', [['AllAlpha', false]]);
  for (let i = 0; i < randomMixes; i++) {
    const size = 2 + Math.floor(random() * 5);
    add(`mix ${i + 1}`, pick(names, size).map((n) => [n, random() < 0.5]));
  }
  // Mixes that start are the rarer outcome among random sets (most touch a locked gate): make a few on purpose.
  for (let i = 0; i < Math.ceil(randomMixes / 3); i++) {
    const size = 2 + Math.floor(random() * 4);
    const gates = new Map<string, boolean>(pick(names.filter(open), size).map((n) => [n, random() < 0.5]));
    add(`open mix ${i + 1}${verdictOf(gates).starts ? '' : ' (refused)'}`, [...gates]);
  }
  return cases;
}
