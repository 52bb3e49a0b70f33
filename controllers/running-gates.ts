// RunningGatesController: the operator's continuous `featuregates verify` — kube-apiserver's own report of its
// gates (runtime/components/component-gates.ts), and that of each other component it is given (one key each:
// kube-controller-manager and kube-scheduler at their secure ports), against the FeatureGate status entry of
// the version the cluster runs (api-types/running-gates.ts). Triggered when that entry changes (a predicate: the other FeatureGate and
// ClusterVersion events change nothing here) and every `periodMs` (default 10 minutes: one read of the API
// server's /metrics, megabytes of text on a busy server, costs tens of milliseconds of CPU; a component is
// restarted with new gates at a rollout, which takes minutes). Reports: the gauges
// featuregates_running_gate_mismatch{component,name} (1 per mismatching gate; no series otherwise) and
// featuregates_running_gates{component,verdict}, and an Event on FeatureGate/cluster when the verdict changes
// (a Warning naming the gates, a Normal when they match again). Reads only; its Events pass the leader fence.
import type { Registry } from 'prom-client';
import {
  API_VERSION,
  CLUSTER_VERSION_NAME,
  FEATURE_GATE_NAME,
  NOT_READY,
  boundedText,
  clusterDesiredVersion,
  desiredGates,
  type ClusterVersion,
  type FeatureGate,
  type GateCheck,
  type GateLifecycle,
  type GateVerdict,
} from '../api-types/index.js';
import {
  MAX_EVENT_MESSAGE_CHARS,
  apiErrorMessage,
  checkComponent,
  checkKubeletsOf,
  gauge,
  nodePage,
  silentLogger,
  type ClusterAccess,
  type ControllerSpec,
  type EventRecorder,
  type ReconcileResult,
  type Logger,
  type Reflector,
} from '../runtime/index.js';

export const RUNNING_GATES_CONTROLLER = 'RunningGatesController';
export const RUNNING_GATES_PERIOD_MS = 10 * 60_000;
const API_SERVER = 'kube-apiserver';
const VERDICTS: readonly (GateVerdict | 'error')[] = ['match', 'mismatch', 'overridden', 'not-in-component', 'not-at-emulated-version', 'error'];

export interface RunningGatesDeps {
  /** kube-apiserver (always checked). */
  kubeConfig: ClusterAccess;
  /** Other components, each reached with its own access (runtime's componentAccess). */
  components?: readonly { name: string; access: ClusterAccess }[];
  featureGates: Pick<Reflector<FeatureGate>, 'get' | 'addListener'>;
  clusterVersions: Pick<Reflector<ClusterVersion>, 'get' | 'addListener'>;
  /** Kubernetes' gate lifecycle (since when each gate exists), asked for at the first check and kept. */
  lifecycle: () => GateLifecycle;
  events: EventRecorder;
  metrics?: Registry;
  logger?: Logger;
  periodMs?: number;
  /**
   * The least time between two checks, whatever triggers them (default none). Hosted mode sets it: a guest's admin
   * can change its FeatureGate status at will, and each change would otherwise read the guest's /metrics again.
   */
  minIntervalMs?: number;
  /** Known, deliberate differences (gate → the value it runs with): read as `overridden`, never a mismatch. */
  overrides?: ReadonlyMap<string, boolean>;
  /** Each check's outcome: the mismatching gates (none: everything it has matches), or why it could not be read. */
  onChecked?(outcome: RunningGatesOutcome, component: string): void;
  /**
   * The nodes' kubelets too (through the API server's node proxy; RBAC: list nodes, get nodes/proxy): `perPeriod`
   * nodes every `periodMs`, a page of the node list at a time, so a fleet of any size costs the same per minute;
   * a full sweep of N nodes takes N / perPeriod periods, and starts again when the desired entry changes.
   */
  kubelets?: { perPeriod: number; periodMs: number };
}

/** The key of the kubelets' sweep among the components' keys. */
export const KUBELETS = 'kubelets';

export type RunningGatesOutcome = { version: string; mismatches: string[] } | { error: string };

/** The status entry the cluster's components should run, as `version|A+,B-,…` (changes exactly when the check's input does). */
function desiredEntry(deps: Pick<RunningGatesDeps, 'featureGates' | 'clusterVersions'>) {
  const version = clusterDesiredVersion(deps.clusterVersions.get(CLUSTER_VERSION_NAME));
  const entry = version ? deps.featureGates.get(FEATURE_GATE_NAME)?.status?.featureGates.find((e) => e.version === version) : undefined;
  if (!version || !entry) return undefined;
  const desired = desiredGates(entry);
  return { version, desired, key: `${version}|${desired.map((g) => `${g.name}${g.enabled ? '+' : '-'}`).join(',')}` };
}

const onOff = (v: boolean | null) => (v === null ? 'absent' : v ? 'on' : 'off');

