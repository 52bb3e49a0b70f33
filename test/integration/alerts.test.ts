// The alerts (deploy/prometheus/rules) proven with Prometheus's own promtool (hack/promtool/build.sh builds it from
// the github.com/prometheus/prometheus Go module): `promtool check rules`, and `promtool test rules` on input series
// made from scrapes of real processes in the states the alerts are about (test/support/alert-series.ts says how a
// scrape becomes a series over time): real operators — healthy with a leader and a follower, after a leader
// hand-over, with the status size limit crossed, beside a kube-apiserver running a gate off — and real hosted
// replicas — healthy, with a shard Lease taken by a holder that is not a live replica, with a guest's API server
// stopped, with a replica gone, with nobody scraped. Each alert fires once its state has lasted its `for` and not
// before, with the labels and annotations an on-call engineer reads; none fires on the healthy scrapes. Every
// metric name a rule uses is one these processes export.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { exposedSamples, serializedSizeBytes, ETCD_REQUEST_LIMIT_BYTES, type ExposedSample } from '../../api-types/index.js';
import { FeatureGateResource, KubeTransport, LeaseResource, ResourceClient, microTime, readKubeconfigFile } from '../../runtime/index.js';
import {
  bundledCRDPaths, ensureNamespace, hypershiftCRDPaths, publishHostedControlPlane, serviceAccountKubeConfig, setClusterVersion, setFeatureGateSpec, setFeatureGateStatus, startControlPlane,
  upstreamCRDPaths, type ControlPlane,
} from '../../sdk/testing/index.js';
import { shardName } from '../../api-types/index.js';
import { dashboardQueries, inputSeries, metricNames, metricNamesIn, type Phase, type TargetScrape } from '../support/alert-series.js';
import { servingAddress, spawnCLI } from '../support/cli.js';
import { eventually } from '../support/timing.js';
import { hostedReplicas } from '../support/hosted-replicas.js';
import { PAYLOAD_ROOT, kubernetesGatesPayload } from '../support/payloads.js';
import { tempDirs } from '../support/temp.js';

const promtool = execFileSync('bash', [join('hack', 'promtool', 'build.sh')], { encoding: 'utf8' }).trim();
const OPERATOR_RULES = join('deploy', 'prometheus', 'rules', 'operator.rules.yaml');
const HOSTED_RULES = join('deploy', 'prometheus', 'rules', 'hosted.rules.yaml');
const runbook = (alert: string) => `https://github.com/featuregate-coordinator/featuregate-coordinator/blob/main/docs/runbooks/${alert}.md`;
const tempDir = tempDirs();

interface Scrape { atMs: number; samples: ExposedSample[] }
async function scrape(url: string): Promise<Scrape> {
  const atMs = Date.now();
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
  return { atMs, samples: exposedSamples(await res.text()) };
}
const value = (s: Scrape, name: string, labels: Record<string, string> = {}) =>
  s.samples.find((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v))?.value;

interface ExpectedAlert { exp_labels: Record<string, string>; exp_annotations: Record<string, string> }
interface AlertTest { eval_time: string; alertname: string; exp_alerts: ExpectedAlert[] }
/** A recording rule's (or any expression's) result at a time: promtool's promql_expr_test. */
interface ExprTest { expr: string; eval_time: string; exp_samples: { labels: string; value: number }[] }
const silent = (alertname: string, ...minutes: number[]): AlertTest[] => minutes.map((m) => ({ eval_time: `${m}m`, alertname, exp_alerts: [] }));
const firing = (alertname: string, minute: number, ...alerts: ExpectedAlert[]): AlertTest => ({ eval_time: `${minute}m`, alertname, exp_alerts: alerts });

/** `promtool test rules` on `phases`; throws with promtool's own report (and the test file kept) on a failure. */
function promtoolTest(rules: string, phases: Phase[], tests: AlertTest[], exprTests: ExprTest[] = []): void {
  const names = metricNamesIn(readFileSync(rules, 'utf8'));
  const file = join(tempDir('fgc-alerts-'), 'test.yaml');
  writeFileSync(file, stringify({
    rule_files: [resolve(rules)], evaluation_interval: '1m',
    tests: [{ interval: '1m', input_series: inputSeries(phases, (n) => names.has(n)), alert_rule_test: tests, promql_expr_test: exprTests }],
  }, { lineWidth: 0 }));
  const r = spawnSync(promtool, ['test', 'rules', file], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`promtool test rules ${file}: exit ${r.status}\n${r.stdout}${r.stderr}`);
}

/** Every rule's metric names are among the names the scrapes hold. */
function expectExported(rules: string, scrapes: Scrape[]): void {
  const exported = new Set(scrapes.flatMap((s) => s.samples.map((x) => x.name)));
  expect([...metricNamesIn(readFileSync(rules, 'utf8'))].filter((n) => !exported.has(n))).toEqual([]);
}

