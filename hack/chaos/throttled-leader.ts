// Chaos: the leader's write is throttled, and the leader pauses past its Lease in the middle of the wait.
// Two replicas with --leader-elect, each its own ServiceAccount; the leader talks to the real kube-apiserver
// through a throttling proxy that answers its FeatureGate status PUTs with 429 + Retry-After. A stale status
// entry makes the leader write; once its PUT is throttled the leader is paused (SIGSTOP) until the other
// replica has taken the Lease, the throttle is lifted (from then on anything it sends reaches the API server),
// and it is resumed (SIGCONT). Measured: requests the old leader sends after it wakes (the proxy's log: must be
// zero — no resend of the throttled PUT, no other write), writes by a non-holder in the audit log, that it
// stepped down and exited non-zero, and that the status ends right under the new leader.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startThrottleProxy } from '../../test/support/throttle-proxy.js';
import { auditSetup, readAuditWrites, replicaKubeconfig, writesByNonHolders } from './audit.js';
import { FEATURE_GATE_STATUS_PUT, Figures, converged, injectStaleEntry, onChaosCluster, readLease, sleep, until, type ScenarioResult } from './lib.js';

export interface ThrottledLeaderOptions {
  /** How long the leader stays paused (past the 15 s lease). */
  pauseMs: number;
  /** The Retry-After of the throttled PUTs, in seconds. */
  retryAfterSeconds: number;
  rounds: number;
}


/** Resolves once no write request has arrived for `quietMs` (or after `maxMs` at most). */
async function quietWrites(requests: readonly { at: number; method: string }[], quietMs: number, maxMs: number): Promise<void> {
  const until = Date.now() + maxMs;
  for (;;) {
    const lastWrite = requests.filter((r) => r.method !== 'GET').at(-1)?.at ?? 0;
    if (Date.now() - lastWrite >= quietMs || Date.now() >= until) return;
    await sleep(50);
  }
}

export async function throttledLeader(o: ThrottledLeaderOptions): Promise<ScenarioResult> {
  const f = new Figures();
  const audit = auditSetup();
  try {
    return await onChaosCluster({ extraAPIServerArgs: audit.apiServerArgs }, async ({ plane, kc, operator }) => {
      const proxy = await startThrottleProxy(plane.server);
      try {
        const holder = async () => (await readLease(kc))?.spec?.holderIdentity ?? '';
        const users: string[] = [];
        let sentAfterWake = 0;
        let sentWrites = 0;
        let steppedDown = 0;
        let throttledPuts = 0;
        for (let round = 1; round <= o.rounds; round++) {
          const a = await replicaKubeconfig(plane, `throttled-${round}`);
          const b = await replicaKubeconfig(plane, `direct-${round}`);
          users.push(a.user, b.user);
          const proxied = join(plane.dir, `kubeconfig-throttled-${round}`);
          writeFileSync(proxied, proxy.kubeconfig(a.token), { mode: 0o600 });
          const leader = operator(proxied);
          await until('the proxied replica leads', async () => (await holder()).includes(`_${leader.pid}_`), 60_000, 100);
          const follower = operator(b.path);
          await until('status converged', () => converged(kc), 60_000);

          proxy.throttle(o.retryAfterSeconds, FEATURE_GATE_STATUS_PUT);
          const from = proxy.requests.length;
          await until('stale entry written', () => injectStaleEntry(kc, `4.20.${round}`), 10_000);
          await until('the leader\'s status PUT throttled', async () => proxy.requests.slice(from).some((r) => r.throttled), 30_000, 20);
          throttledPuts += proxy.requests.slice(from).filter((r) => r.throttled).length;
          // Paused inside the throttled PUT's Retry-After wait, once no other write of the leader has started for
          // 400 ms: a process stopped between a write's fence and the moment its bytes are flushed (an HTTP/2 frame
          // goes out on the next turn of the event loop) sends them on waking — no client can prevent that, and it
          // is not what this scenario is about (the throttled PUT resent after its wait). A status write set off
          // by the same event as the throttle once landed in that window (CI, 2026-12-02).
          await quietWrites(proxy.requests, 400, 1_500);
          leader.proc.kill('SIGSTOP');
          await sleep(o.pauseMs);
          await until('the other replica leads', async () => (await holder()).includes(`_${follower.pid}_`), 60_000, 100);
          proxy.heal();
          const woke = proxy.requests.length;
          const resumedAt = Date.now();
          leader.proc.kill('SIGCONT');
          const exit = await Promise.race([leader.exit, sleep(30_000).then(() => ({ code: null, signal: null }))]);
          if (exit.code !== null && exit.code !== 0 && leader.log().includes('leader election lost')) steppedDown++;
          const after = proxy.requests.slice(woke).filter((r) => r.at >= resumedAt);
          sentAfterWake += after.length;
          sentWrites += after.filter((r) => r.method !== 'GET').length;
          process.stderr.write(`[chaos] throttled leader ${round}/${o.rounds}: ${after.length} requests after SIGCONT ` +
            `(${after.map((r) => `${r.method} ${r.path}`).join(', ') || 'none'}); exited ${exit.code}\n`);
          await until('status correct under the new leader', () => converged(kc), 30_000);
          follower.proc.kill('SIGTERM');
          await follower.exit;
        }
        await sleep(1500); // let the audit log flush
        const bad = writesByNonHolders(readAuditWrites(audit.logPath), users);
        f.add('status PUTs of the leader throttled before its pause', throttledPuts, '≥ 1 per round', throttledPuts >= o.rounds);
        f.add('write requests the old leader sent after SIGCONT (proxy log; any answer, incl. Lease)', sentWrites, '0', sentWrites === 0);
        f.add('requests of any kind it sent after SIGCONT', sentAfterWake, 'reported', true);
        f.add('successful writes by a non-holder (audit log)', bad.length, '0', bad.length === 0);
        f.add('old leaders that stepped down and exited non-zero', `${steppedDown}/${o.rounds}`, `${o.rounds}/${o.rounds}`, steppedDown === o.rounds);
        return { name: 'leader throttled (429 Retry-After) and paused past its Lease', figures: f.list };
      } finally {
        await proxy.close();
      }
    });
  } finally {
    rmSync(audit.dir, { recursive: true, force: true });
  }
}
