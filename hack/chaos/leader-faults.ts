// Chaos: two replicas (each its own ServiceAccount) under status churn; the leader is killed with
// SIGKILL, and paused with SIGSTOP for longer than the lease. Measured: take-over time after kill -9;
// after SIGSTOP/SIGCONT, successful writes by any process that was not the Lease holder (from the
// audit log: must be zero), what the paused process does on waking (steps down without writing, exits
// non-zero), and that the new leader keeps running.
import { rmSync } from 'node:fs';
import { auditSetup, readAuditWrites, replicaKubeconfig, writesByNonHolders } from './audit.js';
import {
  Figures, converged, injectStaleEntry, onChaosCluster, operatorFailedLines, percentile, readLease, secs, sleep, until,
  type OperatorProcess, type ScenarioResult,
} from './lib.js';

export interface LeaderFaultsOptions {
  kills: number;
  stops: number;
  pauseMs?: number;
}

export async function leaderFaults(o: LeaderFaultsOptions): Promise<ScenarioResult> {
  const f = new Figures();
  const audit = auditSetup();
  try {
    return await onChaosCluster({ extraAPIServerArgs: audit.apiServerArgs }, async ({ plane, kc, operator, operators }) => {
      const userOf = new Map<number, string>();
      let churning = true;
      let n = 0;
      const replica = async () => {
        const r = await replicaKubeconfig(plane, `replica-${++n}`);
        const p = operator(r.path);
        userOf.set(p.pid, r.user);
        return p;
      };
      const holder = async () => (await readLease(kc))?.spec?.holderIdentity ?? '';
      const leader = async () => {
        let found: OperatorProcess | undefined;
        await until('a leader', async () => {
          const h = await holder();
          found = operators.find((p) => !p.exited() && h.includes(`_${p.pid}_`));
          return found !== undefined;
        }, 60_000, 100);
        return found!;
      };
      try {
        await replica();
        await replica();
        await until('first status', () => converged(kc), 60_000);
        let step = 0;
        const churn = (async () => {
          while (churning) {
            await injectStaleEntry(kc, `4.20.${++step}`);
            await sleep(300);
          }
        })();

        const takeovers: number[] = [];
        for (let i = 0; i < o.kills; i++) {
          const l = await leader();
          await sleep(1000 + Math.random() * 2000); // anywhere in the renew cycle
          const follower = operators.find((p) => p !== l && !p.exited())!;
          l.proc.kill('SIGKILL');
          const t0 = performance.now();
          await until('take-over after kill -9', async () => (await holder()).includes(`_${follower.pid}_`), 40_000, 50);
          takeovers.push(performance.now() - t0);
          process.stderr.write(`[chaos] kill -9 ${i + 1}/${o.kills}: take-over in ${secs(takeovers.at(-1)!)}\n`);
          await replica();
        }
        if (o.kills) {
          f.add(`take-over after kill -9 (max / median of ${o.kills})`, `${secs(Math.max(...takeovers))} / ${secs(percentile(takeovers, 50))}`, '≤ 17 s', Math.max(...takeovers) <= 17_000);
        }

        const paused: { p: OperatorProcess; resumedAt: number; exit: { code: number | null }; lost: boolean }[] = [];
        let newLeaderRuns = true;
        for (let i = 0; i < o.stops; i++) {
          const l = await leader();
          await sleep(1000 + Math.random() * 2000);
          l.proc.kill('SIGSTOP');
          await sleep(o.pauseMs ?? 25_000);
          const successor = await leader();
          const resumedAt = Date.now();
          l.proc.kill('SIGCONT');
          const exit = await Promise.race([l.exit, sleep(20_000).then(() => ({ code: null, signal: null }))]);
          paused.push({ p: l, resumedAt, exit, lost: l.log().includes('leader election lost') });
          await sleep(3000);
          newLeaderRuns &&= !successor.exited() && (await holder()).includes(`_${successor.pid}_`);
          process.stderr.write(`[chaos] SIGSTOP ${i + 1}/${o.stops}: paused process exited with ${exit.code}; successor ${successor.pid} still leading: ${newLeaderRuns}\n`);
          await replica();
        }
        churning = false;
        await churn;
        await until('status correct at the end', () => converged(kc), 30_000);
        await sleep(1500); // let the audit log flush
        const writes = readAuditWrites(audit.logPath);
        const users = [...userOf.values()];
        const bad = writesByNonHolders(writes, users);
        // Any write attempt, whatever its answer: a fenced process must not even send one.
        const afterWake = paused.flatMap(({ p, resumedAt }) =>
          writes.filter((w) => w.user === userOf.get(p.pid) && w.received >= resumedAt - 50),
        );
        const totalWrites = writes.filter((w) => users.includes(w.user) && w.code < 300 && w.resource !== 'leases').length;
        if (o.stops) {
          f.add('successful writes by a non-holder (audit log)', `${bad.length} of ${totalWrites}`, '0', bad.length === 0);
          f.add('write requests sent by a paused process after SIGCONT (any answer, incl. Lease)', afterWake.length, '0', afterWake.length === 0);
          const steppedDown = paused.filter((x) => x.lost && x.exit.code !== null && x.exit.code !== 0).length;
          f.add('paused processes that stepped down and exited non-zero', `${steppedDown}/${o.stops}`, `${o.stops}/${o.stops}`, steppedDown === o.stops);
          f.add('new leader kept running and leading', newLeaderRuns ? 'yes' : 'no', 'yes', newLeaderRuns);
        }
        const failed = operatorFailedLines(operators);
        f.add('"operator failed" log lines', failed, '0', failed === 0);
        return { name: 'leader kill -9 and SIGSTOP (two replicas)', figures: f.list };
      } finally {
        churning = false;
      }
    });
  } finally {
    rmSync(audit.dir, { recursive: true, force: true });
  }
}
