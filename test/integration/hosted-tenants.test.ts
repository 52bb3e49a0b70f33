// Hosted mode as a tenant boundary, attacked. A real management plane (HyperShift's HCP CRD), three real guest
// kube-apiservers sharing its etcd — two good guests, one per shard, and one with HyperShift's own `config`
// admission policy — and hostile guests that are small in-process servers where the behaviour under test is
// the server's: one throttling forever (429, Retry-After: 3600), one answering 2 MiB errors, one streaming
// without newlines, one with 3,000 ClusterVersion history entries. Beside them, HCPs whose kubeconfig Secrets
// try to make the coordinator read its own files (a token file — a canary —, a key file, a CA file), run a
// command (exec), speak plain http or skip TLS verification. Two `featuregates hosted` replicas.
// Checked: the refused kubeconfigs send nothing and say which field; the good guests still converge on every
// change; hostile answers reach `hosted status` bounded; a spec change the policy refuses still leaves status
// entries and Upgradeable kept; a guest cycling its ClusterVersion never moves the management-side ConfigMap
// off the HCP's release; a guest admin's forgery of the coordinator's ClusterOperator or FeatureGate status is
// put right through the watches; SIGTERM ends a replica within seconds while its guests throttle.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ClusterProfiles, FEATURE_GATE_NAME, PAYLOAD_VERSION_ANNOTATION, MAX_UNTRUSTED_MESSAGE_CHARS, resolveFeatureGateDetails, shardOf,
} from '../../api-types/index.js';
import { ClusterOperatorResource, FeatureGateResource, KubeTransport, ResourceClient, readKubeconfigFile, retryOnConflict, type ClusterAccess } from '../../runtime/index.js';
import { ReleaseCatalog } from '../../hosted/release-catalog.js';
import {
  ensureNamespace, hypershiftCRDPaths, publishHostedControlPlane, readFeatureGateConfigMap, setClusterVersion, setHostedFeatureGate,
  setHostedReleaseVersion, startControlPlane, upstreamCRDPaths, type ControlPlane,
} from '../../sdk/testing/index.js';
import { GUEST_REBINDS } from '../../hosted/guest-engagement.js';
import { runCLI } from '../support/cli.js';
import { hostedReplicas } from '../support/hosted-replicas.js';
import { eventually } from '../support/timing.js';
import { startHostileGuest } from '../support/hostile-guests.js';
import { startHostileServer, status, type HostileServer } from '../support/hostile-server.js';
import { PAYLOAD_ROOT } from '../support/payloads.js';
import { tempDirs } from '../support/temp.js';

const CATALOG = join(PAYLOAD_ROOT, 'releases');
const SHARDS = 2;
const NS = 'fgc-tenants';
const tempDir = tempDirs();
const catalog = new ReleaseCatalog(CATALOG);
const CANARY = 'CANARY-COORDINATOR-SECRET-7f3a';

/** HyperShift's `config` policy (hosted-cluster-config operator, admissionpolicies.go), for featuregates. */
const CONFIG_POLICY = {
  apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'config' },
  spec: {
    matchConstraints: {
      matchPolicy: 'Equivalent',
      resourceRules: [{ operations: ['UPDATE', 'DELETE'], apiGroups: ['config.openshift.io'], apiVersions: ['v1'], resources: ['featuregates'], scope: '*' }],
    },
    validations: [{
      expression: "request.userInfo.username in ['system:hosted-cluster-config', 'system:kas-bootstrap-container'] || (has(object.spec) && has(oldObject.spec) && object.spec == oldObject.spec)",
      message: 'This resource cannot be created, updated, or deleted. Please ask your administrator to modify the resource in the HostedCluster object.',
      reason: 'Invalid',
    }],
  },
};
const CONFIG_BINDING = {
  apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'config-binding' },
  spec: { policyName: 'config', validationActions: ['Deny'] },
};

/** A namespace for an HCP whose key lands on `shard`. */
function namespaceOn(shard: number, prefix: string): string {
  for (let i = 0; ; i++) if (shardOf(`${prefix}-${i}/${prefix}`, SHARDS) === shard) return `${prefix}-${i}`;
}

