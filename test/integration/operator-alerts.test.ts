// The operator's alerts (deploy/prometheus/rules/operator.rules.yaml) proven with Prometheus's own promtool:
// `promtool check rules` (both rule files), and `promtool test rules` on input series made from scrapes of real
// operators — healthy with a leader and a follower, after a leader hand-over, with the status size limit crossed,
// beside a kube-apiserver running a gate off (test/support/alert-tests.ts, alert-series.ts say how). Each alert fires
// once its state has lasted its `for` and not before, with the labels and annotations an on-call engineer reads; none
// fires on the healthy scrapes. Every metric name a rule uses is one these processes export.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serializedSizeBytes, ETCD_REQUEST_LIMIT_BYTES } from '../../api-types/index.js';
import {
  bundledCRDPaths, ensureNamespace, setClusterVersion, setFeatureGateSpec, setFeatureGateStatus, startControlPlane,
  type ControlPlane } from '../../sdk/testing/index.js';
import { type Phase, type TargetScrape } from '../support/alert-series.js';
import { servingAddress, spawnCLI } from '../support/cli.js';
import { eventually } from '../support/timing.js';
import { kubernetesGatesPayload } from '../support/payloads.js';
import { tempDirs } from '../support/temp.js';
import {
  DEPLOYED_NAMESPACE,
  HOSTED_RULES,
  OPERATOR_RULES,
  deployedServiceAccount,
  expectDashboardSound,
  humanizePercentage,
  expectExported,
  firing,
  promtool,
  promtoolTest,
  runbook,
  scrape,
  silent,
  value,
  type Scrape,
} from '../support/alert-tests.js';

const tempDir = tempDirs();

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
    while (
      serializedSizeBytes({ status: { featureGates: Array.from({ length: stored + 1 }, (_, i) => wire(version(i + 1))) } }) <
      ETCD_REQUEST_LIMIT_BYTES - 40_000
    )
      stored++;
    await setFeatureGateSpec(sized.kubeConfig, {});
    await setFeatureGateStatus(
      sized.kubeConfig,
      Array.from({ length: stored }, (_, i) => ({ version: version(i + 1), enabled, disabled })),
    );
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
