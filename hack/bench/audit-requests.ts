// API requests a client sent, counted by the API server itself: an audit policy that records every request
// once, when it is received, and a reader that counts a user agent's requests in a time window by verb and
// resource. Watches are counted when they start (kube-apiserver's request counter counts them when they end,
// which misreads a window shorter than a 5–10 minute watch).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function auditEveryRequest(): { apiServerArgs: string[]; logPath: string } {
  const dir = mkdtempSync(join(tmpdir(), 'fgc-bench-audit-'));
  const policy = join(dir, 'policy.yaml');
  writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [ResponseStarted, ResponseComplete, Panic]\nrules:\n- level: Metadata\n');
  const logPath = join(dir, 'audit.log');
  return { logPath, apiServerArgs: [`--audit-policy-file=${policy}`, `--audit-log-path=${logPath}`, '--audit-log-format=json'] };
}

/** Requests received in [from, to) (epoch ms) from a user agent matching `userAgent`, by "verb resource[/subresource]". */
export function requestsFrom(logPath: string, userAgent: RegExp, from: number, to: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of readFileSync(logPath, 'utf8').split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line) as { userAgent?: string; verb?: string; objectRef?: { resource?: string; subresource?: string }; requestURI?: string; requestReceivedTimestamp?: string };
    const at = Date.parse(e.requestReceivedTimestamp ?? '');
    if (at < from || at >= to || !userAgent.test(e.userAgent ?? '')) continue;
    const what = `${e.verb} ${e.objectRef?.resource ?? e.requestURI}${e.objectRef?.subresource ? `/${e.objectRef.subresource}` : ''}`;
    out.set(what, (out.get(what) ?? 0) + 1);
  }
  return out;
}

/** "N.NN per minute (verb resource n, …)" for a count over `minutes`. */
export function perMinute(counts: Map<string, number>, minutes: number): string {
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  return `${(total / minutes).toFixed(2)} per minute (${[...counts].map(([w, n]) => `${w} ${n}`).join(', ') || 'none'})`;
}
