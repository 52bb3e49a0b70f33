// `featuregates operator`: flags (mirroring the Go operator and controller-runtime), then the manager.
import { createLogger, loadKubeConfig, podNamespace } from '../runtime/index.js';
import { runUntilSignalled } from './long-running.js';
import { CONFIG_OPERATOR_NAME } from '../api-types/index.js';
import { startOperator } from '../controllers/manager.js';
import { RUNNING_GATES_PERIOD_MS } from '../controllers/running-gates.js';
import { clusterProfileFlag, flagzFlags, componentCA, componentsFlag, durationFlag, overridesFlag, parseDuration, payloadVersionFlag, UsageError, type CommandSpec, logFormatOption, operatorRunOptions } from './args.js';
import { LEADER_ELECTION_TIMING_OPTIONS, SERVING_OPTIONS, leaderElectionTimingFlags, servingFlags } from './manager-flags.js';

export const operatorCommand: CommandSpec = {
  name: 'operator',
  usage: 'featuregates operator [--kubeconfig P] [--operator-version V] --authoritative-feature-gate-dir D [options]',
  options: {
    ...operatorRunOptions({ kubeconfig: 'kubeconfig file (default: $KUBECONFIG, then in-cluster)', version: '$OPERATOR_IMAGE_VERSION', dir: 'required' }),
    'cluster-profile': { type: 'string', help: 'self-managed-high-availability (default) or ibm-cloud-managed' },
    'cluster-operator-name': { type: 'string', help: `ClusterOperator to report to (default ${CONFIG_OPERATOR_NAME})` },
    'running-gates-period': { type: 'string', help: 'how often kube-apiserver\'s running gates are checked against FeatureGate status besides on a change (default 10m; 0 turns the check off)' },
    'running-gates-override': { type: 'string', help: 'known, deliberate differences, GATE=true|false[,…]: reported as overridden, not mismatch' },
    'running-gates-component': { type: 'string', multiple: true, help: 'also check this component\'s running gates at its secure port (kube-controller-manager=https://HOST:10257), with the operator\'s credentials' },
    'running-gates-kubelets': { type: 'string', help: 'also check the nodes\' kubelets, this many nodes per minute, a page of the node list at a time (default 0: off; needs list nodes and get nodes/proxy — deploy/components/kubelet-gates)' },
    'running-gates-component-ca-file': { type: 'string', help: 'PEM bundle of those components\' serving CAs (default: the kubeconfig\'s CA)' },
    ...SERVING_OPTIONS,
    'leader-elect': { type: 'boolean', help: 'hold a Lease before running controllers (for several replicas)' },
    'leader-election-namespace': { type: 'string', help: 'namespace of the Lease (default: the pod namespace)' },
    ...LEADER_ELECTION_TIMING_OPTIONS,
    'degraded-inertia': { type: 'string', help: 'how long a sync error persists before Degraded=True (default 2m)' },
    'okd-build': { type: 'boolean', help: 'this is an OKD build: feature set OKD allows upgrades (upstream: SCOS builds)' },
  },
  async run(values, flags, _positionals, lists) {
    const version = values['operator-version'] ?? process.env.OPERATOR_IMAGE_VERSION ?? '';
    if (!version.trim()) throw new UsageError('the operator version is empty: pass --operator-version or set OPERATOR_IMAGE_VERSION');
    payloadVersionFlag(version, values['operator-version'] !== undefined ? '--operator-version' : 'OPERATOR_IMAGE_VERSION');
    const dir = values['authoritative-feature-gate-dir'];
    if (!dir) throw new UsageError('--authoritative-feature-gate-dir is required');
    const profile = clusterProfileFlag(values['cluster-profile']);
    const inertia = values['degraded-inertia'] !== undefined ? parseDuration(values['degraded-inertia'], '--degraded-inertia') : undefined;
    const timing = leaderElectionTimingFlags(values);
    const components = componentsFlag(lists['running-gates-component'] ?? [], '--running-gates-component');
    const caFile = values['running-gates-component-ca-file'];
    if (caFile && components.size === 0) throw new UsageError('--running-gates-component-ca-file goes with --running-gates-component');
    const componentCAs = caFile ? componentCA(caFile, '--running-gates-component-ca-file') : undefined;
    const logger = createLogger({ fields: { operator: 'featuregates' }, ...logFormatOption(values['log-format']) });
    const namespace = podNamespace();
    return runUntilSignalled(logger, 'operator', async (lost) => startOperator({
      kubeConfig: await loadKubeConfig(values.kubeconfig),
      operatorVersion: version,
      featureGateDir: dir,
      ...(profile ? { clusterProfile: profile } : {}),
      clusterOperatorName: values['cluster-operator-name'] ?? CONFIG_OPERATOR_NAME,
      namespace,
      ...servingFlags(values),
      zpages: { name: 'featuregates-operator', flags: flagzFlags(operatorCommand, values, flags, lists) },
      leaderElect: flags['leader-elect'] === true,
      leaderElectionNamespace: values['leader-election-namespace'] ?? namespace,
      leaderElection: timing,
      ...(inertia !== undefined ? { degradedInertiaMs: inertia } : {}),
      okdBuild: flags['okd-build'] === true,
      runningGatesPeriodMs: durationFlag(values['running-gates-period'], '--running-gates-period', RUNNING_GATES_PERIOD_MS),
      runningGatesComponents: [...components].map(([name, url]) => ({ name, url })),
      runningGatesOverrides: overridesFlag(values['running-gates-override'], '--running-gates-override'),
      runningGatesKubeletsPerMinute: kubeletsPerMinute(values['running-gates-kubelets']),
      ...(componentCAs ? { runningGatesComponentCA: componentCAs } : {}),
      logger,
      onLostLeadership: lost('leader election lost; exiting'),
    }));
  },
};

/** --running-gates-kubelets: a whole number of nodes per minute, at most 1,000 (a page of the node list). */
function kubeletsPerMinute(v: string | undefined): number {
  if (v === undefined) return 0;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 1000) throw new UsageError(`--running-gates-kubelets must be a whole number of nodes per minute from 0 to 1000, got ${JSON.stringify(v)}`);
  return n;
}
