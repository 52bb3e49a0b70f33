// /statusz and /flagz as Kubernetes components serve them (k8s.io/apiserver pkg/server/statusz and flagz, v0.36;
// KEP-4827, KEP-4828): the answer to one request, chosen from its Accept header and rendered, without I/O.
//  - An empty Accept, or one whose first acceptable clause is text/plain (`*/*` counts), gets the plain text page:
//    a header naming the component, a warning that the page is not for machines, then the fields with a
//    delimiter drawn at random per response (statusz) or once per process (flagz), so nobody parses it.
//  - `application/json` or `application/yaml` with `as=Statusz|Flagz;v=v1alpha1|v1beta1;g=config.k8s.io` gets
//    the structured document (v1alpha1 with a deprecation warning); anything else 406 with a Status.
// Clauses are taken in the order the server's Accept parser sorts them (quality, then concrete before wildcard);
// `?pretty=true` or a curl, Wget or browser User-Agent indents JSON, as the API server does.
import { stringify } from 'yaml';
import { sortKeys } from './deep-equal.js';

export type ZPage = 'statusz' | 'flagz';
const KIND: Record<ZPage, string> = { statusz: 'Statusz', flagz: 'Flagz' };
const GROUP = 'config.k8s.io';
const VERSIONS = ['v1alpha1', 'v1beta1'] as const;
const DEPRECATED = new Set(['v1alpha1']);
/** The serializers in the order the server offers them (its 406 says this list). */
const OFFERED = ['application/json', 'application/yaml', 'text/plain'] as const;
/** API paths statusz does not list (upstream's non-debugging endpoints). */
const NOT_FOR_DEBUGGING = new Set(['/apis', '/api', '/openid', '/openapi', '/.well-known']);
export const Z_PAGE_DELIMITERS = [':', ': ', '=', ' '] as const;

interface Clause { type: string; subType: string; q: number; params: Map<string, string> }

/** The Accept header split and ordered as the Go server's parser does it (no lower-casing; q=0 kept). */
export function acceptClauses(header: string): Clause[] {
  const out: Clause[] = [];
  for (const raw of header.split(',')) {
    const [range = '', ...paramParts] = raw.trim().split(';');
    const parts = range.split('/');
    if (parts.length > 2) continue;
    const type = parts[0]!.trim();
    const subType = parts.length === 2 ? parts[1]!.trim() : type === '*' ? '*' : undefined;
    if (subType === undefined) continue;
    const clause: Clause = { type, subType, q: 1, params: new Map() };
    for (const p of paramParts) {
      const kv = p.split('=');
      if (kv.length !== 2) continue;
      const key = kv[0]!.trim();
      if (key === 'q') clause.q = /^\s*[0-9.]+\s*$/.test(kv[1]!) ? Number(kv[1]) : 0;
      else clause.params.set(key, kv[1]!.trim());
    }
    out.push(clause);
  }
  // Go's sort.Sort over the parser's comparator, which is no strict order (a concrete type outranks a wildcard
  // whatever their qualities when the first's is not higher): an insertion sort, as sort.Sort is for ≤ 12 clauses.
  const less = (a: Clause, b: Clause) => a.q > b.q || (a.type !== '*' && b.type === '*') || (a.subType !== '*' && b.subType === '*');
  for (let i = 1; i < out.length; i++) {
    for (let j = i; j > 0 && less(out[j]!, out[j - 1]!); j--) [out[j - 1], out[j]] = [out[j]!, out[j - 1]!];
  }
  return out;
}

type Offered = (typeof OFFERED)[number];
interface Match { mediaType: Offered; version?: string; pretty: boolean }

