// Hosted mode checks the gates each guest kube-apiserver runs against that guest's FeatureGate status, through the
// guest connection: two real guest kube-apiservers v1.36, one started with a gate its status says is off
// (SELinuxMount=true), one as it comes. The drifted guest shows the extra gate in `hosted status` (a RUNNING GATES
// column), in its per-HCP metric and in a Warning Event on its HostedControlPlane; the other does not. (A vanilla
// kube-apiserver already differs from OpenShift's Default set on a few gates; the test compares the two guests
// instead of naming those.) Declared as a deliberate override (--running-gates-override, as HyperShift's own
// OpenShiftPodSecurityAdmission=false is by default), the drifted gate reads as overridden: the two guests agree.
// A third guest's /metrics is its tenant's (a proxy in front of its real kube-apiserver answers it): 200,000
// forged gate lines, then a line that never ends. Its check ends at the line bound as `unreadable`, naming it; the
// replica and the other guests' checks go on.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { exposedSamples } from '../../api-types/index.js';
import { KubeTransport, readKubeconfigFile, type ClusterAccess } from '../../runtime/index.js';
import {
  ensureNamespace, hypershiftCRDPaths, publishHostedControlPlane, setClusterVersion, startControlPlane, upstreamCRDPaths, type ControlPlane,
} from '../../sdk/testing/index.js';
import { runCLI } from '../support/cli.js';
import { startThrottleProxy, type ThrottleProxy } from '../support/throttle-proxy.js';
import { eventually } from '../support/timing.js';
import { hostedReplicas } from '../support/hosted-replicas.js';
import { PAYLOAD_ROOT } from '../support/payloads.js';

const NS = 'fgc-running-gates';

