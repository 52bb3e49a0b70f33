// What a reflector is told (ReflectorOptions), what it says of itself (its phase), and the watch timings it keeps to.
import type { Registry } from 'prom-client';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../log/logger.js';

export interface ReflectorOptions {
  /** Watch only this object (fieldSelector metadata.name=<name>). */
  name?: string;
  /** Only objects with these labels (a label selector). */
  labelSelector?: string;
  /** With `name`: objects of that name in every namespace (the collection must be all namespaces). */
  watchList?: boolean;
  logger?: Logger;
  metrics?: Registry;
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  /** Relist at least this often (jittered +0–10 %). Default 10 minutes. */
  relistIntervalMs?: number;
  /** Server-side watch timeout range in seconds. Default [300, 600] (client-go's). */
  watchTimeoutSeconds?: [number, number];
  /**
   * Abort a watch that delivers nothing (not even a bookmark) for this long. Default: its timeout + 15 s on a pinged
   * (HTTP/2) connection, at most UNPINGED_SILENCE_MS on HTTP/1.1.
   */
  inactivityMs?: number;
  /** Called when list/watch starts failing (the first failure after a success); recovery relists and notifies as usual. */
  onFailing?: (error: string) => void;
  /** Called when a listing succeeds after failures (lastError() is undefined again), even if it lists nothing. */
  onRecovered?: () => void;
  /** The clock of its backoff, inactivity timer and relist interval (default the real monotonic one). */
  clock?: Clock;
  /**
   * A watch whose objects change faster than this (a token bucket of the reflector's, shared by all its watches:
   * changes per second, burst) is ended as a failure, and the backoff keeps growing until a watch runs its
   * course: a peer's object that changes that fast is someone's doing and would otherwise set this process's
   * pace. Default: no bound.
   */
  maxEventRate?: { perSecond: number; burst: number };
}

/** kube-rs watcher's states: what the reflector is doing now. */
export type ReflectorPhase = 'Empty' | 'InitPage' | 'InitListed' | 'Watching';

/** client-go's watch timeouts (minWatchTimeout 5 min, up to twice that). */
export const WATCH_SECONDS: [number, number] = [300, 600];
/**
 * The longest silence of a watch on a connection nothing pings (HTTP/1.1): the watch cache's first bookmark (~120 s
 * into a watch, measured on kube-apiserver v1.36.3; one a minute after it) and 30 s. A server that sends none has its
 * watches ended this often, a relist each time.
 */
export const UNPINGED_SILENCE_MS = 150_000;

export type ReflectorListener = (name: string) => void;

export interface ListenerOptions {
  /** Skip the objects a relist reports unchanged (same resourceVersion): only adds, updates and deletes. */
  changesOnly?: boolean;
}

/** A watch that lived this long ran its course: the backoff starts over, and the next watch starts at once. */
export const HEALTHY_WATCH_MS = 2_000;
