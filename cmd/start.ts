// `featuregates start` (what `npm start` runs). With no cluster configured: a local control plane with
// the CRDs, ClusterVersion/version (one Completed entry) and FeatureGate/cluster, and the operator on the
// example payload manifests; prints the resulting status and runs until Ctrl-C, leaving nothing behind.
// Its kube-apiserver runs the Kubernetes gates of the cluster's FeatureGate, as on OpenShift: at start those
// rendered from the payload (as bootstrap renders them), and when a simulated upgrade completes, those of the
// new version's status entry (kube-apiserver restarted, as its operator would roll it); `verify` tells the two apart.
// With a cluster configured (--kubeconfig or $KUBECONFIG), it runs the operator against that cluster.
import { join } from 'node:path';
import { desiredGates, parsePayloadVersion, renderKubeAPIServerArgs, startableGates, type FeatureGateDetails, type VerifyReport } from '../api-types/index.js';
import { checkComponent, createLogger, clusterConfigured, kubernetesGateLifecycle, LOCAL_KUBERNETES_MINOR, loadKubeConfig, renderedStatusEntry, requireSupportedNode, type ClusterAccess } from '../runtime/index.js';
import { readStatus } from './cluster-read.js';
import { createFeatureGateAccess } from '../sdk/index.js';
import { followDesiredVersion, type LocalRollout } from './local-rollout.js';
import { startOperator } from '../controllers/manager.js';
import { packageRoot } from '../runtime/util/version.js';
import type { LocalCluster } from '../control-plane/local-cluster.js';
import { formatTable } from './status.js';
import { formatVerify } from './verify.js';
import { payloadVersionFlag, type CommandSpec, logFormatOption, operatorRunOptions } from './args.js';

const EXAMPLE_VERSION = '4.22.0';

function nextMinor(version: string): string {
  const v = parsePayloadVersion(version);
  return `${v.major}.${v.minor + 1}.0`;
}

/**
 * The `--feature-gates` of the local (vanilla) kube-apiserver for a status entry: the part of its gates Kubernetes'
 * own rules let it start with (api-types/gate-rules.ts: OpenShift names, locked and not-yet gates, broken
 * dependencies left out), as OpenShift's kube-apiserver operator renders them.
 */
function apiServerGateArgs(entry: FeatureGateDetails): string[] {
  const { gates } = startableGates({
    kubernetesVersion: LOCAL_KUBERNETES_MINOR,
    gates: new Map(desiredGates(entry).map((g) => [g.name, g.enabled])),
  });
  return renderKubeAPIServerArgs({
    enabledNames: [...gates].filter(([, v]) => v).map(([n]) => n),
    disabledNames: [...gates].filter(([, v]) => !v).map(([n]) => n),
  });
}

/**
 * `version`'s gates once the operator has written them (the operator of that version writes them soon after it
 * starts), awaited by the SDK's own accessor: a watch, not a poll.
 */
async function statusEntry(kc: ClusterAccess, version: string, timeoutMs = 60_000): Promise<FeatureGateDetails> {
  const access = createFeatureGateAccess({ kubeConfig: kc, desiredVersion: version, component: 'featuregates-start', waitWarnings: false });
  access.start();
  try {
    const gates = await access.waitForInitial({ timeoutMs });
    return { version, enabled: gates.enabledNames.map((name) => ({ name })), disabled: gates.disabledNames.map((name) => ({ name })) };
  } finally {
    await access.stop();
  }
}

/** `featuregates verify`'s table for kube-apiserver against `version`'s entry. */
async function verifyTable(kc: ClusterAccess, version: string, entry: FeatureGateDetails): Promise<string> {
  const check = await checkComponent(kc, 'kube-apiserver', desiredGates(entry), { lifecycle: () => kubernetesGateLifecycle() });
  const report: VerifyReport = { version, components: [check] };
  return formatVerify(report, false);
}

function untilSignal(): Promise<string> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
}

