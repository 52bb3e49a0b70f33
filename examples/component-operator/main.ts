// An example component operator built on the SDK. It waits for its own version's feature gates, logs
// them, renders kube-apiserver arguments for its operand, and exits 0 when its gates change (the
// kubelet restarts it with the new gates). It imports the package by name, exactly as your project will.
//
//   KUBECONFIG=... OPERATOR_IMAGE_VERSION=4.22.1 node dist/examples/component-operator/main.js
import { KubeConfig } from '@kubernetes/client-node';
import {
  createEventRecorder, createFeatureGateAccess, createLogger, exitOnChange, renderKubeAPIServerArgs,
} from 'featuregate-coordinator/sdk';

const log = createLogger({ fields: { component: 'example-component-operator' } });
const version = process.env.OPERATOR_IMAGE_VERSION ?? '';
const kc = new KubeConfig();
kc.loadFromDefault();

const controller = new AbortController();
const access = createFeatureGateAccess({
  kubeConfig: kc,
  desiredVersion: version,
  events: createEventRecorder(kc, { namespace: process.env.POD_NAMESPACE ?? 'default', component: 'example-component-operator', logger: log }),
  logger: log,
  onChange: exitOnChange({
    jitterMs: Number(process.env.EXIT_JITTER_MS ?? 5000),
    beforeExit: [() => controller.abort(), () => access.stop()],
    log: (m) => log.info(m),
  }),
});

access.start();
try {
  const gates = await access.waitForInitial({ timeoutMs: Number(process.env.WAIT_TIMEOUT_MS ?? 60_000) });
  log.info('FeatureGates initialized', { version, enabled: gates.enabledNames, disabled: gates.disabledNames.length });
  // The operand only knows some gates; the rest are dropped with a warning each.
  const known = process.env.OPERAND_KNOWN_GATES?.split(',').filter(Boolean);
  const args = renderKubeAPIServerArgs(gates, { ...(known ? { known } : {}), warn: (m) => log.warn(m) });
  log.info('operand arguments rendered', { args });
} catch (e) {
  log.error((e as Error).message);
  await access.stop();
  process.exit(1);
}

for (const sig of ['SIGTERM', 'SIGINT'] as const) {
  process.once(sig, () => {
    log.info(`${sig}: stopping`);
    controller.abort();
    void access.stop().then(() => process.exit(0));
  });
}
// ... the component's controllers would run here until controller.signal aborts.
await new Promise<void>((resolve) => controller.signal.addEventListener('abort', () => resolve()));
