// One HTTP/2 connection to an API server, with the health check client-go's transport runs on its HTTP/2
// connections: after 30 s without any frame on the connection a PING is sent, and when no answer comes within
// 15 s the connection is presumed dead and destroyed — every request and watch on it fails at once and is
// retried on a new connection. That is what lets watches run for minutes (client-go's 5–10) and still notice a
// silently dropped path within 45 s, without a request of their own (docs/reliability.md). A request that
// timed out also asks for a check at once: a silent connection is then found 15 s later, not 45 s.
// The session holds the process open only while it carries a stream or one waits for it to connect (a CLI
// exits when its work is done).
// `ready` resolves once TLS is up and the server agreed to h2 (ALPN); a server that did not agree rejects it
// with NotHttp2, so the caller can speak HTTP/1.1 to it instead.
import { connect, constants, type ClientHttp2Session, type ClientHttp2Stream, type OutgoingHttpHeaders, type SecureClientSessionOptions } from 'node:http2';
import type { TLSSocket } from 'node:tls';

export interface SessionTiming {
  readIdleMs: number;
  pingTimeoutMs: number;
}

/** client-go's HTTP/2 health check: 30 s read-idle, 15 s ping timeout. */
export const CLIENT_GO_SESSION_TIMING: Readonly<SessionTiming> = { readIdleMs: 30_000, pingTimeoutMs: 15_000 };
const DEFAULT_MAX_STREAMS = 100;

/** The server did not agree to speak HTTP/2 on this connection. */
export class NotHttp2 extends Error {
  override name = 'NotHttp2';
}

/**
 * The server refused the stream (REFUSED_STREAM — as for every stream above the last one a GOAWAY names, when
 * kube-apiserver's --goaway-chance closes a connection): it did not process the request, which may be sent
 * again as it is, on another connection (Go's HTTP/2 transport does).
 */
export class StreamRefused extends Error {
  override name = 'StreamRefused';
  constructor(method: string, path: string) {
    super(`${method} ${path}: the API server refused the HTTP/2 stream (not processed)`);
  }
}

export class ConnectionSilent extends Error {
  override name = 'ConnectionSilent';
  readonly code = 'ECONNSILENT';
  constructor(origin: string, ms: number) {
    super(`${origin}: no answer to an HTTP/2 ping within ${ms} ms; the connection is presumed dead`);
  }
}

export class PingedSession {
  private readonly session: ClientHttp2Session;
  private streams = 0;
  private pingTimer: NodeJS.Timeout | undefined;
  private lost = false;
  private settingsKnown = false;
  private held = 0;
  /** Resolves when the connection speaks h2; rejects with NotHttp2 or the connection's error. */
  readonly ready: Promise<void>;

  constructor(private readonly origin: string, options: SecureClientSessionOptions, private readonly onGone: () => void,
    private readonly timing: SessionTiming) {
    this.session = connect(origin, { ...options, settings: { enablePush: false } });
    this.session.unref();
    this.ready = new Promise<void>((resolve, reject) => {
      this.session.once('connect', (_s, socket) => {
        if ((socket as TLSSocket).alpnProtocol !== 'h2') {
          const e = new NotHttp2(`${origin} did not agree to HTTP/2 (ALPN ${String((socket as TLSSocket).alpnProtocol)})`);
          this.destroy(e);
          reject(e);
          return;
        }
        resolve();
      });
      this.session.once('error', (e: Error & { code?: string }) => {
        reject(e.code === 'ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL' ? new NotHttp2(`${origin} did not agree to HTTP/2: ${e.message}`) : e);
      });
      this.session.once('close', () => reject(new Error(`${origin}: the connection closed before it was up`)));
    });
    this.ready.catch(() => undefined);
    this.session.once('remoteSettings', () => { this.settingsKnown = true; });
    this.session.on('error', () => this.gone());
    this.session.on('close', () => this.gone());
    // After GOAWAY the streams already open finish; new ones go to a new connection.
    this.session.on('goaway', () => this.gone());
    this.session.setTimeout(timing.readIdleMs, () => this.check());
  }

  /** The connection can take new streams. */
  get usable(): boolean {
    return !this.lost && !this.session.closed && !this.session.destroyed;
  }

  /**
   * It can take one more stream now: below the server's SETTINGS_MAX_CONCURRENT_STREAMS (kube-apiserver's
   * default here: 100), or below 100 — the least RFC 9113 recommends — until the server's settings arrive.
   * A stream over the limit would wait in the queue for one to close, and watches do not close for minutes.
   */
  get hasRoom(): boolean {
    const limit = this.settingsKnown ? this.session.remoteSettings.maxConcurrentStreams ?? DEFAULT_MAX_STREAMS : DEFAULT_MAX_STREAMS;
    return this.usable && this.streams + this.held < limit;
  }

  /** Keeps room for a stream about to be opened (while the caller waits for `ready`); `release` gives it back. */
  hold(): void {
    this.held++;
    this.refIfBusy();
  }

  release(): void {
    this.held--;
    this.refIfBusy();
  }

  /** Keeps the process alive while a stream is open or about to be. */
  private refIfBusy(): void {
    if (this.session.destroyed) return;
    if (this.streams + this.held > 0) this.session.ref();
    else this.session.unref();
  }

  /** A new stream (request) on this connection; the process is kept alive until it closes. */
  request(headers: OutgoingHttpHeaders): ClientHttp2Stream {
    const stream = this.session.request(headers);
    this.streams++;
    this.refIfBusy();
    stream.once('close', () => {
      this.streams--;
      this.refIfBusy();
    });
    return stream;
  }

  /** Pings the server unless a ping is already out; no answer within the ping timeout destroys the connection. */
  check(): void {
    if (this.pingTimer || !this.usable) return;
    const timeoutMs = this.timing.pingTimeoutMs;
    this.pingTimer = setTimeout(() => this.destroy(new ConnectionSilent(this.origin, timeoutMs)), timeoutMs);
    this.pingTimer.unref();
    const sent = this.session.ping((err) => {
      clearTimeout(this.pingTimer);
      this.pingTimer = undefined;
      if (err && !this.session.destroyed) this.destroy(err);
    });
    if (!sent) { clearTimeout(this.pingTimer); this.pingTimer = undefined; }
  }

  /** Finishes the open streams, takes no new ones. */
  close(): void {
    this.gone();
    if (!this.session.closed) this.session.close();
  }

  destroy(err?: Error): void {
    this.gone();
    clearTimeout(this.pingTimer);
    this.pingTimer = undefined;
    if (!this.session.destroyed) this.session.destroy(err, err ? constants.NGHTTP2_CANCEL : constants.NGHTTP2_NO_ERROR);
  }

  private gone(): void {
    if (this.lost) return;
    this.lost = true;
    this.onGone();
  }
}
