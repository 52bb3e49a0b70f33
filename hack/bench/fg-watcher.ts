// A watch on FeatureGate/cluster for the benchmarks (the runtime's Reflector, so a watch the server ends
// is restarted): resolves the next change whose status versions (comma-joined, in order) match a predicate.
import { FEATURE_GATE_NAME, type FeatureGate } from '../../api-types/index.js';
import { FeatureGateResource, Reflector, ResourceClient, type ClusterAccess } from '../../runtime/index.js';

export class FeatureGateWatcher {
  private waiter: { pred: (versions: string) => boolean; resolve: () => void } | undefined;

  private constructor(private readonly reflector: Reflector<FeatureGate>) {}

  static async start(kc: ClusterAccess): Promise<FeatureGateWatcher> {
    const reflector = new Reflector(new ResourceClient(kc, FeatureGateResource), { name: FEATURE_GATE_NAME });
    const w = new FeatureGateWatcher(reflector);
    reflector.addListener(() => {
      const fg = reflector.get(FEATURE_GATE_NAME);
      w.observe((fg?.status?.featureGates ?? []).map((e) => e.version).join(','));
    });
    reflector.start();
    await reflector.synced;
    return w;
  }

  private observe(versions: string): void {
    if (this.waiter?.pred(versions)) {
      const w = this.waiter;
      this.waiter = undefined;
      w.resolve();
    }
  }

  /** The cached object (the last event's). */
  current(): FeatureGate | undefined {
    return this.reflector.get(FEATURE_GATE_NAME);
  }

  /** The next change (after this call) whose versions match. One waiter at a time. */
  next(pred: (versions: string) => boolean): Promise<void> {
    return new Promise((resolve) => { this.waiter = { pred, resolve }; });
  }

  async stop(): Promise<void> {
    await this.reflector.stop();
  }
}
