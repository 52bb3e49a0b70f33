// The real kubelet as the judge of a gate set and a configuration (../shared/reference/kubelet-config-rules.md): run it
// with the gates by `--feature-gates` or in its configuration file's `featureGates`, with or without a file. It
// reaches its gate and configuration validation without a container runtime; a set it accepts fails next on this
// host's cgroup v1 (`failCgroupV1`, reported in the same list, and nothing else is) or, on a cgroup v2 host, on the
// missing runtime — so the verdict comes in well under a second. The gate errors are component-base's (named as
// gate-oracle.ts names them); each configuration error is matched against the messages of our generated rules of
// that minor (a message we do not have leaves the verdict unexplained: an error, never a silent agreement).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkFeatureGates,
  checkKubeletStart,
  decodeKubeletConfiguration,
  type GateStartCheck,
  type KubeletConfigRules,
  type KubeletFieldTest,
  type KubeletGateRoute,
  type KubernetesGateRules,
} from '../../api-types/index.js';
import { gateFlag, GATE_ERRORS, type OracleVerdict } from './gate-oracle.js';

/** What a kubelet says after its gates and configuration passed (cgroup v1 here; the runtime on cgroup v2). */
const PASSED = /kubelet is configured to not run on a host using cgroup v1|failed to run Kubelet|validate service connection|container runtime/;
const CGROUP_V1 = /,? ?kubelet is configured to not run on a host using cgroup v1\. cgroup v1 support is unsupported and will be removed in a future release/;

export interface KubeletCase {
  name: string;
  gates: Map<string, boolean>;
  route: KubeletGateRoute;
  /** KubeletConfiguration fields (without apiVersion/kind/featureGates); undefined: no file on route `flag`, an empty one on `file`. */
  configuration?: Record<string, unknown>;
}

/** A message format of ours ("… %v requires …") as a pattern over what the kubelet printed. */
const pattern = (format: string) => new RegExp(format.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/%[vqs]/g, '.*?'));

/** Runs the kubelet from `binDir` on the case; its verdict. */
export function kubeletOracle(binDir: string, c: KubeletCase, rules: KubeletConfigRules): Promise<OracleVerdict> {
  const dir = mkdtempSync(join(tmpdir(), 'kubelet-oracle-'));
  const args = [`--root-dir=${join(dir, 'root')}`, `--cert-dir=${join(dir, 'pki')}`];
  if (c.route === 'flag' && c.gates.size) args.push(`--feature-gates=${gateFlag(c.gates)}`);
  if (c.route === 'file' || c.configuration) {
    const file = { apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', ...(c.configuration ?? {}),
      ...(c.route === 'file' && c.gates.size ? { featureGates: Object.fromEntries(c.gates) } : {}) };
    writeFileSync(join(dir, 'config.json'), JSON.stringify(file));
    args.push(`--config=${join(dir, 'config.json')}`);
  }
  return new Promise((resolve, reject) => {
    execFile(join(binDir, 'kubelet'), args, { timeout: 30_000, cwd: dir, env: { PATH: process.env.PATH ?? '' } }, (error, stdout, stderr) => {
      rmSync(dir, { recursive: true, force: true });
      const out = `${stdout}${stderr}`;
      // a refusal: "command failed" (flags, validation) or a panic while defaulting a file whose gates do not set
      const failed = out.split('\n').filter((l) => l.includes('"command failed"') || /^panic: |failed to merge global and in-flight/.test(l)).join('\n');
      if (!failed) return reject(new Error(`kubelet ${args.join(' ')}: no "command failed" line (exit ${error?.code}): ${out.slice(-500)}`));
      const named = new Set<string>();
      for (const [re, kind] of GATE_ERRORS) for (const m of failed.matchAll(re)) named.add(`${kind}:${m[1]}`);
      let rest = failed.replace(CGROUP_V1, '');
      for (const r of rules.requires) {
        if (pattern(r.message).test(rest)) { named.add(`config:${r.gate}`); rest = rest.replace(pattern(r.message), ''); }
      }
      const validation = /failed to validate kubelet configuration, error: \[?(.*?)\]?, path:/.exec(rest)?.[1]?.replace(/^[\s,]+|[\s,]+$/g, '');
      if (named.size === 0 && !PASSED.test(failed)) return reject(new Error(`kubelet ${args.join(' ')}: neither a gate or configuration error nor past them: ${failed}`));
      if (validation) return reject(new Error(`kubelet ${args.join(' ')}: a configuration error our rules do not have: ${validation}`));
      resolve({ starts: named.size === 0, named: [...named].sort(), said: failed.slice(-600) });
    });
  });
}

/** Ours, for the same case. */
export function kubeletVerdict(rules: KubernetesGateRules, c: KubeletCase): GateStartCheck {
  return checkKubeletStart({ kubernetesVersion: rules.kubernetesVersion, flavor: 'vanilla', gates: c.gates,
    kubelet: { route: c.route, ...(c.configuration ? { configuration: decodeKubeletConfiguration(c.configuration) } : {}) } });
}

