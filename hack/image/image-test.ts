// `npm run image:test`: runs the built image as a real container — podman with runc, as this kind of machine
// can (crun fails on rlimits and cgroups; runc works with limits at or below the machine's hard limits) — the
// way the vanilla overlay's Deployment starts it: its args, env and securityContext read from the rendered
// manifest, and in-cluster credentials as a kubelet provides them (a ServiceAccount token from TokenRequest,
// the cluster CA and the namespace at /var/run/secrets/kubernetes.io/serviceaccount, KUBERNETES_SERVICE_HOST/
// PORT), so the in-cluster path and the manifests' RBAC run for real. Checked from outside: the Deployment's
// probes, HTTPS /metrics with a token bound to featuregate-metrics-reader (and 401 without), FeatureGate status
// and the ClusterOperator, SIGTERM → exit 0 within the grace period and the Lease released. First, the SBOM the
// image ships (/app/sbom.spdx.json) must list every npm package in its node_modules, its Debian packages and Node.
// When podman cannot run containers, the same entrypoint runs in the unpacked image root (umoci unpack, then
// unshare + chroot as the image's user) with the same mounts and environment; the output says which ran.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { FEATURE_GATE_NAME } from '../../api-types/index.js';
import { childPids } from '../../test/support/processes.js';
import { ClusterOperatorResource, FeatureGateResource, KubeTransport, ResourceClient, packageVersion } from '../../runtime/index.js';
import { bundledCRDPaths, resolveBinaries, setClusterVersion, setFeatureGateSpec, setFeatureGateStatus, startControlPlane } from '../../sdk/testing/index.js';
import { sleep } from '../../test/support/timing.js';

// The index (what users pull: it resolves to the machine's architecture) and its per-architecture images.
const image = process.env.IMAGE ?? `featuregate-coordinator:${packageVersion()}`;
const amd64 = `${image}-amd64`;
const arm64 = `${image}-arm64`;
const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
const log = (m: string) => process.stderr.write(`[image:test] ${m}\n`);

interface Container {
  args: string[]; env: { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
  ports: { name: string; containerPort: number }[]; volumeMounts: { name: string; mountPath: string }[];
  livenessProbe: { httpGet: { path: string; port: string } }; readinessProbe: { httpGet: { path: string; port: string } };
  securityContext: { allowPrivilegeEscalation?: boolean; readOnlyRootFilesystem?: boolean; capabilities?: { drop?: string[] } };
}
interface Doc { kind: string; metadata: { name: string; namespace?: string }; data?: Record<string, string>; spec?: { template: { spec: {
  containers: Container[]; securityContext?: { runAsNonRoot?: boolean }; terminationGracePeriodSeconds?: number;
  volumes: { name: string; configMap?: { name: string } }[] } } } }

/** A GET and its status code (TLS not verified: the operator's metrics certificate is self-signed here). */
function get(url: string, token?: string): Promise<{ code: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(u, { headers: token ? { Authorization: `Bearer ${token}` } : {}, rejectUnauthorized: false, timeout: 5000 }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => { body += d.toString(); });
      res.on('end', () => resolve({ code: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const portFree = (port: number) => new Promise<boolean>((resolve) => {
  const s = createServer().once('error', () => resolve(false)).listen(port, '0.0.0.0', () => s.close(() => resolve(true)));
});

/** Every npm package in the image's /app/node_modules (name@version from each package.json found there). */
function npmPackagesIn(nodeModules: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name === '.bin') continue;
      const at = join(dir, entry.name);
      if (entry.name.startsWith('@')) { walk(at); continue; }
      const pkg = join(at, 'package.json');
      if (existsSync(pkg)) {
        const { name, version } = JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string; version?: string };
        if (name && version) out.push(`${name}@${version}`);
      }
      if (existsSync(join(at, 'node_modules'))) walk(join(at, 'node_modules'));
    }
  };
  walk(nodeModules);
  return [...new Set(out)].sort();
}

// The SBOM shipped in the image lists every npm package in its node_modules, its Debian packages and its Node.
{
  const root = execFileSync('podman', ['image', 'mount', amd64], { encoding: 'utf8' }).trim();
  try {
    const sbom = JSON.parse(readFileSync(join(root, 'app', 'sbom.spdx.json'), 'utf8')) as { packages: { name: string; versionInfo: string }[] };
    const listed = new Set(sbom.packages.map((p) => `${p.name}@${p.versionInfo}`));
    const inImage = npmPackagesIn(join(root, 'app', 'node_modules'));
    const missing = inImage.filter((p) => !listed.has(p));
    if (missing.length) throw new Error(`the image's SBOM misses npm packages that are in it: ${missing.join(', ')}`);
    const node = execFileSync('podman', ['run', '--rm', '--runtime', 'runc', '--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=1024:1024', '--entrypoint', '/usr/local/bin/node', image, '--version'], { encoding: 'utf8' }).trim();
    if (!listed.has(`node@${node.replace(/^v/, '')}`)) throw new Error(`the image's SBOM does not list its node ${node}`);
    const docs = readdirSync(join(root, 'usr', 'share', 'doc'));
    const debs = sbom.packages.filter((p) => (p as { supplier?: string }).supplier === 'Organization: Debian').map((p) => p.name);
    if (docs.some((d) => !debs.includes(d))) throw new Error(`Debian packages in the image but not in its SBOM: ${docs.filter((d) => !debs.includes(d)).join(', ')}`);
    log(`SBOM /app/sbom.spdx.json: all ${inImage.length} npm packages of /app/node_modules, ${debs.length} Debian packages (${debs.join(', ')}), node ${node}`);
  } finally {
    spawnSync('podman', ['image', 'unmount', amd64], { stdio: 'ignore' });
  }
}

/** The ELF machine of a file (62 x86-64, 183 aarch64), or undefined when it is not an ELF file. */
function elfMachine(path: string): number | undefined {
  const b = readFileSync(path);
  return b.length > 20 && b.readUInt32BE(0) === 0x7f454c46 ? b.readUInt16LE(18) : undefined;
}

/** path → sha256 of every regular file under dir (the SBOM left out: it names the architecture). */
function tree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && e.name !== 'sbom.spdx.json') out.set(p.slice(dir.length), createHash('sha256').update(readFileSync(p)).digest('hex'));
    }
  };
  walk(dir);
  return out;
}

