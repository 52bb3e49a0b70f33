// Requests as kube-apiserver's audit log records them — who sent what, when — for the tests, the benchmarks and
// the chaos suite: an audit policy (the API server flags that turn it on) and one reader of its entries. Two
// policies: writes (and optionally reads) of the objects this project touches, at their response (who wrote
// what, and when it completed); and every request once, when it is received (a client's request rate: watches
// are counted when they start, where kube-apiserver's own counter counts them when they end).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface AuditSetup {
  dir: string;
  logPath: string;
  apiServerArgs: string[];
}

/** Every audit folder this process made, removed when it exits (a full `npm test` and a fleet run left hundreds). */
const made: string[] = [];

function auditLog(prefix: string, policy: string[]): AuditSetup {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (made.push(dir) === 1) process.once('exit', () => { for (const d of made) rmSync(d, { recursive: true, force: true }); });
  const file = join(dir, 'policy.yaml');
  writeFileSync(file, ['apiVersion: audit.k8s.io/v1', 'kind: Policy', ...policy, ''].join('\n'));
  const logPath = join(dir, 'audit.log');
  return { dir, logPath, apiServerArgs: [`--audit-policy-file=${file}`, `--audit-log-path=${logPath}`, '--audit-log-format=json'] };
}

/**
 * Writes of leases, config.openshift.io objects and events (Metadata level, at their response); `reads` adds get/list/watch of
 * config.openshift.io.
 */
export function auditSetup(options: { reads?: boolean } = {}): AuditSetup {
  return auditLog('fgc-audit-', [
    'omitStages: [RequestReceived]', 'rules:',
    ...(options.reads ? ['- level: Metadata', '  verbs: [get, list, watch]', '  resources:', '  - group: config.openshift.io'] : []),
    '- level: Metadata', '  verbs: [create, update, patch, delete]', '  resources:',
    '  - group: coordination.k8s.io', '    resources: [leases]', '  - group: config.openshift.io', '  - group: ""', '    resources: [events]',
    '- level: None',
  ]);
}

/** Every request, once, when it is received. */
export function auditEveryRequest(): AuditSetup {
  return auditLog('fgc-bench-audit-', ['omitStages: [ResponseStarted, ResponseComplete, Panic]', 'rules:', '- level: Metadata']);
}

export interface AuditEntry {
  stage: string;
  user: string;
  userAgent: string;
  verb: string;
  resource: string;
  subresource: string;
  requestURI: string;
  code: number;
  received: number;
  completed: number;
}

/** Every entry of the log. */
export function readAudit(logPath: string): AuditEntry[] {
  const out: AuditEntry[] = [];
  for (const line of readFileSync(logPath, 'utf8').split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line) as {
      stage?: string;
      verb?: string;
      user?: { username?: string };
      userAgent?: string;
      objectRef?: { resource?: string; subresource?: string };
      requestURI?: string;
      responseStatus?: { code?: number };
      requestReceivedTimestamp?: string;
      stageTimestamp?: string;
    };
    out.push({
      stage: e.stage ?? '', user: e.user?.username ?? '', userAgent: e.userAgent ?? '', verb: e.verb ?? '',
      resource: e.objectRef?.resource ?? '', subresource: e.objectRef?.subresource ?? '', requestURI: e.requestURI ?? '',
      code: e.responseStatus?.code ?? 0, received: Date.parse(e.requestReceivedTimestamp ?? ''), completed: Date.parse(e.stageTimestamp ?? ''),
    });
  }
  return out;
}

export type AuditWrite = AuditEntry;

/** The requests that were answered (auditSetup's log): each once, with its response code and completion time. */
export function readAuditWrites(logPath: string): AuditWrite[] {
  return readAudit(logPath).filter((e) => e.stage === 'ResponseComplete' || e.stage === 'ResponseStarted');
}

/**
 * Requests received in [from, to) (epoch ms) from a user agent matching `userAgent`, by "verb resource[/subresource]" (auditEveryRequest's
 * log).
 */
export function requestsFrom(logPath: string, userAgent: RegExp, from: number, to: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const e of readAudit(logPath)) {
    if (e.received < from || e.received >= to || !userAgent.test(e.userAgent)) continue;
    const what = `${e.verb} ${e.resource || e.requestURI}${e.subresource ? `/${e.subresource}` : ''}`;
    out.set(what, (out.get(what) ?? 0) + 1);
  }
  return out;
}

/** "N.NN per minute (verb resource n, …)" for a count over `minutes`. */
export function perMinute(counts: Map<string, number>, minutes: number): string {
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  return `${(total / minutes).toFixed(2)} per minute (${[...counts].map(([w, n]) => `${w} ${n}`).join(', ') || 'none'})`;
}
