// GatesThatStartController: would the cluster's components start with the gates this operator's status entry hands
// them? The spec, resolved for this operator's version and payload (what FeatureGateController writes), is checked
// against Kubernetes' rules for the version the cluster's API server reports (api-types/gate-rules.ts; OpenShift's
// components, so OpenShift gate names are ignored) and, when the nodes are read (--running-gates-kubelets), against
// each group of nodes' kubelet configurations (the kubelet's own checks, naming the nodes). The admission guard refuses such a spec before
// it is applied;
// this is for one applied before the guard, or with it off. What it decides: the status entry is still written —
// the spec is the administrator's applied choice, the running version's components already hold it, and withholding
// the new version's entry would leave every component of that version waiting for it — but never silently: the
// operator condition GatesThatStartDegraded (so the ClusterOperator is Degraded, naming each gate, rule and fix), a
// Warning Event when the verdict changes, and the gauge featuregates_gates_refused.
import {
  API_VERSION,
  FEATURE_GATE_NAME,
  GateRulesError,
  checkFeatureGates,
  jsonEqual,
  preflightNodeGroups,
  specGates,
  type FeatureGate,
  type FeatureSetRegistry,
  type GateProblem,
  type NodeConfigurationGroup,
} from '../api-types/index.js';
import { gauge, silentLogger, singleKeyController, type ControllerSpec, type EventRecorder, type Logger, type ReconcileResult, type Reflector } from '../runtime/index.js';
import type { Registry } from 'prom-client';
import type { OperatorConditions } from './operator-conditions.js';

export const GATES_THAT_START_CONTROLLER = 'GatesThatStartController';
const CONDITION = 'GatesThatStartDegraded';
/** How often the verdict is looked at again when nothing else changes (the cluster's version may have moved). */
const RECHECK_MS = 10 * 60_000;

export interface GatesThatStartDeps {
  operatorVersion: string;
  registry: FeatureSetRegistry;
  featureGates: Pick<Reflector<FeatureGate>, 'get' | 'addListener'>;
  conditions: OperatorConditions;
  events: EventRecorder;
  /**
   * The Kubernetes version the cluster's API server runs ("1.36.3"); undefined when it cannot be read. Called at every
   * FeatureGate event (every status write is one): the manager's reader asks the API server at most every 10 minutes.
   */
  kubernetesVersion: () => Promise<string | undefined>;
  /**
   * The nodes' kubelet configurations, grouped (the manager's reader, with --running-gates-kubelets); absent: the
   * kubelets are judged with their default configuration only, which on OpenShift's route never refuses.
   */
  nodeConfigurations?: (kubernetesVersion: string) => Promise<readonly NodeConfigurationGroup[] | undefined>;
  logger?: Logger;
  metrics?: Registry;
}

/** The condition's message: each problem, in the components' words, with what to change. */
export function gatesThatStartMessage(kubernetesVersion: string, problems: readonly GateProblem[]): string {
  return [`the cluster's components (Kubernetes ${kubernetesVersion}) would refuse to start with this version's gates:`,
    ...problems.map((p) => `${p.gate} (${p.kind}): ${p.message}; ${p.fix}`)].join('\n');
}

const nodeNames = (nodes: readonly string[]) => `${nodes.slice(0, 5).join(', ')}${nodes.length > 5 ? ` and ${nodes.length - 5} more` : ''}`;

export function gatesThatStartReconciler(deps: GatesThatStartDeps): () => Promise<ReconcileResult> {
  const log = (deps.logger ?? silentLogger).with({ controller: GATES_THAT_START_CONTROLLER });
  const refused = deps.metrics && gauge(deps.metrics, 'featuregates_gates_refused',
    'Gates of this version\'s FeatureGate status entry that a component of the cluster would refuse to start with (0: they start)', []);
  let last: { spec: FeatureGate['spec']; version: string; nodes: string; message: string | undefined } | undefined;
  return async () => {
    const fg = deps.featureGates.get(FEATURE_GATE_NAME);
    if (!fg) return {};
    const version = await deps.kubernetesVersion();
    if (!version) return {};
    const groups = await deps.nodeConfigurations?.(version);
    const nodes = JSON.stringify(groups?.map((g) => [g.nodes, g.configuration.fields]) ?? null);
    if (last && last.version === version && last.nodes === nodes && jsonEqual(last.spec, fg.spec)) return {};
    let problems: GateProblem[];
    let kube: string;
    try {
      const gates = specGates(fg.spec, deps.registry, deps.operatorVersion); // the spec resolved once for both checks
      ({ problems, kubernetesVersion: kube } = checkFeatureGates({ kubernetesVersion: version, flavor: 'openshift', gates }));
      // The nodes' kubelets with their own configurations (only once the gates themselves pass, as a kubelet checks)
      if (problems.length === 0 && groups?.length) {
        problems = preflightNodeGroups({ kubernetesVersion: version, flavor: 'openshift', gates }, groups)
          .flatMap((g) => g.problems.map((p) => ({ ...p, message: `${p.message} (the kubelets of ${nodeNames(g.nodes)})` })));
      }
    } catch (e) {
      // A spec that does not resolve is FeatureGateController's Degraded; a Kubernetes minor without rules is not judged.
      if (e instanceof GateRulesError) log.info('not checked: no rules for the cluster\'s Kubernetes version', { version, error: e.message });
      deps.conditions.set({ type: CONDITION, status: 'False', reason: 'AsExpected', message: '' });
      refused?.set(0);
      last = { spec: fg.spec, version, nodes, message: undefined };
      return {};
    }
    const message = problems.length ? gatesThatStartMessage(kube, problems) : undefined;
    refused?.set(problems.length);
    deps.conditions.set(message
      ? { type: CONDITION, status: 'True', reason: 'GatesRefusedByComponents', message }
      : { type: CONDITION, status: 'False', reason: 'AsExpected', message: '' });
    if (message !== last?.message && message) {
      log.warn('the cluster\'s components would refuse this version\'s gates', { problems: problems.map((p) => `${p.gate} (${p.kind})`) });
      deps.events.event({ apiVersion: API_VERSION, kind: 'FeatureGate', name: FEATURE_GATE_NAME, ...(fg.metadata.uid ? { uid: fg.metadata.uid } : {}) },
        'Warning', 'FeatureGatesRefusedByComponents', message);
    }
    last = { spec: fg.spec, version, nodes, message };
    return {};
  };
}

/** Looks again every RECHECK_MS besides on a change: the cluster's Kubernetes version can move under a spec that stays. */
export function gatesThatStartController(deps: GatesThatStartDeps): ControllerSpec {
  return singleKeyController({
    name: GATES_THAT_START_CONTROLLER,
    key: FEATURE_GATE_NAME,
    reconcile: gatesThatStartReconciler(deps),
    sources: [deps.featureGates],
    resyncEveryMs: RECHECK_MS,
  });
}
