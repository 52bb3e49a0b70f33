// The hosted alerts (deploy/prometheus/rules/hosted.rules.yaml) proven with Prometheus's own promtool on input
// series made from scrapes of real hosted replicas — healthy, with a shard Lease taken by a holder that is not a live
// replica, with a guest's API server stopped, with a replica gone, with nobody scraped (test/support/alert-tests.ts,
// alert-series.ts say how). Each alert fires once its state has lasted its `for` and not before, with the labels and
// annotations an on-call engineer reads; none fires on the healthy scrapes. Every metric name a rule uses is one
// these processes export.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FeatureGateResource, LeaseResource, ResourceClient, microTime, readKubeconfigFile } from '../../runtime/index.js';
import {
  ensureNamespace, hypershiftCRDPaths, publishHostedControlPlane, setClusterVersion, startControlPlane,
  upstreamCRDPaths, type ControlPlane } from '../../sdk/testing/index.js';
import { shardName } from '../../api-types/index.js';
import { type Phase, type TargetScrape } from '../support/alert-series.js';
import { eventually } from '../support/timing.js';
import { hostedReplicas } from '../support/hosted-replicas.js';
import { PAYLOAD_ROOT } from '../support/payloads.js';
import {
  HOSTED_RULES, expectDashboardSound, expectExported, firing, promtoolTest, runbook, scrape, silent, value,
  type Scrape } from '../support/alert-tests.js';


