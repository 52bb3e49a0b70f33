// Where the cluster is: --kubeconfig, then $KUBECONFIG, then in-cluster service-account credentials.
//
// The transport needs only two things from a kubeconfig: the server, and the TLS material and headers to put
// on a request (ClusterAccess — a client-node KubeConfig has both, so SDK callers pass theirs). Loading
// @kubernetes/client-node costs most of a second and tens of MB (its generated API: thousands of modules;
// docs/benchmarks.md § "Where start-up, memory and CPU went"), so the
// common credentials are read here: certificate authority, client certificate and key (files or data),
// bearer token or token file, basic auth, insecure-skip-tls-verify, tls-server-name, and the in-cluster
// service account. Only a user with an `exec` plugin or an `auth-provider` loads client-node, lazily,
// and uses its KubeConfig.
// Token files (in-cluster tokens rotate) are re-read when the last read is a minute old, like client-go;
// certificate files are read once at load.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import type { RequestOptions } from 'node:https';
import { parseYaml } from '../util/yaml.js';
import { requireSupportedNode } from '../util/node-version.js';

/** How to reach and authenticate to one cluster: what the transport needs (a client-node KubeConfig fits). */
export interface ClusterAccess {
  getCurrentCluster(): { readonly server: string } | null;
  /** Adds TLS material and authentication headers to a request's options. */
  applyToHTTPSOptions(opts: RequestOptions): Promise<void>;
}

export class NoClusterConfiguredError extends Error {
  override name = 'NoClusterConfiguredError';
}

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
const TOKEN_FILE_REFRESH_MS = 60_000;

/** The namespace this process runs in: $POD_NAMESPACE, else the in-cluster service account's, else "default". */
export function podNamespace(env: NodeJS.ProcessEnv = process.env, serviceAccountDir = SERVICE_ACCOUNT_DIR): string {
  if (env.POD_NAMESPACE) return env.POD_NAMESPACE;
  const file = join(serviceAccountDir, 'namespace');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  return 'default';
}

export function clusterConfigured(kubeconfig?: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(kubeconfig || env.KUBECONFIG || env.KUBERNETES_SERVICE_HOST);
}

interface ClusterEntry { server: string; ca?: Buffer; skipTLSVerify: boolean; tlsServerName?: string }
interface UserEntry { cert?: Buffer; key?: Buffer; token?: string; tokenFile?: string; username?: string; password?: string }

/** A StaticKubeConfig as data another thread rebuilds it from (structured-cloneable: strings and Buffers). */
export interface StaticKubeConfigData { cluster: ClusterEntry; user: UserEntry }

/** A kubeconfig user and cluster with static credentials (no plugins). */
export class StaticKubeConfig implements ClusterAccess {
  private token: { value: string; readAt: number } | undefined;

  constructor(private readonly cluster: ClusterEntry, private readonly user: UserEntry, private readonly now: () => number = Date.now) {}

  /** Its entries, for another thread (a token file is named, not read: the thread reads it as this one would). */
  data(): StaticKubeConfigData {
    return { cluster: { ...this.cluster }, user: { ...this.user } };
  }

  getCurrentCluster(): { readonly server: string } {
    return { server: this.cluster.server };
  }

  async applyToHTTPSOptions(opts: RequestOptions): Promise<void> {
    const c = this.cluster;
    const u = this.user;
    if (c.skipTLSVerify) opts.rejectUnauthorized = false;
    if (c.tlsServerName) opts.servername = c.tlsServerName;
    if (c.ca) opts.ca = c.ca;
    if (u.cert) opts.cert = u.cert;
    if (u.key) opts.key = u.key;
    const headers = (opts.headers ??= {}) as Record<string, string>;
    const token = this.bearerToken();
    if (token) headers.Authorization = `Bearer ${token}`;
    else if (u.username !== undefined) headers.Authorization = `Basic ${Buffer.from(`${u.username}:${u.password ?? ''}`).toString('base64')}`;
  }

  private bearerToken(): string | undefined {
    if (this.user.token) return this.user.token;
    const file = this.user.tokenFile;
    if (!file) return undefined;
    if (!this.token || this.now() - this.token.readAt >= TOKEN_FILE_REFRESH_MS) {
      this.token = { value: readFileSync(file, 'utf8').trim(), readAt: this.now() };
    }
    return this.token.value;
  }
}

type Named<T> = { name?: unknown } & T;
type KubeconfigFile = {
  'current-context'?: unknown;
  clusters?: Named<{ cluster?: Record<string, unknown> }>[];
  users?: Named<{ user?: Record<string, unknown> }>[];
  contexts?: Named<{ context?: { cluster?: unknown; user?: unknown } }>[];
};

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Reads a kubeconfig file's current context; undefined when its user needs client-node (exec, auth-provider). */
export function readKubeconfigFile(path: string): StaticKubeConfig | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`kubeconfig ${path}: ${(e as Error).message}`, { cause: e });
  }
  return readKubeconfigText(text, path, dirname(path));
}

