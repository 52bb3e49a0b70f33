// openshift/api's own CRD test suites (config/v1/tests/<crd>/*.yaml of the pinned module), read and run the way its
// tests/generator.go runs them: each object created with generateName, an initial status written through the status
// subresource, expectedError / expectedStatusError as substrings of the API server's message, the stored object
// compared with `expected` (else `initial` / `updated`) without its server-set metadata. Which suites apply is chosen
// as tests/crd_filter.go chooses for the Default feature-set variant of the CRD: an ungated suite always, a gated one
// when each gate it names is on (or, with a leading '-', off) in the module's SelfManagedHA Default payload manifest.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ApiException, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { jsonEqual, sortKeys } from '../../api-types/deep-equal.js';

export interface SuiteCase {
  name: string;
  initial: string;
  updated?: string;
  expected?: string;
  expectedError?: string;
  expectedStatusError?: string;
  initialCRDPatches?: unknown[];
}
export interface Suite {
  file: string;
  crdName: string;
  featureGates: string[];
  tests: { onCreate?: SuiteCase[]; onUpdate?: SuiteCase[] };
}
type Obj = { apiVersion?: string; kind?: string; metadata?: Record<string, unknown>; status?: unknown; [k: string]: unknown };

/** Every suite file of one CRD in the module. */
export function suitesOf(moduleDir: string, crdName: string): Suite[] {
  const dir = join(moduleDir, 'config', 'v1', 'tests', crdName);
  return readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort().map((f) => {
    const s = parse(readFileSync(join(dir, f), 'utf8')) as Partial<Suite>;
    if (s.crdName !== crdName) throw new Error(`${join(dir, f)}: crdName ${String(s.crdName)}, expected ${crdName}`);
    return { file: f, crdName, featureGates: s.featureGates ?? [], tests: s.tests ?? {} };
  });
}

/** The gates of the module's payload manifest for the SelfManagedHA profile and the Default feature set: name → on. */
export function defaultGates(moduleDir: string): Map<string, boolean> {
  const dir = join(moduleDir, 'payload-manifests', 'featuregates');
  for (const f of readdirSync(dir).sort()) {
    const fg = parse(readFileSync(join(dir, f), 'utf8')) as { metadata: { annotations?: Record<string, string> }; status: { featureGates: { enabled: { name: string }[]; disabled: { name: string }[] }[] } };
    const a = fg.metadata.annotations ?? {};
    if (!('include.release.openshift.io/self-managed-high-availability' in a) || a['release.openshift.io/feature-set'] !== 'Default') continue;
    const [entry] = fg.status.featureGates;
    return new Map([...entry!.enabled.map((g) => [g.name, true] as const), ...entry!.disabled.map((g) => [g.name, false] as const)]);
  }
  throw new Error(`${dir}: no SelfManagedHA Default manifest`);
}

/**
 * Whether a suite runs against the Default variant: every gate it needs is as it asks in Default (an unknown gate is an error, as
 * upstream).
 */
export function appliesToDefault(suite: Suite, gates: Map<string, boolean>): boolean {
  return suite.featureGates.every((g) => {
    const off = g.startsWith('-');
    const name = off ? g.slice(1) : g;
    const on = gates.get(name);
    if (on === undefined) throw new Error(`${suite.file}: feature gate ${name} is in no Default payload manifest`);
    return off ? !on : on;
  });
}

/** What one case did: '' when it behaved as its suite says, else what differed. */
export type CaseOutcome = string;

const messageOf = (e: unknown): string => {
  if (e instanceof ApiException) {
    const body = (typeof e.body === 'string' ? (() => { try { return JSON.parse(e.body as string) as { message?: string }; } catch { return { message: e.body as string }; } })() : e.body) as { message?: string } | undefined;
    return String(body?.message ?? e.message);
  }
  return (e as Error).message;
};

/** The parts of an object a suite compares: all but metadata, and of metadata its labels and annotations. */
function comparable(o: Obj): Obj {
  const { metadata, ...rest } = o;
  const m = metadata ?? {};
  return { ...rest, metadata: { labels: m.labels ?? {}, annotations: m.annotations ?? {} } };
}