describe('featuregates hosted as a tenant boundary', () => {
  let mgmt: ControlPlane;
  let mkc: ClusterAccess;
  const planes: ControlPlane[] = [];
  const good: { ns: string; kc: ClusterAccess }[] = [];
  let hs: { ns: string; kc: ClusterAccess };
  const hostile = new Map<string, HostileServer>();
  let canaryListener: HostileServer;
  let refusedFirst: HostileServer | undefined;
  const replicas = hostedReplicas({ kubeconfig: () => mgmt.kubeconfigPath, catalog: CATALOG, namespace: NS, shards: SHARDS });
  const { procs, logs, records, dumpOnFailure } = replicas;

  const fgOf = (kc: ClusterAccess) => new ResourceClient(kc, FeatureGateResource).get(FEATURE_GATE_NAME);
  const upgradeableOf = async (kc: ClusterAccess) =>
    (await new ResourceClient(kc, ClusterOperatorResource).get('config-operator')).status?.conditions?.find((c) => c.type === 'Upgradeable');
  const entry = (featureSet: string, version: string) =>
    resolveFeatureGateDetails({ featureSet }, catalog.registry(version, ClusterProfiles.IBMCloudManaged), version);

  beforeAll(async () => {
    mgmt = await startControlPlane({ crdPaths: hypershiftCRDPaths() });
    mkc = readKubeconfigFile(mgmt.kubeconfigPath)!;
    planes.push(...await Promise.all(['/t-good-0', '/t-good-1', '/t-hs'].map((etcdPrefix) =>
      startControlPlane({ etcdURL: mgmt.etcdURL, etcdPrefix, crdPaths: upstreamCRDPaths() }))));
    await ensureNamespace(mkc, NS);
    const publish = async (plane: ControlPlane, ns: string) => {
      const kc = readKubeconfigFile(plane.kubeconfigPath)!;
      await setClusterVersion(kc, { history: ['4.22.3'] });
      await publishHostedControlPlane(mkc, { namespace: ns, name: ns, kubeconfig: readFileSync(plane.kubeconfigPath, 'utf8'), releaseVersion: '4.22.3' });
      return { ns, kc };
    };
    for (const shard of [0, 1]) good.push(await publish(planes[shard]!, namespaceOn(shard, `good${shard}`)));
    hs = await publish(planes[2]!, 'hypershift-guest');

    // Hostile guests, in-process: each answers as its tenant chose (test/support/hostile-guests.ts).
    for (const kind of ['throttle', 'huge-error', 'no-newline', 'long-history', 'cycling'] as const) {
      const server = await startHostileGuest(kind);
      hostile.set(kind, server);
      for (const shard of [0, 1]) {
        const ns = namespaceOn(shard, kind);
        await publishHostedControlPlane(mkc, { namespace: ns, name: ns, kubeconfig: server.kubeconfig(), releaseVersion: '4.22.3' });
      }
    }

    // Kubeconfigs that would make the coordinator read its own files, run a command, or talk in the clear.
    canaryListener = await startHostileServer({ answer: (_q, res) => status(res, 404, 'nothing here') });
    const canaryFile = join(tempDir('fgc-canary-'), 'token');
    writeFileSync(canaryFile, CANARY);
    refusedFirst = await startHostileServer({ tls: true }); // never connected to: every one of these is refused first
    const https = refusedFirst.url;
    const bad: [string, Record<string, unknown>, Record<string, unknown>][] = [
      ['token-file', { server: canaryListener.url }, { tokenFile: canaryFile }],
      ['token-file-https', { server: https }, { tokenFile: canaryFile }],
      ['key-file', { server: https }, { 'client-certificate-data': 'eA==', 'client-key': canaryFile }],
      ['ca-file', { server: https, 'certificate-authority': canaryFile }, { token: 't' }],
      ['exec', { server: https }, { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'sh', args: ['-c', `cat ${canaryFile}`] } }],
      ['plain-http', { server: canaryListener.url }, { token: 'guest-token' }],
      ['skip-verify', { server: https, 'insecure-skip-tls-verify': true }, { token: 't' }],
    ];
    for (const [name, cluster, user] of bad) {
      await publishHostedControlPlane(mkc, { namespace: `bad-${name}`, name, releaseVersion: '4.22.3', kubeconfig: JSON.stringify({
        apiVersion: 'v1', kind: 'Config', 'current-context': 'c', clusters: [{ name: 'g', cluster }], users: [{ name: 'u', user }],
        contexts: [{ name: 'c', context: { cluster: 'g', user: 'u' } }],
      }) });
    }
    replicas.start('replica-1');
    replicas.start('replica-2');
  }, 180_000);

  afterAll(async () => {
    replicas.killAll();
    for (const s of hostile.values()) await s.close();
    await canaryListener?.close();
    await refusedFirst?.close();
    await Promise.all(planes.map((p) => p.stop()));
    await mgmt?.stop();
  });

  it('refuses kubeconfigs with file references, exec, http or skip-verify: nothing sent, the field named', () => dumpOnFailure(async () => {
    const expected: [string, string][] = [
      ['bad-token-file/token-file', 'users["u"].user.tokenFile is not accepted'],
      ['bad-token-file-https/token-file-https', 'users["u"].user.tokenFile is not accepted'],
      ['bad-key-file/key-file', 'users["u"].user.client-key is not accepted'],
      ['bad-ca-file/ca-file', 'clusters["g"].cluster.certificate-authority is not accepted'],
      ['bad-exec/exec', 'users["u"].user.exec is not accepted'],
      ['bad-plain-http/plain-http', 'clusters["g"].cluster.server http://… is not accepted'],
      ['bad-skip-verify/skip-verify', 'clusters["g"].cluster.insecure-skip-tls-verify is not accepted'],
    ];
    await eventually(async () => {
      const all = await records();
      for (const [key, text] of expected) expect(`${key}: ${all.get(key)?.lastError}`).toContain(text);
    }, 60_000, 500);
    expect(canaryListener.requests).toEqual([]);
    for (const log of logs.values()) expect(log).not.toContain(CANARY);
  }), 90_000);

  it('the good guests converge on a change while the hostile ones throttle, shout, stream and overflow', () => dumpOnFailure(async () => {
    for (const g of good) {
      await eventually(async () => expect((await fgOf(g.kc)).status?.featureGates.map((e) => e.version)).toEqual(['4.22.3']), 60_000, 200);
    }
    // Every hostile guest was tried (each answered as it chose).
    for (const [name, s] of hostile) expect(`${name}: ${s.requests.length > 0}`).toBe(`${name}: true`);
    for (const g of good) {
      await setHostedReleaseVersion(mkc, g.ns, g.ns, '4.22.4');
      await setClusterVersion(g.kc, { history: [{ version: '4.22.4', state: 'Partial' }, '4.22.3'] });
    }
    for (const g of good) {
      await eventually(async () => {
        expect((await fgOf(g.kc)).status?.featureGates.map((e) => e.version)).toEqual(['4.22.4', '4.22.3']);
        expect((await readFeatureGateConfigMap(mkc, g.ns))?.metadata.annotations?.[PAYLOAD_VERSION_ANNOTATION]).toBe('4.22.4');
      }, 30_000, 200);
    }
    // What the hostile guests said reaches `hosted status` bounded, and says what was wrong.
    await eventually(async () => {
      const all = await records();
      const of = (name: string) => [0, 1].map((shard) => all.get(`${namespaceOn(shard, name)}/${namespaceOn(shard, name)}`));
      for (const r of of('throttle')) expect(r?.lastError).toContain('HTTP 429');
      for (const r of of('huge-error')) {
        expect(r?.lastError).toContain('HTTP 500');
        expect(r!.lastError!.length).toBeLessThan(MAX_UNTRUSTED_MESSAGE_CHARS + 200);
        expect(r!.lastError).not.toContain('\x1b');
      }
      for (const r of of('no-newline')) expect(r?.lastError).toContain('larger than 3145728 bytes');
      for (const r of of('long-history')) expect(r?.lastError).toContain('has more than 100 history entries');
    }, 60_000, 500);
    const table = runCLI(['hosted', 'status', '--kubeconfig', mgmt.kubeconfigPath, '--namespace', NS]);
    expect(table.code).toBe(0);
    expect(table.stdout.length).toBeLessThan(64 * 1024);
  }), 120_000);

  it('a guest streaming ten changes a second sets no pace: its watch is cut at the event bound, retried at a growing backoff, and its writes paced', () => dumpOnFailure(async () => {
    const cycling = hostile.get('cycling')!;
    const writes = () => cycling.requests.filter((r) => r.method !== 'GET').length;
    const cvLists = () => cycling.requests.filter((r) => r.method === 'GET' && r.path.includes('/clusterversions') && !r.path.includes('watch=true')).length;
    // Past 60 changes at over one a second the watch ends as a failure (GUEST_EVENT_RATE), named in the log.
    await eventually(() => expect([...logs.values()].join('\n')).toContain('clusterversions/version changed more than 60 times at over 1 a second'), 30_000, 200);
    const [lists0, writes0, since] = [cvLists(), writes(), Date.now()];
    await new Promise((r) => setTimeout(r, 12_000));
    const elapsedS = (Date.now() - since) / 1000;
    // Two HCPs (one per shard) on this server. Unbounded, each watch delivered ten events a second for its whole
    // life (30–45 s), every one decoded and paced. The event bucket is the reflector's (not refilled by a new
    // watch): after the first cut each watch carries what refilled during the backoff before it, and each round
    // waits a backoff that only grows (capped at 2 s here, drawn from [1 s, 2 s]; 3 minutes in production): at
    // most one list per second per HCP.
    expect(cvLists() - lists0).toBeLessThanOrEqual(2 * (Math.ceil(elapsedS) + 1));
    // What its events may still wake is paced: ≤ 2/s and a burst of 10 per HCP, plus failure retries.
    expect(writes() - writes0).toBeLessThanOrEqual(2 * (2 * elapsedS + 10 + 5));
  }), 60_000);

  it('a guest whose desired version changes ten times a second is rebound 3 times at once, then once per GUEST_REBINDS period', () => dumpOnFailure(async () => {
    const cyclingHcps = [0, 1].map((shard) => namespaceOn(shard, 'cycling'));
    const rebinds = (hcp: string) => [...logs.values()].join('\n').split('\n')
      .filter((l) => l.includes('"msg":"guest controllers bound to its version"') && l.includes(`"hcp":"${hcp}/${hcp}"`)).length;
    await eventually(() => { for (const hcp of cyclingHcps) expect(rebinds(hcp)).toBeGreaterThan(0); }, 30_000, 200);
    const before = cyclingHcps.map(rebinds);
    const since = Date.now();
    await new Promise((r) => setTimeout(r, 10_000));
    // Each HCP's guest changed its desired version ~100 times in those 10 s: unpaced, every paced wake-up (2 a
    // second) was a rebind. Paced: what is left of the burst, and one per period.
    const elapsedS = (Date.now() - since) / 1000;
    cyclingHcps.forEach((hcp, i) =>
      expect(rebinds(hcp) - before[i]!).toBeLessThanOrEqual(GUEST_REBINDS.burst + Math.ceil(elapsedS * GUEST_REBINDS.perSecond)),
    );
  }), 60_000);

  it('HyperShift\'s config policy refuses a feature-set change; a later upgrade still gets its entry and Upgradeable stays right', () => dumpOnFailure(async () => {
    await eventually(async () => expect((await fgOf(hs.kc)).status?.featureGates.map((e) => e.version)).toEqual(['4.22.3']), 60_000, 200);
    const t = KubeTransport.for(hs.kc);
    await t.request({ method: 'POST', path: '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', body: CONFIG_POLICY });
    await t.request({ method: 'POST', path: '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', body: CONFIG_BINDING });
    // The policy is in force (it is loaded asynchronously) once a spec change by this non-whitelisted admin is
    // refused — probed with a dry run, so nothing is changed before it is.
    await eventually(async () => {
      const fg = await fgOf(hs.kc);
      await expect(t.request({ method: 'PUT', path: '/apis/config.openshift.io/v1/featuregates/cluster', query: { dryRun: 'All' },
        body: { ...fg, spec: { featureSet: 'TechPreviewNoUpgrade' } } })).rejects.toThrow('Please ask your administrator');
    }, 20_000, 200);

    await setHostedFeatureGate(mkc, hs.ns, hs.ns, { featureSet: 'TechPreviewNoUpgrade' });
    await eventually(async () => {
      expect((await records()).get(`${hs.ns}/${hs.ns}`)?.lastError).toContain('the guest refused FeatureGate/cluster spec featureSet="TechPreviewNoUpgrade"');
      // The HCP's one-way choice blocks minor upgrades even while the guest refuses it (the control plane runs it).
      expect(await upgradeableOf(hs.kc)).toMatchObject({ status: 'False', reason: 'FeatureGates_RestrictedFeatureGates_TechPreviewNoUpgrade' });
    }, 30_000, 500);
    expect((await fgOf(hs.kc)).spec.featureSet ?? '').toBe('');

    // An upgrade after the refusal: the new version's entry, for the spec the guest has (what its components read).
    await setHostedReleaseVersion(mkc, hs.ns, hs.ns, '4.22.5');
    await setClusterVersion(hs.kc, { history: [{ version: '4.22.5', state: 'Partial' }, '4.22.3'] });
    await eventually(async () => {
      const fg = await fgOf(hs.kc);
      expect(fg.status?.featureGates.map((e) => e.version)).toEqual(['4.22.5', '4.22.3']);
      expect(fg.status?.featureGates[0]).toEqual(entry('', '4.22.5'));
      const co = await new ResourceClient(hs.kc, ClusterOperatorResource).get('config-operator');
      expect(co.status?.versions?.[0]).toEqual({ name: 'operator', version: '4.22.5' });
      expect(await upgradeableOf(hs.kc)).toMatchObject({ status: 'False' });
    }, 30_000, 200);
    // The management side follows the HCP: its spec and its release.
    const cm = await readFeatureGateConfigMap(mkc, hs.ns);
    expect(cm?.metadata.annotations?.[PAYLOAD_VERSION_ANNOTATION]).toBe('4.22.5');
    expect(cm?.data?.['feature-gate.yaml']).toContain('TechPreviewNoUpgrade');
  }), 120_000);

  it('a guest cycling its ClusterVersion through versions its HCP never named moves no management-side output', () => dumpOnFailure(async () => {
    for (let z = 100; z < 150; z++) await setClusterVersion(hs.kc, { history: [`4.22.${z}`, '4.22.5'] });
    // The last version is bound within a rebind period (GUEST_REBINDS: after a burst of 3, one per 5 s).
    await eventually(async () => expect((await fgOf(hs.kc)).status?.featureGates[0]?.version).toBe('4.22.149'), 60_000, 200);
    const cm = await readFeatureGateConfigMap(mkc, hs.ns);
    expect(cm?.metadata.annotations?.[PAYLOAD_VERSION_ANNOTATION]).toBe('4.22.5');
  }), 90_000);

  it('a guest admin who forges the coordinator\'s own objects is put right through the watches, long before a resync', () => dumpOnFailure(async () => {
    // The guest ClusterOperator and FeatureGate status are the coordinator's outputs, but the guest's admin can
    // write them. Each is watched: a forgery is corrected within seconds (the resync is a minute).
    const g = good[0]!;
    const cos = new ResourceClient(g.kc, ClusterOperatorResource);
    await eventually(async () => expect((await upgradeableOf(g.kc))?.status).toBe('True'), 30_000, 200);
    await retryOnConflict(async () => {
      const co = await cos.get('config-operator');
      const conditions = (co.status?.conditions ?? []).map((c) => (c.type === 'Upgradeable'
        ? { ...c, status: 'False' as const, reason: 'Forged', message: 'a guest admin wrote this' } : c));
      await cos.replaceStatus({ ...co, status: { ...co.status, conditions } });
    });
    await eventually(async () => expect(await upgradeableOf(g.kc)).toMatchObject({ status: 'True' }), 8_000, 100);

    await cos.delete('config-operator');
    await eventually(async () => expect((await upgradeableOf(g.kc))?.status).toBe('True'), 8_000, 100);

    const fgs = new ResourceClient(g.kc, FeatureGateResource);
    const versions = (await fgOf(g.kc)).status!.featureGates.map((e) => e.version);
    await retryOnConflict(async () => {
      const fg = await fgs.get(FEATURE_GATE_NAME);
      await fgs.replaceStatus({ ...fg, status: { ...fg.status, featureGates: [...fg.status!.featureGates, { version: '4.0.0-forged', enabled: [], disabled: [] }] } });
    });
    await eventually(async () => expect((await fgOf(g.kc)).status?.featureGates.map((e) => e.version)).toEqual(versions), 8_000, 100);
  }), 60_000);

  it('SIGTERM ends each replica within seconds while its guests throttle (their requests are aborted)', () => dumpOnFailure(async () => {
    const exits = [...procs.entries()].map(([id, p]) => {
      const t0 = Date.now();
      p.kill('SIGTERM');
      return new Promise<[string, number | null, number]>((resolve) => p.once('exit', (code) => resolve([id, code, Date.now() - t0])));
    });
    for (const [id, code, ms] of await Promise.all(exits)) {
      expect(`${id} exit ${code}`).toBe(`${id} exit 0`);
      expect(ms).toBeLessThan(20_000); // the bound: the request deadline (10 s), not the guest's Retry-After (an hour)
    }
    procs.clear();
  }), 60_000);
});
