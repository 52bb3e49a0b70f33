// FeatureGateAccess: watches FeatureGate/cluster and ClusterVersion/version, finds the status entry for
// the component's own version, and reports it (and every later change of that entry) to onChange.
// Behaviour follows library-go's featuregates accessor, minus its pitfalls: an empty desired version is
// refused at construction, reordered lists are not a change, and the handler runs without a lock held.
import { basename } from 'node:path';
import type { ClusterAccess } from '../runtime/index.js';
import type { Registry } from 'prom-client';
import {
  CLUSTER_VERSION_NAME, FEATURE_GATE_NAME, MISSING_VERSION_MARKER, type ClusterVersion, type FeatureGate, API_VERSION,
} from '../api-types/index.js';
// Runtime modules one by one, not the runtime barrel: a component importing the SDK should not load the
// operator's parts (payload YAML reader, HTTP server, leader election, certificates).
import { Controller } from '../runtime/controller.js';
import { noEvents, type EventRecorder } from '../runtime/events.js';
import { KubeTransport } from '../runtime/kube-transport.js';
import { silentLogger, type Logger } from '../runtime/logger.js';
import { Reflector } from '../runtime/reflector.js';
import { ResourceClient } from '../runtime/resource-client.js';
import { ClusterVersionResource, FeatureGateResource } from '../runtime/resources.js';
import { sdkUserAgent } from '../runtime/version.js';
import { FeatureGates } from './feature-gates.js';
import { exitOnChange } from './exit-on-change.js';

export interface FeatureGateChange {
  /** undefined on the first observation. */
  previous: FeatureGates | undefined;
  current: FeatureGates;
}

export type FeatureGateChangeHandler = (change: FeatureGateChange) => void | Promise<void>;

export interface FeatureGateAccessOptions {
  kubeConfig: ClusterAccess;
  /** The payload version this component reports (usually $OPERATOR_IMAGE_VERSION). */
  desiredVersion: string;
  /** When desiredVersion equals this marker, follow ClusterVersion instead. Default "0.0.1-snapshot". */
  missingVersionMarker?: string;
  /**
   * Called once at the first observation (previous undefined), then on every change of this version's
   * entry. Default: exitOnChange() — exit 0 on a change, so the component restarts with the new gates.
   */
  onChange?: FeatureGateChangeHandler;
  /** Records FeatureGatesInitialized / FeatureGatesModified events. */
  events?: EventRecorder;
  /** Counts this accessor's API requests (rest_client_requests_total). */
  metricsRegistry?: Registry;
  logger?: Logger;
  /**
   * Your component's name for the User-Agent (`<component>/<desiredVersion> featuregate-coordinator-sdk/<v>`),
   * so API audit logs show who reads the gates. Default: the name of the running script.
   */
  component?: string;
  /** Reflector tuning (tests): relist interval and watch backoff. */
  reflector?: { relistIntervalMs?: number; backoffInitialMs?: number; backoffMaxMs?: number };
}

