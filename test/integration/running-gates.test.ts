// The operator's continuous check of the gates kube-apiserver runs (RunningGatesController), on a real
// kube-apiserver v1.36 started with a gate turned off that the payload wants on: the mismatch metric and a
// Warning Event follow; restarted with the gate as the FeatureGate says, the metric goes and a Normal Event
// says so; `featuregates status` says the same in its Running line. The payload is a one-manifest payload naming
// Kubernetes gates (kubernetesGatesPayload). Then, with real kube-controller-manager and kube-scheduler v1.36
// given to it (--running-gates-component), the same per component: KCM started with a gate the payload wants
// off reads as a mismatch of its own, a stopped scheduler as unreadable, each with its Event.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startOperator, type RunningOperator } from '../../controllers/manager.js';
import { KubeTransport, readKubeconfigFile } from '../../runtime/index.js';
import { bundledCRDPaths, setClusterVersion, setFeatureGateSpec, startControlPlane, type ControlPlane } from '../../sdk/testing/index.js';
import { readFileSync } from 'node:fs';
import { runCLI } from '../support/cli.js';
import { startComponent } from '../support/components.js';
import { eventually } from '../support/timing.js';
import { kubernetesGatesPayload } from '../support/payloads.js';
import { tempDirs } from '../support/temp.js';

const tempDir = tempDirs();

const payload = () => kubernetesGatesPayload(tempDir('fgc-running-gates-'));

interface Ev { type: string; reason: string; message: string; related?: { kind: string; name: string } }