describe('hosted alerts, on scrapes of real hosted replicas', () => {
  const NS = 'fgc-alerts-hosted';
  const SHARDS = 4;
  const HCP = { namespace: 'clusters-a', name: 'a' };
  let mgmt: ControlPlane;
  let guest: ControlPlane;
  const replicas = hostedReplicas({ kubeconfig: () => mgmt.kubeconfigPath, catalog: join(PAYLOAD_ROOT, 'releases'), namespace: NS, shards: SHARDS, metrics: true });
  const job = 'featuregate-hosted-metrics';
  const urls = new Map<string, string>();
  const scrapeAll = async (ids: string[], timestamps: 'advance' | 'hold' = 'advance') =>
    Promise.all(ids.map(async (id): Promise<TargetScrape> => ({ target: { job, instance: id }, first: await scrape(urls.get(id)!) }))).then(
      (scrapes) => ({ scrapes, timestamps }),
    );
  const held = (scrapes: TargetScrape[]) => scrapes.reduce((n, s) => n + (value(s.first, 'featuregates_hosted_shards_held') ?? 0), 0);
  /** The guest synced and checked: its last good sync and its running-gate verdict exported, no failure. */
  const expectSynced = (scrapes: TargetScrape[]) => {
    const owner = scrapes.find((x) => value(x.first, 'featuregates_hosted_guest_last_success_timestamp_seconds', HCP) !== undefined);
    expect(owner).toBeDefined();
    expect(value(owner!.first, 'featuregates_hosted_guest_running_gate_mismatches', HCP)).toBeDefined();
    expect(scrapes.some((x) => value(x.first, 'featuregates_hosted_guest_failing', HCP) !== undefined)).toBe(false);
  };

  let healthy: { scrapes: TargetScrape[]; timestamps: 'advance' | 'hold' };
  let stuckShard: typeof healthy;
  let unreachable: typeof healthy;
  let alone: typeof healthy;
  let shed: typeof healthy;
  let ageAtFailureMinutes: number;
  let upgradeDelay: { observations: number; seconds: number; bound: number };

  beforeAll(async () => {
    mgmt = await startControlPlane({ crdPaths: hypershiftCRDPaths() });
    guest = await startControlPlane({ etcdURL: mgmt.etcdURL, etcdPrefix: '/guest-a', crdPaths: upstreamCRDPaths() });
    const mkc = readKubeconfigFile(mgmt.kubeconfigPath)!;
    await ensureNamespace(mkc, NS);
    const gkc = readKubeconfigFile(guest.kubeconfigPath)!;
    await setClusterVersion(gkc, { history: ['4.22.3'] });
    await publishHostedControlPlane(mkc, { ...HCP, kubeconfig: readFileSync(guest.kubeconfigPath, 'utf8'), releaseVersion: '4.22.3' });
    for (const id of ['r1', 'r2']) replicas.start(id);
    for (const id of ['r1', 'r2']) urls.set(id, await replicas.metricsURL(id));

    await replicas.dumpOnFailure(async () => {
      // Healthy: both replicas members, every shard held, the guest synced.
      healthy = await eventually(async () => {
        const s = await scrapeAll(['r1', 'r2']);
        expect(s.scrapes.map((x) => value(x.first, 'featuregates_hosted_members'))).toEqual([2, 2]);
        expect(held(s.scrapes)).toBe(SHARDS);
        expectSynced(s.scrapes);
        return s;
      }, 60_000, 250);

      // An upgrade in the guest (4.22.4 Partial): the status write that carries it is observed in the delay histogram,
      // no longer after the change than the test saw it take.
      const delay = (x: Scrape[]) => x.reduce((a, s) => ({
        count: a.count + (value(s, 'featuregates_hosted_guest_status_delay_seconds_count') ?? 0),
        sum: a.sum + (value(s, 'featuregates_hosted_guest_status_delay_seconds_sum') ?? 0),
      }), { count: 0, sum: 0 });
      const delayBefore = delay(healthy.scrapes.map((x) => x.first));
      const changedAt = Date.now();
      await setClusterVersion(gkc, { history: [{ version: '4.22.4', state: 'Partial' }, '4.22.3'] });
      const after = await eventually(async () => {
        const fg = await new ResourceClient(gkc, FeatureGateResource).get('cluster');
        expect(fg.status?.featureGates.map((e) => e.version)).toContain('4.22.4');
        const seenAt = Date.now();
        const d = delay((await scrapeAll(['r1', 'r2'])).scrapes.map((x) => x.first));
        expect(d.count).toBeGreaterThan(delayBefore.count);
        return { ...d, seenAt };
      }, 30_000, 100);
      upgradeDelay = {
        observations: after.count - delayBefore.count,
        seconds: after.sum - delayBefore.sum,
        bound: (after.seenAt - changedAt) / 1000,
      };

      // A shard Lease taken by a holder that is no live replica (one partitioned from the membership, say),
      // renewed for an hour as far as the others can tell: its shard is held by nobody who works.
      const leases = new ResourceClient(mkc, LeaseResource, undefined, { namespace: NS });
      const lease = await leases.get(shardName(0));
      const now = microTime();
      await leases.replace({ ...lease, spec: { ...lease.spec, holderIdentity: 'stuck-replica', leaseDurationSeconds: 3600, acquireTime: now, renewTime: now } });
      stuckShard = await eventually(async () => {
        const s = await scrapeAll(['r1', 'r2']);
        expect(held(s.scrapes)).toBe(SHARDS - 1);
        return s;
      }, 30_000, 250);
      const stuck = await leases.get(shardName(0));
      await leases.replace({ ...stuck, spec: { ...stuck.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime() } });
      // Back to healthy before the next fault: every shard held, the guest synced by its (maybe new) owner.
      await eventually(async () => {
        const { scrapes } = await scrapeAll(['r1', 'r2']);
        expect(held(scrapes)).toBe(SHARDS);
        expectSynced(scrapes);
      }, 60_000, 250);

      // The guest's API server stopped: its owner reports GuestUnreachable; its last good sync stays where it was.
      await guest.stopAPIServer();
      unreachable = await eventually(async () => {
        const s = await scrapeAll(['r1', 'r2'], 'hold');
        // The owner says so, and still exports when it last synced.
        expect(s.scrapes.some((x) => value(x.first, 'featuregates_hosted_guest_failing', { ...HCP, reason: 'GuestUnreachable' }) === 1
          && value(x.first, 'featuregates_hosted_guest_last_success_timestamp_seconds', HCP) !== undefined)).toBe(true);
        return s;
      }, 60_000, 250);
      const owner = unreachable.scrapes.find((x) => value(x.first, 'featuregates_hosted_guest_failing', HCP) === 1
        && value(x.first, 'featuregates_hosted_guest_last_success_timestamp_seconds', HCP) !== undefined)!;
      ageAtFailureMinutes = (owner.first.atMs / 1000 - value(owner.first, 'featuregates_hosted_guest_last_success_timestamp_seconds', HCP)!) / 60;

      // A replica gone: the other sees one member.
      replicas.procs.get('r2')!.kill('SIGKILL');
      alone = await eventually(async () => {
        const s = await scrapeAll(['r1'], 'hold');
        expect(value(s.scrapes[0]!.first, 'featuregates_hosted_members')).toBe(1);
        return s;
      }, 30_000, 250);

      // A replica whose memory budget is below what it needs (64Mi, the least --memory-budget takes): alone, it
      // takes every shard and sheds the one guest it engages.
      replicas.procs.get('r1')!.kill('SIGKILL');
      replicas.start('r3', ['--memory-budget', '64Mi']);
      urls.set('r3', await replicas.metricsURL('r3'));
      shed = await eventually(async () => {
        const s = await scrapeAll(['r3'], 'hold');
        expect(value(s.scrapes[0]!.first, 'featuregates_hosted_guests_shed')).toBe(1);
        expect(value(s.scrapes[0]!.first, 'featuregates_hosted_guest_failing', { ...HCP, reason: 'MemoryBudget' })).toBe(1);
        expect(held(s.scrapes)).toBe(SHARDS);
        return s;
      }, 60_000, 250);
    });
  }, 240_000);

  afterAll(async () => {
    replicas.killAll();
    await guest?.stop();
    await mgmt?.stop();
  });

  const phase = (minutes: number, s: { scrapes: TargetScrape[]; timestamps: 'advance' | 'hold' }): Phase => ({ minutes, ...s });
  const ALERTS = ['HostedFeatureGatesFailing', 'HostedFeatureGatesNotKept', 'HostedShardsNotHeld', 'HostedCoordinatorAbsent', 'HostedMembershipChurn', 'HostedGuestsShed'];

  it('exports every metric name the hosted rules use', () => {
    expectExported(HOSTED_RULES, [...healthy.scrapes, ...unreachable.scrapes, ...shed.scrapes].map((s) => s.first));
  });

  it('an upgrade in a guest is one observation of the change → status delay, within the time the test saw it take', () => {
    expect(upgradeDelay.observations).toBe(1);
    expect(upgradeDelay.seconds).toBeGreaterThan(0);
    expect(upgradeDelay.seconds).toBeLessThanOrEqual(upgradeDelay.bound);
  });

  it('the fleet dashboard: every query parses and uses only exported names', () => {
    expectDashboardSound('featuregates-hosted.json', [...healthy.scrapes, ...unreachable.scrapes, ...shed.scrapes].map((s) => s.first));
  });

  it('healthy: no hosted alert for three hours', () => {
    promtoolTest(HOSTED_RULES, [phase(180, healthy)], ALERTS.flatMap((a) => silent(a, 5, 30, 90, 179)));
  });

  // HyperShift's telemetry series of each hosted cluster's feature set, recorded over the fleet: the one HCP here asks
  // for the Default set (its `name` is empty, which Prometheus stores as no label), and is counted once, by its owner.
  it('the recording rule counts the hosted clusters by feature set from the replicas\' cluster_feature_set', () => {
    const owner = healthy.scrapes.find((x) => value(x.first, 'cluster_feature_set', { namespace: HCP.namespace, hcp: HCP.name }) !== undefined);
    expect(owner && value(owner.first, 'cluster_feature_set', { namespace: HCP.namespace, hcp: HCP.name, name: '' })).toBe(1);
    promtoolTest(HOSTED_RULES, [phase(10, healthy), phase(10, unreachable)], [], [
      { expr: 'feature_set:hosted_control_planes:count', eval_time: '5m', exp_samples: [{ labels: 'feature_set:hosted_control_planes:count{feature_set="Default"}', value: 1 }] },
      { expr: 'feature_set:hosted_control_planes:count', eval_time: '15m', exp_samples: [{ labels: 'feature_set:hosted_control_planes:count{feature_set="Default"}', value: 1 }] },
    ]);
  });

  it('a shard Lease held by no live replica: ShardsNotHeld after 10 minutes', () => {
    promtoolTest(HOSTED_RULES, [phase(10, healthy), phase(30, stuckShard)], [
      ...silent('HostedShardsNotHeld', 5, 19),
      firing('HostedShardsNotHeld', 21, {
        exp_labels: { severity: 'critical' },
        exp_annotations: {
          summary: '1 hosted coordinator shard(s) have been held by no live replica for 10 minutes.',
          description: 'The hosted control planes of 1 shard(s) have had no coordinator for 10 minutes: nothing keeps their FeatureGate, Upgradeable or feature-gate ConfigMap.',
          runbook_url: runbook('HostedShardsNotHeld'),
        },
      }),
      ...silent('HostedFeatureGatesFailing', 35),
    ]);
  });

  it('a guest unreachable: Failing (by reason, naming the HCP) after 30 minutes, NotKept once its last good sync is an hour old', () => {
    const notKeptAt = 10 + Math.ceil(60 - ageAtFailureMinutes);
    promtoolTest(HOSTED_RULES, [phase(10, healthy), phase(90, unreachable)], [
      ...silent('HostedFeatureGatesFailing', 5, 39),
      firing('HostedFeatureGatesFailing', 41, {
        exp_labels: { severity: 'warning', reason: 'GuestUnreachable' },
        exp_annotations: {
          summary: '1 hosted control plane(s) have failed with GuestUnreachable for 30 minutes.',
          description: 'The feature gates of 1 hosted cluster(s) are not kept: their last sync failed with GuestUnreachable. Longest without a good sync first: clusters-a/a ',
          runbook_url: runbook('HostedFeatureGatesFailing'),
        },
      }),
      ...silent('HostedFeatureGatesNotKept', 5, 41, notKeptAt - 2),
      firing('HostedFeatureGatesNotKept', notKeptAt + 1, {
        exp_labels: { severity: 'warning' },
        exp_annotations: {
          summary: '1 hosted cluster(s) have had no good feature-gate sync for an hour.',
          description: 'A healthy hosted cluster syncs at least every 10 minutes; 1 have not for over an hour. Oldest first: clusters-a/a ',
          runbook_url: runbook('HostedFeatureGatesNotKept'),
        },
      }),
    ]);
  });

  it('a replica over its memory budget: GuestsShed after 5 minutes, naming it; Failing by MemoryBudget after 30', () => {
    promtoolTest(HOSTED_RULES, [phase(10, healthy), phase(40, shed)], [
      ...silent('HostedGuestsShed', 5, 14),
      firing('HostedGuestsShed', 16, {
        exp_labels: { severity: 'warning' },
        exp_annotations: {
          summary: '1 hosted control plane(s) have been shed by replicas over their memory budget for 5 minutes.',
          description: 'A replica over its memory budget (--memory-budget) disengaged 1 hosted cluster(s), failing ones that made it read first; '
            + 'their feature gates are not kept until it is below the budget again. Replicas shedding: r3 (1) ',
          runbook_url: runbook('HostedGuestsShed'),
        },
      }),
      firing('HostedFeatureGatesFailing', 41, {
        exp_labels: { severity: 'warning', reason: 'MemoryBudget' },
        exp_annotations: {
          summary: '1 hosted control plane(s) have failed with MemoryBudget for 30 minutes.',
          description: 'The feature gates of 1 hosted cluster(s) are not kept: their last sync failed with MemoryBudget. Longest without a good sync first: clusters-a/a ',
          runbook_url: runbook('HostedFeatureGatesFailing'),
        },
      }),
    ]);
  });

  it('no replica scraped: CoordinatorAbsent after 10 minutes', () => {
    promtoolTest(HOSTED_RULES, [phase(10, healthy), { minutes: 30, scrapes: [] }], [
      ...silent('HostedCoordinatorAbsent', 5, 19),
      firing('HostedCoordinatorAbsent', 21, {
        exp_labels: { severity: 'critical' },
        exp_annotations: {
          summary: 'No hosted coordinator replica has been scraped for 10 minutes.',
          description: 'No featuregates hosted replica exports metrics: either none runs, or Prometheus cannot scrape them. While none runs, no hosted cluster\'s feature gates are kept.',
          runbook_url: runbook('HostedCoordinatorAbsent'),
        },
      }),
    ]);
  });

  it('a replica leaving and joining every five minutes: MembershipChurn; one departure: silent', () => {
    const churn: Phase[] = Array.from({ length: 24 }, (_, i) => phase(5, i % 2 === 0 ? healthy : alone));
    promtoolTest(HOSTED_RULES, churn, [
      ...silent('HostedMembershipChurn', 30, 60),
      firing('HostedMembershipChurn', 90, {
        exp_labels: { severity: 'warning' },
        exp_annotations: {
          summary: 'The hosted coordinator\'s membership changed 12 times in an hour.',
          description: 'Replicas join and leave the fleet far more often than a rolling update makes them (each change moves shards and re-engages their guests).',
          runbook_url: runbook('HostedMembershipChurn'),
        },
      }),
    ]);
    promtoolTest(HOSTED_RULES, [phase(30, healthy), phase(150, alone)], silent('HostedMembershipChurn', 60, 120, 179));
  });
});
