// `featuregates hosted`: run the coordinator of a HyperShift management cluster's hosted control planes;
// `featuregates hosted status`: one line per HCP from the management cluster.
import { stringify } from 'yaml';
import {
  READMIT_BELOW, hostedStatusTable, parseKubernetesVersionMap, parseMemoryQuantity, shardCountProblem,
} from '../api-types/index.js';
import { createLogger, loadKubeConfig, podNamespace } from '../runtime/index.js';
import { connect } from './cluster-read.js';
import { runUntilSignalled } from './long-running.js';
import {
  BUDGET_OF_LIMIT, DEFAULT_GUEST_BACKOFF_MAX_MS, DEFAULT_SHARDS, HOSTED_RUNNING_GATES_OVERRIDES, HOSTED_RUNNING_GATES_PERIOD_MS,
  LEASE_RENEWALS, memoryBudgetBytes, readHostedStatus, startHosted,
} from '../hosted/index.js';
import {
  LOG_FORMAT_OPTION,
  REQUEST_TIMEOUT_OPTION,
  UsageError,
  choiceFlag,
  durationFlag,
  flagzFlags,
  logFormatOption,
  outputFlag,
  overridesFlag,
  requestTimeoutFlag,
  sayOnStderr,
  type CommandSpec,
} from './args.js';
import { LEADER_ELECTION_TIMING_OPTIONS, SERVING_OPTIONS, leaderElectionTimingFlags, servingFlags } from './manager-flags.js';

/** NAME[:KEY] */
export function secretFlag(v: string | undefined): { name: string; key?: string } | undefined {
  if (v === undefined) return undefined;
  const [name, key, ...rest] = v.split(':');
  if (!name || rest.length > 0 || key === '') throw new UsageError(`--guest-kubeconfig-secret: expected NAME or NAME:KEY, got ${JSON.stringify(v)}`);
  return key ? { name, key } : { name };
}

async function status(values: Record<string, string | undefined>): Promise<number> {
  const output = outputFlag(values.output, ['table', 'wide', 'json', 'yaml']);
  const kc = await connect(values.kubeconfig, requestTimeoutFlag(values['request-timeout']), sayOnStderr);
  const records = await readHostedStatus(kc, values.namespace ?? podNamespace());
  process.stdout.write(output === 'json' ? `${JSON.stringify(records, null, 2)}\n` : output === 'yaml' ? stringify(records)
    : records.length === 0 ? 'no HostedControlPlanes on this management cluster\n' : hostedStatusTable(records, output === 'wide'));
  return 0;
}

function memoryBudgetFlag(v: string | undefined): number | undefined {
  try {
    return memoryBudgetBytes(v, parseMemoryQuantity);
  } catch (e) {
    throw new UsageError(`--memory-budget: ${(e as Error).message}`);
  }
}

function kubernetesVersionsFlag(v: string): Record<string, string> {
  try {
    return parseKubernetesVersionMap(v);
  } catch (e) {
    throw new UsageError(`--kubernetes-versions: ${(e as Error).message}`);
  }
}

