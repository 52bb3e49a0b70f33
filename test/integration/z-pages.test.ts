// /statusz and /flagz of `featuregates operator` (a real process, started with flags) judged against a real
// kube-scheduler v1.36 serving the same pages over the same plane: for each Accept header, the same status
// code, Content-Type, Warning header and document shape; the 406 body byte for byte. Both authorize with the
// API server (TokenReview + SubjectAccessReview): the bootstrap ClusterRole system:monitoring may read the pages
// of both, a token without a role may read neither.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { bundledCRDPaths, startControlPlane, type ControlPlane } from '../../sdk/testing/index.js';
import { servingAddress, spawnCLI } from '../support/cli.js';
import { startComponent, type RunningComponent } from '../support/components.js';
import { PAYLOAD_ROOT } from '../support/payloads.js';

interface Answer { status: number; contentType: string; warning?: string; cacheControl?: string; body: string }

function get(base: string, path: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    httpsRequest(`${base}${path}`, { rejectUnauthorized: false, headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => { body += d.toString(); });
      res.on('end', () => resolve({
        status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body,
        ...(res.headers.warning ? { warning: String(res.headers.warning) } : {}),
        ...(res.headers['cache-control'] ? { cacheControl: String(res.headers['cache-control']) } : {}),
      }));
    }).on('error', reject).end();
  });
}

/** A document's shape: its keys and the JSON type of each value (arrays by their elements' shape). */
function shape(v: unknown): unknown {
  if (Array.isArray(v)) return [...new Set(v.map((x) => JSON.stringify(shape(x))))];
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'flags' ? 'map[string]string' : shape(x)]));
  return v === null ? 'null' : typeof v;
}

const STATUSZ_LABELS = ['Started', 'Up', 'Go version', 'Binary version', 'Emulation version', 'Paths'];

/** A plain-text page's shape: the header with the name taken out, then each line's label and which delimiter it used. */
function textShape(body: string, name: string): { head: string[]; labels: string[]; delimiters: string[] } {
  const lines = body.split('\n');
  const head = lines.slice(0, 3).map((l) => l.replace(name, 'NAME'));
  const rest = lines.slice(3).filter((l) => l !== '');
  const labels: string[] = [];
  const delimiters = new Set<string>();
  for (const l of rest) {
    const label = STATUSZ_LABELS.find((x) => l.startsWith(x)) ?? /^[a-z0-9-]+/.exec(l)?.[0] ?? l;
    labels.push(label);
    delimiters.add(/^(: |:|=| )/.exec(l.slice(label.length))?.[1] ?? '?');
  }
  return { head, labels, delimiters: [...delimiters] };
}

const ACCEPTS = [
  undefined, '*/*', 'text/plain', 'text/plain;charset=utf-8', 'text/html', 'application/json', 'application/yaml', 'application/*',
  'application/json;as=KIND;v=v1beta1;g=config.k8s.io', 'application/yaml;as=KIND;v=v1beta1;g=config.k8s.io',
  'application/json;as=KIND;v=v1alpha1;g=config.k8s.io', 'application/json;as=KIND;v=v1;g=config.k8s.io',
  'application/json;as=KIND;v=v1beta1;g=other.io', 'application/json;as=OTHER;v=v1beta1;g=config.k8s.io',
  'application/vnd.kubernetes.protobuf;as=KIND;v=v1beta1;g=config.k8s.io', 'application/json;as=KIND;v=v1beta1;g=config.k8s.io, text/plain;q=0.5',
  'text/plain;q=0.5, application/json;as=KIND;v=v1beta1;g=config.k8s.io', 'application/json;as=KIND;v=v1beta1;g=config.k8s.io;pretty=1',
  // Go's Accept order: a concrete subtype outranks a wildcard of higher quality.
  'application/*, application/json;as=KIND;v=v1beta1;g=config.k8s.io;q=0.1', 'application/yaml, text/plain;q=0.1',
];

