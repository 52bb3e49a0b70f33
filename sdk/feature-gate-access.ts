// FeatureGateAccess: watches FeatureGate/cluster and ClusterVersion/version, finds the status entry for
// the component's own version, and reports it (and every later change of that entry) to onChange.
// Behaviour follows library-go's featuregates accessor, minus its pitfalls: an empty desired version is
// refused at construction, reordered lists are not a change, and the handler runs without a lock held.
import { basename } from 'node:path';
import type { ClusterAccess } from '../runtime/index.js';
import type { Registry } from 'prom-client';
import type { ClusterVersion, FeatureGate, FeatureGateDetails } from '../api-types/index.js';
// Modules one by one, not the barrels: a component importing the SDK should not load the operator's parts (payload
// YAML reader, HTTP server, leader election, certificates) nor evaluate the gate rules and preflight (~2 MB of heap).
import { API_VERSION, CLUSTER_VERSION_NAME, FEATURE_GATE_NAME } from '../api-types/wire.js';
import { MISSING_VERSION_MARKER } from '../api-types/feature-set.js';
import { clusterDesiredVersion } from '../api-types/desired-status.js';
import { jsonEqual } from '../api-types/deep-equal.js';
import { noEvents, type EventRecorder } from '../runtime/events/events.js';
import { withTransportConfig } from '../runtime/rest/kube-transport.js';
import { silentLogger, type Logger } from '../runtime/log/logger.js';
import { Reflector } from '../runtime/cache/reflector.js';
import { ResourceClient } from '../runtime/rest/resource-client.js';
import { ClusterVersionResource, FeatureGateResource } from '../runtime/rest/resources.js';
import { sdkUserAgent } from '../runtime/util/version.js';
import { FeatureGates } from './feature-gates.js';
import { exitOnChange } from './exit-on-change.js';
import type { FeatureGateChange, FeatureGateChangeHandler } from './feature-gate-change.js';
import { warnWhileWaiting, type WaitWarningOptions } from './wait-warnings.js';
import { realClock, type Clock } from '../runtime/util/clock.js';

export type { FeatureGateChange, FeatureGateChangeHandler };

export interface FeatureGateAccessOptions<Name extends string = string> {
  kubeConfig: ClusterAccess;
  /** The payload version this component reports (usually $OPERATOR_IMAGE_VERSION). */
  desiredVersion: string;
  /** When desiredVersion equals this marker, follow ClusterVersion instead. Default "0.0.1-snapshot". */
  missingVersionMarker?: string;
  /**
   * Called once at the first observation (previous undefined), then on every change of this version's
   * entry. Default: exitOnChange() — exit 0 on a change, so the component restarts with the new gates.
   */
  onChange?: FeatureGateChangeHandler<Name>;
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
  /**
   * While the first observation has not happened: a warning after 10 s, then with the delay doubling up to
   * 5 minutes, saying what is missing (through `logger` at warn, else on stderr). `false` turns them off.
   */
  waitWarnings?: WaitWarningOptions | false;
  /** Timing of the wait warnings (tests pass a fake clock). */
  clock?: Clock;
  /** Reflector tuning (tests): relist interval and watch backoff. */
  reflector?: { relistIntervalMs?: number; backoffInitialMs?: number; backoffMaxMs?: number };
}

