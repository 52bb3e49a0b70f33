// Chaos: the hosted counterpart of throttled-leader. A real management plane and a real guest kube-apiserver
// (sharing its etcd); the guest is reached through a throttling proxy. Two `featuregates hosted` replicas, one
// shard. The shard's owner writes the guest's FeatureGate status after a history change; the proxy answers
// that PUT with 429 + Retry-After; the owner is paused (SIGSTOP) past its shard Lease, the other replica takes
// the shard, the throttle is lifted and the old owner resumed (SIGCONT). Counted from the proxy's log by the
// replica's User-Agent (`… replica/<identity>`): guest writes the old owner sends after it wakes while it does not
// hold the shard again (before the acquireTime of a new tenure of its own) — must be zero; that the guest's status
// is right; and that the old owner, paused past its membership Lease too, rejoins instead of exiting (it may then win
// the shard back by the hashing, and write as its holder). Then the owner is sent SIGTERM while
// its guest answers the status PUT with `Retry-After: 3600`: its shard hand-back (sessions stop, then the Lease
// is released) must not wait for the guest — the previous build was still running 40 s later.
import { join } from 'node:path';
import { FEATURE_GATE_NAME } from '../../api-types/index.js';
import { FeatureGateResource, LeaseResource, ResourceClient, readKubeconfigFile } from '../../runtime/index.js';
import {
  ensureNamespace,
  hypershiftCRDPaths,
  publishHostedControlPlane,
  setClusterVersion,
  setHostedReleaseVersion,
  startControlPlane,
  upstreamCRDPaths,
} from '../../sdk/testing/index.js';
import { shardName } from '../../api-types/index.js';
import { hostedReplicas } from '../../test/support/hosted-replicas.js';
import { PAYLOAD_ROOT } from '../../test/support/payloads.js';
import { startThrottleProxy } from '../../test/support/throttle-proxy.js';
import { FEATURE_GATE_STATUS_PUT, Figures, sleep, until, type ScenarioResult } from './lib.js';

export interface ThrottledShardOptions {
  rounds: number;
  /** How long the owner stays paused (past the 4 s shard Lease used here). */
  pauseMs: number;
  retryAfterSeconds: number;
}

const NS = 'fgc-chaos-hosted';