const DEPLOYED_NAMESPACE = 'featuregate-coordinator';
interface Rule { nonResourceURLs?: string[] }

/**
 * The operator's ServiceAccount with the RBAC of deploy/base (clusterrole.yaml, role.yaml), keeping the rules `keep`
 * accepts; returns a kubeconfig file with its token.
 */
async function deployedServiceAccount(plane: ControlPlane, keep: (rule: Rule) => boolean): Promise<string> {
  const t = KubeTransport.for(readKubeconfigFile(plane.kubeconfigPath)!);
  const post = (path: string, body: unknown) => t.request({ method: 'POST', path, body });
  await ensureNamespace(readKubeconfigFile(plane.kubeconfigPath)!, DEPLOYED_NAMESPACE);
  await post(`/api/v1/namespaces/${DEPLOYED_NAMESPACE}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'featuregate-operator' } });
  const plural: Record<string, string> = { ClusterRole: 'clusterroles', ClusterRoleBinding: 'clusterrolebindings', Role: 'roles', RoleBinding: 'rolebindings' };
  for (const file of ['clusterrole.yaml', 'role.yaml']) {
    for (const doc of parseAllDocuments(readFileSync(join('deploy', 'base', file), 'utf8'))) {
      const o = doc.toJSON() as { kind: string; metadata: { namespace?: string }; rules?: Rule[] };
      if (o.rules) o.rules = o.rules.filter(keep);
      const ns = o.metadata.namespace ? `/namespaces/${o.metadata.namespace}` : '';
      await post(`/apis/rbac.authorization.k8s.io/v1${ns}/${plural[o.kind]}`, o);
    }
  }
  const path = join(tempDir('fgc-alerts-sa-'), 'kubeconfig');
  writeFileSync(path, (await serviceAccountKubeConfig(plane, DEPLOYED_NAMESPACE, 'featuregate-operator')).exportConfig());
  return path;
}

/** Every query of the dashboard parses (promtool check rules, each as a recording rule) and uses only exported names. */
function expectDashboardSound(dashboard: string, scrapes: Scrape[]): void {
  const queries = dashboardQueries(readFileSync(join('deploy', 'prometheus', 'dashboards', dashboard), 'utf8'));
  expect(queries.length).toBeGreaterThan(5);
  const file = join(tempDir('fgc-dashboard-'), 'queries.rules.yaml');
  writeFileSync(file, stringify({ groups: [{ name: 'dashboard', rules: queries.map((expr, i) => ({ record: `dashboard:query_${i}`, expr })) }] }));
  const r = spawnSync(promtool, ['check', 'rules', file], { encoding: 'utf8' });
  expect(`${r.stdout}${r.stderr}`).toContain(`SUCCESS: ${queries.length} rules found`);
  expect(r.status).toBe(0);
  const exported = new Set(scrapes.flatMap((s) => s.samples.map((x) => x.name)));
  expect([...metricNames(queries)].filter((n) => !exported.has(n))).toEqual([]);
}

describe('promtool check rules', () => {
  it.each([OPERATOR_RULES, HOSTED_RULES])('%s', (rules) => {
    const r = spawnSync(promtool, ['check', 'rules', rules], { encoding: 'utf8' });
    expect(`${r.stdout}${r.stderr}`).toContain('SUCCESS');
    expect(r.status).toBe(0);
  });
});

describe('operator alerts, on scrapes of real operators', () => {
  const procs: ChildProcess[] = [];
  const planes: ControlPlane[] = [];
  const job = 'featuregate-operator-metrics';
  const target = (instance: string) => ({ job, instance });

  const operator = (plane: ControlPlane, version: string, dir: string, extra: string[] = []) => {
    const p = spawnCLI(['operator', '--kubeconfig', plane.kubeconfigPath, '--operator-version', version, '--authoritative-feature-gate-dir', dir,
      '--metrics-bind-address', '127.0.0.1:0', '--metrics-secure=false', '--health-probe-bind-address', '0', '--log-format', 'json',
      '--degraded-inertia', '0s', ...extra], { POD_NAMESPACE: DEPLOYED_NAMESPACE });
    let log = '';
    p.stderr!.on('data', (d: Buffer) => { log += d.toString(); });
    procs.push(p);
    return { p, log: () => log, url: async () => `http://${await servingAddress(() => log, 'metrics')}/metrics` };
  };
  const leaderElect = ['--leader-elect', '--leader-elect-lease-duration', '4s', '--leader-elect-renew-deadline', '3s', '--leader-elect-retry-period', '1s'];
  const isLeader = (s: Scrape) => value(s, 'leader_election_master_status', { name: 'config-operator-lock' }) === 1;

  // Scrapes, taken in beforeAll: the healthy pair before and after a hand-over, the drift, the size limit.
  let before: TargetScrape[];
  let after: TargetScrape[];
  let drift: TargetScrape;
  let unreadable: TargetScrape;
  let tooLarge: TargetScrape;
  let tooLargeVersion: string;

  beforeAll(async () => {
    const [healthy, drifted, sized] = await Promise.all([
      startControlPlane({ crdPaths: bundledCRDPaths() }),
      startControlPlane({ crdPaths: bundledCRDPaths(), extraAPIServerArgs: ['--feature-gates=APIResponseCompression=false'] }),
      startControlPlane({ crdPaths: bundledCRDPaths() }),
    ]);
    planes.push(healthy, drifted, sized);
    for (const plane of planes) await ensureNamespace(plane.kubeConfig, DEPLOYED_NAMESPACE);
    for (const plane of [healthy, drifted]) {
      await setClusterVersion(plane.kubeConfig, { history: ['4.22.0'] });
      await setFeatureGateSpec(plane.kubeConfig, {});
    }
    const payload = kubernetesGatesPayload(tempDir('fgc-alerts-payload-'));

    // Healthy: a leader and a follower, the status written, kube-apiserver running the gates it says.
    const a = operator(healthy, '4.22.0', payload, leaderElect);
    const leaderReady = async (url: string) => eventually(async () => {
      const s = await scrape(url);
      expect(isLeader(s)).toBe(true);
      expect(value(s, 'featuregates_status_has_operator_version', { version: '4.22.0' })).toBe(1);
      expect(value(s, 'featuregates_running_gates', { verdict: 'match' })).toBe(2);
      return s;
    }, 60_000, 250).catch((e: Error) => { throw new Error(`${e.message}\n${a.log().slice(-2000)}`); });
    const aURL = await a.url();
    const a1 = await leaderReady(aURL);
    const b = operator(healthy, '4.22.0', payload, leaderElect);
    const bURL = await b.url();
    const b1 = await eventually(async () => {
      const s = await scrape(bURL);
      expect(value(s, 'leader_election_master_status', { name: 'config-operator-lock' })).toBe(0);
      expect(value(s, 'featuregates_status_has_operator_version', { version: '4.22.0' })).toBe(1);
      return s;
    }, 30_000, 250);
    before = [{ target: target('a'), first: a1 }, { target: target('b'), first: b1 }];

    // A hand-over: the leader killed, the follower takes the Lease; the old one back (same pod) as a follower.
    a.p.kill('SIGKILL');
    const b2 = await leaderReady(bURL);
    const a2p = operator(healthy, '4.22.0', payload, leaderElect);
    const a2URL = await a2p.url();
    const a2 = await eventually(async () => {
      const s = await scrape(a2URL);
      expect(value(s, 'leader_election_master_status', { name: 'config-operator-lock' })).toBe(0);
      expect(value(s, 'featuregates_status_has_operator_version', { version: '4.22.0' })).toBe(1);
      return s;
    }, 30_000, 250);
    after = [{ target: target('a'), first: a2 }, { target: target('b'), first: b2 }];

    // Drift: kube-apiserver started with APIResponseCompression off, which the status says is on.
    const c = operator(drifted, '4.22.0', payload);
    const cURL = await c.url();
    drift = { target: target('a'), first: await eventually(async () => {
      const s = await scrape(cURL);
      expect(value(s, 'featuregates_running_gate_mismatch', { component: 'kube-apiserver', name: 'APIResponseCompression' })).toBe(1);
      return s;
    }, 60_000, 250) };
    c.p.kill('SIGKILL');

    // Unreadable: the operator under its deployed RBAC (deploy/base) without the rule for kube-apiserver's
    // /metrics, /version and /flagz — a cluster that kept an older release's ClusterRole, say.
    const kubeconfig = await deployedServiceAccount(drifted, (rule) => !rule.nonResourceURLs);
    const e = operator(drifted, '4.22.0', payload, ['--kubeconfig', kubeconfig]);
    const eURL = await e.url();
    unreadable = { target: target('a'), first: await eventually(async () => {
      const s = await scrape(eURL);
      expect(value(s, 'featuregates_running_gates', { component: 'kube-apiserver', verdict: 'error' })).toBe(1);
      return s;
    }, 60_000, 250).catch((err: Error) => { throw new Error(`${err.message}\n${e.log().slice(-2000)}`); }) };

    // The size limit crossed (as in status-size-guard.test.ts): 2000 synthetic gates and as many stored versions
    // as fit; the operator's own version does not fit beside them, so it is never written.
    const names = Array.from({ length: 2000 }, (_, i) => `SyntheticUpstreamFeatureGate${String(i).padStart(4, '0')}`);
    const enabled = names.filter((_, i) => i % 3 === 0);
    const disabled = names.filter((_, i) => i % 3 !== 0);
    const version = (i: number) => `4.${100 - i}.0`;
    tooLargeVersion = version(0);
    const sizedPayload = tempDir('fgc-alerts-size-');
    writeFileSync(join(sizedPayload, 'featureGate-Default.yaml'), JSON.stringify({ apiVersion: 'config.openshift.io/v1', kind: 'FeatureGate', metadata: { name: 'cluster' }, spec: {},
      status: { featureGates: [{ version: '', enabled: enabled.map((name) => ({ name })), disabled: disabled.map((name) => ({ name })) }] } }));
    const wire = (v: string) => ({ version: v, enabled: enabled.map((name) => ({ name })), disabled: disabled.map((name) => ({ name })) });
    let stored = 1;
    while (serializedSizeBytes({ status: { featureGates: Array.from({ length: stored + 1 }, (_, i) => wire(version(i + 1))) } }) < ETCD_REQUEST_LIMIT_BYTES - 40_000) stored++;
    await setFeatureGateSpec(sized.kubeConfig, {});
    await setFeatureGateStatus(sized.kubeConfig, Array.from({ length: stored }, (_, i) => ({ version: version(i + 1), enabled, disabled })));
    await setClusterVersion(sized.kubeConfig, { history: [{ version: version(0), state: 'Partial' }, ...Array.from({ length: stored }, (_, i) => version(i + 1))] });
    const d = operator(sized, version(0), sizedPayload, ['--running-gates-period', '0']);
    const dURL = await d.url();
    const degraded = (s: Scrape) => s.samples.some((x) => x.name === 'featuregates_cluster_operator_condition' && x.labels.condition === 'Degraded' && x.value === 1);
    const first = await eventually(async () => {
      const s = await scrape(dURL);
      expect(degraded(s)).toBe(true);
      expect(value(s, 'controller_runtime_reconcile_errors_total', { controller: 'FeatureGateController' })).toBeGreaterThan(0);
      return s;
    }, 60_000, 250).catch((e: Error) => { throw new Error(`${e.message}\n${d.log().slice(-2000)}`); });
    // A second scrape once more errors have been counted: the rate the series grow at.
    const last = await eventually(async () => {
      const s = await scrape(dURL);
      expect(value(s, 'controller_runtime_reconcile_errors_total', { controller: 'FeatureGateController' }))
        .toBeGreaterThan(value(first, 'controller_runtime_reconcile_errors_total', { controller: 'FeatureGateController' })!);
      return s;
    }, 60_000, 500);
    tooLarge = { target: target('a'), first, last };
  }, 240_000);

  afterAll(async () => {
    for (const p of procs) if (p.exitCode === null) p.kill('SIGKILL');
    await Promise.all(planes.map((p) => p.stop()));
  });

  const one = (s: TargetScrape) => [s];

  it('exports every metric name the operator rules use', () => {
    expectExported(OPERATOR_RULES, [...before, ...after, drift, unreadable, tooLarge].map((s) => s.first));
  });

  // OpenShift's own telemetry series of the feature set, as cluster-kube-apiserver-operator exports it: the Default set
  // is `name=""` with the value 1 (api-types' unit test has the other sets' 0), on the leader and the follower alike.
  it('exports cluster_feature_set as OpenShift does: one series, name as spec.featureSet says it, 1 for Default', () => {
    for (const s of before) {
      expect(s.first.samples.filter((x) => x.name === 'cluster_feature_set')).toEqual([{ name: 'cluster_feature_set', labels: { name: '' }, value: 1 }]);
    }
  });

  it('the operator dashboard: every query parses and uses only exported names', () => {
    expectDashboardSound('featuregates-operator.json', [...before, ...after, drift, unreadable, tooLarge].map((s) => s.first));
  });

  it('healthy, with one leader hand-over: no operator alert for three hours', () => {
    const alerts = ['FeatureGateStatusNotWritten', 'FeatureGateSyncErrors', 'FeatureGateOperatorDegraded', 'FeatureGateLeaderFlapping',
      'FeatureGateStatusNearSizeLimit', 'FeatureGateComponentGatesDrift', 'FeatureGateComponentGatesUnreadable'];
    promtoolTest(OPERATOR_RULES, [{ minutes: 60, scrapes: before }, { minutes: 120, scrapes: after }],
      alerts.flatMap((a) => silent(a, 5, 30, 61, 90, 179)));
  });

  it('the status size limit crossed: Degraded after 10 minutes, the version not written and the size after 15, sync errors after 30', () => {
    const degradedReason = tooLarge.first.samples.find((x) => x.name === 'featuregates_cluster_operator_condition' && x.labels.condition === 'Degraded')!.labels.reason!;
    const ratio = value(tooLarge.first, 'featuregates_object_size_bytes')! / value(tooLarge.first, 'featuregates_object_size_limit_bytes')!;
    promtoolTest(OPERATOR_RULES, [{ minutes: 10, scrapes: one(before[0]!) }, { minutes: 60, scrapes: one(tooLarge) }], [
      ...silent('FeatureGateOperatorDegraded', 5, 19),
      firing('FeatureGateOperatorDegraded', 21, {
        exp_labels: { severity: 'warning', name: 'config-operator', reason: degradedReason },
        exp_annotations: {
          summary: `ClusterOperator config-operator has been Degraded (${degradedReason}) for 10 minutes.`,
          description: `The featuregate operator reports Degraded=True on ClusterOperator config-operator with reason ${degradedReason}; its message says what failed.`,
          runbook_url: runbook('FeatureGateOperatorDegraded'),
        },
      }),
      ...silent('FeatureGateStatusNotWritten', 5, 24),
      firing('FeatureGateStatusNotWritten', 26, {
        exp_labels: { severity: 'critical', version: tooLargeVersion },
        exp_annotations: {
          summary: `FeatureGate/cluster status has had no entry for version ${tooLargeVersion} for 15 minutes.`,
          description: `The operator of version ${tooLargeVersion} runs, but FeatureGate/cluster status still holds no entry for that version. ` +
            `Components of ${tooLargeVersion} cannot read their feature gates and the upgrade waits.`,
          runbook_url: runbook('FeatureGateStatusNotWritten'),
        },
      }),
      ...silent('FeatureGateStatusNearSizeLimit', 5, 24),
      firing('FeatureGateStatusNearSizeLimit', 26, {
        exp_labels: { severity: 'warning' },
        exp_annotations: {
          summary: `FeatureGate/cluster is at ${humanizePercentage(ratio)} of the request size limit.`,
          description: `FeatureGate/cluster would be ${humanizePercentage(ratio)} of the size the API server accepts in one request. Past the limit the ` +
            'operator writes no more status (and reports Degraded); every new version in the upgrade history adds an entry.',
          runbook_url: runbook('FeatureGateStatusNearSizeLimit'),
        },
      }),
      ...silent('FeatureGateSyncErrors', 5, 38),
      firing('FeatureGateSyncErrors', 45, {
        exp_labels: { severity: 'warning', controller: 'FeatureGateController' },
        exp_annotations: {
          summary: 'The operator\'s FeatureGateController has failed its reconciles for 30 minutes.',
          description: 'FeatureGateController reconciles have ended in errors without a break for 30 minutes; what it keeps is not being kept. ' +
            'The operator\'s log and Events say why.',
          runbook_url: runbook('FeatureGateSyncErrors'),
        },
      }),
    ]);
  });

  it('the leader handed over every five minutes: LeaderFlapping once more than four hand-overs fall in an hour', () => {
    const phases: Phase[] = Array.from({ length: 24 }, (_, i) => ({ minutes: 5, scrapes: i % 2 === 0 ? before : after }));
    promtoolTest(OPERATOR_RULES, phases, [
      ...silent('FeatureGateLeaderFlapping', 10, 20),
      firing('FeatureGateLeaderFlapping', 40, {
        exp_labels: { severity: 'warning' },
        exp_annotations: {
          summary: 'The featuregate operator\'s leader changed more than four times in an hour.',
          description: 'leader_election_master_status of the config-operator-lock Lease changed 16 times in the last hour (each hand-over is about two changes). ' +
            'Writes pause at every hand-over.',
          runbook_url: runbook('FeatureGateLeaderFlapping'),
        },
      }),
    ]);
  });

  it('kube-apiserver\'s gates unreadable (no RBAC for its /metrics): ComponentGatesUnreadable after 30 minutes', () => {
    promtoolTest(OPERATOR_RULES, [{ minutes: 10, scrapes: one(before[0]!) }, { minutes: 60, scrapes: one(unreadable) }], [
      ...silent('FeatureGateComponentGatesUnreadable', 5, 39),
      ...silent('FeatureGateComponentGatesDrift', 60),
      firing('FeatureGateComponentGatesUnreadable', 41, {
        exp_labels: { severity: 'info', component: 'kube-apiserver' },
        exp_annotations: {
          summary: 'The operator has not been able to read the running gates of kube-apiserver for 30 minutes.',
          description: 'The running-gates check could not read kube-apiserver\'s /metrics (unreachable or forbidden); whether it runs the gates of ' +
            'FeatureGate/cluster is unknown. The operator\'s Events (RunningGatesUnreadable) say why.',
          runbook_url: runbook('FeatureGateComponentGatesUnreadable'),
        },
      }),
    ]);
  });

  it('kube-apiserver running a gate off that the status says is on: ComponentGatesDrift after 45 minutes, not during a rollout', () => {
    promtoolTest(OPERATOR_RULES, [{ minutes: 10, scrapes: one(before[0]!) }, { minutes: 60, scrapes: one(drift) }], [
      ...silent('FeatureGateComponentGatesDrift', 5, 30, 54),
      firing('FeatureGateComponentGatesDrift', 56, {
        exp_labels: { severity: 'warning', component: 'kube-apiserver' },
        exp_annotations: {
          summary: 'kube-apiserver has run 1 feature gate(s) other than FeatureGate/cluster says for 45 minutes.',
          description: 'kube-apiserver reports (kubernetes_feature_enabled) 1 gate(s) on or off against the FeatureGate status entry of the cluster\'s version, ' +
            'for longer than a control-plane rollout takes: APIResponseCompression ',
          runbook_url: runbook('FeatureGateComponentGatesDrift'),
        },
      }),
    ]);
  });
});