describe('z-pages: featuregates operator beside a real kube-scheduler v1.36', () => {
  let plane: ControlPlane;
  let scheduler: RunningComponent;
  let operator: ChildProcess;
  let operatorURL: string;
  let log = '';
  const tokens: Record<string, string> = {};
  beforeAll(async () => {
    plane = await startControlPlane({ crdPaths: bundledCRDPaths() });
    operator = spawnCLI(['operator', '--kubeconfig', plane.kubeconfigPath, '--operator-version', '4.22.1',
      '--authoritative-feature-gate-dir', join(PAYLOAD_ROOT, 'releases', 'release-4.22'),
      '--metrics-bind-address', '127.0.0.1:0', '--health-probe-bind-address', '0', '--log-format', 'json',
      '--running-gates-component', 'kube-scheduler=https://127.0.0.1:1', '--running-gates-component', 'kube-controller-manager=https://127.0.0.1:2'],
    { POD_NAMESPACE: 'default' });
    operator.stderr!.on('data', (d: Buffer) => { log += d.toString(); });
    scheduler = await startComponent(plane, 'kube-scheduler');
    operatorURL = `https://${await servingAddress(() => log, 'metrics')}`;
    const core = plane.kubeConfig.makeApiClient(CoreV1Api);
    const rbac = plane.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    for (const name of ['monitoring', 'stranger']) {
      await core.createNamespacedServiceAccount({ namespace: 'default', body: { metadata: { name } } });
      tokens[name] = (await core.createNamespacedServiceAccountToken({ name, namespace: 'default', body: { spec: { audiences: [] } } })).status!.token!;
    }
    // Kubernetes' own bootstrap role for monitoring (its group system:monitoring may read every component's z-pages).
    await rbac.createClusterRoleBinding({ body: { metadata: { name: 'z-pages-monitoring' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:monitoring' },
      subjects: [{ kind: 'ServiceAccount', name: 'monitoring', namespace: 'default' }] } });
  }, 180_000);
  afterAll(async () => {
    operator?.kill('SIGTERM');
    await scheduler?.stop();
    await plane?.stop();
  });

  const both = async (path: string, headers: Record<string, string>) => {
    const [upstream, ours] = await Promise.all([get(scheduler.url, path, headers), get(operatorURL, path, headers)]);
    return { upstream, ours };
  };
  const auth = () => ({ authorization: `Bearer ${tokens.monitoring}` });

  for (const [path, kind] of [['/statusz', 'Statusz'], ['/flagz', 'Flagz']] as const) {
    it(`${path}: the same answer as kube-scheduler's for every Accept header`, async () => {
      // A curl User-Agent asks the API server for indented JSON.
      for (const [template, userAgent] of [...ACCEPTS.map((a) => [a, undefined]), ...ACCEPTS.map((a) => [a, 'curl/8.5.0'])]) {
        const accept = template?.replace('KIND', kind).replace('OTHER', kind === 'Statusz' ? 'Flagz' : 'Statusz');
        const { upstream, ours } = await both(path, { ...auth(), ...(accept !== undefined ? { accept } : {}), ...(userAgent ? { 'user-agent': userAgent } : {}) });
        const what = `${path} Accept ${JSON.stringify(accept)} User-Agent ${userAgent}`;
        expect([what, ours.status, ours.contentType, ours.warning, ours.cacheControl])
          .toEqual([what, upstream.status, upstream.contentType, upstream.warning, upstream.cacheControl]);
        if (upstream.status === 406 && upstream.contentType === 'application/yaml') {
          // The same Status; go-yaml's line folding and quoting are its own.
          const { parse } = await import('yaml');
          expect([what, parse(ours.body)]).toEqual([what, parse(upstream.body)]);
        } else if (upstream.status === 406) {
          expect([what, ours.body]).toEqual([what, upstream.body]);
        } else if (upstream.contentType.startsWith('text/plain')) {
          const [u, o] = [textShape(upstream.body, 'kube-scheduler'), textShape(ours.body, 'featuregates-operator')];
          expect(o.head).toEqual(u.head);
          expect(o.delimiters).toHaveLength(1);
          // The scheduler emulates a Kubernetes version; this project emulates none, so it says none (upstream omits it when empty).
          if (kind === 'Statusz') expect(o.labels).toEqual(u.labels.filter((l) => l !== 'Emulation version'));
          else expect(o.labels.length).toBeGreaterThan(10);
        } else {
          const parse = async (a: Answer) => a.contentType.startsWith('application/yaml') ? (await import('yaml')).parse(a.body) as Record<string, unknown> : JSON.parse(a.body) as Record<string, unknown>;
          const [u, o] = [await parse(upstream), await parse(ours)];
          delete u.emulationVersion;
          expect([what, shape(o)]).toEqual([what, shape(u)]);
          expect(o).toMatchObject({ kind, apiVersion: upstream.contentType.includes('v=v1alpha1') ? 'config.k8s.io/v1alpha1' : 'config.k8s.io/v1beta1', metadata: { name: 'featuregates-operator' } });
          expect(ours.body.startsWith('{\n')).toBe(upstream.body.startsWith('{\n'));
        }
      }
    }, 60_000);
  }

  it('/statusz says this process: its name, Node.js where a Go component says Go, its version, start and paths', async () => {
    const r = await get(operatorURL, '/statusz', { ...auth(), accept: 'application/json;as=Statusz;v=v1beta1;g=config.k8s.io' });
    const doc = JSON.parse(r.body) as Record<string, unknown>;
    expect(doc).toMatchObject({ goVersion: `node${process.versions.node}`, paths: ['/flagz', '/metrics'] });
    expect(doc.binaryVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(Date.parse(doc.startTime as string)).toBeLessThanOrEqual(Date.now());
    expect(doc.uptimeSeconds).toBeGreaterThanOrEqual(0);
  });

  it('/flagz shows every flag as the process was started (one delimiter for the life of the process)', async () => {
    const r = await get(operatorURL, '/flagz', { ...auth(), accept: 'application/json;as=Flagz;v=v1beta1;g=config.k8s.io' });
    const flags = (JSON.parse(r.body) as { flags: Record<string, string> }).flags;
    expect(flags).toMatchObject({
      'operator-version': '4.22.1', 'metrics-bind-address': '127.0.0.1:0', 'leader-elect': 'false', 'cluster-profile': '',
      'running-gates-component': '[kube-scheduler=https://127.0.0.1:1,kube-controller-manager=https://127.0.0.1:2]',
    });
    const texts = await Promise.all([1, 2, 3, 4, 5, 6].map(() => get(operatorURL, '/flagz', auth())));
    expect(new Set(texts.map((t) => t.body)).size).toBe(1);
  });

  it('who may read: system:monitoring may on both; a token without a role may not; the operator asks for a token where the scheduler answers anonymous', async () => {
    for (const path of ['/statusz', '/flagz']) {
      const stranger = await both(path, { authorization: `Bearer ${tokens.stranger}` });
      expect([path, stranger.upstream.status, stranger.ours.status]).toEqual([path, 403, 403]);
      const none = await both(path, {});
      expect([path, none.upstream.status, none.ours.status]).toEqual([path, 403, 401]);
    }
  });
});
