// A transport's connections, per TLS identity (its serialized TLS material: a content key, as client-go's
// transport cache): to an https server one or more HTTP/2 connections health-checked by pings (http2-session.ts),
// else — a server that did not agree to h2, a plain-http server, `http2` off or DISABLE_HTTP2 — a pooled keep-alive
// HTTP/1.1 agent whose sockets use TCP keep-alive (30 s idle as client-go's dialer; Node then probes ten times a
// second apart: a dead peer is noticed within 40 s). One TLS context per identity.
import type { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { SecureClientSessionOptions } from 'node:http2';
import { createSecureContext, type SecureContext, type SecureContextOptions } from 'node:tls';
import { RequestTimeoutError } from './api-errors.js';
import { http1Exchange, http2Exchange, type Exchange, type Target } from './exchange.js';
import { NotHttp2, PingedSession, type SessionTiming } from './http2-session.js';
import type { Logger } from '../log/logger.js';
import { http } from './node-http.js';

/** client-go's switch: a non-empty DISABLE_HTTP2 makes every connection HTTP/1.1. */
export const http2Disabled = (): boolean => Boolean(process.env.DISABLE_HTTP2);

export interface PoolSettings {
  /** Speak HTTP/2 where the server agrees (false: HTTP/1.1 always). */
  http2: boolean;
  /** The HTTP/2 health check of new connections. */
  http2Timing: SessionTiming;
  /** Told, once per server and identity, that it is spoken to over HTTP/1.1 because it refused h2. */
  logger?: Logger | undefined;
}

export class ConnectionPool {
  private readonly agents = new Map<string, HttpAgent>();
  private readonly contexts = new Map<string, SecureContext>();
  /** Per identity, its HTTP/2 connections: more than one when the streams of one exceed the server's limit. */
  private readonly sessions = new Map<string, PingedSession[]>();
  /** Identities whose server did not agree to HTTP/2: spoken to over HTTP/1.1 from then on. */
  private readonly http1Only = new Set<string>();
  private lastKey: { secure: boolean; tls: Record<string, unknown>; key: string } | undefined;

  constructor(private readonly settings: PoolSettings) {}

  /**
   * The key of a TLS identity: its serialized material (no need to hash it). Our kubeconfig reader hands out the
   * same Buffers on every request, so the last identity is kept and compared by reference first: no serialization
   * on the hot path. (client-node's KubeConfig reads files anew each time.)
   */
  identityKey(secure: boolean, tls: Record<string, unknown>): string {
    const last = this.lastKey;
    if (last && last.secure === secure && Object.keys(tls).every((k) => tls[k] === last.tls[k])) return last.key;
    const key = JSON.stringify([secure, tls], (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString('base64') : v));
    this.lastKey = { secure, tls, key };
    return key;
  }

  /**
   * Sends one exchange: over HTTP/2 unless the URL is plain HTTP, HTTP/2 is off or this identity's server did not
   * agree to it (then HTTP/1.1). `waitForConnection` bounds the wait for an HTTP/2 connection (a connect into a
   * black hole never finishes). `fence` is judged once the connection is up, immediately before the request is
   * written; when it throws nothing is written.
   */
  async exchange(t: Target, body: Buffer | undefined, waitForConnection: Promise<never>, fence?: () => void): Promise<Exchange> {
    while (this.speaksHttp2(t)) {
      const session = this.sessionFor(t);
      session.hold();
      try {
        await Promise.race([session.ready, waitForConnection]);
      } catch (e) {
        if (!(e instanceof NotHttp2)) {
          if (e instanceof RequestTimeoutError) session.destroy(); // a connection that never came up
          throw e;
        }
        if (!this.http1Only.has(t.key)) { // concurrent exchanges learn it together: said once
          this.http1Only.add(t.key);
          // Once per server and identity: its watches lose the pings that find a dead connection (runtime/cache/reflector.ts
          // bounds their silence instead), which is worth knowing when a server was expected to speak h2.
          this.settings.logger?.info('the server did not agree to HTTP/2; speaking HTTP/1.1 to it from now on', { server: t.url.origin, why: e.message });
        }
        continue;
      } finally {
        session.release();
      }
      fence?.();
      return http2Exchange(session, t, body);
    }
    return http1Exchange(t, this.agentFor(t), body, fence);
  }

  /** Closes pooled idle connections; open requests finish (an HTTP/2 connection takes no new streams). */
  close(): void {
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
    for (const pool of this.sessions.values()) for (const s of pool) s.close();
    this.sessions.clear();
    this.lastKey = undefined;
  }

  private speaksHttp2(t: Target): boolean {
    return t.secure && this.settings.http2 && !this.http1Only.has(t.key) && !http2Disabled();
  }

  /** The TLS material of an identity, as connection options with one secure context made once per identity. */
  private tlsOptions(t: Target): Record<string, unknown> {
    const set = Object.fromEntries(Object.entries(t.tls).filter(([, v]) => v !== undefined));
    const { ca, cert, key: privateKey, pfx, passphrase, ...connect } = set as Record<string, string | Buffer | boolean | undefined>;
    // One TLS context per identity: otherwise every new connection builds its own (parsing the CA and key
    // again), which was most of the CPU a hosted replica spent retrying unreachable guests.
    let secureContext = this.contexts.get(t.key);
    if (!secureContext) {
      secureContext = createSecureContext({ ca, cert, key: privateKey, pfx, passphrase } as SecureContextOptions);
      this.contexts.set(t.key, secureContext);
    }
    return { ...connect, secureContext };
  }

  private agentFor(t: Target): HttpAgent {
    let agent = this.agents.get(t.key);
    if (!agent) {
      // Idle keep-alive sockets kept: enough for a burst of concurrent requests (the hosted coordinator renews
      // its shard Leases together). With 4, the rest of each burst's sockets were closed and every burst paid
      // new TLS handshakes — most of an idle replica's CPU.
      const common = { keepAlive: true, keepAliveMsecs: 30_000, maxFreeSockets: 32, scheduling: 'lifo' as const };
      agent = t.secure ? new HttpsAgent({ ...common, ...this.tlsOptions(t) }) : new http.Agent(common);
      this.agents.set(t.key, agent);
    }
    return agent;
  }

  /**
   * An HTTP/2 connection of the identity with room for one more stream — a new one when none has (as Go's
   * HTTP/2 transport opens another connection when one is at the server's stream limit).
   */
  private sessionFor(t: Target): PingedSession {
    let pool = this.sessions.get(t.key);
    if (!pool) this.sessions.set(t.key, pool = []);
    const free = pool.find((s) => s.hasRoom);
    if (free) return free;
    const made: PingedSession = new PingedSession(t.url.origin, this.tlsOptions(t) as SecureClientSessionOptions, () => {
      const i = pool.indexOf(made);
      if (i >= 0) pool.splice(i, 1);
    }, this.settings.http2Timing);
    pool.push(made);
    return made;
  }
}
