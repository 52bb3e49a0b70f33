// Real kubelets as nodes of a test control plane: the kubelet binary v1.36 (hack/envtest/build.sh --with-components)
// over fake-cri (k8s.io/cri-client's in-memory runtime, the one kubemark's hollow node uses), each with its own
// configuration file, port, root and certificate folders. It registers its Node, turns Ready, and serves /metrics,
// /configz and /flagz — reached through the API server's node proxy at the node's InternalIP (the plane must prefer
// InternalIP: `--kubelet-preferred-address-types=InternalIP`). Test settings, not a node's: cgroup v1 allowed
// (failCgroupV1: false), no QoS cgroups or allocatable enforcement, anonymous requests allowed (the test plane's
// API server presents no kubelet client certificate).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { freePort, poll } from '../../control-plane/readiness.js';
import { startSupervised, type SupervisedProcess } from '../../control-plane/supervised-process.js';
import { componentsDir } from './components.js';

export interface KubeletNode {
  readonly name: string;
  readonly port: number;
  stop(): Promise<void>;
}

/** The first non-loopback IPv4 address of this machine: the node's InternalIP (the API server refuses to proxy to loopback). */
export function nodeIP(): string {
  for (const addrs of Object.values(networkInterfaces())) {
    for (const a of addrs ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  throw new Error('no non-loopback IPv4 address on this machine: a kubelet node needs one the API server can proxy to');
}

/**
 * Starts a kubelet named `name` registered to the plane of `kubeconfigPath` with `featureGates` in its configuration
 * file (and `extra` configuration fields); resolves once the process serves its port.
 */
export async function startKubeletNode(kubeconfigPath: string, name: string, featureGates: Record<string, boolean>,
  extra: Record<string, unknown> = {}): Promise<KubeletNode> {
  const bin = componentsDir();
  const dir = mkdtempSync(join(tmpdir(), `kubelet-${name}-`));
  const port = await freePort();
  const ip = nodeIP();
  const socket = `unix://${join(dir, 'cri.sock')}`;
  const cri = startSupervised('fake-cri', join(bin, 'fake-cri'), [socket], join(dir, 'fake-cri.log'), 3_000);
  const config = {
    apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration',
    failCgroupV1: false, failSwapOn: false, cgroupsPerQOS: false, enforceNodeAllocatable: [], cgroupDriver: 'cgroupfs',
    containerRuntimeEndpoint: socket, address: ip, port, readOnlyPort: 0, healthzPort: 0,
    authentication: { anonymous: { enabled: true }, webhook: { enabled: false } }, authorization: { mode: 'AlwaysAllow' },
    featureGates, ...extra,
  };
  writeFileSync(join(dir, 'config.yaml'), stringify(config));
  let kubelet: SupervisedProcess | undefined;
  try {
    await poll('the fake-cri socket', 10_000, cri, async () => existsSync(join(dir, 'cri.sock')));
    kubelet = startSupervised('kubelet', join(bin, 'kubelet'), [`--config=${join(dir, 'config.yaml')}`, `--kubeconfig=${kubeconfigPath}`,
      `--root-dir=${join(dir, 'root')}`, `--cert-dir=${join(dir, 'pki')}`, `--hostname-override=${name}`, `--node-ip=${ip}`], join(dir, 'kubelet.log'), 5_000);
  } catch (e) {
    await cri.stop();
    throw e;
  }
  const k = kubelet;
  await poll(`kubelet ${name} serving on port ${port}`, 30_000, k, () => new Promise((resolve) => {
    const sock = connect({ host: ip, port }, () => { sock.destroy(); resolve(true); });
    sock.once('error', () => resolve(false));
  }));
  return {
    name, port,
    async stop() {
      await kubelet?.stop();
      await cri.stop();
      // the kubelet bind-mounts its root folder onto itself (to share its mounts): undone before the folder goes
      const mounts = readFileSync('/proc/mounts', 'utf8').split('\n').map((l) => l.split(' ')[1] ?? '').filter((m) => m === dir || m.startsWith(`${dir}/`));
      for (const m of mounts.sort().reverse()) execFileSync('umount', [m]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