export const startCommand: CommandSpec = {
  name: 'start',
  usage: 'featuregates start [--kubeconfig P] [--operator-version V] [--authoritative-feature-gate-dir D]',
  options: {
    ...operatorRunOptions({ kubeconfig: 'run against this cluster instead of a local control plane', version: `$OPERATOR_IMAGE_VERSION, else ${EXAMPLE_VERSION}`, dir: 'default: the example set in deploy/base/payload' }),
  },
  async run(values) {
    const version = values['operator-version'] ?? process.env.OPERATOR_IMAGE_VERSION ?? EXAMPLE_VERSION;
    payloadVersionFlag(version, values['operator-version'] !== undefined ? '--operator-version' : 'OPERATOR_IMAGE_VERSION');
    const dir = values['authoritative-feature-gate-dir'] ?? join(packageRoot(), 'deploy', 'base', 'payload');
    const logger = createLogger({ fields: { operator: 'featuregates' }, ...logFormatOption(values['log-format']) });
    let local: LocalCluster | undefined;
    let namespace = 'default';
    const signal = untilSignal();
    try {
      let kc;
      if (clusterConfigured(values.kubeconfig)) {
        kc = await loadKubeConfig(values.kubeconfig);
        process.stderr.write(`running the operator against ${kc.getCurrentCluster()?.server}\n`);
      } else {
        // The test control plane's helpers use @kubernetes/client-node: loaded only here, on a Node that can run it.
        requireSupportedNode('the local control plane');
        const t0 = Date.now();
        process.stderr.write('no cluster configured: starting a local control plane (etcd + kube-apiserver)...\n');
        const { startLocalCluster, LOCAL_CLUSTER_NAMESPACE } = await import('../control-plane/local-cluster.js');
        // The gates of `version` rendered from the payload, before any operator runs (as OpenShift's bootstrap renders them).
        local = await startLocalCluster(version, apiServerGateArgs(renderedStatusEntry(dir, version)));
        namespace = LOCAL_CLUSTER_NAMESPACE;
        kc = local.kubeConfig;
        process.stderr.write(`control plane ${local.kubernetesVersion} ready in ${Date.now() - t0} ms; kubeconfig: ${local.kubeconfigPath}\n`);
      }
      // With leader election, so a second operator waits instead of fighting this one.
      const startFor = (v: string, payload: string) => startOperator({
        kubeConfig: kc, operatorVersion: v, featureGateDir: payload, logger,
        metricsBindAddress: '127.0.0.1:0', metricsSecure: false, healthProbeBindAddress: '127.0.0.1:0',
        // On the local cluster, deploy/base's namespace (its admission binding reads the params there).
        leaderElect: true, namespace, leaderElectionNamespace: namespace,
        onLostLeadership: (reason) => logger.error('leader election lost', { reason }),
      });
      const first = { version, op: await startFor(version, dir) };
      let rollout: LocalRollout | undefined;
      const ready = await Promise.race([first.op.ready.then(() => 'ready'), signal]);
      if (ready === 'ready') {
        process.stdout.write(`\n${formatTable(await readStatus(kc))}\n`);
        if (local) process.stdout.write(`\n${await verifyTable(kc, version, await statusEntry(kc, version))}\n`);
        process.stdout.write(`metrics: http://${first.op.metricsAddress}/metrics  health: http://${first.op.healthAddress}/readyz\n`);
        if (local) {
          // Commands that work from the project folder on any Node (npx runs the Node 24 that npm ci installs).
          process.stdout.write(`kubeconfig: export KUBECONFIG=${local.kubeconfigPath}   (status and simulate also find this cluster without it)\n`);
          process.stdout.write('try:     npx featuregates status\n');
          process.stdout.write(`         npx featuregates simulate upgrade --to ${nextMinor(version)}   (then --complete; watch status gain the entry)\n`);
          process.stdout.write('         npx featuregates verify   (kube-apiserver runs the gates of the version it was last rolled to)\n');
          const cluster = local;
          // The local cluster has no cluster-version operator: roll ours when ClusterVersion's desired version changes.
          rollout = followDesiredVersion({
            kubeConfig: kc, running: first, payloadDir: dir, start: startFor, logger,
            onRoll: (from, to, payload) => process.stderr.write(`ClusterVersion desires ${to}: rolling the operator from ${from} to ${to} (payload ${payload})\n`),
            // The upgrade completed: kube-apiserver rolled to the new version's gates, as its operator would have.
            onCompleted: async (to) => {
              const args = apiServerGateArgs(await statusEntry(kc, to));
              if (args.join(' ') === cluster.apiServerArgs().join(' ')) {
                process.stderr.write(`upgrade to ${to} completed: kube-apiserver already runs ${to}'s gates\n`);
                return;
              }
              process.stderr.write(`upgrade to ${to} completed: restarting kube-apiserver with ${to}'s gates (${args.join(' ') || 'none'})\n`);
              await cluster.restartAPIServer(args);
              process.stderr.write(`kube-apiserver restarted with ${to}'s gates\n`);
            },
          });
        }
        process.stdout.write('press Ctrl-C to stop\n');
        await signal;
        await rollout?.stop();
      }
      process.stderr.write('stopping...\n');
      await (rollout?.current().op ?? first.op).stop();
      return 0;
    } finally {
      if (local) {
        await local.stop();
        process.stderr.write('local control plane stopped\n');
      }
    }
  },
};
