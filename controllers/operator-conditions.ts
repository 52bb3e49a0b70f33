// The operator's own conditions (FeatureGatesUpgradeable, FeatureGateControllerDegraded, ...), held in
// memory: OpenShift keeps them on an operator.openshift.io Config object, which a vanilla cluster lacks.
// The ClusterOperator status controller turns them into Available/Progressing/Degraded/Upgradeable.
import { setCondition, type OperatorCondition } from '../api-types/index.js';

export class OperatorConditions {
  private readonly byType = new Map<string, OperatorCondition>();
  private readonly listeners = new Set<() => void>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  /** An operator's conditions as it starts: Available and Upgradeable True, Progressing False (all AsExpected). */
  static atStart(now?: () => Date): OperatorConditions {
    const c = new OperatorConditions(now);
    for (const type of ['OperatorAvailable', 'OperatorUpgradeable']) c.set({ type, status: 'True', reason: 'AsExpected', message: '' });
    c.set({ type: 'OperatorProgressing', status: 'False', reason: 'AsExpected', message: '' });
    return c;
  }

  /** Sets a condition; its lastTransitionTime changes only when its status does. */
  set(cond: Omit<OperatorCondition, 'lastTransitionTime'>): void {
    const prior = this.byType.get(cond.type);
    if (prior && prior.status === cond.status && prior.reason === cond.reason && prior.message === cond.message) return;
    const [next] = setCondition<OperatorCondition>(prior ? [prior] : [], cond, this.now().toISOString());
    this.byType.set(cond.type, next as OperatorCondition);
    for (const fn of this.listeners) fn();
  }

  all(): OperatorCondition[] {
    return [...this.byType.values()];
  }

  /** Called after every change (a controller watch source: the name is the condition type). */
  addListener(fn: (type: string) => void): () => void {
    const l = () => fn('conditions');
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
}