export interface FeatureGateAccess<Name extends string = string> {
  start(): void;
  stop(): Promise<void>;
  /** Resolves at the first observation; rejects on timeout or abort (the error says what it was waiting for). */
  waitForInitial(options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<FeatureGates<Name>>;
  /** The current gates; throws before the first observation. */
  current(): FeatureGates<Name>;
  isReady(): boolean;
}

export class FeatureGatesNotObservedError extends Error {
  override name = 'FeatureGatesNotObservedError';
}

/** The version a component looks up: its own, or ClusterVersion's when it runs with the marker. */
export function targetVersion(desiredVersion: string, marker: string, cv: ClusterVersion | undefined): string | undefined {
  if (desiredVersion !== marker) return desiredVersion;
  return clusterDesiredVersion(cv);
}

/** The gates of `version` in a FeatureGate object: the first status entry with exactly that version, if any. */
export function findGatesForVersion<Name extends string = string>(
  featureGate: FeatureGate,
  version: string,
): FeatureGates<Name> | undefined {
  const entry = statusEntry(featureGate, version);
  return entry && gatesOf<Name>(entry);
}

function statusEntry(featureGate: FeatureGate, version: string): FeatureGateDetails | undefined {
  return featureGate.status?.featureGates.find((e) => e.version === version);
}

function gatesOf<Name extends string>(entry: FeatureGateDetails): FeatureGates<Name> {
  // The names are the cluster's; Name is the caller's promise about them (see `featuregates gen gate-names`).
  return new FeatureGates<Name>(entry.enabled.map((g) => g.name as Name), entry.disabled.map((g) => g.name as Name));
}

function missingVersionMessage(version: string): string {
  return `missing desired version ${JSON.stringify(version)} in featuregates.config.openshift.io/cluster`;
}

/** As findGatesForVersion, but a missing version is library-go's error `unable to determine features: missing desired version …`. */
export function gatesForVersion<Name extends string = string>(featureGate: FeatureGate, version: string): FeatureGates<Name> {
  const gates = findGatesForVersion<Name>(featureGate, version);
  if (!gates) throw new Error(`unable to determine features: ${missingVersionMessage(version)}`);
  return gates;
}

const INVOLVED = { apiVersion: API_VERSION, kind: 'FeatureGate', name: FEATURE_GATE_NAME };

export function createFeatureGateAccess<Name extends string = string>(options: FeatureGateAccessOptions<Name>): FeatureGateAccess<Name> {
  const script = basename(process.argv[1] ?? 'component').replace(/\.[cm]?[jt]s$/, '');
  // Its own transport (its User-Agent): the component's own requests through the same kubeconfig keep theirs.
  const log = (options.logger ?? silentLogger).with({ component: 'feature-gate-detector' });
  const kc = withTransportConfig(options.kubeConfig, { userAgent: sdkUserAgent(options.component ?? script, options.desiredVersion || 'unknown'), logger: log });
  const reflectorOptions = { logger: log, ...(options.metricsRegistry ? { metrics: options.metricsRegistry } : {}), ...options.reflector };
  const featureGates = new Reflector(new ResourceClient(kc, FeatureGateResource, options.metricsRegistry),
    { ...reflectorOptions, name: FEATURE_GATE_NAME });
  const clusterVersions = new Reflector(new ResourceClient(kc, ClusterVersionResource, options.metricsRegistry),
    { ...reflectorOptions, name: CLUSTER_VERSION_NAME });
  return new FeatureGateAccessor<Name>({ featureGates, clusterVersions, owned: true }, options);
}

/**
 * An accessor over FeatureGate and ClusterVersion caches the process already runs and starts itself (the
 * operator's manager does): no second pair of watches. `options` as createFeatureGateAccess's, without the
 * kubeconfig and reflector tuning, which belong to the caches.
 */
export function featureGateAccessOverCaches<Name extends string = string>(caches: Omit<FeatureGateCaches, 'owned'>,
  options: Omit<FeatureGateAccessOptions<Name>, 'kubeConfig' | 'reflector'>): FeatureGateAccess<Name> {
  return new FeatureGateAccessor<Name>({ ...caches, owned: false }, options);
}

export interface FeatureGateCaches {
  featureGates: Reflector<FeatureGate>;
  clusterVersions: Reflector<ClusterVersion>;
  /** start()/stop() start and stop the caches too (false: the caller runs them). */
  owned: boolean;
}

/** What an accessor that has not observed its gates yet is waiting for. */
export type FeatureGateWait =
  | { reason: 'CachesNotSynced' }
  | { reason: 'ClusterVersionMissing' }
  | { reason: 'FeatureGateMissing' }
  | { reason: 'VersionMissing'; version: string };

function describeWait(wait: FeatureGateWait): string {
  switch (wait.reason) {
    case 'CachesNotSynced': return 'FeatureGate and ClusterVersion not listed yet';
    case 'ClusterVersionMissing': return `clusterversions.config.openshift.io/${CLUSTER_VERSION_NAME} has no version yet (this component follows it)`;
    case 'FeatureGateMissing': return `featuregates.config.openshift.io/${FEATURE_GATE_NAME} does not exist yet`;
    case 'VersionMissing': return missingVersionMessage(wait.version);
  }
}

/**
 * The accessor over caches: createFeatureGateAccess builds its own; the operator's manager passes the
 * caches it already runs (owned: false), so FeatureGate and ClusterVersion are not watched twice.
 * A version missing from the status is a state (`waiting`), not an error: the next change of either
 * object triggers another look.
 */
export class FeatureGateAccessor<Name extends string = string> implements FeatureGateAccess<Name> {
  /** What the first observation still waits for; undefined once observed. */
  waiting: FeatureGateWait | undefined = { reason: 'CachesNotSynced' };
  private gates: FeatureGates<Name> | undefined;
  /** The status entry `gates` were last read from, as it was: most events leave it unchanged (nothing to rebuild). */
  private seen: FeatureGateDetails | undefined;
  private readonly initial: Promise<FeatureGates<Name>>;
  private resolveInitial!: (gates: FeatureGates<Name>) => void;
  /** Change handlers run one at a time, in order, outside the sync worker. */
  private handlers: Promise<void> = Promise.resolve();
  private started = false;
  private lastWait = '';
  private readonly stopped = new AbortController();
  private readonly marker: string;
  private readonly log: Logger;
  private readonly events: EventRecorder;
  private readonly onChange: FeatureGateChangeHandler<Name>;
  /** A look is due (it runs once per turn of the event loop, however many events arrived together). */
  private lookDue = false;
  private unsubscribe: (() => void)[] = [];

