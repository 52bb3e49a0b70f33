// A watch's response body as events (client-go's watch/streamwatcher.go): one JSON event a line, each at most the
// request's event bound; handed to the watcher in order. The stream ends once — cleanly, on a malformed or too
// large event, on a fault in the watcher's handling of one event (its owner watches again; the process goes on),
// or when the connection drops mid-stream — and never after the watcher aborted it.
import type { Readable } from 'node:stream';
import type { Registry } from 'prom-client';
import { ResponseTooLargeError } from './api-errors.js';
import type { Exchange } from './exchange.js';
import { MAX_OBJECT_BYTES } from './response-body.js';
import { lineSplitter } from './watch-lines.js';

export interface WatchHandle {
  abort(): void;
  /**
   * The watch's connection is health-checked by pings (HTTP/2): it may stay silent until its timeout (on HTTP/1.1
   * the reflector ends one silent past UNPINGED_SILENCE_MS).
   */
  readonly pinged: boolean;
}

export interface WatchRequest {
  path: string;
  query: Record<string, string | number | boolean | undefined>;
  /** Bound on the time until the response headers arrive, Retry-After waits included. */
  timeoutMs?: number;
  /** Ends the start of the watch, or a wait the server asked for (Retry-After) before it is sent again. */
  signal?: AbortSignal;
  /** The largest watch event (one line) read. Default MAX_OBJECT_BYTES. */
  maxEventBytes?: number;
  resource?: string;
  metrics?: Registry;
  /** Every decoded watch event. */
  onEvent(type: string, object: unknown): void;
  /** The stream ended: cleanly (undefined) or with an error. Called at most once, never after abort(). */
  onEnd(err?: Error): void;
}

export function streamWatchEvents(exchange: Exchange, stream: Readable, w: WatchRequest): WatchHandle {
  let aborted = false;
  let ended = false;
  const end = (err?: Error) => {
    if (ended || aborted) return;
    ended = true;
    exchange.cancel();
    w.onEnd(err);
  };
  const maxEventBytes = w.maxEventBytes ?? MAX_OBJECT_BYTES;
  stream.on('data', lineSplitter(maxEventBytes, () => {
    end(new ResponseTooLargeError('WATCH', w.path, maxEventBytes, 'watch event'));
  }, (line) => {
    if (aborted) return;
    let ev: { type?: unknown; object?: unknown };
    try {
      ev = JSON.parse(line) as { type?: unknown; object?: unknown };
    } catch {
      end(new Error(`WATCH ${w.path}: malformed watch event`));
      return false;
    }
    if (typeof ev.type !== 'string') return;
    try {
      w.onEvent(ev.type, ev.object);
    } catch (e) {
      end(new Error(`WATCH ${w.path}: handling an event failed: ${(e as Error)?.message ?? String(e)}`, { cause: e }));
      return false;
    }
  }));
  stream.on('end', () => end());
  stream.on('aborted', () => end(new Error(`WATCH ${w.path}: connection closed mid-stream`)));
  stream.on('error', (e: Error) => end(e));
  stream.on('close', () => end());
  return { abort: () => { aborted = true; exchange.cancel(); }, pinged: exchange.pinged };
}
