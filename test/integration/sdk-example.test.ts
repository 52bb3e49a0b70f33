// examples/component-operator as a child process on a real control plane: exits 0 exactly once, when its
// own version's entry changes; ignores other versions, conditions, heartbeats and a kube-apiserver restart.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { FeatureGateResource, ResourceClient } from '../../runtime/index.js';
import { bundledCRDPaths, setClusterVersion, setFeatureGateStatus, startControlPlane, type ControlPlane } from '../../sdk/testing/index.js';
import { eventually, sleep } from '../support/timing.js';

describe('example component operator', () => {
  let plane: ControlPlane;
  let child: ChildProcess | undefined;

  beforeAll(async () => { plane = await startControlPlane({ crdPaths: bundledCRDPaths() }); }, 120_000);
  afterAll(async () => {
    child?.kill('SIGKILL');
    await plane?.stop();
  });

  it('exits 0 once on its own change, and not for anything else', async () => {
    await setClusterVersion(plane.kubeConfig, { history: ['4.22.1', '4.21.0'] });
    const own = { version: '4.22.1', enabled: ['GateA', 'GateB'], disabled: ['GateC'] };
    await setFeatureGateStatus(plane.kubeConfig, [own, { version: '4.21.0', enabled: ['GateA'], disabled: ['GateB', 'GateC'] }]);
    child = spawn(process.execPath, [join(process.cwd(), 'dist', 'examples', 'component-operator', 'main.js')], {
      env: { ...process.env, KUBECONFIG: plane.kubeconfigPath, OPERATOR_IMAGE_VERSION: '4.22.1', EXIT_JITTER_MS: '200', OPERAND_KNOWN_GATES: 'GateA,GateC' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    child.stderr!.on('data', (d: Buffer) => { log += d.toString(); });
    let exits = 0;
    let exitCode: number | null = null;
    child.on('exit', (code) => { exits++; exitCode = code; });
    await eventually(() => expect(log).toContain('operand arguments rendered'), 30_000);
    expect(log).toContain('"args":["--feature-gates=GateA=true","--feature-gates=GateC=false"]');
    expect(log).toContain('Ignoring unknown FeatureGate \\"GateB\\"');

    await setFeatureGateStatus(plane.kubeConfig, [own, { version: '4.21.0', enabled: ['GateA', 'GateB'], disabled: ['GateC'] }]); // another version
    const fgs = new ResourceClient(plane.kubeConfig, FeatureGateResource);
    const fg = await fgs.get('cluster');
    await fgs.replaceStatus({ ...fg, status: { ...fg.status!, conditions: [{ type: 'DeterminationDegraded', status: 'True', reason: 'X', message: 'm', lastTransitionTime: '2026-01-01T00:00:00Z' }] } });
    for (let i = 0; i < 5; i++) await setClusterVersion(plane.kubeConfig, { history: ['4.22.1', '4.21.0'], extraStatus: { versionHash: `beat-${i}` } });
    await plane.restartAPIServer();
    await sleep(3000);
    expect(exits).toBe(0);

    await setFeatureGateStatus(plane.kubeConfig, [{ version: '4.22.1', enabled: ['GateA'], disabled: ['GateB', 'GateC'] }, { version: '4.21.0', enabled: ['GateA', 'GateB'], disabled: ['GateC'] }]);
    await eventually(() => expect(exits).toBe(1), 30_000).catch((e) => { throw new Error(`${e.message}\n${log}`); });
    expect(exitCode).toBe(0);
    expect(log).toContain('feature gates changed (enabled: -; disabled: GateB); exiting to restart with them');
    expect(log.match(/FeatureGates initialized/g)).toHaveLength(1);
  }, 120_000);
});
