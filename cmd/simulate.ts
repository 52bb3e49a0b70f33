// `featuregates simulate upgrade --to V [--complete]`: writes ClusterVersion history as the cluster-version
// operator does during an upgrade — the old head closed and a Partial entry for V prepended (desired V), then
// with --complete that entry marked Completed — so you can watch FeatureGate status gain V's entry. Against
// `featuregates start`, the local cluster also rolls its operator to V (with --payload-dir, that payload),
// as the CVO would roll out the new payload's operator; and when V completes, its kube-apiserver to V's gates.
import { resolve } from 'node:path';
import { CLUSTER_VERSION_NAME, GateRulesError, checkSpecGates, kubernetesOfOpenShift } from '../api-types/index.js';
import { ClusterVersionResource, loadRegistry, readPayloadManifests, ResourceClient, retryOnConflict, type ClusterAccess } from '../runtime/index.js';
import { connect, readFeatureGate } from './cluster-read.js';
import { SIMULATED_PAYLOAD_ANNOTATION } from './local-rollout.js';
import { DEFAULT_CLI_REQUEST_TIMEOUT_MS, fullVersionFlag, sayOnStderr, UsageError, CLUSTER_SEARCH_HELP, type CommandSpec } from './args.js';

export const simulateCommand: CommandSpec = {
  name: 'simulate',
  usage: 'featuregates simulate upgrade --to VERSION [--complete] [--payload-dir D] [--kubeconfig P]',
  positionals: ['upgrade'],
  options: {
    to: { type: 'string', help: 'the version to upgrade to, X.Y.Z (required)' },
    complete: { type: 'boolean', help: 'mark the upgrade to --to Completed (starting it first if it is not the head)' },
    'payload-dir': { type: 'string', help: 'payload FeatureGate manifests of the new version (used by `featuregates start` to run its operator)' },
    kubeconfig: { type: 'string', help: `the cluster (default: ${CLUSTER_SEARCH_HELP})` },
    'kubernetes-version': { type: 'string', help: 'the Kubernetes minor of --to, X.Y: with --payload-dir, the cluster\'s spec is checked against its rules first (default: the version\'s, when known)' },
  },
  async run(values, flags, positionals) {
    if (positionals[0] !== 'upgrade') throw new UsageError(`expected "upgrade", got ${JSON.stringify(positionals[0] ?? '')}`);
    if (values.to === undefined) throw new UsageError('--to is required');
    const to = fullVersionFlag(values.to, '--to')!;
    const payloadDir = values['payload-dir'] ? resolve(values['payload-dir']) : undefined;
    if (payloadDir) readPayloadManifests(payloadDir); // a folder the operator could not read is an error here, not in the other terminal
    const { completeHead, upgrade } = await import('../control-plane/fake-versions.js');
    const kc = await connect(values.kubeconfig, DEFAULT_CLI_REQUEST_TIMEOUT_MS, sayOnStderr);
    process.stdout.write(`cluster: ${kc.getCurrentCluster()?.server}\n`);
    if (payloadDir) await warnIfGatesWouldNotStart(kc, payloadDir, to, values['kubernetes-version']);
    const client = new ResourceClient(kc, ClusterVersionResource);
    const head = () => client.get(CLUSTER_VERSION_NAME).then((cv) => cv.status?.history?.[0]);
    // The payload folder first: `featuregates start` rolls its operator as soon as the desired version changes.
    if (payloadDir) {
      await retryOnConflict(async () => {
        const cv = await client.get(CLUSTER_VERSION_NAME);
        return client.replace({
          ...cv,
          metadata: { ...cv.metadata, annotations: { ...(cv.metadata.annotations ?? {}), [SIMULATED_PAYLOAD_ANNOTATION]: payloadDir } },
        });
      });
    }
    if ((await head())?.version !== to) {
      await upgrade(kc, to);
      process.stdout.write(`ClusterVersion: upgrade to ${to} started (Partial entry prepended, desired ${to})\n`);
    }
    // The completing write's answer is the history to say: `featuregates start` restarts its kube-apiserver with the
    // new version's gates as soon as that write lands, so nothing is asked of the cluster after it.
    let cv;
    if (flags.complete) {
      cv = await completeHead(kc, to);
      process.stdout.write(`ClusterVersion: upgrade to ${to} Completed\n`);
    } else {
      cv = await client.get(CLUSTER_VERSION_NAME);
    }
    process.stdout.write(`history: ${(cv.status?.history ?? []).map((h) => `${h.version} (${h.state})`).join(', ')}\n` +
      'the operator of the new version adds its FeatureGate status entry: watch it with `featuregates status`\n');
    return 0;
  },
};

/**
 * Before an upgrade starts: would the components of `to` start with the gates the cluster's spec resolves to in its
 * payload? Said on stderr (the simulation goes on, as a real upgrade would); unknown Kubernetes minor: not checked.
 */
async function warnIfGatesWouldNotStart(
  kc: ClusterAccess,
  payloadDir: string,
  to: string,
  kubernetesVersion: string | undefined,
): Promise<void> {
  let kube: string;
  try {
    kube = kubernetesVersion ?? kubernetesOfOpenShift(to);
  } catch {
    return;
  }
  try {
    const fg = await readFeatureGate(kc);
    const check = checkSpecGates(fg.spec, loadRegistry(payloadDir, { operatorVersion: to }), to, kube);
    for (const p of check.problems) {
      process.stderr.write(
        `warning: the components of ${to} (Kubernetes ${check.kubernetesVersion}) would refuse to start with the cluster's gates: ` +
          `${p.gate} (${p.kind}): ${p.message}; ${p.fix}\n`,
      );
    }
  } catch (e) {
    if (e instanceof GateRulesError) throw new UsageError(`--kubernetes-version: ${e.message}`);
    // A spec that does not resolve in the new payload is the new operator's Degraded; nothing to add here.
  }
}
