// The measured process of `npm run bench -- sdk-accessor-parts` (see that file): it loads @kubernetes/client-node and a
// KubeConfig and holds a client-node watch, then measures one part after full collections before and after; it
// imports nothing of this project before its first measurement.
//   node --expose-gc sdk-accessor-part.js <kubeconfig> sdk|accessor|http1
const [, , kubeconfigPath, part] = process.argv;
const { KubeConfig } = await import('@kubernetes/client-node');
const { holdNamespaceWatch } = await import('./component-watch.js');
const gc = (globalThis as { gc?: () => void }).gc!;
const MB = 1048576;
const snap = () => {
  gc();
  gc();
  const m = process.memoryUsage();
  return { rssMB: m.rss / MB, heapMB: m.heapUsed / MB, externalMB: m.external / MB };
};
const kc = new KubeConfig();
kc.loadFromFile(kubeconfigPath!);
await holdNamespaceWatch(kc);
await new Promise((r) => setTimeout(r, 300));
const before = snap();
const sdk = await import('../../sdk/index.js');
const loaded = snap();
if (part === 'accessor') {
  const a = sdk.createFeatureGateAccess({ kubeConfig: kc, desiredVersion: '4.22.0', onChange: () => undefined });
  a.start();
  await a.waitForInitial({ timeoutMs: 30_000 });
} else if (part === 'http1') {
  const { withTransportConfig } = await import('../../runtime/rest/kube-transport.js');
  const { Reflector } = await import('../../runtime/cache/reflector.js');
  const { ResourceClient } = await import('../../runtime/rest/resource-client.js');
  const { FeatureGateResource, ClusterVersionResource } = await import('../../runtime/rest/resources.js');
  const t = withTransportConfig(kc, { http2: false });
  const featureGates = new Reflector(new ResourceClient(t, FeatureGateResource), { name: 'cluster' });
  const clusterVersions = new Reflector(new ResourceClient(t, ClusterVersionResource), { name: 'version' });
  featureGates.start();
  clusterVersions.start();
  const a = sdk.featureGateAccessOverCaches({ featureGates, clusterVersions }, { desiredVersion: '4.22.0', onChange: () => undefined });
  a.start();
  await a.waitForInitial({ timeoutMs: 30_000 });
}
await new Promise((r) => setTimeout(r, 2000));
const after = snap();
const from = part === 'sdk' ? before : loaded;
const to = part === 'sdk' ? loaded : after;
console.log(JSON.stringify({ rssMB: to.rssMB - from.rssMB, heapMB: to.heapMB - from.heapMB, externalMB: to.externalMB - from.externalMB }));
process.exit(0);