/** The first offered serializer a clause accepts under `allows` (upstream's restrictions: which conversions an endpoint makes). */
function negotiate(header: string, allows: Restriction): Match | undefined {
  for (const c of acceptClauses(header)) {
    for (const offered of OFFERED) {
      const [type, subType] = offered.split('/');
      if (!((c.type === type && (c.subType === subType || c.subType === '*')) || (c.type === '*' && c.subType === '*'))) continue;
      let gvk: { kind?: string; version?: string; group?: string } | undefined;
      let refused = false;
      for (const [k, v] of c.params) {
        if (k === 'as') gvk = { ...gvk, kind: v };
        else if (k === 'v') gvk = { ...gvk, version: v };
        else if (k === 'g') gvk = { ...gvk, group: v };
        else if (k === 'sv' && v) refused = true;
        else if (k === 'stream' && v && !(offered === 'application/json' && v === 'watch' && allows.watch)) refused = true;
      }
      if (!refused && allows.transform(offered, gvk)) return { mediaType: offered, ...(gvk?.version ? { version: gvk.version } : {}), pretty: c.params.get('pretty') === '1' };
    }
  }
  return undefined;
}

/** Which conversions an endpoint makes (`as`, `v`, `g`), and whether it streams watches. */
interface Restriction {
  transform(mediaType: Offered, gvk: { kind?: string; version?: string; group?: string } | undefined): boolean;
  watch: boolean;
}

/** The page's own: text/plain as it is, JSON and YAML only as a known version of the page's kind; no streams. */
const pageOnly = (page: ZPage): Restriction => ({
  transform: (mediaType, gvk) => mediaType === 'text/plain' ? gvk === undefined
    : gvk?.kind === KIND[page] && gvk.group === GROUP && (VERSIONS as readonly (string | undefined)[]).includes(gvk.version),
  watch: false,
});
/** The API server's default, with which it writes an error: no conversion asked for. */
const plainOnly: Restriction = { transform: (_mediaType, gvk) => gvk === undefined, watch: true };

export interface ZPageRequest { accept?: string; userAgent?: string; query?: string }

export interface ZPageAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What fills a statusz document: the component's facts. */
export interface StatuszFacts {
  name: string;
  /** The process start, whole seconds (ms since the epoch). */
  startedMs: number;
  nowMs: number;
  /** Go components say `runtime.Version()` here; a Node.js process says its runtime the same way (`node24.11.1`). */
  runtimeVersion: string;
  binaryVersion: string;
  emulationVersion?: string;
  /** The paths served beside this page (their first segment is listed, sorted, as upstream aggregates them). */
  paths: readonly string[];
}

function prettyAsked(r: ZPageRequest): boolean {
  const pretty = new URLSearchParams(r.query ?? '').get('pretty');
  if (pretty) return pretty === 'true' || pretty === '1' || pretty === 't' || pretty === 'T' || pretty === 'TRUE' || pretty === 'True';
  return /^(curl|Wget|Mozilla\/5\.0)/.test(r.userAgent ?? '');
}

function encode(mediaType: 'application/json' | 'application/yaml', doc: unknown, pretty: boolean): string {
  // YAML from the API server is JSON converted, so its keys come sorted.
  if (mediaType === 'application/yaml') return stringify(sortKeys(doc), { lineWidth: 0 });
  return pretty ? JSON.stringify(doc, null, 2) : `${JSON.stringify(doc)}\n`;
}


function notAcceptable(r: ZPageRequest): ZPageAnswer {
  const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
    message: `only the following media types are accepted: ${OFFERED.join(', ')}`, reason: 'NotAcceptable', code: 406 };
  const m = negotiate(r.accept ?? '', plainOnly);
  if (!m || m.mediaType === 'text/plain') return { status: 406, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(status, null, 2) };
  return { status: 406, headers: { 'Content-Type': m.mediaType }, body: encode(m.mediaType, status, m.pretty || prettyAsked(r)) };
}

const escapeHTML = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&#34;', "'": '&#39;' })[c]!);
const header = (name: string, page: ZPage) =>
  `\n${name} ${page}\nWarning: This endpoint is not meant to be machine parseable, has no formatting compatibility guarantees and is for debugging purposes only.\n`;

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** Go's time.UnixDate layout, in UTC: `Thu Dec  3 21:06:07 UTC 2026`. */
function unixDate(ms: number): string {
  const d = new Date(ms);
  const hms = d.toISOString().slice(11, 19);
  return `${WEEKDAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${hms} UTC ${d.getUTCFullYear()}`;
}