  constructor(private readonly caches: FeatureGateCaches,
    private readonly options: Omit<FeatureGateAccessOptions<Name>, 'kubeConfig' | 'reflector'>) {
    if (!options.desiredVersion) {
      throw new Error('createFeatureGateAccess: desiredVersion is empty; pass the version this component reports ' +
        `(usually $OPERATOR_IMAGE_VERSION), or "${MISSING_VERSION_MARKER}" to follow ClusterVersion`);
    }
    this.marker = options.missingVersionMarker ?? MISSING_VERSION_MARKER;
    this.log = (options.logger ?? silentLogger).with({ component: 'feature-gate-detector' });
    this.events = options.events ?? noEvents;
    this.onChange = options.onChange ?? exitOnChange();
    this.initial = new Promise((resolve) => { this.resolveInitial = resolve; });
  }

  /**
   * Two watched objects need no work queue: any change of either is one look at both, in a microtask, once however
   * many events came together; the look is synchronous and cheap, and a handler runs outside it (below).
   */
  private readonly scheduleLook = (): void => {
    if (this.lookDue || this.stopped.signal.aborted) return;
    this.lookDue = true;
    queueMicrotask(() => {
      this.lookDue = false;
      if (this.stopped.signal.aborted) return;
      try {
        this.sync();
      } catch (e) {
        this.log.error('feature-gate look failed', { error: e }); // the next event looks again
      }
    });
  };

  start(): void {
    if (this.started) return;
    this.started = true;
    const { featureGates, clusterVersions } = this.caches;
    this.unsubscribe = [featureGates.addListener(this.scheduleLook), clusterVersions.addListener(this.scheduleLook)];
    if (this.caches.owned) {
      featureGates.start();
      clusterVersions.start();
    }
    void Promise.all([featureGates.synced, clusterVersions.synced]).then(this.scheduleLook);
    const warnings = this.options.waitWarnings;
    if (warnings !== false) {
      void warnWhileWaiting({
        firstMs: warnings?.firstMs ?? 10_000, maxMs: warnings?.maxMs ?? 300_000,
        warn: warnings?.warn ?? (this.options.logger ? (m) => this.log.warn(m) : (m) => process.stderr.write(`featuregate-coordinator: ${m}\n`)),
        clock: this.options.clock ?? realClock, signal: this.stopped.signal,
        describe: () => this.waiting && describeWait(this.waiting), // undefined once observed
      });
    }
  }