describe('RunningGatesController (operator, real kube-apiserver)', () => {
  let plane: ControlPlane;
  let op: RunningOperator | undefined;
  beforeAll(async () => {
    plane = await startControlPlane({ crdPaths: bundledCRDPaths(), extraAPIServerArgs: ['--feature-gates=APIResponseCompression=false'] });
    const kc = readKubeconfigFile(plane.kubeconfigPath)!;
    await setClusterVersion(kc, { history: ['4.22.0'] });
    await setFeatureGateSpec(kc, {});
  }, 120_000);
  afterAll(async () => {
    await op?.stop();
    await plane?.stop();
  });

  const metric = async () => (await op!.metrics.getSingleMetricAsString('featuregates_running_gate_mismatch')).split('\n').filter((l) => !l.startsWith('#') && l);
  const verdicts = async () => (await op!.metrics.getSingleMetricAsString('featuregates_running_gates')).split('\n').filter((l) => !l.startsWith('#') && l);
  const events = async (reason: string) => {
    const list = await KubeTransport.for(readKubeconfigFile(plane.kubeconfigPath)!).request({ method: 'GET', path: '/api/v1/namespaces/default/events' }) as { items: Ev[] };
    return list.items.filter((e) => e.reason === reason && e.related?.kind === 'FeatureGate'); // about the FeatureGate, regarding the operator
  };

  it('reports the gate kube-apiserver runs off, and clears it after a restart with the gate on', async () => {
    op = await startOperator({
      kubeConfig: readKubeconfigFile(plane.kubeconfigPath)!, operatorVersion: '4.22.0', featureGateDir: payload(), namespace: 'default',
      metricsBindAddress: '0', healthProbeBindAddress: '0', runningGatesPeriodMs: 1_000,
    });
    await Promise.race([op.ready, new Promise((_, reject) => setTimeout(() => reject(new Error('the operator did not get ready in 30 s')), 30_000))]);
    await eventually(async () => {
      expect(await metric()).toEqual(['featuregates_running_gate_mismatch{component="kube-apiserver",name="APIResponseCompression"} 1']);
      expect(await verdicts()).toEqual(expect.arrayContaining([
        'featuregates_running_gates{component="kube-apiserver",verdict="mismatch"} 1',
        'featuregates_running_gates{component="kube-apiserver",verdict="match"} 1',
        'featuregates_running_gates{component="kube-apiserver",verdict="not-in-component"} 1',
      ]));
      const [w] = await events('RunningGatesMismatch');
      expect(w?.type).toBe('Warning');
      expect(w?.message).toContain('kube-apiserver runs 1 gate(s) other than FeatureGate/cluster status says for 4.22.0: APIResponseCompression (desired on, running off)');
    }, 30_000, 250);
    // featuregates status says it in one line (its own check, as verify's).
    const status = () => runCLI(['status', '--kubeconfig', plane.kubeconfigPath]).stdout;
    expect(status()).toContain('Running:      kube-apiserver runs 1 gate(s) other than 4.22.0\'s entry says: APIResponseCompression (featuregates verify)\n');

    await plane.stopAPIServer();
    await plane.startAPIServer([]); // the flag gone: the gate runs as the FeatureGate says (on by default)
    await eventually(async () => {
      expect(await metric()).toEqual([]);
      expect(await verdicts()).toContain('featuregates_running_gates{component="kube-apiserver",verdict="match"} 2');
      const [n] = await events('RunningGatesMatch');
      expect(n?.type).toBe('Normal');
    }, 60_000, 250);
    expect(status()).toContain('Running:      kube-apiserver runs the 2 gate(s) of 4.22.0\'s entry it has as the entry says (featuregates verify)\n');
  }, 150_000);

  it('checks kube-controller-manager and kube-scheduler too, each under its own component label and Events', async () => {
    await op?.stop();
    const [kcm, scheduler] = await Promise.all([
      startComponent(plane, 'kube-controller-manager', ['--feature-gates=APIServingWithRoutine=true']),
      startComponent(plane, 'kube-scheduler'),
    ]);
    try {
      op = await startOperator({
        kubeConfig: readKubeconfigFile(plane.kubeconfigPath)!, operatorVersion: '4.22.0', featureGateDir: payload(), namespace: 'default',
        metricsBindAddress: '0', healthProbeBindAddress: '0', runningGatesPeriodMs: 1_000,
        runningGatesComponents: [{ name: 'kube-controller-manager', url: kcm.url }, { name: 'kube-scheduler', url: scheduler.url }],
        runningGatesComponentCA: Buffer.concat([readFileSync(kcm.certFile), readFileSync(scheduler.certFile)]),
      });
      await eventually(async () => {
        expect(await metric()).toEqual(['featuregates_running_gate_mismatch{component="kube-controller-manager",name="APIServingWithRoutine"} 1']);
        expect(await verdicts()).toEqual(expect.arrayContaining([
          'featuregates_running_gates{component="kube-apiserver",verdict="match"} 2',
          'featuregates_running_gates{component="kube-controller-manager",verdict="mismatch"} 1',
          'featuregates_running_gates{component="kube-controller-manager",verdict="match"} 1',
          'featuregates_running_gates{component="kube-scheduler",verdict="match"} 2',
          'featuregates_running_gates{component="kube-scheduler",verdict="error"} 0',
        ]));
        const warnings = (await events('RunningGatesMismatch')).map((e) => e.message);
        expect(warnings).toContain('kube-controller-manager runs 1 gate(s) other than FeatureGate/cluster status says for 4.22.0: ' +
          'APIServingWithRoutine (desired off, running on) (featuregates verify)');
      }, 30_000, 250);

      await scheduler.stop();
      await eventually(async () => {
        expect(await verdicts()).toContain('featuregates_running_gates{component="kube-scheduler",verdict="error"} 1');
        const [u] = (await events('RunningGatesUnreadable')).filter((e) => e.message.startsWith('kube-scheduler could not be read'));
        expect(u?.type).toBe('Warning');
        expect(u?.message).toMatch(/^kube-scheduler could not be read to check its gates: unreachable: GET \/metrics: /);
      }, 30_000, 250);
      // kube-apiserver and KCM are still judged as before.
      expect(await verdicts()).toContain('featuregates_running_gates{component="kube-controller-manager",verdict="mismatch"} 1');
    } finally {
      await op?.stop();
      op = undefined;
      await Promise.all([kcm.stop(), scheduler.stop()]);
    }
  }, 150_000);
});
