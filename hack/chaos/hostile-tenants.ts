// Chaos: hostile tenants for a long while — the long version of test/integration/hosted-tenants.test.ts. A real
// management plane and two real good guests (one per shard) beside hostile guests of every kind
// (test/support/hostile-guests.ts: throttling forever, 2 MiB errors, newline-free streams, 3,000 history
// entries, a ClusterVersion cycling ten times a second, watches of foreign 2.5 MiB objects, watches ended
// early to refill a bound, a 1 MiB name for the log; one of each per shard), two `featuregates hosted`
// replicas. Every round a good guest upgrades (a new version in its history): the time until its status has
// the entry, and each replica's RSS. Over the run, memory must not grow with time (the hostile guests go on),
// and at the end SIGTERM of both replicas, while the hostile guests throttle, must end them within the request
// deadline.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FEATURE_GATE_NAME, shardOf } from '../../api-types/index.js';
import { FeatureGateResource, ResourceClient, readKubeconfigFile, type ClusterAccess } from '../../runtime/index.js';
import { ensureNamespace, hypershiftCRDPaths, publishHostedControlPlane, setClusterVersion, setHostedReleaseVersion, startControlPlane, upstreamCRDPaths } from '../../sdk/testing/index.js';
import { hostedReplicas } from '../../test/support/hosted-replicas.js';
import { HOSTILE_KINDS, startHostileGuest } from '../../test/support/hostile-guests.js';
import { PAYLOAD_ROOT } from '../../test/support/payloads.js';
import { Figures, percentile, sleep, until, type ScenarioResult } from './lib.js';

export interface HostileTenantsOptions {
  /** Upgrades of the good guests (one every `everyMs`, alternating). */
  rounds: number;
  everyMs: number;
}

const NS = 'fgc-chaos-tenants';
const SHARDS = 2;

/** Resident set size of a process in MB (Linux /proc). */
function rssMB(pid: number): number {
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb ?? 0) / 1024;
}

/** The head version of a guest's FeatureGate status (undefined while unreadable). */
async function headVersion(kc: ClusterAccess): Promise<string | undefined> {
  const fg = await new ResourceClient(kc, FeatureGateResource, undefined, { timeoutMs: 2000 })
    .get(FEATURE_GATE_NAME)
    .catch(() => undefined);
  return fg?.status?.featureGates[0]?.version;
}

function namespaceOn(shard: number, prefix: string): string {
  for (let i = 0; ; i++) if (shardOf(`${prefix}-${i}/${prefix}`, SHARDS) === shard) return `${prefix}-${i}`;
}