/** The current context of a kubeconfig text: its cluster and user entries (raw), named for errors. */
interface CurrentContext {
  path: string;
  clusterName: unknown;
  cluster: Record<string, unknown>;
  userName: unknown;
  user: Record<string, unknown>;
}

function currentContext(text: string, source: string): CurrentContext {
  const path = source;
  let doc: KubeconfigFile;
  try {
    const parsed = parseYaml(text, source) ?? {};
    if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('expected a mapping (apiVersion: v1, kind: Config)');
    doc = parsed as KubeconfigFile;
  } catch (e) {
    const m = (e as Error).message;
    throw new Error(m.startsWith(source) ? `kubeconfig ${m}` : `kubeconfig ${path}: ${m}`, { cause: e });
  }
  const named = <T>(list: Named<T>[] | undefined, name: unknown, what: string): T => {
    const hit = Array.isArray(list) ? list.find((e) => e?.name === name) : undefined;
    if (!hit) throw new Error(`kubeconfig ${path} has no ${what} ${JSON.stringify(name)}`);
    return hit;
  };
  const contextName = str(doc['current-context']);
  if (!contextName) throw new Error(`kubeconfig ${path} has no current context`);
  const context = named(doc.contexts, contextName, 'context').context ?? {};
  const cluster = named(doc.clusters, context.cluster, 'cluster').cluster ?? {};
  const user = context.user === undefined ? {} : named(doc.users, context.user, 'user').user ?? {};
  return { path, clusterName: context.cluster, cluster, userName: context.user, user };
}

/**
 * A kubeconfig held in memory: `source` names it in errors; file references resolve against `baseDir`
 * (none: only absolute paths). Undefined when its user needs client-node (exec, auth-provider). For a
 * kubeconfig someone else controls (a guest cluster's, from a Secret) use readUntrustedKubeconfigText.
 */
export function readKubeconfigText(text: string, source: string, baseDir?: string): StaticKubeConfig | undefined {
  const { path, clusterName, cluster, user } = currentContext(text, source);
  const resolve = (p: string) => {
    if (isAbsolute(p)) return p;
    if (baseDir === undefined) throw new Error(`kubeconfig ${path}: relative file reference ${JSON.stringify(p)} has nothing to resolve against`);
    return join(baseDir, p);
  };
  if (user.exec !== undefined || user['auth-provider'] !== undefined) return undefined;

  const server = str(cluster.server);
  if (!server) throw new Error(`kubeconfig ${path}: cluster ${JSON.stringify(clusterName)} has no server`);
  const fileOrData = (file: unknown, data: unknown): Buffer | undefined => {
    if (str(file)) return readFileSync(resolve(str(file)!));
    if (str(data)) return Buffer.from(str(data)!, 'base64');
    return undefined;
  };
  return new StaticKubeConfig(
    {
      server,
      ca: fileOrData(cluster['certificate-authority'], cluster['certificate-authority-data']),
      skipTLSVerify: cluster['insecure-skip-tls-verify'] === true,
      tlsServerName: str(cluster['tls-server-name']),
    },
    {
      cert: fileOrData(user['client-certificate'], user['client-certificate-data']),
      key: fileOrData(user['client-key'], user['client-key-data']),
      token: str(user.token),
      tokenFile: str(user.tokenFile) ? resolve(str(user.tokenFile)!) : undefined,
      username: str(user.username),
      password: typeof user.password === 'string' ? user.password : undefined,
    },
  );
}

/** The largest untrusted kubeconfig read (HyperShift's are a few KiB: a CA bundle and a client certificate). */
export const MAX_UNTRUSTED_KUBECONFIG_BYTES = 256 * 1024;

export interface UntrustedKubeconfigOptions {
  /** Accept `insecure-skip-tls-verify: true` (test set-ups only; a coordinator flag). Default: refused. */
  allowInsecureSkipTLSVerify?: boolean;
}

/** An untrusted kubeconfig asks for something this process will not do; the message names the field. */
export class UntrustedKubeconfigError extends Error {
  override name = 'UntrustedKubeconfigError';
}

/**
 * A kubeconfig someone else controls (a guest cluster's admin kubeconfig, from a Secret in its HCP's
 * namespace), read as data: the credentials must be inline. Refused, naming the field, before anything is
 * read or sent: any file reference (certificate-authority, client-certificate, client-key, tokenFile) — it
 * would make this process read, and send, its own files (its ServiceAccount token); an exec plugin or auth
 * provider — it would run a command here; `proxy-url`; a server that is not `https://`; and, unless
 * allowed, `insecure-skip-tls-verify`. Relative or absolute, nothing is resolved against this process's disk.
 */