  async stop(): Promise<void> {
    this.stopped.abort();
    for (const off of this.unsubscribe) off();
    if (this.caches.owned) await Promise.all([this.caches.featureGates.stop(), this.caches.clusterVersions.stop()]);
  }

  async waitForInitial({ timeoutMs, signal }: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<FeatureGates<Name>> {
    if (this.gates) return this.gates;
    const signals = [...(signal ? [signal] : []), ...(timeoutMs !== undefined ? [AbortSignal.timeout(timeoutMs)] : [])];
    if (signals.length === 0) return this.initial;
    const stop = AbortSignal.any(signals);
    // The caller's signal gives its own reason; the deadline says what was still missing.
    const why = () => (signal?.aborted ? signal.reason as unknown
      : new Error(`timed out waiting for FeatureGate detection${this.waiting ? `: ${describeWait(this.waiting)}` : ''}`));
    if (stop.aborted) throw why();
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(why());
      stop.addEventListener('abort', onAbort, { once: true });
      void this.initial.then((g) => { stop.removeEventListener('abort', onAbort); resolve(g); });
    });
  }

  current(): FeatureGates<Name> {
    if (!this.gates) throw new FeatureGatesNotObservedError('featureGates not yet observed');
    return this.gates;
  }

  isReady(): boolean {
    return this.gates !== undefined;
  }

  /** One look at both caches: note what is missing, or report the version's gates if they changed. */
  private sync(): void {
    const { featureGates, clusterVersions } = this.caches;
    if (!featureGates.hasSynced() || !clusterVersions.hasSynced()) return;
    const version = targetVersion(this.options.desiredVersion, this.marker, clusterVersions.get(CLUSTER_VERSION_NAME));
    const fg = featureGates.get(FEATURE_GATE_NAME);
    const entry = version !== undefined && fg ? statusEntry(fg, version) : undefined;
    if (!entry) {
      this.wait(version === undefined ? { reason: 'ClusterVersionMissing' } : !fg ? { reason: 'FeatureGateMissing' } : { reason: 'VersionMissing', version });
      return;
    }
    const previous = this.gates;
    if (previous && jsonEqual(entry, this.seen)) return;
    this.seen = entry;
    const next = gatesOf<Name>(entry);
    if (previous?.equals(next)) return;
    this.gates = next;
    this.waiting = undefined;
    this.lastWait = '';
    const message = `FeatureGates updated to ${JSON.stringify({ version, ...next.toJSON() })}`;
    if (!previous) {
      this.log.info('feature gates observed', { version, enabled: next.enabledNames.length, disabled: next.disabledNames.length });
      this.resolveInitial(next);
      this.events.event(INVOLVED, 'Normal', 'FeatureGatesInitialized', message);
    } else {
      this.log.info('feature gates changed', { version });
      this.events.event(INVOLVED, 'Normal', 'FeatureGatesModified', message);
    }
    // A handler may call current() or stop(): it runs after this look, never inside it.
    this.handlers = this.handlers.then(async () => {
      try {
        await this.onChange({ previous, current: next });
      } catch (e) {
        this.log.error('feature-gate change handler failed', { error: e });
      }
    });
  }

  /** Record what is missing, and say it once per distinct wait. Once observed, the old gates stay current. */
  private wait(wait: FeatureGateWait): void {
    if (!this.gates) this.waiting = wait;
    const message = describeWait(wait);
    if (message !== this.lastWait) this.log.info(message);
    this.lastWait = message;
  }
}