/** What an Event says about the mismatching gates (at most 20 named). */
export function mismatchMessage(version: string, mismatches: readonly GateCheck[], component = API_SERVER): string {
  const named = mismatches.slice(0, 20).map((g) => `${g.name} (desired ${onOff(g.desired)}, running ${onOff(g.running)})`);
  return `${component} runs ${mismatches.length} gate(s) other than FeatureGate/cluster status says for ${version}: ${named.join(', ')}` +
    `${mismatches.length > 20 ? `, and ${mismatches.length - 20} more` : ''} (featuregates verify)`;
}

type KubeletResult = { verdict: 'match' | 'mismatch'; mismatches?: GateCheck[] } | { verdict: 'unreachable' | 'forbidden' | 'not-ready' };
const KUBELET_VERDICTS = ['match', 'mismatch', 'unreachable', 'forbidden', 'not-ready'] as const;

/** What an Event says about the nodes whose kubelets run other gates or cannot be read (at most 20 named). */
export function kubeletsMessage(version: string, wrong: readonly (readonly [string, KubeletResult])[]): string {
  const named = wrong.slice(0, 20).map(([node, r]) => ('mismatches' in r && r.mismatches?.length
    ? `${node} (${r.mismatches.map((g) => `${g.name} ${onOff(g.running)}`).join(', ')})` : `${node} (${r.verdict})`));
  return `the kubelets of ${wrong.length} node(s) run gates other than FeatureGate/cluster status says for ${version}, or cannot be read: ` +
    `${named.join(', ')}${wrong.length > 20 ? `, and ${wrong.length - 20} more` : ''} (featuregates verify)`;
}

export function runningGatesController(deps: RunningGatesDeps): ControllerSpec {
  const log = (deps.logger ?? silentLogger).with({ controller: RUNNING_GATES_CONTROLLER });
  const period = deps.periodMs ?? RUNNING_GATES_PERIOD_MS;
  const m = deps.metrics;
  const mismatch = m && gauge(m, 'featuregates_running_gate_mismatch',
    "1 for each gate a component runs other than FeatureGate status says for the cluster's version", ['component', 'name']);
  const counts = m && gauge(m, 'featuregates_running_gates',
    "Gates of the cluster's FeatureGate status entry by verdict against what the component reports (error: it could not be read)",
    ['component', 'verdict']);
  let lifecycle: GateLifecycle | undefined;
  // Per component: how to reach it, its mismatch series' gates, the last verdict told ("" matching), its last check.
  const state = new Map([[API_SERVER, deps.kubeConfig] as const, ...(deps.components ?? []).map((c) => [c.name, c.access] as const),
    ...(deps.kubelets ? [[KUBELETS, deps.kubeConfig] as const] : [])].map(([name, access]) =>
    [name, { access, shown: new Set<string>(), told: undefined as string | undefined, lastCheckAt: undefined as number | undefined }]));
  const tell = (component: string, type: 'Normal' | 'Warning', reason: string, message: string) => {
    const st = state.get(component)!;
    if (st.told === message) return;
    st.told = message;
    // Bounded as the Event is: in hosted mode the gate names come from a guest (its status and its /metrics).
    log.info('running gates', { component, reason, message: boundedText(message, MAX_EVENT_MESSAGE_CHARS) });
    deps.events.event({ apiVersion: API_VERSION, kind: 'FeatureGate', name: FEATURE_GATE_NAME }, type, reason, message);
  };

  const lifecycleOnce = () => (lifecycle ??= deps.lifecycle());
  const reconcileKubelets = deps.kubelets
    ? kubeletSweep(deps, deps.kubelets, { tell, told: () => state.get(KUBELETS)!.told, lifecycle: lifecycleOnce })
    : undefined;

  const reconcile = async (component: string) => {
    if (component === KUBELETS && reconcileKubelets) return reconcileKubelets();
    const want = desiredEntry(deps);
    const st = state.get(component);
    if (!want || !st) return { requeueAfterMs: period };
    const wait = st.lastCheckAt === undefined || !deps.minIntervalMs ? 0 : st.lastCheckAt + deps.minIntervalMs - Date.now();
    if (wait > 0) return { requeueAfterMs: wait };
    st.lastCheckAt = Date.now();
    const check = await checkComponent(st.access, component, want.desired, {
      lifecycle: lifecycleOnce,
      ...(deps.overrides ? { overrides: deps.overrides } : {}),
    });
    if (check.error !== undefined) {
      for (const v of VERDICTS) counts?.set({ component, verdict: v }, v === 'error' ? 1 : 0);
      deps.onChecked?.({ error: check.error }, component);
      tell(component, 'Warning', 'RunningGatesUnreadable', `${component} could not be read to check its gates: ${check.error}`);
      return { requeueAfterMs: period };
    }
    const checks = check.gates;
    const mismatches = checks.filter((c) => c.verdict === 'mismatch');
    const now = new Set(mismatches.map((c) => c.name));
    for (const name of st.shown) if (!now.has(name)) mismatch?.remove({ component, name });
    for (const name of now) mismatch?.set({ component, name }, 1);
    st.shown = now;
    for (const v of VERDICTS) counts?.set({ component, verdict: v }, checks.filter((c) => c.verdict === v).length);
    deps.onChecked?.({ version: want.version, mismatches: mismatches.map((c) => c.name) }, component);
    const matching = `${component} runs every gate it has as FeatureGate/cluster status says for ${want.version}`;
    if (mismatches.length > 0) tell(component, 'Warning', 'RunningGatesMismatch', mismatchMessage(want.version, mismatches, component));
    else if (st.told !== undefined) tell(component, 'Normal', 'RunningGatesMatch', matching);
    else st.told = matching;
    return { requeueAfterMs: period };
  };

  let last: string | undefined;
  const onInput = () => {
    const key = desiredEntry(deps)?.key;
    if (key === last) return [];
    last = key;
    return [...state.keys()];
  };
  return {
    name: RUNNING_GATES_CONTROLLER,
    reconcile,
    watches: [
      { source: deps.featureGates, keys: onInput },
      { source: deps.clusterVersions, keys: onInput },
    ],
    initialKeys: [...state.keys()],
  };
}

