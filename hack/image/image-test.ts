// `npm run image:test`: runs the built image against a local control plane and checks that the operator
// writes FeatureGate status and publishes its ClusterOperator, then stops it (SIGTERM: exit 0, Lease
// released). With podman (host network, read-only root, non-root user); when podman cannot run
// containers here, the same entrypoint runs in the unpacked image root (umoci unpack, then unshare +
// chroot as UID 65532) and the reason is printed.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FEATURE_GATE_NAME } from '../../api-types/index.js';
import { ClusterOperatorResource, FeatureGateResource, KubeTransport, ResourceClient, packageVersion } from '../../runtime/index.js';
import { bundledCRDPaths, setClusterVersion, setFeatureGateSpec, startControlPlane } from '../../sdk/testing/index.js';

const image = process.env.IMAGE ?? `featuregate-coordinator:${packageVersion()}`;
const VERSION = '4.22.1';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (m: string) => process.stderr.write(`[image:test] ${m}\n`);

const plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
const work = mkdtempSync(join(tmpdir(), 'fgc-image-test-'));
let proc: ChildProcess | undefined;
let how: string;
let failed = false;
try {
  await setFeatureGateSpec(plane.kubeConfig, {});
  await setClusterVersion(plane.kubeConfig, { history: [VERSION] });
  const kubeconfig = join(work, 'kubeconfig');
  copyFileSync(plane.kubeconfigPath, kubeconfig);
  chmodSync(kubeconfig, 0o644); chmodSync(work, 0o755);
  const args = ['operator', '--kubeconfig', '/var/run/fgc/kubeconfig', '--operator-version', VERSION, '--authoritative-feature-gate-dir', '/app/payload',
    '--metrics-bind-address', '127.0.0.1:0', '--metrics-secure=false', '--health-probe-bind-address', '127.0.0.1:0',
    '--leader-elect', '--leader-election-namespace', 'default'];
  const name = `fgc-image-test-${process.pid}`;
  const podman = ['run', '--rm', '--name', name, '--network', 'host', '--read-only', '--user', '65532:0', '--cap-drop', 'ALL',
    '--security-opt', 'no-new-privileges', '-v', `${work}:/var/run/fgc:ro`, image, ...args];
  proc = spawn('podman', podman, { stdio: ['ignore', 'inherit', 'pipe'] });
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
  await sleep(3000);
  let stop: () => void = () => spawnSync('podman', ['stop', '--time', '10', name], { stdio: 'ignore' });
  if (proc.exitCode !== null) {
    log(`podman could not run the container (exit ${proc.exitCode}): ${stderr.trim().split('\n').slice(-2).join(' | ')}`);
    log('fallback: the same entrypoint in the unpacked image (skopeo copy → OCI layout, umoci unpack; unshare + read-only bind + chroot as 65532:0)');
    const layout = join(work, 'oci');
    const bundle = join(work, 'bundle');
    execFileSync('skopeo', ['copy', '--quiet', `containers-storage:localhost/${image}`, `oci:${layout}:image`], { stdio: 'inherit' });
    execFileSync('umoci', ['unpack', '--image', `${layout}:image`, bundle], { stdio: 'inherit' });
    const config = JSON.parse(readFileSync(join(bundle, 'config.json'), 'utf8')) as { process: { args: string[]; user: { uid: number; gid: number }; env: string[] } };
    const rootfs = join(bundle, 'rootfs');
    mkdirSync(join(rootfs, 'var', 'run', 'fgc'), { recursive: true });
    // The image's own entrypoint and user (from its config), our arguments instead of its CMD.
    const imageConfig = JSON.parse(execFileSync('skopeo', ['inspect', '--config', `containers-storage:localhost/${image}`], { encoding: 'utf8' })) as { config: { Entrypoint: string[] } };
    const entrypoint = imageConfig.config.Entrypoint;
    const script = [
      'set -e',
      `mount --bind ${rootfs} ${rootfs} && mount -o remount,bind,ro ${rootfs}`,
      `mount --bind ${work} ${rootfs}/var/run/fgc`,
      // The image's environment only (env -i runs on the host side: the image has no env binary, no shell).
      `exec env -i ${config.process.env.map((e) => `'${e}'`).join(' ')} chroot --userspec=${config.process.user.uid}:${config.process.user.gid} ${rootfs} ${[...entrypoint, ...args].map((a) => `'${a}'`).join(' ')}`,
    ].join('\n');
    proc = spawn('unshare', ['--mount', '--pid', '--fork', '--kill-child', 'sh', '-c', script], { stdio: ['ignore', 'inherit', 'inherit'] });
    const p = proc;
    // SIGTERM goes to the operator itself (PID 1 of the new PID namespace, the child of unshare).
    stop = () => {
      const child = readFileSync(`/proc/${p.pid}/task/${p.pid}/children`, 'utf8').trim().split(/\s+/)[0];
      if (child) process.kill(Number(child), 'SIGTERM');
    };
    how = `unpacked image: ${entrypoint.join(' ')} as ${config.process.user.uid}:${config.process.user.gid}, read-only root (podman: ${stderr.trim().split('\n').at(-1)})`;
  } else {
    how = 'podman run --network host --read-only --user 65532:0 --cap-drop ALL';
  }
  const fgs = new ResourceClient(plane.kubeConfig, FeatureGateResource);
  const cos = new ResourceClient(plane.kubeConfig, ClusterOperatorResource);
  const t0 = Date.now();
  for (;;) {
    const fg = await fgs.get(FEATURE_GATE_NAME).catch(() => undefined);
    const co = await cos.get('config-operator').catch(() => undefined);
    if (fg?.status?.featureGates[0]?.version === VERSION && co?.status?.versions?.some((v) => v.name === 'operator' && v.version === VERSION)) {
      log(`FeatureGate status holds ${VERSION} and ClusterOperator/config-operator reports it, ${Date.now() - t0} ms after start (${how})`);
      break;
    }
    if (Date.now() - t0 > 60_000) throw new Error('FeatureGate status / ClusterOperator did not appear within 60 s');
    if (proc.exitCode !== null) throw new Error(`the operator exited with ${proc.exitCode}`);
    await sleep(250);
  }
  stop();
  const code = await new Promise<number | null>((resolve) => (proc!.exitCode !== null ? resolve(proc!.exitCode) : proc!.once('exit', (c) => resolve(c))));
  const lease = await KubeTransport.for(plane.kubeConfig).request({ method: 'GET', path: '/apis/coordination.k8s.io/v1/namespaces/default/leases/config-operator-lock' }) as { spec?: { holderIdentity?: string } };
  if (code !== 0) throw new Error(`SIGTERM: the operator exited with ${code}, expected 0`);
  if (lease.spec?.holderIdentity) throw new Error(`the Lease was not released on SIGTERM (holder ${lease.spec.holderIdentity})`);
  log('stopped with SIGTERM: exit 0, Lease released — image OK');
} catch (e) {
  failed = true;
  log(`FAILED: ${(e as Error).message}`);
} finally {
  if (proc && proc.exitCode === null) proc.kill('SIGKILL');
  await plane.stop();
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
