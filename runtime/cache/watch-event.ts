// What one watch event means for a reflector (client-go's watchHandler, apart from the store): a bookmark moves the
// resource version (and may end the initial events of a watch-list), an ERROR or an event of unknown type ends the
// watch, an object the watch did not ask for ends it (the whole answer is refused), one that changes too fast ends
// it undecoded, and an object that does not decode is reported while the last good copy stays.
import { boundedText } from '../../api-types/untrusted-text.js';
import { foreignObjectReason, type AskedFor } from '../../api-types/object-identity.js';

export type Named = { metadata: { name?: string; namespace?: string; resourceVersion?: string } };

/** client-go's MetaNamespaceKeyFunc. */
export function objectKey(o: Named): string {
  const name = o.metadata.name ?? '';
  return o.metadata.namespace ? `${o.metadata.namespace}/${name}` : name;
}

/** A watch ended because its objects changed faster than the reflector's `maxEventRate`. */
export class WatchTooFast extends Error {}

/** A watch ended because it delivered nothing for longer than the reflector lets it stay silent. */
export class WatchInactive extends Error {
  constructor(ms: number) {
    super(`watch delivered nothing for ${ms} ms`);
  }
}

/** What a reflector's lists and watches ask for (its resource, the namespace, one name): every answer is judged against it. */
export function askedFor(resource: { kind: string; namespaced: boolean }, namespace?: string, name?: string): AskedFor {
  return { kind: resource.kind, namespaced: resource.namespaced, ...(namespace ? { namespace } : {}), ...(name ? { name } : {}) };
}

/** Throws ForeignObjectError when `raw` is not an object `asked` names; `answer` says whose answer it was ("the list of leases"). */
export function refuseForeign(raw: unknown, asked: AskedFor, answer: string): void {
  const reason = foreignObjectReason(raw, asked);
  if (reason !== undefined) throw new ForeignObjectError(`${answer} answered an object it did not ask for: ${reason}`);
}

/** A list or watch answered an object it was not asked for: the whole answer is refused. */
export class ForeignObjectError extends Error {
  override name = 'ForeignObjectError';
}

/** One event's meaning; `resourceVersion`, when present, is where the next watch starts. */
export type WatchStep<T> =
  | { kind: 'bookmark'; resourceVersion: string | undefined; initialEventsEnd: boolean }
  | { kind: 'end'; error: Error }
  | { kind: 'set'; name: string; object: T; resourceVersion: string | undefined }
  | { kind: 'delete'; name: string; resourceVersion: string | undefined }
  | { kind: 'malformed'; name: string; error: Error; resourceVersion: string | undefined };

export interface WatchEventRules<T> {
  /** The resource's plural, for messages. */
  plural: string;
  /** Throws ForeignObjectError when the object is not one the watch asked for. */
  checkAnswer(raw: unknown): void;
  decode(raw: unknown): T;
  /** The rate bound's error when this object's change is one too many; undefined while within it. */
  tooFast(name: string): Error | undefined;
}

export function readWatchEvent<T>(type: string, raw: unknown, rules: WatchEventRules<T>): WatchStep<T> {
  const obj = raw as {
    metadata?: { name?: string; namespace?: string; resourceVersion?: string; annotations?: Record<string, string> };
    code?: number;
    message?: string;
  } | null;
  if (type === 'BOOKMARK') {
    return { kind: 'bookmark', resourceVersion: obj?.metadata?.resourceVersion || undefined,
      initialEventsEnd: obj?.metadata?.annotations?.['k8s.io/initial-events-end'] === 'true' };
  }
  if (type === 'ERROR') {
    const message = typeof obj?.message === 'string' ? boundedText(obj.message) : 'unknown';
    return { kind: 'end', error: Object.assign(new Error(`watch error: ${message}`), { statusCode: obj?.code }) };
  }
  if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') {
    return { kind: 'end', error: new ForeignObjectError(`the watch of ${rules.plural} sent an event of unknown type ${JSON.stringify(boundedText(String(type), 40))}`) };
  }
  try {
    rules.checkAnswer(raw);
  } catch (e) {
    return { kind: 'end', error: e as Error };
  }
  const name = objectKey({ metadata: obj!.metadata! });
  // Not decoded, not stored: the next list (after the backoff) reads the object as it is then.
  const tooFast = rules.tooFast(name);
  if (tooFast) return { kind: 'end', error: tooFast };
  const resourceVersion = obj?.metadata?.resourceVersion || undefined;
  if (type === 'DELETED') return { kind: 'delete', name, resourceVersion };
  try {
    return { kind: 'set', name, object: rules.decode(raw), resourceVersion };
  } catch (e) {
    return { kind: 'malformed', name, error: e as Error, resourceVersion };
  }
}