export const hostedCommand: CommandSpec = {
  name: 'hosted',
  usage: 'featuregates hosted --kubeconfig M --payload-catalog DIR [--namespace N] [--identity ID] [--shards 32] [--namespace-selector S] ' +
    '[--guest-kubeconfig-secret NAME[:KEY]] [options]\n       featuregates hosted status [--kubeconfig M] [--namespace N] [-o table|wide|json|yaml]',
  positionals: ['[status]'],
  options: {
    'log-format': LOG_FORMAT_OPTION,
    kubeconfig: { type: 'string', help: 'the management cluster (default: $KUBECONFIG, then in-cluster; `hosted status` also looks for a running `featuregates start`\'s local cluster before in-cluster)' },
    'payload-catalog': { type: 'string', help: 'folder of release-X.Y/ payload folders (version X.Y.Z reads release-X.Y/); required' },
    namespace: { type: 'string', help: 'namespace of the shard Leases and status records (default: the pod namespace)' },
    identity: { type: 'string', help: 'this replica\'s name in the Leases (default: the hostname)' },
    shards: { type: 'string', help: `number of shards the fleet is split into (default ${DEFAULT_SHARDS}; every replica must agree)` },
    'namespace-selector': { type: 'string', help: 'only HCPs in namespaces with these labels, e.g. hypershift.openshift.io/hosted-control-plane=true' },
    'guest-kubeconfig-secret': { type: 'string', help: 'Secret NAME[:KEY] in each HCP namespace with the guest kubeconfig (default: the HCP\'s status.kubeConfig; key default kubeconfig)' },
    'cluster-operator-name': { type: 'string', help: 'guest ClusterOperator to report Upgradeable to (default config-operator)' },
    ...LEADER_ELECTION_TIMING_OPTIONS, // for every shard Lease and the membership
    'leader-elect-renew-deadline': { type: 'string', help: 'how long a holder keeps trying to renew a Lease before it stops writing under it (default 10s): a shard renewed late lapses (its writes refused, its guests kept) and is claimed again; a late membership renewal rejoins at once; only a Lease another replica took ends that shard, or, for the membership, the process' },
    'leader-elect-retry-period': { type: 'string', help: 'how often the Leases are listed and a claim or a failed renewal retried (default 2s; held Leases are renewed every third of the lease duration)' },
    'allow-insecure-guest-tls': { type: 'boolean', help: 'accept guest kubeconfigs with insecure-skip-tls-verify (test set-ups only; refused by default: a guest kubeconfig is untrusted)' },
    'guest-backoff-max': { type: 'string', help: 'longest wait between tries to reach a failing guest (default 3m; a change of its HostedControlPlane or Secret tries at once)' },
    'running-gates-override': { type: 'string', help: `known, deliberate differences of every guest kube-apiserver, GATE=true|false[,…]: overridden, not mismatch (default ${HOSTED_RUNNING_GATES_OVERRIDES}, HyperShift's; "" for none)` },
    'kubernetes-versions': { type: 'string', help: 'OpenShift minor=Kubernetes minor pairs, e.g. 4.23=1.36,5.1=1.36: which Kubernetes an HCP\'s release runs, for the check that its control plane starts with the gates of its spec (built in: 4.15–4.22 and 5.0; an unknown release is not checked)' },
    'running-gates-period': { type: 'string', help: 'how often each guest kube-apiserver\'s running gates are checked against its FeatureGate status besides on a change (default 60m; at most once a minute per guest; 0 turns the check off)' },
    'lease-renewals': { type: 'string', help: 'where the shard and membership Leases are renewed: thread (default; a thread of their own, which no guest\'s work can delay) or event-loop (beside the guests)' },
    'memory-budget': { type: 'string', help: `memory the replica keeps under by shedding guests (its container's working set under a memory limit, else its RSS), failing ones that made it read first (their records say so; taken back below ${READMIT_BELOW * 100}% of it): a size such as 640Mi, 0 for none, or auto (default: ${BUDGET_OF_LIMIT * 100}% of the container's memory limit, none without one)` },
    ...SERVING_OPTIONS,
    output: { type: 'string', short: 'o', help: 'status: table (default), wide, json or yaml' },
    'request-timeout': REQUEST_TIMEOUT_OPTION,
  },
  async run(values, flags, positionals, lists) {
    if (positionals[0] === 'status') return status(values);
    if (positionals[0] !== undefined) throw new UsageError(`unknown subcommand ${JSON.stringify(positionals[0])} (hosted takes: status)`);
    const catalog = values['payload-catalog'];
    if (!catalog) throw new UsageError('--payload-catalog is required');
    const shards = values.shards === undefined ? DEFAULT_SHARDS : Number(values.shards);
    const shardsProblem = shardCountProblem(shards);
    if (shardsProblem) throw new UsageError(`--shards ${shardsProblem}, got ${JSON.stringify(values.shards)}`);
    const timing = leaderElectionTimingFlags(values);
    const serving = servingFlags(values);
    const guestKubeconfigSecret = secretFlag(values['guest-kubeconfig-secret']);
    const budget = memoryBudgetFlag(values['memory-budget']);
    const leaseRenewals = choiceFlag('--lease-renewals', values['lease-renewals'], LEASE_RENEWALS);
    const logger = createLogger({ fields: { component: 'featuregates-hosted' }, ...logFormatOption(values['log-format']) });
    return runUntilSignalled(logger, 'coordinator', async (lost) => startHosted({
      kubeConfig: await loadKubeConfig(values.kubeconfig),
      payloadCatalog: catalog,
      namespace: values.namespace ?? podNamespace(),
      ...(values.identity ? { identity: values.identity } : {}),
      shards,
      ...(values['namespace-selector'] ? { namespaceSelector: values['namespace-selector'] } : {}),
      ...(guestKubeconfigSecret ? { guestKubeconfigSecret } : {}),
      ...(values['cluster-operator-name'] ? { clusterOperatorName: values['cluster-operator-name'] } : {}),
      leaderElection: timing,
      ...(budget !== undefined ? { memoryBudget: { budgetBytes: budget } } : {}),
      leaseRenewals,
      guest: {
        backoffMaxMs: durationFlag(values['guest-backoff-max'], '--guest-backoff-max', DEFAULT_GUEST_BACKOFF_MAX_MS),
        runningGatesPeriodMs: durationFlag(values['running-gates-period'], '--running-gates-period', HOSTED_RUNNING_GATES_PERIOD_MS),
        runningGatesOverrides: overridesFlag(values['running-gates-override'] ?? HOSTED_RUNNING_GATES_OVERRIDES, '--running-gates-override'),
        ...(values['kubernetes-versions'] !== undefined ? { kubernetesVersions: kubernetesVersionsFlag(values['kubernetes-versions']) } : {}),
        ...(flags['allow-insecure-guest-tls'] === true ? { allowInsecureSkipTLSVerify: true } : {}),
      },
      ...serving,
      zpages: { name: 'featuregates-hosted', flags: flagzFlags(hostedCommand, values, flags, lists) },
      logger,
      onLostMembership: lost('membership Lease lost; exiting'),
    }));
  },
};
