// Names and text a tenant or an HCP creator chooses, where they become something of ours (issue 44): the identity
// check of an answered object, the record key of an HCP, an Event's name, and a log line — each bounded and
// valid for every input, as properties.
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { MAX_OBJECT_NAME_CHARS, foreignObjectReason, isConfigMapKey, recordKey, type AskedFor } from '../../api-types/index.js';
import { createLogger, eventName } from '../../runtime/index.js';

// eslint-disable-next-line no-control-regex
const UNSHOWABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const dnsLabel = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);
const dnsSubdomain = fc.array(dnsLabel, { minLength: 1, maxLength: 8 }).map((ls) => ls.join('.').slice(0, 253).replace(/[-.]+$/, '') || 'a');

describe('foreignObjectReason', () => {
  const cluster: AskedFor = { kind: 'FeatureGate', namespaced: false, name: 'cluster' };
  const secrets: AskedFor = { kind: 'Secret', namespaced: true, name: 'kc' };
  it('accepts the object asked for, with or without its kind, and refuses every other', () => {
    expect(foreignObjectReason({ kind: 'FeatureGate', metadata: { name: 'cluster' } }, cluster)).toBeUndefined();
    expect(foreignObjectReason({ metadata: { name: 'cluster' } }, cluster)).toBeUndefined();
    expect(foreignObjectReason({ metadata: { name: 'kc', namespace: 'a' } }, secrets)).toBeUndefined();
    expect(foreignObjectReason({ metadata: { name: 'kc', namespace: 'a' } }, { ...secrets, namespace: 'a' })).toBeUndefined();
    const refused: [unknown, AskedFor, string][] = [
      [null, cluster, 'not an object'],
      [[], cluster, 'not an object'],
      [{ kind: 'Secret', metadata: { name: 'cluster' } }, cluster, 'kind "Secret", not FeatureGate'],
      [{ kind: 7, metadata: { name: 'cluster' } }, cluster, 'kind number, not FeatureGate'],
      [{ kind: 'FeatureGate' }, cluster, 'no metadata'],
      [{ metadata: { name: '' } }, cluster, 'no metadata.name'],
      [{ metadata: { name: 'other' } }, cluster, 'name "other", not "cluster"'],
      [{ metadata: { name: 'x'.repeat(254) } }, cluster, 'a name of 254 characters (at most 253)'],
      [{ metadata: { name: 'cluster', namespace: 'ns' } }, cluster, 'a namespace ("ns") on a cluster-scoped FeatureGate'],
      [{ metadata: { name: 'kc' } }, secrets, 'no metadata.namespace'],
      [{ metadata: { name: 'kc', namespace: 'b' } }, { ...secrets, namespace: 'a' }, 'namespace "b", not "a"'],
    ];
    for (const [raw, asked, reason] of refused) expect(foreignObjectReason(raw, asked)).toBe(reason);
  });

  it('says why in a few dozen clean characters, whatever the server sent', () => {
    fc.assert(fc.property(fc.anything(), fc.string({ maxLength: 5000 }), fc.string({ maxLength: 5000 }), (junk, name, kind) => {
      for (const raw of [junk, { kind, metadata: { name } }, { metadata: { name, namespace: name } }]) {
        const reason = foreignObjectReason(raw, cluster);
        if (reason === undefined) continue;
        expect(reason.length).toBeLessThan(300);
        expect(reason).not.toMatch(UNSHOWABLE);
      }
    }));
  });
});

describe('record keys', () => {
  it('are namespace_name for names that fit, and a valid ConfigMap key for every valid HCP', () => {
    expect(recordKey('clusters-a/a')).toBe('clusters-a_a');
    const long = `ns/${'l'.repeat(253)}`;
    expect(recordKey(long)).toMatch(/^ns_l{100}_[0-9a-f]{64}$/);
    fc.assert(fc.property(dnsLabel, dnsSubdomain, (ns, name) => {
      const key = recordKey(`${ns}/${name}`);
      expect(isConfigMapKey(key)).toBe(true);
      if (ns.length + name.length + 1 <= 253) expect(key).toBe(`${ns}_${name}`);
    }));
  });

  it('never collide: two HCPs, two keys (a long key has two "_", a plain one has one)', () => {
    fc.assert(fc.property(dnsLabel, dnsSubdomain, dnsLabel, dnsSubdomain, (ns1, n1, ns2, n2) => {
      fc.pre(`${ns1}/${n1}` !== `${ns2}/${n2}`);
      expect(recordKey(`${ns1}/${n1}`)).not.toBe(recordKey(`${ns2}/${n2}`));
    }));
    // Names that agree in their first 100 characters and differ after.
    const a = `ns/${'a'.repeat(200)}b`;
    const b = `ns/${'a'.repeat(200)}c`;
    expect(recordKey(a)).not.toBe(recordKey(b));
  });

  it('are valid for any string at all (a record is never refused for its key)', () => {
    fc.assert(fc.property(fc.string({ maxLength: 600 }), (s) => expect(isConfigMapKey(recordKey(s))).toBe(true)));
  });
});

describe('Event names', () => {
  it('keep client-go\'s <name>.<suffix> and fit 253 characters for every object name', () => {
    expect(eventName('neighbour', '0123456789abcdef')).toBe('neighbour.0123456789abcdef');
    fc.assert(fc.property(dnsSubdomain, (name) => {
      const e = eventName(name, '0123456789abcdef');
      expect(e.length).toBeLessThanOrEqual(MAX_OBJECT_NAME_CHARS);
      expect(e).toMatch(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?\.0123456789abcdef$/);
      expect(e).not.toContain('..');
    }));
  });
});

describe('log lines', () => {
  const lines = () => {
    const out: string[] = [];
    return { out, log: createLogger({ write: (l) => out.push(l), format: 'json', level: 'debug' }) };
  };

  it('bound and clean the message as they do fields: a 1 MiB name with escapes becomes one short, showable line', () => {
    const { out, log } = lines();
    const bomb = `\x1b[31m\u202e${'n'.repeat(1024 * 1024)}`;
    log.error(`malformed clusterversions/${bomb} ignored`, { nested: { deeper: [bomb] }, [bomb.slice(0, 300)]: 1 });
    log.with({ hcp: bomb }).info(bomb);
    for (const line of out) {
      expect(line.length).toBeLessThan(16 * 1024);
      expect(line).not.toContain('\u202e');
      expect(line).not.toContain('\\u001b');
    }
    expect(JSON.parse(out[0]!).msg).toMatch(/^malformed clusterversions\/ \[31m n+… \[\d+ more characters\]$/);
  });

  it('still write errors as their message and other values as JSON', () => {
    const { out, log } = lines();
    log.info('x', { error: new Error('boom'), n: 3, when: new Date(0), list: [1, 'a'] });
    expect(JSON.parse(out[0]!)).toMatchObject({ msg: 'x', error: 'boom', n: 3, when: '1970-01-01T00:00:00.000Z', list: [1, 'a'] });
  });
});