function statuszDocument(f: StatuszFacts, version: string) {
  const folders = [...new Set(f.paths.map((p) => p.split('/')[1]).filter((s): s is string => !!s).map((s) => `/${s}`))]
    .filter((p) => !NOT_FOR_DEBUGGING.has(p)).sort();
  return {
    kind: 'Statusz', apiVersion: `${GROUP}/${version}`, metadata: { name: f.name },
    startTime: new Date(f.startedMs).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    uptimeSeconds: Math.max(0, Math.floor((f.nowMs - f.startedMs) / 1000)),
    goVersion: f.runtimeVersion, binaryVersion: f.binaryVersion,
    ...(f.emulationVersion ? { emulationVersion: f.emulationVersion } : {}),
    paths: folders.length ? folders : null,
  };
}

function statuszText(f: StatuszFacts, delimiter: string): string {
  const doc = statuszDocument(f, 'v1beta1');
  const d = escapeHTML(delimiter);
  const up = doc.uptimeSeconds;
  const uptime = `${Math.floor(up / 3600)} hr ${String(Math.floor(up / 60) % 60).padStart(2, '0')} min ${String(up % 60).padStart(2, '0')} sec`;
  const emulation = doc.emulationVersion ? `Emulation version${d} ${escapeHTML(doc.emulationVersion)}` : '';
  const paths = doc.paths ? `Paths${d} ${escapeHTML(doc.paths.join(' '))}` : '';
  return `${header(f.name, 'statusz')}\nStarted${d} ${escapeHTML(unixDate(f.startedMs))}\nUp${d} ${escapeHTML(uptime)}\n` +
    `Go version${d} ${escapeHTML(doc.goVersion)}\nBinary version${d} ${escapeHTML(doc.binaryVersion)}\n${emulation}\n${paths}\n`;
}

/** The flags, sorted, one `name<separator>value` a line (flagz' plain text). */
export function flagzText(name: string, flags: Readonly<Record<string, string>>, separator: string): string {
  return header(name, 'flagz') + Object.keys(flags).sort().map((k) => `${k}${separator}${flags[k]}\n`).join('');
}

/**
 * The answer to a request for `page`: `text()` renders the plain text page and `doc(version)` the structured one
 * (only the one chosen is rendered).
 */
export function answerZPage(page: ZPage, r: ZPageRequest, render: { text: () => string; doc: (version: string) => unknown }): ZPageAnswer {
  const text = (): ZPageAnswer => ({ status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: render.text() });
  if (!(r.accept ?? '').trim()) return text();
  const m = negotiate(r.accept!, pageOnly(page));
  if (!m) return notAcceptable(r);
  if (m.mediaType === 'text/plain') return text();
  const version = m.version!;
  return {
    status: 200,
    headers: {
      'Content-Type': `${m.mediaType};g=${GROUP};v=${version};as=${KIND[page]}`,
      ...(DEPRECATED.has(version) ? { Warning: `299 - "This version of the ${page} endpoint is deprecated. Please use a newer version."` } : {}),
    },
    body: encode(m.mediaType, render.doc(version), m.pretty || prettyAsked(r)),
  };
}

/** /statusz: `delimiter` is drawn per response by the caller. */
export function answerStatusz(r: ZPageRequest, facts: StatuszFacts, delimiter: string): ZPageAnswer {
  return answerZPage('statusz', r, { text: () => statuszText(facts, delimiter), doc: (v) => statuszDocument(facts, v) });
}

/** /flagz: `text` is the page rendered once for the process (its separator drawn once, as upstream caches it). */
export function answerFlagz(r: ZPageRequest, name: string, flags: Readonly<Record<string, string>>, text: string): ZPageAnswer {
  const sorted = Object.fromEntries(Object.keys(flags).sort().map((k) => [k, flags[k]!]));
  return answerZPage('flagz', r, {
    text: () => text,
    doc: (v) => ({ kind: 'Flagz', apiVersion: `${GROUP}/${v}`, metadata: { name }, ...(Object.keys(sorted).length ? { flags: sorted } : {}) }),
  });
}
