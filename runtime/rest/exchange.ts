// One exchange with the API server — a request out, its status, headers and body back as a stream — over HTTP/1.1
// (a pooled keep-alive socket) or as a stream of an HTTP/2 connection. A write's fence is judged once the connection
// is up, immediately before the request's bytes leave: when it throws nothing is written.
import type { Agent as HttpAgent, ClientRequest, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { constants, type OutgoingHttpHeaders } from 'node:http2';
import type { Readable } from 'node:stream';
import { StreamRefused, type PingedSession } from './http2-session.js';
import { http } from './node-http.js';

/** A response on its way: its status line and headers, then its body as a stream. */
export interface Exchange {
  response: Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Readable }>;
  /** Gives up on the exchange (a timeout or an abort): the HTTP/1.1 socket is destroyed, an HTTP/2 stream cancelled. */
  cancel(): void;
  /** Its connection is health-checked by pings (HTTP/2): a watch on it may stay silent until its timeout. */
  readonly pinged: boolean;
}

export interface Target {
  url: URL;
  method: string;
  headers: Record<string, string | number>;
  secure: boolean;
  key: string;
  tls: Record<string, unknown>;
}

/**
 * An HTTP/1.1 exchange. Nothing is written until the request has a connected socket (a pooled one, or a new one
 * after its TLS handshake); then `fence` is judged and the request written at once — or, when it throws, the
 * request is destroyed unsent and the response rejects with the fence's error.
 */
export function http1Exchange(t: Target, agent: HttpAgent, body: Buffer | undefined, fence?: () => void): Exchange {
  const req: ClientRequest = (t.secure ? httpsRequest : http.request)(t.url, { method: t.method, headers: t.headers, agent });
  let refuse: (e: unknown) => void = () => undefined;
  const response = new Promise<Awaited<Exchange['response']>>((resolve, reject) => {
    let res: IncomingMessage | undefined;
    refuse = reject;
    // An error after the response arrived is the body's (a connection reset mid-stream).
    req.on('error', (e) => (res ? res.destroy(e) : reject(e)));
    req.on('response', (r) => {
      res = r;
      resolve({ status: r.statusCode ?? 0, headers: r.headers, body: r });
    });
  });
  response.catch(() => undefined);
  const send = () => {
    try {
      fence?.();
    } catch (e) {
      refuse(e);
      req.destroy();
      return;
    }
    req.end(body);
  };
  if (!fence) {
    req.end(body);
  } else {
    req.once('socket', (socket) => {
      if (!socket.connecting) send();
      else socket.once(t.secure ? 'secureConnect' : 'connect', send);
    });
  }
  return { response, cancel: () => req.destroy(), pinged: false };
}

export function http2Exchange(session: PingedSession, t: Target, body: Buffer | undefined): Exchange {
  const headers: OutgoingHttpHeaders = { [constants.HTTP2_HEADER_METHOD]: t.method, [constants.HTTP2_HEADER_PATH]: `${t.url.pathname}${t.url.search}` };
  for (const [k, v] of Object.entries(t.headers)) headers[k.toLowerCase()] = v;
  const stream = session.request(headers);
  const response = new Promise<Awaited<Exchange['response']>>((resolve, reject) => {
    let answered = false;
    stream.on('error', (e) => { if (!answered) reject(stream.rstCode === constants.NGHTTP2_REFUSED_STREAM ? new StreamRefused(t.method, t.url.pathname) : e); });
    stream.on('close', () => { if (!answered) reject(new Error(`${t.method} ${t.url.pathname}: the HTTP/2 stream closed before a response (code ${stream.rstCode})`)); });
    stream.on('response', (h) => {
      answered = true;
      resolve({
        status: Number(h[constants.HTTP2_HEADER_STATUS]),
        headers: h as Record<string, string | string[] | undefined>,
        body: stream,
      });
    });
  });
  response.catch(() => undefined);
  stream.end(body);
  return {
    response,
    cancel: () => {
      if (!stream.closed) stream.close(constants.NGHTTP2_CANCEL);
      session.check(); // a connection that swallowed this exchange may be dead: find out within the ping timeout
    },
    pinged: true,
  };
}
