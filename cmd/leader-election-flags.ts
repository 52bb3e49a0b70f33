// The leader-election timing flags of `operator` and `hosted` (kept out of args.ts so that commands without
// a cluster do not load the leader elector).
import { DEFAULT_LEADER_ELECTION, validateLeaderElectionTiming, type LeaderElectionTiming } from '../runtime/leader-election.js';
import { UsageError, durationFlag } from './args.js';

/** --leader-elect-lease-duration, -renew-deadline and -retry-period (client-go's defaults), validated as client-go does. */
export function leaderElectionTimingFlags(values: Record<string, string | undefined>): LeaderElectionTiming {
  const timing: LeaderElectionTiming = {
    leaseDurationMs: durationFlag(values['leader-elect-lease-duration'], '--leader-elect-lease-duration', DEFAULT_LEADER_ELECTION.leaseDurationMs),
    renewDeadlineMs: durationFlag(values['leader-elect-renew-deadline'], '--leader-elect-renew-deadline', DEFAULT_LEADER_ELECTION.renewDeadlineMs),
    retryPeriodMs: durationFlag(values['leader-elect-retry-period'], '--leader-elect-retry-period', DEFAULT_LEADER_ELECTION.retryPeriodMs),
  };
  try {
    validateLeaderElectionTiming(timing);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  return timing;
}