export async function throttledShard(o: ThrottledShardOptions): Promise<ScenarioResult> {
  const f = new Figures();
  const mgmt = await startControlPlane({ crdPaths: hypershiftCRDPaths() });
  const guest = await startControlPlane({ etcdURL: mgmt.etcdURL, etcdPrefix: '/chaos-guest', crdPaths: upstreamCRDPaths() });
  const proxy = await startThrottleProxy(guest.server);
  const replicas = hostedReplicas({ kubeconfig: () => mgmt.kubeconfigPath, catalog: join(PAYLOAD_ROOT, 'releases'), namespace: NS, shards: 1 });
  try {
    const mkc = readKubeconfigFile(mgmt.kubeconfigPath)!;
    const gkc = readKubeconfigFile(guest.kubeconfigPath)!;
    await ensureNamespace(mkc, NS);
    await setClusterVersion(gkc, { history: ['4.22.3'] });
    await publishHostedControlPlane(mkc, { namespace: 'clusters-t', name: 't', kubeconfig: proxy.kubeconfig(guest.adminToken), releaseVersion: '4.22.3' });
    const versions = async () =>
      (
        await new ResourceClient(gkc, FeatureGateResource, undefined, { timeoutMs: 2000 }).get(FEATURE_GATE_NAME).catch(() => undefined)
      )?.status?.featureGates.map((e) => e.version) ?? [];
    const shardLease = async () =>
      (await new ResourceClient(mkc, LeaseResource, undefined, { namespace: NS, timeoutMs: 2000 }).get(shardName(0)).catch(() => undefined))
        ?.spec;
    const holder = async () => (await shardLease())?.holderIdentity ?? '';
    let sentWrites = 0;
    let sentAny = 0;
    let throttled = 0;
    let rejoined = 0;
    let next = 1;
    const history = ['4.22.3'];
    for (let round = 1; round <= o.rounds; round++) {
      for (const id of [`replica-${next++}`, `replica-${next++}`]) if (replicas.procs.size < 2) replicas.start(id);
      await until('guest status written', async () => JSON.stringify(await versions()) === JSON.stringify(history), 60_000, 100);
      // (The last round's owner, killed, may still be named until its Lease expires.)
      await until('a running shard owner', async () => replicas.procs.has(await holder()), 30_000, 100);
      const owner = await holder();
      const other = [...replicas.procs.keys()].find((id) => id !== owner)!;
      const ownerProc = replicas.procs.get(owner)!;

      proxy.throttle(o.retryAfterSeconds, FEATURE_GATE_STATUS_PUT);
      const from = proxy.requests.length;
      const version = `4.22.${3 + round}`;
      history.unshift(version);
      await setHostedReleaseVersion(mkc, 'clusters-t', 't', version);
      await setClusterVersion(gkc, { history: [{ version, state: 'Partial' }, ...history.slice(1)] });
      await until('the owner\'s guest status PUT throttled', async () => proxy.requests.slice(from).some((r) => r.throttled && r.userAgent.includes(`replica/${owner}`)), 30_000, 20);
      throttled++;
      ownerProc.kill('SIGSTOP');
      await sleep(o.pauseMs);
      await until('the other replica holds the shard', async () => (await holder()) === other, 30_000, 100);
      proxy.heal();
      const woke = proxy.requests.length;
      const resumedAt = Date.now();
      ownerProc.kill('SIGCONT');
      await until('guest status right', async () => (await versions())[0] === version, 30_000, 100);
      await sleep(3000); // room for a resend, were there one
      // A write of the old owner counts against it unless the shard Lease names it again and its new tenure
      // (acquireTime, stamped before the write that opened its fence) began before the write reached the proxy.
      const lease = await shardLease();
      const tenureFrom = lease?.holderIdentity === owner && lease.acquireTime ? Date.parse(lease.acquireTime) : Infinity;
      const after = proxy.requests.slice(woke).filter((r) => r.at >= resumedAt && r.userAgent.includes(`replica/${owner}`));
      const unfenced = after.filter((r) => r.method !== 'GET' && r.at < tenureFrom);
      sentAny += after.length;
      sentWrites += unfenced.length;
      if (ownerProc.exitCode === null && ownerProc.signalCode === null) rejoined++;
      process.stderr.write(`[chaos] throttled shard owner ${round}/${o.rounds}: ${after.length} guest requests by ${owner} after SIGCONT ` +
        `(${after.map((r) => `${r.method} ${r.path}`).join(', ') || 'none'}), ${unfenced.length} writes while not holding the shard; ` +
        `${tenureFrom === Infinity ? 'the shard stayed with the other replica' : 'it won the shard back'}\n`);
      // The old owner (rejoined) leaves; the next round starts a fresh pair.
      ownerProc.kill('SIGKILL');
      replicas.procs.delete(owner);
    }
    // SIGTERM of the owner while its guest throttles for an hour: the hand-back of its shard (its sessions stop,
    // then the Lease is released) must not wait for the guest.
    // (The old owner, killed above, may have held it again: its Lease expires first.)
    await until('a running shard owner', async () => replicas.procs.has(await holder()), 30_000, 100);
    if (replicas.procs.size < 2) replicas.start(`replica-${next++}`);
    const owner = await holder();
    const ownerProc = replicas.procs.get(owner)!;
    proxy.throttle(3600, FEATURE_GATE_STATUS_PUT);
    const from = proxy.requests.length;
    const version = `4.22.${4 + o.rounds}`;
    history.unshift(version);
    await setHostedReleaseVersion(mkc, 'clusters-t', 't', version);
    await setClusterVersion(gkc, { history: [{ version, state: 'Partial' }, ...history.slice(1)] });
    await until('the owner\'s guest status PUT throttled for an hour', async () => proxy.requests.slice(from).some((r) => r.throttled && r.userAgent.includes(`replica/${owner}`)), 30_000, 20);
    const t0 = Date.now();
    ownerProc.kill('SIGTERM');
    const exit = await Promise.race([new Promise<number | null>((r) => ownerProc.once('exit', (code) => r(code))), sleep(40_000).then(() => 'still running' as const)]);
    const exitMs = Date.now() - t0;
    proxy.heal();
    replicas.procs.delete(owner);
    process.stderr.write(`[chaos] SIGTERM of the owner while its guest throttles: ${exit === 'still running' ? 'still running after 40 s' : `exit ${exit} after ${exitMs} ms`}\n`);
    await until('guest status right under the new owner', async () => (await versions())[0] === version, 60_000, 100);

    f.add('guest status PUTs of the owner throttled before its pause', throttled, `${o.rounds}`, throttled === o.rounds);
    f.add('SIGTERM of the owner while its guest answers 429 Retry-After: 3600 → exit', exit === 'still running' ? 'still running after 40 s' : `exit ${exit} after ${(exitMs / 1000).toFixed(2)} s`,
      'exit 0 within 15 s (the 10 s request deadline + release)', exit === 0 && exitMs <= 15_000);
    f.add('guest write requests by the old owner after SIGCONT while not holding the shard (proxy log, by User-Agent)', sentWrites, '0', sentWrites === 0);
    f.add('guest requests of any kind by it after SIGCONT', sentAny, 'reported', true);
    f.add('the old owner, paused past its membership Lease, still running (rejoined)', `${rejoined}/${o.rounds}`, `${o.rounds}/${o.rounds}`, rejoined === o.rounds);
    return { name: 'hosted shard owner throttled (429 Retry-After) by its guest and paused past its shard Lease', figures: f.list };
  } finally {
    replicas.killAll();
    await proxy.close();
    await guest.stop();
    await mgmt.stop();
  }
}