describe('hosted: the running gates of each guest kube-apiserver', () => {
  let mgmt: ControlPlane;
  const guests: ControlPlane[] = [];
  let mkc: ClusterAccess;
  let proxy: ThrottleProxy | undefined;
  const replicas = hostedReplicas({ kubeconfig: () => mgmt.kubeconfigPath, catalog: join(PAYLOAD_ROOT, 'releases'), namespace: NS, shards: 2, metrics: true });

  beforeAll(async () => {
    mgmt = await startControlPlane({ crdPaths: hypershiftCRDPaths() });
    mkc = readKubeconfigFile(mgmt.kubeconfigPath)!;
    guests.push(...await Promise.all([
      startControlPlane({ etcdURL: mgmt.etcdURL, etcdPrefix: '/guest-plain', crdPaths: upstreamCRDPaths() }),
      startControlPlane({ etcdURL: mgmt.etcdURL, etcdPrefix: '/guest-drift', crdPaths: upstreamCRDPaths(), extraAPIServerArgs: ['--feature-gates=SELinuxMount=true'] }),
    ]));
    await ensureNamespace(mkc, NS);
    for (const [name, plane] of [['plain', guests[0]!], ['drift', guests[1]!]] as const) {
      await setClusterVersion(readKubeconfigFile(plane.kubeconfigPath)!, { history: ['4.22.3'] });
      await publishHostedControlPlane(mkc, { namespace: `clusters-${name}`, name, kubeconfig: readFileSync(plane.kubeconfigPath, 'utf8'), releaseVersion: '4.22.3' });
    }
    const hostile = await startControlPlane({ etcdURL: mgmt.etcdURL, etcdPrefix: '/guest-hostile-metrics', crdPaths: upstreamCRDPaths() });
    guests.push(hostile);
    await setClusterVersion(readKubeconfigFile(hostile.kubeconfigPath)!, { history: ['4.22.3'] });
    proxy = await startThrottleProxy(hostile.server, { answer: (method, path, res) => {
      if (method !== 'GET' || path !== '/metrics') return false;
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      for (let i = 0; i < 200_000; i += 1_000) {
        res.write(Array.from({ length: 1_000 }, (_, k) => `kubernetes_feature_enabled{name="Forged${i + k}",stage="ALPHA"} 1\n`).join(''));
      }
      const chunk = Buffer.alloc(64 * 1024, 0x78); // then a line without end
      const pump = () => { while (!res.destroyed && res.write(chunk)); if (!res.destroyed) res.once('drain', pump); };
      pump();
      return true;
    } });
    await publishHostedControlPlane(mkc, { namespace: 'clusters-hostile', name: 'hostile', kubeconfig: proxy.kubeconfig(hostile.adminToken), releaseVersion: '4.22.3' });
    replicas.start('r1');
  }, 120_000);

  afterAll(async () => {
    replicas.killAll();
    await proxy?.close();
    await Promise.all(guests.map((g) => g.stop()));
    await mgmt?.stop();
  });

  it('the drifted guest shows its extra gate in hosted status, its metric and an Event on its HCP; the other does not', async () => {
    await replicas.dumpOnFailure(async () => {
      const mismatched = (v: string | undefined) => {
        const m = /^mismatch \((\d+)\): (.*)$/.exec(v ?? '');
        if (!m) return v === 'match' ? [] : undefined;
        const names = m[2]!.split(', ');
        expect(names).toHaveLength(Number(m[1])); // the count says how many are named (none cut here)
        return names;
      };
      const { plain, drift } = await eventually(async () => {
        const records = await replicas.records();
        const p = mismatched(records.get('clusters-plain/plain')?.runningGates);
        const d = mismatched(records.get('clusters-drift/drift')?.runningGates);
        expect(p).toBeDefined();
        expect(d).toBeDefined();
        return { plain: p!, drift: d! };
      }, 60_000, 250);
      expect(plain).not.toContain('SELinuxMount');
      expect(drift.sort()).toEqual([...plain, 'SELinuxMount'].sort());

      const samples = exposedSamples(await (await fetch(await replicas.metricsURL('r1'))).text())
        .filter((s) => s.name === 'featuregates_hosted_guest_running_gate_mismatches');
      expect(samples.map((s) => [s.labels.namespace, s.labels.name, s.value]).sort()).toEqual([
        ['clusters-drift', 'drift', drift.length], ['clusters-plain', 'plain', plain.length],
      ]);
      // The replica's z-pages beside its /metrics: its flags as it was started.
      const flagz = await (await fetch((await replicas.metricsURL('r1')).replace(/\/metrics$/, '/flagz'),
        { headers: { accept: 'application/json;as=Flagz;v=v1beta1;g=config.k8s.io' } })).json() as { metadata: { name: string }; flags: Record<string, string> };
      expect(flagz).toMatchObject({ metadata: { name: 'featuregates-hosted' }, flags: { identity: 'r1', shards: '2', 'allow-insecure-guest-tls': 'false' } });

      const events = await KubeTransport.for(mkc).request({ method: 'GET', path: '/api/v1/namespaces/clusters-drift/events' }) as
        { items: { type: string; reason: string; message: string; involvedObject: { kind: string } }[] };
      const warning = events.items.find((e) => e.reason === 'RunningGatesMismatch');
      expect(warning).toMatchObject({ type: 'Warning', involvedObject: { kind: 'HostedControlPlane' } });
      expect(warning!.message).toContain('SELinuxMount (desired off, running on)');

      const table = runCLI(['hosted', 'status', '--kubeconfig', mgmt.kubeconfigPath, '--namespace', NS]);
      expect(table.stdout).toMatch(new RegExp(`^clusters-drift/drift .* mismatch \\(${drift.length}\\) `, 'm'));
    });
  }, 120_000);

  it('a guest whose /metrics forges 200,000 gates and then never ends a line is unreadable at the line bound; the others are judged', async () => {
    await replicas.dumpOnFailure(async () => {
      const records = await eventually(async () => {
        const r = await replicas.records();
        expect(r.get('clusters-hostile/hostile')?.runningGates).toMatch(/^unreadable: /);
        expect(r.get('clusters-plain/plain')?.runningGates).toMatch(/^(match|mismatch)/);
        return r;
      }, 60_000, 250);
      const verdict = records.get('clusters-hostile/hostile')!.runningGates!;
      expect(verdict).toContain('GET /metrics');
      expect(verdict).toContain('response line');
      expect(verdict).not.toContain('Forged');
      expect(proxy!.requests.filter((q) => q.path === '/metrics').length).toBeGreaterThan(0);
      expect(replicas.procs.get('r1')?.exitCode).toBeNull();
      const samples = exposedSamples(await (await fetch(await replicas.metricsURL('r1'))).text())
        .filter((x) => x.name === 'featuregates_hosted_guest_running_gate_mismatches');
      expect(samples.map((x) => x.labels.name)).not.toContain('hostile'); // no series while it cannot be read
    });
  }, 120_000);

  it('a gate declared as a deliberate override (--running-gates-override) is no mismatch: the drifted guest reads as the plain one', async () => {
    await replicas.dumpOnFailure(async () => {
      replicas.killAll();
      replicas.start('r2', ['--running-gates-override', 'OpenShiftPodSecurityAdmission=false,SELinuxMount=true']);
      await eventually(async () => {
        const records = await replicas.records();
        const r = (key: string) => records.get(key);
        expect(r('clusters-drift/drift')?.owner).toBe('r2');
        expect(r('clusters-plain/plain')?.owner).toBe('r2');
        expect(r('clusters-drift/drift')?.runningGates).toBeDefined();
        expect(r('clusters-drift/drift')?.runningGates).toBe(r('clusters-plain/plain')?.runningGates);
        expect(r('clusters-drift/drift')?.runningGates ?? '').not.toContain('SELinuxMount');
      }, 90_000, 500);
    });
    const bad = runCLI(['hosted', '--kubeconfig', mgmt.kubeconfigPath, '--payload-catalog', join(PAYLOAD_ROOT, 'releases'), '--running-gates-override', 'SELinuxMount']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--running-gates-override: expected GATE=true|false, got "SELinuxMount"');
  }, 150_000);
});