/** A value that makes a field test hold (test data: what an administrator would write). */
const SAMPLES: Record<string, unknown> = {
  memorySwap: { swapBehavior: 'LimitedSwap' },
  defaultPodSysctls: { 'net.ipv4.ip_unprivileged_port_start': '0' },
  shutdownGracePeriodByPodPriority: [{ priority: 0, shutdownGracePeriodSeconds: 30 }],
  imagePullCredentialsVerificationPolicy: 'AlwaysVerify',
  preloadedImagesVerificationAllowlist: ['registry.k8s.io/pause'],
};
function sample(t: KubeletFieldTest): unknown {
  if (t.test === 'true') return true;
  if (t.test === 'nonzero') return SAMPLES[t.field] ?? '1h0m0s'; // a struct's sample, else a duration above every minimum a value check asks (imageMaximumGCAge > imageMinimumGCAge, 2m)
  if (t.test === 'equals') return t.value;
  if (t.test === 'differs') return typeof t.value === 'object' ? '50ms' : 0.5;
  if (t.test === 'set') return /Period$|Age$/.test(t.field) ? '1m0s' : SAMPLES[t.field] ?? 0.5;
  return SAMPLES[t.field];
}
function setPath(o: Record<string, unknown>, path: string, v: unknown) {
  const [head, ...rest] = path.split('.') as [string, ...string[]];
  if (rest.length === 0) o[head] = v;
  else setPath((o[head] ??= {}) as Record<string, unknown>, rest.join('.'), v);
}

/** `gates` with every gate that is on and depends on one they turn off turned off too (so a configuration case reaches validation). */
function withDependentsOff(gateRules: KubernetesGateRules, gates: Map<string, boolean>): Map<string, boolean> {
  const out = new Map(gates);
  for (let round = 0; round < 10; round++) {
    const deps = checkFeatureGates({ kubernetesVersion: gateRules.kubernetesVersion, gates: out, component: 'kubelet' }, gateRules).problems.filter((p) => p.kind === 'dependency');
    if (deps.length === 0) break;
    for (const p of deps) out.set(p.gate, false);
  }
  return out;
}

/**
 * Cases for a kubelet of `rules`: the gate corpus's sets on both routes (no file, an empty file), the two refusals the
 * reference records, and for every configuration rule a configuration that makes its fields hold, with its gate in
 * either state, on both routes.
 */
export function kubeletCorpus(
  gateRules: KubernetesGateRules,
  gateCases: { name: string; gates: Map<string, boolean> }[],
  rules: KubeletConfigRules,
): KubeletCase[] {
  const cases: KubeletCase[] = [];
  for (const c of gateCases) for (const route of ['flag', 'file'] as const) cases.push({ ...c, name: `${c.name} (${route})`, route });
  for (const route of ['flag', 'file'] as const) {
    cases.push({ name: `KubeletCrashLoopBackOffMax off (${route})`, gates: new Map([['KubeletCrashLoopBackOffMax', false]]), route });
    cases.push({ name: `AllBeta off (${route})`, gates: new Map([['AllBeta', false]]), route });
    cases.push({
      name: `KubeletCrashLoopBackOffMax off beside an empty file (${route})`,
      gates: new Map([['KubeletCrashLoopBackOffMax', false]]),
      route,
      configuration: {},
    });
  }
  // the file turns a defaulting gate off, the flag (which replaces the file's gates for validation) turns it on
  cases.push({
    name: 'KubeletCrashLoopBackOffMax off in the file, on by flag',
    gates: new Map([['KubeletCrashLoopBackOffMax', true]]),
    route: 'flag',
    configuration: { featureGates: { KubeletCrashLoopBackOffMax: false } },
  });
  cases.push({
    name: 'KubeletCrashLoopBackOffMax off in the file, another gate by flag',
    gates: new Map([['NodeSwap', true]]),
    route: 'flag',
    configuration: { featureGates: { KubeletCrashLoopBackOffMax: false } },
  });
  for (const r of rules.requires) {
    if (r.when.some((w) => 'test' in w && w.test === 'unset')) continue; // made by the gates alone: the cases above
    const configuration: Record<string, unknown> = {};
    for (const w of r.when) {
      const t = 'any' in w ? w.any[0]! : w;
      setPath(configuration, t.field, sample(t));
    }
    if (configuration.preloadedImagesVerificationAllowlist)
      configuration.imagePullCredentialsVerificationPolicy = 'NeverVerifyAllowlistedImages';
    for (const value of [r.enabled, !r.enabled]) {
      const gates = withDependentsOff(gateRules, new Map([[r.gate, value]]));
      for (const route of ['flag', 'file'] as const) {
        cases.push({ name: `${Object.keys(configuration).join('+')} with ${gateFlag(gates)} (${route})`, gates, route, configuration });
      }
    }
  }
  return cases;
}