export async function hostileTenants(o: HostileTenantsOptions): Promise<ScenarioResult> {
  const f = new Figures();
  const mgmt = await startControlPlane({ crdPaths: hypershiftCRDPaths() });
  const planes = await Promise.all(['/chaos-good-0', '/chaos-good-1'].map((etcdPrefix) =>
    startControlPlane({ etcdURL: mgmt.etcdURL, etcdPrefix, crdPaths: upstreamCRDPaths() })));
  const servers = await Promise.all(HOSTILE_KINDS.map((kind) => startHostileGuest(kind)));
  const replicas = hostedReplicas({ kubeconfig: () => mgmt.kubeconfigPath, catalog: join(PAYLOAD_ROOT, 'releases'), namespace: NS, shards: SHARDS });
  try {
    const mkc = readKubeconfigFile(mgmt.kubeconfigPath)!;
    await ensureNamespace(mkc, NS);
    const good = await Promise.all(planes.map(async (plane, shard) => {
      const kc = readKubeconfigFile(plane.kubeconfigPath)!;
      const ns = namespaceOn(shard, `good${shard}`);
      await setClusterVersion(kc, { history: ['4.22.3'] });
      await publishHostedControlPlane(mkc, { namespace: ns, name: ns, kubeconfig: readFileSync(plane.kubeconfigPath, 'utf8'), releaseVersion: '4.22.3' });
      return { kc, ns, history: ['4.22.3'] };
    }));
    for (const [k, kind] of HOSTILE_KINDS.entries()) {
      for (const shard of [0, 1]) {
        const ns = namespaceOn(shard, kind);
        await publishHostedControlPlane(mkc, { namespace: ns, name: ns, kubeconfig: servers[k]!.kubeconfig(), releaseVersion: '4.22.3' });
      }
    }
    replicas.start('replica-1');
    replicas.start('replica-2');
    for (const g of good) await until('good guest status written', async () => (await headVersion(g.kc)) === '4.22.3', 90_000, 100);

    const latencies: number[] = [];
    const rss: number[][] = [];
    for (let round = 0; round < o.rounds; round++) {
      const g = good[round % good.length]!;
      const version = `4.22.${4 + Math.floor(round / good.length)}`;
      g.history.unshift(version);
      g.history.splice(10); // a CVO-sized history
      await setHostedReleaseVersion(mkc, g.ns, g.ns, version);
      const t0 = performance.now();
      await setClusterVersion(g.kc, { history: g.history });
      await until(`good guest ${g.ns} status has ${version}`, async () => (await headVersion(g.kc)) === version, 60_000, 20);
      latencies.push(performance.now() - t0);
      rss.push([...replicas.procs.values()].map((p) => rssMB(p.pid!)));
      if (round % 10 === 0 || round === o.rounds - 1) {
        process.stderr.write(`[chaos] hostile tenants ${round + 1}/${o.rounds}: change → status ${latencies.at(-1)!.toFixed(0)} ms; RSS ${rss.at(-1)!.map((m) => m.toFixed(0)).join(' / ')} MB\n`);
      }
      await sleep(Math.max(0, o.everyMs - (performance.now() - t0)));
    }
    // SIGTERM of both replicas while their hostile guests throttle and stream.
    const t0 = Date.now();
    const exits = await Promise.all([...replicas.procs.values()].map((p) => Promise.race([
      new Promise<number | null>((r) => { p.once('exit', (code) => r(code)); p.kill('SIGTERM'); }),
      sleep(40_000).then(() => 'still running' as const),
    ])));
    const exitMs = Date.now() - t0;
    replicas.procs.clear();

    const third = Math.max(1, Math.floor(rss.length / 3));
    const median = (xs: number[]) => percentile(xs, 50);
    const early = [0, 1].map((k) => median(rss.slice(0, third).map((r) => r[k] ?? 0)));
    const late = [0, 1].map((k) => median(rss.slice(-third).map((r) => r[k] ?? 0)));
    f.add('good guest change → status, p50 / max', `${median(latencies).toFixed(0)} / ${Math.max(...latencies).toFixed(0)} ms over ${latencies.length} changes`,
      `max ≤ 5 s (beside ${2 * HOSTILE_KINDS.length} hostile guests)`, Math.max(...latencies) <= 5_000);
    f.add('replica RSS, median of the first third → last third of the run', early.map((e, k) => `${e.toFixed(0)} → ${late[k]!.toFixed(0)} MB`).join(', '),
      'no growth over 25% while the hostile guests go on', late.every((l, k) => l <= early[k]! * 1.25));
    f.add(`hostile guests' requests received (${HOSTILE_KINDS.join(', ')})`, servers.map((s) => s.requests.length).join(', '), 'reported', true);
    f.add('SIGTERM of both replicas while hostile guests throttle → exit', exits.map((e) => (e === 'still running' ? 'still running after 40 s' : `exit ${e}`)).join(', ') + ` in ${(exitMs / 1000).toFixed(2)} s`,
      'exit 0 within 15 s', exits.every((e) => e === 0) && exitMs <= 15_000);
    return { name: 'hosted replicas beside hostile tenants (throttle, huge errors, newline-free streams, long history, cycling versions, foreign objects, short watches, a log bomb, writes never answered)', figures: f.list };
  } finally {
    replicas.killAll();
    await Promise.all(servers.map((s) => s.close()));
    await Promise.all(planes.map((p) => p.stop()));
    await mgmt.stop();
  }
}
