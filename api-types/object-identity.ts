// Whether an object a server answered is one the question asked for: its kind, name and namespace against the
// list or watch that brought it. A server's answer is untrusted (a hosted guest's API server is its tenant's): an
// object of another kind, name or namespace, or one without the identity fields, is never the answer, whatever
// its size or content. Pure: the reflector asks it for every listed item and every watch event.
import { boundedText } from './untrusted-text.js';

/** What a list or watch asked for. */
export interface AskedFor {
  /** The resource's kind ("FeatureGate"); an object that names another kind is foreign (one that names none is judged by its metadata). */
  kind: string;
  /** Cluster-scoped resources carry no namespace; namespaced ones must name one. */
  namespaced: boolean;
  /** The namespace of the collection (absent: every namespace). */
  namespace?: string;
  /** The one name asked for (a `metadata.name` field selector). */
  name?: string;
}

/** The longest object name Kubernetes accepts (a DNS subdomain). */
export const MAX_OBJECT_NAME_CHARS = 253;
/** The longest namespace name (a DNS label). */
const MAX_NAMESPACE_CHARS = 63;
/** How much of an untrusted name an explanation quotes. */
const QUOTED_NAME_CHARS = 80;

const quote = (s: string) => JSON.stringify(boundedText(s, QUOTED_NAME_CHARS));

/**
 * Why `raw` is not an object the question asked for, or undefined when it is. The explanation quotes at most a
 * few dozen characters of what the server sent, cleaned of control characters.
 */
export function foreignObjectReason(raw: unknown, asked: AskedFor): string | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'not an object';
  const o = raw as { kind?: unknown; metadata?: unknown };
  if (o.kind !== undefined && o.kind !== asked.kind) {
    return `kind ${typeof o.kind === 'string' ? quote(o.kind) : typeof o.kind}, not ${asked.kind}`;
  }
  if (typeof o.metadata !== 'object' || o.metadata === null || Array.isArray(o.metadata)) return 'no metadata';
  const { name, namespace } = o.metadata as { name?: unknown; namespace?: unknown };
  if (typeof name !== 'string' || name === '') return 'no metadata.name';
  if (name.length > MAX_OBJECT_NAME_CHARS) return `a name of ${name.length} characters (at most ${MAX_OBJECT_NAME_CHARS})`;
  if (asked.name !== undefined && name !== asked.name) return `name ${quote(name)}, not ${JSON.stringify(asked.name)}`;
  if (!asked.namespaced) {
    if (namespace !== undefined && namespace !== '') return `a namespace (${typeof namespace === 'string' ? quote(namespace) : typeof namespace}) on a cluster-scoped ${asked.kind}`;
    return undefined;
  }
  if (typeof namespace !== 'string' || namespace === '') return 'no metadata.namespace';
  if (namespace.length > MAX_NAMESPACE_CHARS) return `a namespace of ${namespace.length} characters (at most ${MAX_NAMESPACE_CHARS})`;
  if (asked.namespace !== undefined && namespace !== asked.namespace) return `namespace ${quote(namespace)}, not ${JSON.stringify(asked.namespace)}`;
  return undefined;
}