export function readUntrustedKubeconfigText(text: string, source: string, options: UntrustedKubeconfigOptions = {}): StaticKubeConfig {
  if (Buffer.byteLength(text) > MAX_UNTRUSTED_KUBECONFIG_BYTES) {
    throw new UntrustedKubeconfigError(`kubeconfig ${source} is larger than ${MAX_UNTRUSTED_KUBECONFIG_BYTES} bytes`);
  }
  const { cluster, clusterName, user, userName } = currentContext(text, source);
  const refuse = (field: string, why: string) => {
    throw new UntrustedKubeconfigError(`kubeconfig ${source}: ${field} is not accepted in a guest kubeconfig (${why})`);
  };
  const c = `clusters[${JSON.stringify(clusterName)}].cluster`;
  const u = `users[${JSON.stringify(userName)}].user`;
  const file = 'a file reference; put the data inline';
  if (cluster['certificate-authority'] !== undefined) refuse(`${c}.certificate-authority`, `${file} (certificate-authority-data)`);
  if (cluster['proxy-url'] !== undefined) refuse(`${c}.proxy-url`, 'requests go to the server itself');
  if (cluster['insecure-skip-tls-verify'] === true && !options.allowInsecureSkipTLSVerify) {
    refuse(`${c}.insecure-skip-tls-verify`, 'the server must prove who it is; only --allow-insecure-guest-tls accepts this');
  }
  if (user['client-certificate'] !== undefined) refuse(`${u}.client-certificate`, `${file} (client-certificate-data)`);
  if (user['client-key'] !== undefined) refuse(`${u}.client-key`, `${file} (client-key-data)`);
  if (user.tokenFile !== undefined || user['token-file'] !== undefined) refuse(`${u}.tokenFile`, `${file} (token)`);
  if (user.exec !== undefined) refuse(`${u}.exec`, 'no command is run for a guest');
  if (user['auth-provider'] !== undefined) refuse(`${u}.auth-provider`, 'no command is run for a guest');
  const server = str(cluster.server);
  if (!server) throw new UntrustedKubeconfigError(`kubeconfig ${source}: ${c}.server is missing`);
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new UntrustedKubeconfigError(`kubeconfig ${source}: ${c}.server is not a URL`);
  }
  if (url.protocol !== 'https:') refuse(`${c}.server ${url.protocol}//…`, 'only https:// servers');
  if (url.username || url.password) refuse(`${c}.server with user information`, 'credentials belong in the user entry');
  const data = (v: unknown): Buffer | undefined => (str(v) ? Buffer.from(str(v)!, 'base64') : undefined);
  return new StaticKubeConfig(
    {
      server: url.origin + url.pathname.replace(/\/$/, ''),
      ca: data(cluster['certificate-authority-data']),
      skipTLSVerify: cluster['insecure-skip-tls-verify'] === true,
      tlsServerName: str(cluster['tls-server-name']),
    },
    {
      cert: data(user['client-certificate-data']),
      key: data(user['client-key-data']),
      token: str(user.token),
      username: str(user.username),
      password: typeof user.password === 'string' ? user.password : undefined,
    },
  );
}

/** The pod's service account, as client-go's in-cluster config. */
export function inClusterConfig(env: NodeJS.ProcessEnv = process.env, dir = SERVICE_ACCOUNT_DIR): StaticKubeConfig {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) throw new NoClusterConfiguredError('not in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set');
  const tokenFile = join(dir, 'token');
  if (!existsSync(tokenFile)) throw new Error(`in-cluster config: ${tokenFile} does not exist`);
  const hostPart = host.includes(':') ? `[${host}]` : host;
  const caFile = join(dir, 'ca.crt');
  return new StaticKubeConfig(
    { server: `https://${hostPart}:${port}`, ca: existsSync(caFile) ? readFileSync(caFile) : undefined, skipTLSVerify: false },
    { tokenFile },
  );
}

export async function loadKubeConfig(kubeconfig?: string, env: NodeJS.ProcessEnv = process.env): Promise<ClusterAccess> {
  const path = kubeconfig ?? env.KUBECONFIG?.split(':').find((p) => p && existsSync(p));
  if (path) {
    if (!existsSync(path)) throw new Error(`kubeconfig ${path} does not exist`);
    const fast = readKubeconfigFile(path);
    if (fast) return fast;
    // exec plugins and auth providers: client-node's implementation, loaded only for them.
    requireSupportedNode(`kubeconfig ${path} (its user runs an exec plugin or auth provider)`);
    const { KubeConfig } = await import('@kubernetes/client-node');
    const kc = new KubeConfig();
    kc.loadFromFile(path);
    if (!kc.getCurrentCluster()) throw new Error(`kubeconfig ${path} has no current cluster`);
    return kc;
  }
  if (env.KUBERNETES_SERVICE_HOST) return inClusterConfig(env);
  throw new NoClusterConfiguredError('no cluster configured: pass --kubeconfig, set KUBECONFIG, or run in a pod');
}
