// Typed gate names: the generated module is up to date, and unknown names fail to compile.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FeatureGates } from '../../sdk/index.js';
import { readPayloadManifests } from '../../runtime/manifests/payload-manifests.js';
import { gateNamesFromManifests, gateNamesModule } from '../../api-types/index.js';
import { GateNames, type GateName } from '../fixtures/gate-names.generated.js';
import { PAYLOAD_ROOT } from '../support/payloads.js';

describe('typed gate names', () => {
  it('the committed module matches a fresh generation from current/', () => {
    const names = gateNamesFromManifests(readPayloadManifests(join(PAYLOAD_ROOT, 'current')));
    expect(names).toHaveLength(126);
    expect(readFileSync(join(process.cwd(), 'test/fixtures/gate-names.generated.ts'), 'utf8'))
      .toBe(gateNamesModule(names, 'test/fixtures/openshift-api/payload-featuregates/current'));
  });

  it('lets typed FeatureGates accept known names and reject others at compile time', () => {
    const gates = new FeatureGates<GateName>([GateNames.VolumeGroupSnapshot], [GateNames.NewOLM]);
    expect(gates.enabled('VolumeGroupSnapshot')).toBe(true);
    // @ts-expect-error — not a gate of this payload: `npm run typecheck` fails if this compiles
    expect(() => gates.enabled('NoSuchGate')).toThrow('feature "NoSuchGate" is not registered');
  });
});