/**
 * The kubelets' check: a sweep over the nodes, a page of `perPeriod` nodes each period, each group of nodes with one
 * configuration read once; the report is of the whole sweep (nodes that left the cluster leave it when it goes round).
 */
function kubeletSweep(deps: RunningGatesDeps, kubelets: NonNullable<RunningGatesDeps['kubelets']>, r: {
  tell: (component: string, type: 'Normal' | 'Warning', reason: string, message: string) => void;
  told: () => string | undefined;
  lifecycle: () => GateLifecycle;
}): () => Promise<ReconcileResult> {
  const sweep = {
    key: undefined as string | undefined,
    cursor: undefined as string | undefined,
    seen: new Set<string>(),
    results: new Map<string, KubeletResult>(),
  };
  const nodeCounts = deps.metrics && gauge(deps.metrics, 'featuregates_running_gates_kubelets',
    'Nodes by what their kubelet runs against FeatureGate status for the cluster\'s version, as last read (a sweep reads a page of nodes per period)', ['verdict']);
  return async () => {
    const { perPeriod, periodMs } = kubelets;
    const want = desiredEntry(deps);
    if (!want) return { requeueAfterMs: periodMs };
    if (sweep.key !== want.key) Object.assign(sweep, { key: want.key, cursor: undefined, seen: new Set(), results: new Map() });
    let page;
    try {
      page = await nodePage(deps.kubeConfig, perPeriod, sweep.cursor);
    } catch (e) {
      r.tell(KUBELETS, 'Warning', 'RunningGatesUnreadable', `the nodes could not be listed to check their kubelets' gates: ${apiErrorMessage(e)}`);
      return { requeueAfterMs: periodMs };
    }
    const report = await checkKubeletsOf(deps.kubeConfig, page.nodes, want.desired, { lifecycle: r.lifecycle });
    for (const g of report.groups) {
      const result: KubeletResult = g.error === NOT_READY ? { verdict: 'not-ready' } : g.error ? { verdict: g.error.startsWith('forbidden') ? 'forbidden' : 'unreachable' }
        : { verdict: g.gates.some((x) => x.verdict === 'mismatch') ? 'mismatch' : 'match', mismatches: g.gates.filter((x) => x.verdict === 'mismatch') };
      for (const node of g.nodes) sweep.results.set(node, result);
    }
    for (const n of page.nodes) sweep.seen.add(n.name);
    sweep.cursor = page.next;
    if (!page.next) { // the sweep went round: nodes that left the cluster leave the report
      for (const node of sweep.results.keys()) if (!sweep.seen.has(node)) sweep.results.delete(node);
      sweep.seen = new Set();
    }
    const byVerdict = new Map<string, string[]>();
    for (const [node, r] of sweep.results) byVerdict.set(r.verdict, [...(byVerdict.get(r.verdict) ?? []), node]);
    for (const v of KUBELET_VERDICTS) nodeCounts?.set({ verdict: v }, byVerdict.get(v)?.length ?? 0);
    const wrong = [...sweep.results].filter(([, r]) => r.verdict === 'mismatch' || r.verdict === 'unreachable' || r.verdict === 'forbidden').sort(([a], [b]) => (a < b ? -1 : 1));
    deps.onChecked?.({ version: want.version, mismatches: wrong.map(([node]) => node) }, KUBELETS);
    if (wrong.length) r.tell(KUBELETS, 'Warning', 'RunningGatesMismatch', kubeletsMessage(want.version, wrong));
    else if (r.told() !== undefined) r.tell(KUBELETS, 'Normal', 'RunningGatesMatch', `every kubelet read runs its gates as FeatureGate/cluster status says for ${want.version}`);
    return { requeueAfterMs: periodMs };
  };
}