export interface FeatureGateAccess {
  start(): void;
  stop(): Promise<void>;
  /** Resolves at the first observation; rejects on timeout or abort. */
  waitForInitial(options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<FeatureGates>;
  /** The current gates; throws before the first observation. */
  current(): FeatureGates;
  isReady(): boolean;
}

export class FeatureGatesNotObservedError extends Error {
  override name = 'FeatureGatesNotObservedError';
}

/** The version a component looks up: its own, or ClusterVersion's when it runs with the marker. */
export function targetVersion(desiredVersion: string, marker: string, cv: ClusterVersion | undefined): string | undefined {
  if (desiredVersion !== marker) return desiredVersion;
  if (!cv) return undefined;
  const desired = cv.status?.desired?.version ?? '';
  if (desired) return desired;
  return cv.status?.history[0]?.version || undefined;
}

/** The gates of `version` in a FeatureGate object: the first status entry with exactly that version. */
export function gatesForVersion(featureGate: FeatureGate, version: string): FeatureGates {
  const entry = featureGate.status?.featureGates.find((e) => e.version === version);
  if (!entry) {
    throw new Error(`unable to determine features: missing desired version ${JSON.stringify(version)} in featuregates.config.openshift.io/cluster`);
  }
  return new FeatureGates(entry.enabled.map((g) => g.name), entry.disabled.map((g) => g.name));
}

const INVOLVED = { apiVersion: API_VERSION, kind: 'FeatureGate', name: FEATURE_GATE_NAME };

export function createFeatureGateAccess(options: FeatureGateAccessOptions): FeatureGateAccess {
  const script = basename(process.argv[1] ?? 'component').replace(/\.[cm]?[jt]s$/, '');
  KubeTransport.for(options.kubeConfig).userAgent = sdkUserAgent(options.component ?? script, options.desiredVersion || 'unknown');
  const log = (options.logger ?? silentLogger).with({ component: 'feature-gate-detector' });
  const reflectorOptions = { logger: log, ...(options.metricsRegistry ? { metrics: options.metricsRegistry } : {}), ...options.reflector };
  const featureGates = new Reflector(new ResourceClient(options.kubeConfig, FeatureGateResource, options.metricsRegistry),
    { ...reflectorOptions, name: FEATURE_GATE_NAME });
  const clusterVersions = new Reflector(new ResourceClient(options.kubeConfig, ClusterVersionResource, options.metricsRegistry),
    { ...reflectorOptions, name: CLUSTER_VERSION_NAME });
  return featureGateAccessOverCaches({ featureGates, clusterVersions, owned: true }, options);
}

export interface FeatureGateCaches {
  featureGates: Reflector<FeatureGate>;
  clusterVersions: Reflector<ClusterVersion>;
  /** start()/stop() start and stop the caches too (false: the caller runs them). */
  owned: boolean;
}

/**
 * The accessor over caches a process already runs (the operator's manager does), so FeatureGate and
 * ClusterVersion are not watched twice. createFeatureGateAccess builds its own caches.
 */
export function featureGateAccessOverCaches(caches: FeatureGateCaches,
  options: Omit<FeatureGateAccessOptions, 'kubeConfig' | 'reflector'>): FeatureGateAccess {
  if (!options.desiredVersion) {
    throw new Error('createFeatureGateAccess: desiredVersion is empty; pass the version this component reports ' +
      `(usually $OPERATOR_IMAGE_VERSION), or "${MISSING_VERSION_MARKER}" to follow ClusterVersion`);
  }
  const marker = options.missingVersionMarker ?? MISSING_VERSION_MARKER;
  const log = (options.logger ?? silentLogger).with({ component: 'feature-gate-detector' });
  const events = options.events ?? noEvents;
  const onChange = options.onChange ?? exitOnChange();
  const { featureGates, clusterVersions } = caches;

  let current: FeatureGates | undefined;
  let resolveInitial!: (g: FeatureGates) => void;
  const initial = new Promise<FeatureGates>((resolve) => { resolveInitial = resolve; });
  let lastMissing = '';
  let handlers: Promise<void> = Promise.resolve();

  const sync = async (): Promise<void> => {
    if (!featureGates.hasSynced() || !clusterVersions.hasSynced()) return;
    const version = targetVersion(options.desiredVersion, marker, clusterVersions.get(CLUSTER_VERSION_NAME));
    if (version === undefined) return; // no ClusterVersion yet: wait silently
    const fg = featureGates.get(FEATURE_GATE_NAME);
    if (!fg) return; // no FeatureGate yet: wait silently
    const entry = fg.status?.featureGates.find((e) => e.version === version);
    if (!entry) {
      // A state, not an error: the next change of either object triggers another look.
      const msg = `missing desired version ${JSON.stringify(version)} in featuregates.config.openshift.io/cluster`;
      if (msg !== lastMissing) log.info(msg);
      lastMissing = msg;
      return;
    }
    lastMissing = '';
    const next = new FeatureGates(entry.enabled.map((g) => g.name), entry.disabled.map((g) => g.name));
    const previous = current;
    if (previous?.equals(next)) return;
    current = next;
    const message = `FeatureGates updated to ${JSON.stringify({ version, ...next.toJSON() })}`;
    if (!previous) {
      log.info('feature gates observed', { version, enabled: next.enabledNames.length, disabled: next.disabledNames.length });
      resolveInitial(next);
      events.event(INVOLVED, 'Normal', 'FeatureGatesInitialized', message);
    } else {
      log.info('feature gates changed', { version });
      events.event(INVOLVED, 'Normal', 'FeatureGatesModified', message);
    }
    // Handlers run one at a time, outside the sync worker: a handler may call current() or stop().
    handlers = handlers.then(async () => {
      try {
        await onChange({ previous, current: next });
      } catch (e) {
        log.error('feature-gate change handler failed', { error: e });
      }
    });
  };

  const key = () => [FEATURE_GATE_NAME];
  const controller = new Controller({
    name: 'feature-gate-detector',
    reconcile: async () => { await sync(); },
    watches: [{ source: featureGates, keys: key }, { source: clusterVersions, keys: key }],
  }, { ...(options.metricsRegistry ? { metrics: options.metricsRegistry } : {}), logger: log });
  const enqueue = () => controller.enqueue(FEATURE_GATE_NAME);
  let started = false;

  return {
    start() {
      if (started) return;
      started = true;
      controller.start();
      if (caches.owned) {
        featureGates.start();
        clusterVersions.start();
      }
      void Promise.all([featureGates.synced, clusterVersions.synced]).then(enqueue);
    },
    async stop() {
      await controller.stop();
      if (caches.owned) await Promise.all([featureGates.stop(), clusterVersions.stop()]);
    },
    async waitForInitial({ timeoutMs, signal } = {}) {
      if (current) return current;
      const signals = [...(signal ? [signal] : []), ...(timeoutMs !== undefined ? [AbortSignal.timeout(timeoutMs)] : [])];
      if (signals.length === 0) return initial;
      const stop = AbortSignal.any(signals);
      // The caller's signal gives its own reason; the deadline gives ours.
      const why = () => (signal?.aborted ? signal.reason as unknown : new Error('timed out waiting for FeatureGate detection'));
      if (stop.aborted) throw why();
      return new Promise<FeatureGates>((resolve, reject) => {
        const onAbort = () => reject(why());
        stop.addEventListener('abort', onAbort, { once: true });
        void initial.then((g) => { stop.removeEventListener('abort', onAbort); resolve(g); });
      });
    },
    current() {
      if (!current) throw new FeatureGatesNotObservedError('featureGates not yet observed');
      return current;
    },
    isReady: () => current !== undefined,
  };
}
