// What a hosted guest's session says about it, pure: the problems its controllers last reported (each with how it
// is followed up), whether a new one is worth a Warning now, whether the guest is synced, and the record
// `featuregates hosted status` shows (api-types/hosted-status.ts) — built from what the session observed, and
// written only when it says something new. hosted/guest-session.ts feeds it; the I/O (Events, metrics, the shard's
// record ConfigMap) stays there.
import { jsonEqual } from './deep-equal.js';
import type { HostedGuestRecord } from './hosted-status.js';

/**
 * What one controller last said was wrong. `retry`: it failed and its backoff retries (a Warning each time);
 * `notified`: it waits on bad or missing input or a guest that does not answer (a Warning when it starts, then
 * every repeat period); `pending`: nothing failed, a first read is not answered yet (no Warning).
 */
export interface GuestProblem {
  reason: string;
  message: string;
  followUp: 'retry' | 'notified' | 'pending';
  /** When its last Warning was written (ms). */
  warnedAt?: number;
}

/**
 * The problem a controller reports now, given the one it reported before: whether a Warning is written for it now
 * (always for `retry`; for `notified` when it is new, its message changed, or `repeatMs` passed since the last one),
 * and when its last Warning was written.
 */
export function nextProblem(
  prior: GuestProblem | undefined,
  next: GuestProblem,
  nowMs: number,
  repeatMs: number,
): { problem: GuestProblem; warn: boolean } {
  const sameMessage = prior?.message === next.message;
  const repeat = sameMessage && prior.warnedAt !== undefined && nowMs - prior.warnedAt < repeatMs;
  const warn = next.followUp === 'retry' || (next.followUp === 'notified' && !repeat);
  const warnedAt = warn ? nowMs : sameMessage ? prior.warnedAt : undefined;
  return { problem: { ...next, ...(warnedAt !== undefined ? { warnedAt } : {}) }, warn };
}

/** The problems by controller, in the order they are told (`order`: controller names; any other after them). */
export function orderedProblems(problems: ReadonlyMap<string, GuestProblem>, order: readonly string[]): GuestProblem[] {
  const rank = (name: string) => {
    const i = order.indexOf(name);
    return i < 0 ? order.length : i;
  };
  return [...problems].sort(([a], [b]) => rank(a) - rank(b)).map(([, p]) => p);
}

/**
 * Whether the guest is synced — nothing wrong and `engaged` (its controllers bound and each has run once) — and the
 * reason of the first problem; undefined while it is still starting (nothing wrong, not engaged yet: nothing to say).
 */
export function guestSyncState(problems: readonly GuestProblem[], engaged: boolean): { ok: boolean; reason?: string } | undefined {
  if (problems.length === 0) return engaged ? { ok: true } : undefined;
  return { ok: false, reason: problems[0]!.reason };
}

/** What the session observed of the guest and its HCP for the record: its fields, the Upgradeable condition as the guest has it. */
export type GuestObservation = Pick<HostedGuestRecord, 'hcp' | 'shard' | 'owner' | 'desiredVersion' | 'featureSet' | 'versions' | 'runningGates'> & {
  upgradeable?: { status: string; reason?: string };
};

/**
 * The record for `o`: `lastSync` is `now` when `ok`, else the prior record's; `lastError` the problems' distinct
 * messages in order.
 */
export function guestRecord(
  o: GuestObservation,
  problems: readonly GuestProblem[],
  ok: boolean,
  now: Date,
  prior: HostedGuestRecord | undefined,
): HostedGuestRecord {
  const messages = [...new Set(problems.map((p) => p.message))];
  return {
    hcp: o.hcp,
    shard: o.shard,
    owner: o.owner,
    ...(o.desiredVersion ? { desiredVersion: o.desiredVersion } : {}),
    featureSet: o.featureSet,
    versions: o.versions,
    ...(o.upgradeable
      ? { upgradeable: o.upgradeable.status === 'True' ? 'True' : `${o.upgradeable.status}: ${o.upgradeable.reason ?? ''}` }
      : {}),
    ...(o.runningGates ? { runningGates: o.runningGates } : {}),
    ...(ok ? { lastSync: now.toISOString() } : prior?.lastSync ? { lastSync: prior.lastSync } : {}),
    ...(ok ? {} : { lastError: messages.join('; ') }),
  };
}

/**
 * Whether `next` is worth writing over `prior`: it differs in anything but `lastSync`, or its `lastSync` moved on by
 * `refreshMs` or more (a synced guest's record says it is still synced that often).
 */
export function recordIsNews(prior: HostedGuestRecord | undefined, next: HostedGuestRecord, refreshMs: number): boolean {
  if (!prior || !jsonEqual({ ...prior, lastSync: undefined }, { ...next, lastSync: undefined })) return true;
  if (!next.lastSync) return false;
  return !prior.lastSync || Date.parse(next.lastSync) - Date.parse(prior.lastSync) >= refreshMs;
}
