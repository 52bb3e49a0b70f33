// The flags `operator` and `hosted` share: leader-election timing, and metrics and health serving (kept out
// of args.ts so that commands without a cluster do not load the leader elector).
import { DEFAULT_LEADER_ELECTION, validateLeaderElectionTiming, type LeaderElectionTiming } from '../runtime/leaderelection/leader-election.js';
import { TLS_PROFILE_SOURCES, type TLSProfileSource } from '../runtime/serving/tls-profile.js';
import { UsageError, durationFlag, type OptionSpec } from './args.js';

export const SERVING_OPTIONS: Record<string, OptionSpec> = {
  'metrics-bind-address': { type: 'string', help: 'address for /metrics (default :8443, or 127.0.0.1:8080 with --metrics-secure=false; 0 disables; port 0 picks one)' },
  'metrics-secure': { type: 'string', help: 'true (default): HTTPS, callers authenticated by TokenReview and authorized by SubjectAccessReview (get /metrics); false: plain HTTP' },
  'tls-cert-file': { type: 'string', help: 'serving certificate (PEM) for secure metrics (default: self-signed, made at start)' },
  'tls-private-key-file': { type: 'string', help: 'its private key (PEM)' },
  'health-probe-bind-address': { type: 'string', help: 'address for /healthz and /readyz (default :8081)' },
  'tls-security-profile': { type: 'string', help: 'TLS profile of secure metrics: cluster (default: follow APIServer/cluster\'s tlsSecurityProfile, re-applied on change; Intermediate where that API is not served), Old, Intermediate or Modern' },
};

/** client-go's leader-election timing, for the operator's Lease and for every shard and membership Lease of hosted mode. */
export const LEADER_ELECTION_TIMING_OPTIONS: Record<string, OptionSpec> = {
  'leader-elect-lease-duration': { type: 'string', help: 'how long another replica waits after the last renewal it saw before taking a Lease over (default 15s; OpenShift\'s operator 137s)' },
  'leader-elect-renew-deadline': { type: 'string', help: 'how long a holder keeps trying to renew before it stops writing (default 10s; OpenShift\'s operator 107s; the operator then exits)' },
  'leader-elect-retry-period': { type: 'string', help: 'how often to try to acquire or renew the Lease (default 2s; OpenShift\'s operator 26s)' },
};

function booleanFlag(v: string | undefined, flag: string, fallback: boolean): boolean {
  if (v === undefined) return fallback;
  if (v === 'true' || v === 'false') return v === 'true';
  throw new UsageError(`${flag} must be true or false, got ${JSON.stringify(v)}`);
}

/** The serving options of startOperator and startHosted, from SERVING_OPTIONS' flags. */
export function servingFlags(values: Record<string, string | undefined>) {
  return {
    ...(values['metrics-bind-address'] !== undefined ? { metricsBindAddress: values['metrics-bind-address'] } : {}),
    metricsSecure: booleanFlag(values['metrics-secure'], '--metrics-secure', true),
    ...(values['tls-cert-file'] ? { tlsCertFile: values['tls-cert-file'] } : {}),
    ...(values['tls-private-key-file'] ? { tlsPrivateKeyFile: values['tls-private-key-file'] } : {}),
    healthProbeBindAddress: values['health-probe-bind-address'] ?? ':8081',
    ...(values['tls-security-profile'] !== undefined ? { tlsSecurityProfile: tlsProfileFlag(values['tls-security-profile']) } : {}),
  };
}

function tlsProfileFlag(v: string): TLSProfileSource {
  const found = TLS_PROFILE_SOURCES.find((s) => s === v);
  if (!found) throw new UsageError(`--tls-security-profile must be one of ${TLS_PROFILE_SOURCES.join(', ')}, got ${JSON.stringify(v)}`);
  return found;
}

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