/** Runs suite cases against one API server's CRD of a cluster-scoped resource; deletes every object it made. */
export class SuiteRunner {
  private readonly api: CustomObjectsApi;
  constructor(kubeConfig: KubeConfig, private readonly resource: { group: string; version: string; plural: string }) {
    this.api = kubeConfig.makeApiClient(CustomObjectsApi);
  }

  private async create(yamlText: string): Promise<{ made: Obj; initial: Obj }> {
    const initial = parse(yamlText) as Obj;
    const body = { ...initial, metadata: { ...(initial.metadata ?? {}), generateName: 'test-' } };
    const made = await this.api.createClusterCustomObject({ ...this.resource, body }) as Obj;
    return { made, initial };
  }

  private async get(name: string): Promise<Obj> {
    return await this.api.getClusterCustomObject({ ...this.resource, name }) as Obj;
  }

  private async remove(name: string | undefined): Promise<void> {
    if (name) await this.api.deleteClusterCustomObject({ ...this.resource, name }).catch(() => undefined);
  }

  private compare(got: Obj, expectedYAML: string): CaseOutcome {
    const expected = parse(expectedYAML) as Obj;
    return jsonEqual(comparable(got), comparable(expected)) ? ''
      : `stored ${JSON.stringify(sortKeys(comparable(got)))}, expected ${JSON.stringify(sortKeys(comparable(expected)))}`;
  }

  async onCreate(c: SuiteCase): Promise<CaseOutcome> {
    let name: string | undefined;
    try {
      let made: Obj;
      try {
        ({ made } = await this.create(c.initial));
      } catch (e) {
        if (c.expectedError) return messageOf(e).includes(c.expectedError) ? '' : `refused with "${messageOf(e)}", expected "${c.expectedError}"`;
        return `refused: ${messageOf(e)}`;
      }
      name = made.metadata?.name as string;
      if (c.expectedError) return `accepted, expected the error "${c.expectedError}"`;
      return this.compare(await this.get(name), c.expected?.trim() ? c.expected : c.initial);
    } finally {
      await this.remove(name);
    }
  }

  async onUpdate(c: SuiteCase): Promise<CaseOutcome> {
    if (c.initialCRDPatches?.length) throw new Error(`${c.name}: initialCRDPatches are not applied by this runner (it shares the CRD)`);
    let name: string | undefined;
    try {
      let created: { made: Obj; initial: Obj };
      try {
        created = await this.create(c.initial);
      } catch (e) {
        return `the initial object was refused: ${messageOf(e)}`;
      }
      name = created.made.metadata?.name as string;
      if (created.initial.status !== undefined) {
        try {
          await this.api.replaceClusterCustomObjectStatus({
            ...this.resource,
            name,
            body: { ...created.made, status: created.initial.status },
          });
        } catch (e) {
          return `the initial status was refused: ${messageOf(e)}`;
        }
      }
      const current = await this.get(name);
      const updated = parse(c.updated ?? '') as Obj;
      const metadata = { ...(updated.metadata ?? {}), name, resourceVersion: current.metadata?.resourceVersion };
      let afterSpec: Obj;
      try {
        afterSpec = await this.api.replaceClusterCustomObject({ ...this.resource, name, body: { ...updated, metadata } }) as Obj;
      } catch (e) {
        if (c.expectedError) return messageOf(e).includes(c.expectedError) ? '' : `refused with "${messageOf(e)}", expected "${c.expectedError}"`;
        return `the update was refused: ${messageOf(e)}`;
      }
      if (c.expectedError) return `the update was accepted, expected the error "${c.expectedError}"`;
      if (updated.status !== undefined) {
        try {
          await this.api.replaceClusterCustomObjectStatus({ ...this.resource, name, body: { ...afterSpec, status: updated.status } });
        } catch (e) {
          if (c.expectedStatusError) return messageOf(e).includes(c.expectedStatusError) ? '' : `status refused with "${messageOf(e)}", expected "${c.expectedStatusError}"`;
          return `the status update was refused: ${messageOf(e)}`;
        }
        if (c.expectedStatusError) return `the status update was accepted, expected the error "${c.expectedStatusError}"`;
      }
      return this.compare(await this.get(name), c.expected?.trim() ? c.expected : c.updated ?? '');
    } finally {
      await this.remove(name);
    }
  }
}
