// Benchmark: how soon a reflector's watch is back after an etcd outage (issue 68). One local kube-apiserver and its
// etcd; a Reflector of FeatureGates with the operator's defaults, watching; etcd stopped for OUTAGE_S, started again.
// Measured from the moment the API server answers a read again (polled every 50 ms): when a FeatureGate written then
// reaches the reflector's listener, and how many LISTs the reflector sent for the outage.
//   npm run bench -- etcd-outage [--outage-s 20] [--rounds 3]
import { parseArgs } from 'node:util';
import { Registry } from 'prom-client';
import { FEATURE_GATE_NAME } from '../../api-types/index.js';
import { FeatureGateResource, Reflector, ResourceClient, createLogger, readKubeconfigFile } from '../../runtime/index.js';
import { setFeatureGateSpec, startControlPlane } from '../../sdk/testing/index.js';
import { sleep } from '../../test/support/timing.js';

const { values: flags } = parseArgs({ options: { 'outage-s': { type: 'string', default: '20' }, rounds: { type: 'string', default: '3' } } });
const say = (s: string) => process.stdout.write(`${s}\n`);

const plane = await startControlPlane({});
try {
  const kc = readKubeconfigFile(plane.kubeconfigPath)!;
  const registry = new Registry();
  const logger = createLogger({ level: process.env.LOG_LEVEL === 'info' ? 'info' : 'error', format: 'json' });
  const reflector = new Reflector(new ResourceClient(kc, FeatureGateResource, registry), { name: FEATURE_GATE_NAME, metrics: registry, logger });
  const heard: { at: number; rv: string }[] = [];
  reflector.addListener(() => heard.push({ at: performance.now(), rv: reflector.get(FEATURE_GATE_NAME)?.metadata.resourceVersion ?? '' }), { changesOnly: true });
  reflector.start();
  await reflector.synced;
  const lists = async () => {
    const m = (await registry.getSingleMetric('rest_client_requests_total')?.get())?.values ?? [];
    return m.filter((v) => v.labels.method === 'LIST').reduce((n, v) => n + v.value, 0);
  };
  const reader = new ResourceClient(kc, FeatureGateResource, undefined, { timeoutMs: 1_000 });
  for (let round = 1; round <= Number(flags.rounds); round++) {
    await sleep(5_000);
    const listsBefore = await lists();
    await plane.stopEtcd();
    const downAt = performance.now();
    await sleep(Number(flags['outage-s']) * 1000);
    await plane.startEtcd();
    for (;;) {
      if (await reader.find(FEATURE_GATE_NAME).then(() => true, () => false)) break;
      await sleep(50);
    }
    const readyAt = performance.now();
    const written = await setFeatureGateSpec(kc, { featureSet: round % 2 ? 'TechPreviewNoUpgrade' : '' });
    const rv = written.metadata.resourceVersion;
    for (let t = 0; t < 600 && !heard.some((h) => h.rv === rv); t++) await sleep(50);
    const got = heard.find((h) => h.rv === rv);
    say(`round ${round}: etcd down ${((readyAt - downAt) / 1000).toFixed(1)} s in all; the API server answering → the reflector hears a write ` +
      `${got ? `${((got.at - readyAt) / 1000).toFixed(2)} s` : 'not within 30 s'}; LISTs for the outage ${(await lists()) - listsBefore}`);
  }
  await reflector.stop();
} finally {
  await plane.stop();
}