// Both architectures: node and every shared library are ELF for their machine; /app is the same files.
let arm64Root: string | undefined;
{
  const roots = { amd64: execFileSync('podman', ['image', 'mount', amd64], { encoding: 'utf8' }).trim(), arm64: execFileSync('podman', ['image', 'mount', arm64], { encoding: 'utf8' }).trim() };
  const want = { amd64: 62, arm64: 183 };
  for (const [arch, root] of Object.entries(roots) as ['amd64' | 'arm64', string][]) {
    const libs = execFileSync('find', [root, '-name', '*.so*', '-type', 'f'], { encoding: 'utf8' }).split('\n').filter(Boolean);
    const wrong = [join(root, 'usr/local/bin/node'), ...libs].filter((f) => elfMachine(f) !== undefined && elfMachine(f) !== want[arch]);
    if (wrong.length || elfMachine(join(root, 'usr/local/bin/node')) !== want[arch]) throw new Error(`${arch}: not ELF machine ${want[arch]}: ${wrong.map((f) => f.slice(root.length)).join(', ')}`);
    log(`${arch}: node and ${libs.length} shared libraries are ELF machine ${want[arch]} (${arch === 'amd64' ? 'x86-64' : 'aarch64'})`);
  }
  const [a, b] = [tree(join(roots.amd64, 'app')), tree(join(roots.arm64, 'app'))];
  const differ = [...new Set([...a.keys(), ...b.keys()])].filter((f) => a.get(f) !== b.get(f));
  if (differ.length) throw new Error(`/app differs between amd64 and arm64: ${differ.slice(0, 5).join(', ')}`);
  log(`/app: the same ${a.size} files on amd64 and arm64 (the SBOM aside)`);
  const manifest = JSON.parse(execFileSync('podman', ['manifest', 'inspect', image], { encoding: 'utf8' })) as { manifests: { platform: { architecture: string; os: string } }[] };
  log(`${image}: an index of ${manifest.manifests.map((m) => `${m.platform.os}/${m.platform.architecture}`).join(', ')}`);
  arm64Root = roots.arm64;
}

const plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
const work = mkdtempSync(join(tmpdir(), 'fgc-image-test-'));
const transport = KubeTransport.for(plane.kubeConfig);
let proc: ChildProcess | undefined;
let failed = false;
try {
  // The vanilla overlay as a user installs it: its RBAC applied, its Deployment read for how to start the container.
  const kubectl = resolveBinaries().kubectl!;
  const docs = parseAllDocuments(execFileSync(kubectl, ['kustomize', 'deploy/overlays/vanilla'], { encoding: 'utf8' }))
    .map((d) => d.toJS() as Doc)
    .filter(Boolean);
  const rbac = docs.filter((d) =>
    ['Namespace', 'ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'].includes(d.kind),
  );
  execFileSync(kubectl, ['--kubeconfig', plane.kubeconfigPath, 'apply', '--server-side', '-f', '-'], {
    input: rbac.map((d) => JSON.stringify(d)).join('\n'),
    encoding: 'utf8',
  });
  const deployment = docs.find((d) => d.kind === 'Deployment')!;
  const namespace = deployment.metadata.namespace!;
  const pod = deployment.spec!.template.spec;
  const c = pod.containers[0]!;
  const env = Object.fromEntries(
    c.env.map((e) => [e.name, e.value ?? (e.valueFrom?.fieldRef?.fieldPath === 'metadata.namespace' ? namespace : '')]),
  );
  const version = env.OPERATOR_IMAGE_VERSION!;
  await setFeatureGateSpec(plane.kubeConfig, {});
  await setClusterVersion(plane.kubeConfig, { history: [version] });

  // What a kubelet mounts: the payload ConfigMap at its mountPath, and the ServiceAccount's token, CA and namespace.
  const payloadMount = c.volumeMounts.find((m) => m.name === 'payload')!;
  const cm = docs.find(
    (d) => d.kind === 'ConfigMap' && d.metadata.name === pod.volumes.find((v) => v.name === 'payload')!.configMap!.name,
  )!;
  const payloadDir = join(work, 'payload');
  mkdirSync(payloadDir);
  for (const [f, text] of Object.entries(cm.data!)) writeFileSync(join(payloadDir, f), text);
  const tokenFor = async (sa: string) =>
    (
      (await transport.request({
        method: 'POST',
        path: `/api/v1/namespaces/${namespace}/serviceaccounts/${sa}/token`,
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
      })) as { status: { token: string } }
    ).status.token;
  const saDir = join(work, 'serviceaccount');
  mkdirSync(saDir);
  writeFileSync(join(saDir, 'token'), await tokenFor('featuregate-operator'));
  const kubeconfig = JSON.parse(readFileSync(plane.kubeconfigPath, 'utf8')) as {
    clusters: { cluster: { 'certificate-authority-data': string } }[];
  };
  writeFileSync(join(saDir, 'ca.crt'), Buffer.from(kubeconfig.clusters[0]!.cluster['certificate-authority-data'], 'base64'));
  writeFileSync(join(saDir, 'namespace'), namespace);
  for (const d of [work, payloadDir, saDir]) chmodSync(d, 0o755);
  for (const f of [join(saDir, 'token'), join(saDir, 'ca.crt'), join(saDir, 'namespace')]) chmodSync(f, 0o644);
  const apiPort = new URL(plane.server).port;
  const containerEnv = { ...env, KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: apiPort };
  const mounts = [
    [payloadDir, payloadMount.mountPath],
    [saDir, SA_DIR],
  ] as const;
  const port = (name: string) => c.ports.find((p) => p.name === name)!.containerPort;
  for (const p of c.ports)
    if (!(await portFree(p.containerPort)))
      throw new Error(
        `port ${p.containerPort} (${p.name}) is in use on this host; the container runs on the host network with the Deployment's ports`,
      );

  // The Deployment's securityContext as podman flags.
  const sc = c.securityContext;
  const security = [
    ...(sc.readOnlyRootFilesystem ? ['--read-only'] : []),
    ...(sc.allowPrivilegeEscalation === false ? ['--security-opt', 'no-new-privileges'] : []),
    ...(sc.capabilities?.drop?.includes('ALL') ? ['--cap-drop', 'ALL'] : []),
  ];
  const imageUser = JSON.parse(
    execFileSync('podman', ['image', 'inspect', '--format', '{{json .Config.User}}', amd64], { encoding: 'utf8' }),
  ) as string;
  if (pod.securityContext?.runAsNonRoot && (imageUser === '' || imageUser.startsWith('0:') || imageUser === '0' || imageUser === 'root'))
    throw new Error(`runAsNonRoot, but the image's user is ${JSON.stringify(imageUser)}`);
  const name = `fgc-image-test-${process.pid}`;
  const podmanArgs = [
    'run',
    '--rm',
    '--name',
    name,
    '--runtime',
    'runc',
    '--ulimit',
    'nofile=1024:1024',
    '--ulimit',
    'nproc=1024:1024',
    '--network',
    'host',
    ...security,
    ...mounts.flatMap(([h, m]) => ['-v', `${h}:${m}:ro`]),
    ...Object.entries(containerEnv).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    image,
    ...c.args,
  ];
  const grace = pod.terminationGracePeriodSeconds ?? 30;
  proc = spawn('podman', podmanArgs, { stdio: ['ignore', 'inherit', 'pipe'] });
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => {
    stderr += d.toString();
    process.stderr.write(d);
  });
  await sleep(3000);
  let how: string;
  let stop: () => void = () => {
    spawnSync('podman', ['kill', '--signal', 'TERM', name], { stdio: 'ignore' });
  };
  if (proc.exitCode !== null) {
    log(`podman could not run the container (exit ${proc.exitCode}): ${stderr.trim().split('\n').slice(-2).join(' | ')}`);
    log('fallback: the same entrypoint in the unpacked image (skopeo copy → OCI layout, umoci unpack; unshare + read-only bind + chroot)');
    const layout = join(work, 'oci');
    const bundle = join(work, 'bundle');
    execFileSync('skopeo', ['copy', '--quiet', `containers-storage:localhost/${amd64}`, `oci:${layout}:image`], { stdio: 'inherit' });
    execFileSync('umoci', ['unpack', '--image', `${layout}:image`, bundle], { stdio: 'inherit' });
    const config = JSON.parse(readFileSync(join(bundle, 'config.json'), 'utf8')) as {
      process: { user: { uid: number; gid: number }; env: string[] };
    };
    const rootfs = join(bundle, 'rootfs');
    for (const [, m] of mounts) mkdirSync(join(rootfs, m), { recursive: true });
    const entrypoint = (
      JSON.parse(execFileSync('skopeo', ['inspect', '--config', `containers-storage:localhost/${amd64}`], { encoding: 'utf8' })) as {
        config: { Entrypoint: string[] };
      }
    ).config.Entrypoint;
    const q = (s: string) => `'${s}'`;
    const script = [
      'set -e',
      `mount --bind ${rootfs} ${rootfs} && mount -o remount,bind,ro ${rootfs}`,
      ...mounts.map(([h, m]) => `mount --bind ${h} ${rootfs}${m}`),
      `exec env -i ${[...config.process.env, ...Object.entries(containerEnv).map(([k, v]) => `${k}=${v}`)].map(q).join(' ')} ` +
        `chroot --userspec=${config.process.user.uid}:${config.process.user.gid} ${rootfs} ${[...entrypoint, ...c.args].map(q).join(' ')}`,
    ].join('\n');
    proc = spawn('unshare', ['--mount', '--pid', '--fork', '--kill-child', 'sh', '-c', script], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const p = proc;
    stop = () => {
      const child = childPids(p.pid!)[0];
      if (child) process.kill(child, 'SIGTERM');
    };
    log('container runtime: unshare+chroot (fallback: podman could not run containers)');
    how = `FALLBACK unpacked image: ${entrypoint.join(' ')} as ${config.process.user.uid}:${config.process.user.gid}, read-only root (podman: ${stderr.trim().split('\n').at(-1)})`;
  } else {
    how = `podman run --runtime runc ${security.join(' ')} (user ${imageUser}, the Deployment's args and env, in-cluster credentials)`;
    log('container runtime: podman/runc');
  }

  const t0 = Date.now();
  const fgs = new ResourceClient(plane.kubeConfig, FeatureGateResource);
  const cos = new ResourceClient(plane.kubeConfig, ClusterOperatorResource);
  for (;;) {
    const fg = await fgs.get(FEATURE_GATE_NAME).catch(() => undefined);
    const co = await cos.get('config-operator').catch(() => undefined);
    const ready = await get(`http://127.0.0.1:${port(c.readinessProbe.httpGet.port)}${c.readinessProbe.httpGet.path}`).catch(() => ({
      code: 0,
    }));
    if (
      fg?.status?.featureGates[0]?.version === version &&
      co?.status?.versions?.some((v) => v.name === 'operator' && v.version === version) &&
      ready.code === 200
    ) {
      log(
        `FeatureGate status holds ${version}, ClusterOperator/config-operator reports it, ${c.readinessProbe.httpGet.path} 200: ${Date.now() - t0} ms after start`,
      );
      break;
    }
    if (Date.now() - t0 > 60_000)
      throw new Error(
        `within 60 s: status ${fg?.status?.featureGates[0]?.version ?? '-'}, ClusterOperator ${co ? 'present' : 'missing'}, readiness ${ready.code}`,
      );
    if (proc.exitCode !== null) throw new Error(`the operator exited with ${proc.exitCode}`);
    await sleep(250);
  }
  const live = await get(`http://127.0.0.1:${port(c.livenessProbe.httpGet.port)}${c.livenessProbe.httpGet.path}`);
  if (live.code !== 200) throw new Error(`liveness ${c.livenessProbe.httpGet.path}: HTTP ${live.code}`);
  // Secure metrics: 401 without a token; 200 with one bound to featuregate-metrics-reader (TokenReview + SubjectAccessReview by the
  // operator).
  const metricsURL = `https://127.0.0.1:${port('metrics')}/metrics`;
  const anonymous = await get(metricsURL);
  if (anonymous.code !== 401) throw new Error(`/metrics without a token: HTTP ${anonymous.code}, expected 401`);
  await transport.request({
    method: 'POST',
    path: `/api/v1/namespaces/${namespace}/serviceaccounts`,
    body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'image-test-scraper' } },
  });
  await transport.request({
    method: 'POST',
    path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
    body: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'image-test-scraper' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'featuregate-metrics-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'image-test-scraper', namespace }],
    },
  });
  const scraped = await get(metricsURL, await tokenFor('image-test-scraper'));
  if (scraped.code !== 200 || !scraped.body.includes('featuregates_'))
    throw new Error(`/metrics with the metrics-reader token: HTTP ${scraped.code}`);
  log(
    `probes ${c.livenessProbe.httpGet.path} and ${c.readinessProbe.httpGet.path} 200; HTTPS /metrics 401 without a token, 200 with featuregate-metrics-reader`,
  );

  const stopAt = Date.now();
  stop();
  const code = await new Promise<number | null>((resolve) =>
    proc!.exitCode !== null ? resolve(proc!.exitCode) : proc!.once('exit', (x) => resolve(x)),
  );
  const stopMs = Date.now() - stopAt;
  const lease = (await transport.request({
    method: 'GET',
    path: `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/config-operator-lock`,
  })) as { spec?: { holderIdentity?: string } };
  if (code !== 0) throw new Error(`SIGTERM: the operator exited with ${code}, expected 0`);
  if (stopMs > grace * 1000) throw new Error(`SIGTERM: exit took ${stopMs} ms, past the ${grace} s grace period`);
  if (lease.spec?.holderIdentity) throw new Error(`the Lease was not released on SIGTERM (holder ${lease.spec.holderIdentity})`);
  log(`SIGTERM: exit 0 in ${stopMs} ms (grace ${grace} s), Lease ${namespace}/config-operator-lock released`);
  log(`image OK — ran as: ${how}`);

  // The arm64 image's operator, once, under qemu-user-static when it is installed (no binfmt needed: qemu runs
  // the arm64 node directly, with the image's root as its library root): start → first status write.
  const qemu = spawnSync('sh', ['-c', 'command -v qemu-aarch64-static'], { encoding: 'utf8' }).stdout.trim();
  if (!qemu) {
    log('arm64 not started: qemu-user-static is not installed (apt-get install -y qemu-user-static)');
  } else {
    await setFeatureGateStatus(plane.kubeConfig, []);
    const entry = JSON.parse(
      execFileSync('podman', ['image', 'inspect', '--format', '{{json .Config.Entrypoint}}', arm64], { encoding: 'utf8' }),
    ) as string[];
    const nodeFlags = entry.slice(1, -1); // the entrypoint's node flags
    const t = Date.now();
    const q = spawn(
      qemu,
      [
        '-L',
        arm64Root!,
        join(arm64Root!, 'usr/local/bin/node'),
        ...nodeFlags,
        join(arm64Root!, 'app/dist/cli/featuregates.js'),
        'operator',
        '--kubeconfig',
        plane.kubeconfigPath,
        '--operator-version',
        version,
        '--authoritative-feature-gate-dir',
        join(arm64Root!, 'app/payload'),
        '--metrics-bind-address',
        '0',
        '--health-probe-bind-address',
        '0',
      ],
      { stdio: 'ignore', env: { ...process.env, POD_NAMESPACE: namespace } },
    );
    try {
      for (;;) {
        if ((await fgs.get(FEATURE_GATE_NAME)).status?.featureGates[0]?.version === version) break;
        if (q.exitCode !== null) throw new Error(`arm64 under qemu exited with ${q.exitCode}`);
        if (Date.now() - t > 120_000) throw new Error('arm64 under qemu: no status write within 120 s');
        await sleep(100);
      }
      log(`arm64 under ${qemu}: process start → first FeatureGate status write ${Date.now() - t} ms (emulated)`);
    } finally {
      q.kill('SIGTERM');
    }
  }
} catch (e) {
  failed = true;
  log(`FAILED: ${(e as Error).message}`);
} finally {
  if (proc && proc.exitCode === null) proc.kill('SIGKILL');
  spawnSync('podman', ['rm', '-f', `fgc-image-test-${process.pid}`], { stdio: 'ignore' });
  for (const i of [amd64, arm64]) spawnSync('podman', ['image', 'unmount', i], { stdio: 'ignore' });
  await plane.stop();
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
