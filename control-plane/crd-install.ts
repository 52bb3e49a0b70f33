// CRD installation as envtest does it: read CustomResourceDefinitions from files and folders (other
// documents skipped), create or update each, then wait until each is NamesAccepted and Established and
// every served version lists its plural in discovery.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseYamlDocuments } from '../runtime/util/yaml.js';
import { poll } from './readiness.js';
import { rawRequest } from './raw-request.js';
import type { SupervisedProcess } from './supervised-process.js';

export interface CRDDoc {
  metadata: { name: string };
  spec: { group: string; names: { plural: string }; versions: { name: string; served: boolean }[] };
}

/** The CRDs in `paths` (files or folders); other documents are skipped, a missing path is skipped unless `errorIfMissing`. */
export function readCRDs(paths: readonly string[], errorIfMissing = false): CRDDoc[] {
  const files: string[] = [];
  for (const p of paths) {
    let st;
    try {
      st = statSync(p);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' && !errorIfMissing) continue;
      throw new Error(`CRD path ${p}: ${(e as Error).message}`, { cause: e });
    }
    if (st.isDirectory()) files.push(...readdirSync(p).filter((f) => /\.(ya?ml|json)$/.test(f)).sort().map((f) => join(p, f)));
    else files.push(p);
  }
  const out: CRDDoc[] = [];
  for (const f of files) {
    for (const obj of parseYamlDocuments(readFileSync(f, 'utf8'), f) as (CRDDoc & { kind?: string } | undefined)[]) {
      if (obj?.kind === 'CustomResourceDefinition') out.push(obj);
    }
  }
  return out;
}

/** Creates or updates `crds` through `server` as the token's user, and waits until they are served. */
export async function installCRDs(server: string, auth: { token: string }, crds: readonly CRDDoc[],
  apiserver: SupervisedProcess | undefined): Promise<void> {
  const base = `${server}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`;
  for (const crd of crds) {
    let r = await rawRequest(base, auth, 'POST', JSON.stringify(crd));
    // Already there: replace it at its current resourceVersion — again if the API server's own CRD controllers
    // changed it in between (its status conditions), which a fresh install beside another installer can hit.
    for (let attempt = 0; r.status === 409 && attempt < 10; attempt++) {
      const cur = JSON.parse((await rawRequest(`${base}/${crd.metadata.name}`, auth)).body);
      r = await rawRequest(`${base}/${crd.metadata.name}`, auth, 'PUT',
        JSON.stringify({ ...crd, metadata: { ...crd.metadata, resourceVersion: cur.metadata.resourceVersion } }));
    }
    if (r.status >= 300) throw new Error(`installing CRD ${crd.metadata.name} failed: HTTP ${r.status}: ${r.body}`);
  }
  for (const crd of crds) {
    const name = crd.metadata.name;
    await poll(`CRD ${name} Established`, 30_000, apiserver, async () => {
      const r = await rawRequest(`${base}/${name}`, auth);
      const conds = (JSON.parse(r.body).status?.conditions ?? []) as { type: string; status: string }[];
      return ['Established', 'NamesAccepted'].every((t) => conds.some((c) => c.type === t && c.status === 'True'));
    });
    for (const v of crd.spec.versions.filter((x) => x.served)) {
      await poll(`${crd.spec.names.plural}.${crd.spec.group}/${v.name} in discovery`, 30_000, apiserver, async () => {
        const r = await rawRequest(`${server}/apis/${crd.spec.group}/${v.name}`, auth);
        if (r.status !== 200) return false;
        const res = (JSON.parse(r.body).resources ?? []) as { name: string }[];
        return res.some((x) => x.name === crd.spec.names.plural);
      });
    }
  }
}