/** Prometheus's humanizePercentage: the value × 100 with four significant digits, then %. */
function humanizePercentage(v: number): string {
  return `${Number((v * 100).toPrecision(4))}%`;
}

describe('hosted alerts, on scrapes of real hosted replicas', () => {
  const NS = 'fgc-alerts-hosted';
  const SHARDS = 4;
  const HCP = { namespace: 'clusters-a', name: 'a' };
  let mgmt: ControlPlane;
  let guest: ControlPlane;
  const replicas = hostedReplicas({ kubeconfig: () => mgmt.kubeconfigPath, catalog: join(PAYLOAD_ROOT, 'releases'), namespace: NS, shards: SHARDS, metrics: true });
  const job = 'featuregate-hosted-metrics';
  const urls = new Map<string, string>();
  const scrapeAll = async (ids: string[], timestamps: 'advance' | 'hold' = 'advance') =>
    Promise.all(ids.map(async (id): Promise<TargetScrape> => ({ target: { job, instance: id }, first: await scrape(urls.get(id)!) }))).then((scrapes) => ({ scrapes, timestamps }));
  const held = (scrapes: TargetScrape[]) => scrapes.reduce((n, s) => n + (value(s.first, 'featuregates_hosted_shards_held') ?? 0), 0);
  /** The guest synced and checked: its last good sync and its running-gate verdict exported, no failure. */
  const expectSynced = (scrapes: TargetScrape[]) => {
    const owner = scrapes.find((x) => value(x.first, 'featuregates_hosted_guest_last_success_timestamp_seconds', HCP) !== undefined);
    expect(owner).toBeDefined();
    expect(value(owner!.first, 'featuregates_hosted_guest_running_gate_mismatches', HCP)).toBeDefined();
    expect(scrapes.some((x) => value(x.first, 'featuregates_hosted_guest_failing', HCP) !== undefined)).toBe(false);
  };

  let healthy: { scrapes: TargetScrape[]; timestamps: 'advance' | 'hold' };
  let stuckShard: typeof healthy;
  let unreachable: typeof healthy;
  let alone: typeof healthy;
  let ageAtFailureMinutes: number;
  let upgradeDelay: { observations: number; seconds: number; bound: number };

  beforeAll(async () => {
    mgmt = await startControlPlane({ crdPaths: hypershiftCRDPaths() });
    guest = await startControlPlane({ etcdURL: mgmt.etcdURL, etcdPrefix: '/guest-a', crdPaths: upstreamCRDPaths() });
    const mkc = readKubeconfigFile(mgmt.kubeconfigPath)!;
    await ensureNamespace(mkc, NS);
    const gkc = readKubeconfigFile(guest.kubeconfigPath)!;
    await setClusterVersion(gkc, { history: ['4.22.3'] });
    await publishHostedControlPlane(mkc, { ...HCP, kubeconfig: readFileSync(guest.kubeconfigPath, 'utf8'), releaseVersion: '4.22.3' });
    for (const id of ['r1', 'r2']) replicas.start(id);
    for (const id of ['r1', 'r2']) urls.set(id, await replicas.metricsURL(id));

    await replicas.dumpOnFailure(async () => {
      // Healthy: both replicas members, every shard held, the guest synced.
      healthy = await eventually(async () => {
        const s = await scrapeAll(['r1', 'r2']);
        expect(s.scrapes.map((x) => value(x.first, 'featuregates_hosted_members'))).toEqual([2, 2]);
        expect(held(s.scrapes)).toBe(SHARDS);
        expectSynced(s.scrapes);
        return s;
      }, 60_000, 250);

      // An upgrade in the guest (4.22.4 Partial): the status write that carries it is observed in the delay histogram,
      // no longer after the change than the test saw it take.
      const delay = (x: Scrape[]) => x.reduce((a, s) => ({
        count: a.count + (value(s, 'featuregates_hosted_guest_status_delay_seconds_count') ?? 0),
        sum: a.sum + (value(s, 'featuregates_hosted_guest_status_delay_seconds_sum') ?? 0),
      }), { count: 0, sum: 0 });
      const delayBefore = delay(healthy.scrapes.map((x) => x.first));
      const changedAt = Date.now();
      await setClusterVersion(gkc, { history: [{ version: '4.22.4', state: 'Partial' }, '4.22.3'] });
      const after = await eventually(async () => {
        const fg = await new ResourceClient(gkc, FeatureGateResource).get('cluster');
        expect(fg.status?.featureGates.map((e) => e.version)).toContain('4.22.4');
        const seenAt = Date.now();
        const d = delay((await scrapeAll(['r1', 'r2'])).scrapes.map((x) => x.first));
        expect(d.count).toBeGreaterThan(delayBefore.count);
        return { ...d, seenAt };
      }, 30_000, 100);
      upgradeDelay = { observations: after.count - delayBefore.count, seconds: after.sum - delayBefore.sum, bound: (after.seenAt - changedAt) / 1000 };

      // A shard Lease taken by a holder that is no live replica (one partitioned from the membership, say),
      // renewed for an hour as far as the others can tell: its shard is held by nobody who works.
      const leases = new ResourceClient(mkc, LeaseResource, undefined, { namespace: NS });
      const lease = await leases.get(shardName(0));
      const now = microTime();
      await leases.replace({ ...lease, spec: { ...lease.spec, holderIdentity: 'stuck-replica', leaseDurationSeconds: 3600, acquireTime: now, renewTime: now } });
      stuckShard = await eventually(async () => {
        const s = await scrapeAll(['r1', 'r2']);
        expect(held(s.scrapes)).toBe(SHARDS - 1);
        return s;
      }, 30_000, 250);
      const stuck = await leases.get(shardName(0));
      await leases.replace({ ...stuck, spec: { ...stuck.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime() } });
      // Back to healthy before the next fault: every shard held, the guest synced by its (maybe new) owner.
      await eventually(async () => {
        const { scrapes } = await scrapeAll(['r1', 'r2']);
        expect(held(scrapes)).toBe(SHARDS);
        expectSynced(scrapes);
      }, 60_000, 250);

      // The guest's API server stopped: its owner reports GuestUnreachable; its last good sync stays where it was.
      await guest.stopAPIServer();
      unreachable = await eventually(async () => {
        const s = await scrapeAll(['r1', 'r2'], 'hold');
        // The owner says so, and still exports when it last synced.
        expect(s.scrapes.some((x) => value(x.first, 'featuregates_hosted_guest_failing', { ...HCP, reason: 'GuestUnreachable' }) === 1
          && value(x.first, 'featuregates_hosted_guest_last_success_timestamp_seconds', HCP) !== undefined)).toBe(true);
        return s;
      }, 60_000, 250);
      const owner = unreachable.scrapes.find((x) => value(x.first, 'featuregates_hosted_guest_failing', HCP) === 1
        && value(x.first, 'featuregates_hosted_guest_last_success_timestamp_seconds', HCP) !== undefined)!;
      ageAtFailureMinutes = (owner.first.atMs / 1000 - value(owner.first, 'featuregates_hosted_guest_last_success_timestamp_seconds', HCP)!) / 60;

      // A replica gone: the other sees one member.
      replicas.procs.get('r2')!.kill('SIGKILL');
      alone = await eventually(async () => {
        const s = await scrapeAll(['r1'], 'hold');
        expect(value(s.scrapes[0]!.first, 'featuregates_hosted_members')).toBe(1);
        return s;
      }, 30_000, 250);
    });
  }, 240_000);

  afterAll(async () => {
    replicas.killAll();
    await guest?.stop();
    await mgmt?.stop();
  });

  const phase = (minutes: number, s: { scrapes: TargetScrape[]; timestamps: 'advance' | 'hold' }): Phase => ({ minutes, ...s });
  const ALERTS = ['HostedFeatureGatesFailing', 'HostedFeatureGatesNotKept', 'HostedShardsNotHeld', 'HostedCoordinatorAbsent', 'HostedMembershipChurn'];

  it('exports every metric name the hosted rules use', () => {
    expectExported(HOSTED_RULES, [...healthy.scrapes, ...unreachable.scrapes].map((s) => s.first));
  });

  it('an upgrade in a guest is one observation of the change → status delay, within the time the test saw it take', () => {
    expect(upgradeDelay.observations).toBe(1);
    expect(upgradeDelay.seconds).toBeGreaterThan(0);
    expect(upgradeDelay.seconds).toBeLessThanOrEqual(upgradeDelay.bound);
  });

  it('the fleet dashboard: every query parses and uses only exported names', () => {
    expectDashboardSound('featuregates-hosted.json', [...healthy.scrapes, ...unreachable.scrapes].map((s) => s.first));
  });

  it('healthy: no hosted alert for three hours', () => {
    promtoolTest(HOSTED_RULES, [phase(180, healthy)], ALERTS.flatMap((a) => silent(a, 5, 30, 90, 179)));
  });

  // HyperShift's telemetry series of each hosted cluster's feature set, recorded over the fleet: the one HCP here asks
  // for the Default set (its `name` is empty, which Prometheus stores as no label), and is counted once, by its owner.
  it('the recording rule counts the hosted clusters by feature set from the replicas\' cluster_feature_set', () => {
    const owner = healthy.scrapes.find((x) => value(x.first, 'cluster_feature_set', { namespace: HCP.namespace, hcp: HCP.name }) !== undefined);
    expect(owner && value(owner.first, 'cluster_feature_set', { namespace: HCP.namespace, hcp: HCP.name, name: '' })).toBe(1);
    promtoolTest(HOSTED_RULES, [phase(10, healthy), phase(10, unreachable)], [], [
      { expr: 'feature_set:hosted_control_planes:count', eval_time: '5m', exp_samples: [{ labels: 'feature_set:hosted_control_planes:count{feature_set="Default"}', value: 1 }] },
      { expr: 'feature_set:hosted_control_planes:count', eval_time: '15m', exp_samples: [{ labels: 'feature_set:hosted_control_planes:count{feature_set="Default"}', value: 1 }] },
    ]);
  });

  it('a shard Lease held by no live replica: ShardsNotHeld after 10 minutes', () => {
    promtoolTest(HOSTED_RULES, [phase(10, healthy), phase(30, stuckShard)], [
      ...silent('HostedShardsNotHeld', 5, 19),
      firing('HostedShardsNotHeld', 21, {
        exp_labels: { severity: 'critical' },
        exp_annotations: {
          summary: '1 hosted coordinator shard(s) have been held by no live replica for 10 minutes.',
          description: 'The hosted control planes of 1 shard(s) have had no coordinator for 10 minutes: nothing keeps their FeatureGate, Upgradeable or feature-gate ConfigMap.',
          runbook_url: runbook('HostedShardsNotHeld'),
        },
      }),
      ...silent('HostedFeatureGatesFailing', 35),
    ]);
  });

  it('a guest unreachable: Failing (by reason, naming the HCP) after 30 minutes, NotKept once its last good sync is an hour old', () => {
    const notKeptAt = 10 + Math.ceil(60 - ageAtFailureMinutes);
    promtoolTest(HOSTED_RULES, [phase(10, healthy), phase(90, unreachable)], [
      ...silent('HostedFeatureGatesFailing', 5, 39),
      firing('HostedFeatureGatesFailing', 41, {
        exp_labels: { severity: 'warning', reason: 'GuestUnreachable' },
        exp_annotations: {
          summary: '1 hosted control plane(s) have failed with GuestUnreachable for 30 minutes.',
          description: 'The feature gates of 1 hosted cluster(s) are not kept: their last sync failed with GuestUnreachable. Longest without a good sync first: clusters-a/a ',
          runbook_url: runbook('HostedFeatureGatesFailing'),
        },
      }),
      ...silent('HostedFeatureGatesNotKept', 5, 41, notKeptAt - 2),
      firing('HostedFeatureGatesNotKept', notKeptAt + 1, {
        exp_labels: { severity: 'warning' },
        exp_annotations: {
          summary: '1 hosted cluster(s) have had no good feature-gate sync for an hour.',
          description: 'A healthy hosted cluster syncs at least every 10 minutes; 1 have not for over an hour. Oldest first: clusters-a/a ',
          runbook_url: runbook('HostedFeatureGatesNotKept'),
        },
      }),
    ]);
  });

  it('no replica scraped: CoordinatorAbsent after 10 minutes', () => {
    promtoolTest(HOSTED_RULES, [phase(10, healthy), { minutes: 30, scrapes: [] }], [
      ...silent('HostedCoordinatorAbsent', 5, 19),
      firing('HostedCoordinatorAbsent', 21, {
        exp_labels: { severity: 'critical' },
        exp_annotations: {
          summary: 'No hosted coordinator replica has been scraped for 10 minutes.',
          description: 'No featuregates hosted replica exports metrics: either none runs, or Prometheus cannot scrape them. While none runs, no hosted cluster\'s feature gates are kept.',
          runbook_url: runbook('HostedCoordinatorAbsent'),
        },
      }),
    ]);
  });

  it('a replica leaving and joining every five minutes: MembershipChurn; one departure: silent', () => {
    const churn: Phase[] = Array.from({ length: 24 }, (_, i) => phase(5, i % 2 === 0 ? healthy : alone));
    promtoolTest(HOSTED_RULES, churn, [
      ...silent('HostedMembershipChurn', 30, 60),
      firing('HostedMembershipChurn', 90, {
        exp_labels: { severity: 'warning' },
        exp_annotations: {
          summary: 'The hosted coordinator\'s membership changed 12 times in an hour.',
          description: 'Replicas join and leave the fleet far more often than a rolling update makes them (each change moves shards and re-engages their guests).',
          runbook_url: runbook('HostedMembershipChurn'),
        },
      }),
    ]);
    promtoolTest(HOSTED_RULES, [phase(30, healthy), phase(150, alone)], silent('HostedMembershipChurn', 60, 120, 179));
  });
});
