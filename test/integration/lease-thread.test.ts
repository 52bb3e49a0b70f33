// Lease renewals that a busy event loop cannot delay (runtime/leaderelection/lease-thread.ts), against the real API
// server: the caller's thread blocked for twice the renew deadline keeps a Lease held on the lease thread (renewed
// meanwhile), where an elector on the caller's own thread loses it; the fence stays honest while the caller is
// blocked (another holder takes the Lease and isLeader() turns false without the caller reading a message); a
// lease thread that dies loses its Leases at once; and the Leases of one access share one connection on the thread.
import { afterAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { LeaderElector, LeaseResource, LeaseThread, ResourceClient, readKubeconfigFile, type Lease, type LeadershipLoss } from '../../runtime/index.js';
import { packageRoot } from '../../runtime/util/version.js';
import { kubeconfigPath } from '../support/cluster.js';
import { eventually } from '../support/timing.js';
import { uniqueName } from '../support/objects.js';
import { tcpConnectionsTo } from '../support/processes.js';

const TIMING = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500 };
const kc = readKubeconfigFile(kubeconfigPath('ours'))!;
const leases = new ResourceClient<Lease>(kc, LeaseResource, undefined, { namespace: 'default' });

/** Keeps this thread busy for `ms` (no event-loop turn), calling `probe` all the while. */
function busy(ms: number, probe: () => void = () => undefined): void {
  const end = performance.now() + ms;
  while (performance.now() < end) probe();
}

describe('the lease thread', () => {
  const thread = new LeaseThread();
  const releases: (() => Promise<void>)[] = [];
  afterAll(async () => {
    await Promise.all(releases.map((r) => r()));
  });

  const elector = (name: string, onThread: boolean, lost: [string, LeadershipLoss][]) => {
    const options = { namespace: 'default', name, identity: 'a', ...TIMING, onStoppedLeading: (r: string, c: LeadershipLoss) => lost.push([r, c]) };
    const e = onThread ? thread.elector(kc, options) : new LeaderElector(kc, options);
    releases.push(() => e.release());
    return e;
  };

  it('a caller blocked for twice the renew deadline keeps its Lease, renewed meanwhile; on its own thread it loses it', async () => {
    const lost: [string, LeadershipLoss][] = [];
    const name = uniqueName('thread-lock');
    const e = elector(name, true, lost);
    await e.acquire();
    expect(e.isLeader()).toBe(true);
    const before = await leases.get(name);
    let leaderThroughout = true;
    busy(2 * TIMING.renewDeadlineMs, () => (leaderThroughout &&= e.isLeader()));
    expect(leaderThroughout).toBe(true);
    expect(() => e.fence()).not.toThrow();
    const after = await leases.get(name);
    expect(after.spec?.holderIdentity).toBe('a');
    expect(after.spec?.renewTime).not.toBe(before.spec?.renewTime); // renewed while this thread could not turn
    await new Promise((r) => setTimeout(r, 100));
    expect(lost).toEqual([]);

    const inlineLost: [string, LeadershipLoss][] = [];
    const inline = elector(uniqueName('inline-lock'), false, inlineLost);
    await inline.acquire();
    busy(2 * TIMING.renewDeadlineMs);
    expect(inline.isLeader()).toBe(false); // its renewals waited behind the busy loop
    await eventually(() => expect(inlineLost.map(([, c]) => c)).toEqual(['expired']), 5_000);
  });

  it('the fence turns while the caller is blocked: another holder takes the Lease and isLeader() is false within a renewal', async () => {
    const lost: [string, LeadershipLoss][] = [];
    const name = uniqueName('thread-taken');
    const e = elector(name, true, lost);
    await e.acquire();
    // Another process takes the Lease 1 s from now, while this thread is busy.
    const runtime = join(packageRoot(), 'dist', 'runtime', 'index.js');
    const script = `const { LeaseResource, ResourceClient, readKubeconfigFile } = await import(${JSON.stringify(runtime)});
      const c = new ResourceClient(readKubeconfigFile(${JSON.stringify(kubeconfigPath('ours'))}), LeaseResource, undefined, { namespace: 'default' });
      await new Promise((r) => setTimeout(r, 1000));
      for (;;) { const l = await c.get(${JSON.stringify(name)});
        try { await c.replace({ ...l, spec: { ...l.spec, holderIdentity: 'intruder' } }); break; } catch (e) { if (e.statusCode !== 409 && e.code !== 409) throw e; } }
      process.stderr.write('taken', () => process.exit(0));`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const started = performance.now();
    let turnedAt: number | undefined;
    busy(6_000, () => {
      if (turnedAt === undefined && !e.isLeader()) turnedAt = performance.now() - started;
    });
    await new Promise<void>((r) => (child.exitCode !== null ? r() : child.on('exit', () => r())));
    expect(err).toContain('taken');
    // Taken ~1 s after the child started (plus its own start); seen at the next renewal (every 0.5 s), not after the loop.
    expect(turnedAt).toBeDefined();
    expect(turnedAt!).toBeLessThan(5_000);
    expect(() => e.fence()).toThrow(/not the leader/);
    await eventually(() => expect(lost.map(([, c]) => c)).toEqual(['taken']), 5_000);
    expect((await leases.get(name)).spec?.holderIdentity).toBe('intruder');
  });

  it('a lease thread that dies loses every Lease it held at once, and the next acquire starts a new one', async () => {
    const own = new LeaseThread();
    const lost: [string, LeadershipLoss][] = [];
    const options = { namespace: 'default', identity: 'a', ...TIMING, onStoppedLeading: (r: string, c: LeadershipLoss) => lost.push([r, c]) };
    const first = own.elector(kc, { ...options, name: uniqueName('thread-dies') });
    await first.acquire();
    expect(first.isLeader()).toBe(true);
    await own.terminate();
    expect(first.isLeader()).toBe(false);
    expect(lost).toEqual([[expect.stringContaining('the lease thread stopped'), 'renew-deadline']]);
    const second = own.elector(kc, { ...options, name: uniqueName('thread-again') });
    await second.acquire();
    expect(second.isLeader()).toBe(true);
    await second.release();
    expect(second.isLeader()).toBe(false);
    expect(own.size).toBe(0); // and with nothing left on it the thread has ended (jest would not exit otherwise)
  });

  it('the Leases of one cluster access share one connection on the thread, as they do on the caller\'s', async () => {
    // A hosted replica holds its membership and up to 32 shard Leases: one TLS handshake, context and HTTP/2
    // connection each was most of the thread's start cost.
    const own = new LeaseThread();
    const port = Number(new URL(kc.getCurrentCluster()!.server).port);
    const options = { namespace: 'default', identity: 'a', ...TIMING };
    const electors = [...Array(6).keys()].map((i) => own.elector(kc, { ...options, name: uniqueName(`thread-shared-${i}`) }));
    // The first Lease opens the thread's connection; the other five open none. Counted as a difference, since other
    // connections of this process (an earlier test's thread going idle) may close meanwhile but none opens.
    await electors[0]!.acquire();
    const withOne = tcpConnectionsTo(port);
    await Promise.all(electors.slice(1).map((e) => e.acquire()));
    expect(electors.every((e) => e.isLeader())).toBe(true);
    expect(tcpConnectionsTo(port) - withOne).toBeLessThanOrEqual(0); // +5 before the transports were shared
    await Promise.all(electors.map((e) => e.release()));
    expect(own.size).toBe(0);
  });
});
