// Benchmark: how soon a reflector's watch is back after an etcd outage (issue 68). One local kube-apiserver and its
// etcd; a Reflector of FeatureGates with the operator's defaults, watching; etcd stopped for OUTAGE_S, started again.
// Measured: etcd healthy again → the API server answering a read (polled every 50 ms; kube-apiserver's own recovery),
// then → a FeatureGate written at that moment reaching the reflector's listener, and the LISTs the reflector sent.
//   npm run bench -- etcd-outage [--outage-s 20] [--rounds 3]
import { parseArgs } from 'node:util';
import { Registry } from 'prom-client';
import { FEATURE_GATE_NAME } from '../../api-types/index.js';
import { FeatureGateResource, Reflector, ResourceClient, createLogger, readKubeconfigFile } from '../../runtime/index.js';
import { bundledCRDPaths, setFeatureGateSpec, startControlPlane } from '../../sdk/testing/index.js';
import { sleep } from '../../test/support/timing.js';

const { values: flags } = parseArgs({ options: { 'outage-s': { type: 'string', default: '20' }, rounds: { type: 'string', default: '3' } } });
const say = (s: string) => process.stdout.write(`${s}\n`);

const plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
try {
  const kc = readKubeconfigFile(plane.kubeconfigPath)!;
  const registry = new Registry();
  const logger = createLogger({ level: process.env.LOG_LEVEL === 'info' ? 'info' : 'error', format: 'json' });
  const reflector = new Reflector(new ResourceClient(kc, FeatureGateResource, registry), {
    name: FEATURE_GATE_NAME,
    metrics: registry,
    logger,
  });
  const heard: { at: number; rv: string }[] = [];
  reflector.addListener(() => heard.push({ at: performance.now(), rv: reflector.get(FEATURE_GATE_NAME)?.metadata.resourceVersion ?? '' }), { changesOnly: true });
  await setFeatureGateSpec(kc, {});
  reflector.start();
  await reflector.synced;
  say(`node ${process.version}; kube-apiserver ${plane.version}; a Reflector of FeatureGate/cluster watching`);
  const lists = async () => {
    const m = (await registry.getSingleMetric('rest_client_requests_total')?.get())?.values ?? [];
    return m.filter((v) => v.labels.method === 'LIST').reduce((n, v) => n + v.value, 0);
  };
  const reader = new ResourceClient(kc, FeatureGateResource, undefined, { timeoutMs: 1_000 });
  const writer = new ResourceClient(kc, FeatureGateResource);
  for (let round = 1; round <= Number(flags.rounds); round++) {
    await sleep(5_000);
    const listsBefore = await lists();
    await plane.stopEtcd();
    const downAt = performance.now();
    await sleep(Number(flags['outage-s']) * 1000);
    await plane.startEtcd();
    const etcdUpAt = performance.now();
    for (;;) {
      if (await reader.find(FEATURE_GATE_NAME).then(() => true, () => false)) break;
      await sleep(50);
    }
    const readyAt = performance.now();
    const fg = await writer.get(FEATURE_GATE_NAME);
    const written = await writer.replace({ ...fg, metadata: { ...fg.metadata, annotations: { ...fg.metadata.annotations, 'bench/round': String(round) } } });
    const rv = written.metadata.resourceVersion;
    for (let t = 0; t < 600 && !heard.some((h) => h.rv === rv); t++) await sleep(50);
    const got = heard.find((h) => h.rv === rv);
    say(`round ${round}: etcd down ${((etcdUpAt - downAt) / 1000).toFixed(1)} s; healthy → the API server answering a read ${((readyAt - etcdUpAt) / 1000).toFixed(1)} s; then → the reflector hears a write ` +
      `${got ? `${((got.at - readyAt) / 1000).toFixed(2)} s` : 'not within 30 s'}; LISTs for the outage ${(await lists()) - listsBefore}`);
  }
  await reflector.stop();
} finally {
  await plane.stop();
}
