// The OKD migration's decisions, without an API server (the real one is in test/integration/okd-migration):
// only a Default spec moves; a payload without the OKD set never moves it (one-way), and says so once.
import { describe, expect, it } from '@jest/globals';
import type { FeatureGate } from '../../api-types/index.js';
import { okdMigrationReconciler, OKD_MIGRATION_CONTROLLER } from '../../controllers/okd-feature-set-migration.js';
import type { EventRecorder, Logger } from '../../runtime/index.js';

function setup(featureSet: string | undefined, payloadHasOKD: boolean) {
  const applied: { obj: unknown; manager: string; force: boolean }[] = [];
  const warnings: string[] = [];
  const events: string[] = [];
  const fg = { apiVersion: 'config.openshift.io/v1', kind: 'FeatureGate', metadata: { name: 'cluster', uid: 'u' }, spec: featureSet === undefined ? {} : { featureSet } } as FeatureGate;
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: (m: string) => {
      warnings.push(m);
    },
    error: () => {},
    with: () => logger,
  };
  const reconcile = okdMigrationReconciler({
    featureGates: { get: () => fg, addListener: () => () => {} } as never,
    client: {
      apply: async (obj: FeatureGate, manager: string, force?: boolean) => {
        applied.push({ obj, manager, force: force ?? false });
        return fg;
      },
    },
    events: {
      event: (_o, _t, reason: string) => {
        events.push(reason);
      },
      flush: async () => {},
    } as EventRecorder,
    payloadHasOKD,
    logger,
  });
  return { reconcile, applied, warnings, events };
}

describe('OKD feature-set migration', () => {
  it.each([[undefined], ['']])('moves a Default spec (featureSet %p) to OKD by server-side apply with force, with an Event', async (set) => {
    const s = setup(set, true);
    await s.reconcile();
    expect(s.applied).toEqual([{ obj: expect.objectContaining({ spec: { featureSet: 'OKD' } }), manager: OKD_MIGRATION_CONTROLLER, force: true }]);
    expect(s.events).toEqual(['OKDFeatureSetMigration']);
  });

  it.each(['OKD', 'TechPreviewNoUpgrade', 'CustomNoUpgrade'])('leaves %s alone', async (set) => {
    const s = setup(set, true);
    await s.reconcile();
    expect(s.applied).toEqual([]);
  });

  it('never moves when the payload has no OKD set, and warns once', async () => {
    const s = setup('', false);
    await s.reconcile();
    await s.reconcile();
    expect(s.applied).toEqual([]);
    expect(s.warnings).toHaveLength(1);
    expect(s.warnings[0]).toContain('payload has no OKD feature set');
  });
});
