// Scrapes of real processes → promtool `input_series`. A scenario is a sequence of phases; in each phase every
// target's series are what a real scrape of that target returned (names, labels and values as exported), held for
// the phase's minutes at a 1-minute step, with the target labels Prometheus adds (job, instance). Three kinds of
// series move with time, from what was measured:
//  - counters (`_total`, and `_count`/`_sum`/`_bucket`) grow at the rate seen between the phase's two scrapes of
//    the target (constant with one scrape);
//  - `_timestamp_seconds` gauges keep the age they had at the scrape: with `timestamps: 'advance'` the process
//    keeps renewing them (a healthy guest syncs at least every 10 minutes), with 'hold' they stay where they
//    were when the phase began (a failing guest's last good sync does not move);
//  - every other gauge keeps its scraped value.
// A series no target exports in a phase is absent there: a staleness marker at the phase's first step (what
// Prometheus writes when a series or its target goes away), then no samples (`_`). A series exported only in later
// phases has no samples before.
import { parse } from 'yaml';
import type { ExposedSample } from '../../api-types/index.js';

export interface TargetScrape {
  /** Target labels Prometheus would add to every series (job, instance). */
  target: Record<string, string>;
  /** The first scrape of the phase, and (for counter rates) a later one. */
  first: { atMs: number; samples: ExposedSample[] };
  last?: { atMs: number; samples: ExposedSample[] };
}

export interface Phase {
  minutes: number;
  scrapes: TargetScrape[];
  timestamps?: 'advance' | 'hold';
}

export interface InputSeries { series: string; values: string }

const isCounter = (name: string) => /_(total|count|sum|bucket)$/.test(name);
const isTimestamp = (name: string) => name.endsWith('_timestamp_seconds');

function num(v: number): string {
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (Number.isNaN(v)) return 'NaN';
  return String(Number(v.toFixed(6)));
}

function seriesName(name: string, labels: Record<string, string>): string {
  const l = Object.keys(labels).sort().map((k) => `${k}=${JSON.stringify(labels[k])}`);
  return `${name}{${l.join(',')}}`;
}

/** The promtool input series of `phases`, keeping only the metric names `keep` accepts. */
export function inputSeries(phases: readonly Phase[], keep: (name: string) => boolean): InputSeries[] {
  const segments = new Map<string, string[]>();
  let startMin = 0;
  phases.forEach((phase, i) => {
    const steps = phase.minutes;
    for (const s of phase.scrapes) {
      const later = new Map((s.last?.samples ?? []).map((x) => [seriesName(x.name, x.labels), x.value]));
      const dtSec = s.last ? (s.last.atMs - s.first.atMs) / 1000 : 0;
      for (const x of s.first.samples) {
        if (!keep(x.name)) continue;
        const key = seriesName(x.name, { ...x.labels, ...s.target });
        let segment: string;
        if (isTimestamp(x.name)) {
          const age = s.first.atMs / 1000 - x.value;
          const start = startMin * 60 - age;
          segment = phase.timestamps === 'hold' ? `${num(start)}x${steps - 1}` : `${num(start)}+60x${steps - 1}`;
        } else if (isCounter(x.name) && dtSec > 0 && later.has(seriesName(x.name, x.labels))) {
          const perMin = Math.max(0, (later.get(seriesName(x.name, x.labels))! - x.value) / dtSec) * 60;
          segment = `${num(x.value)}+${num(perMin)}x${steps - 1}`;
        } else {
          segment = `${num(x.value)}x${steps - 1}`;
        }
        const list = segments.get(key) ?? Array.from({ length: i }, (_, j) => `_x${phases[j]!.minutes}`);
        list.push(segment);
        segments.set(key, list);
      }
    }
    // Series seen before but not in this phase: absent.
    for (const list of segments.values()) {
      if (list.length !== i) continue;
      const wasPresent = !list[i - 1]!.startsWith('_') && !list[i - 1]!.startsWith('stale');
      list.push(wasPresent ? (steps > 1 ? `stale _x${steps - 1}` : 'stale') : `_x${steps}`);
    }
    startMin += steps;
  });
  return [...segments].map(([series, list]) => ({ series, values: list.join(' ') }));
}

/** Metric names (of the families this project exports) used in PromQL expressions. */
export function metricNames(promql: readonly string[]): Set<string> {
  return new Set(promql.join('\n').match(/\b(?:(?:featuregates|controller_runtime|leader_election|kubernetes|workqueue|rest_client)_[a-z_]+|cluster_feature_set)\b/g) ?? []);
}

/** Metric names used in a rules file: in its expressions and in its annotations' queries (their quoted strings). */
export function metricNamesIn(rulesYAML: string): Set<string> {
  const { groups } = parse(rulesYAML) as { groups: { rules: { expr: string; annotations?: Record<string, string> }[] }[] };
  return metricNames(groups.flatMap((g) => g.rules.flatMap((r) => [r.expr, ...Object.values(r.annotations ?? {}).flatMap((a) => a.match(/"[^"]*"/g) ?? [])])));
}

/** A Grafana dashboard's queries, with Grafana's interval variables replaced by durations PromQL parses. */
export function dashboardQueries(dashboardJSON: string): string[] {
  const { panels } = JSON.parse(dashboardJSON) as { panels: { targets?: { expr?: string }[] }[] };
  return panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr ?? '')).filter((e) => e)
    .map((e) => e.replaceAll('$__rate_interval', '5m').replaceAll('$__interval', '1m'));
}
