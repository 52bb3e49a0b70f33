// The z-pages' negotiation and rendering (api-types/z-pages.ts) where the integration test against a real
// kube-scheduler cannot steer it: the order of Accept clauses, the query's pretty, the text layout, secrets.
import { describe, expect, it } from '@jest/globals';
import { acceptClauses, answerFlagz, answerStatusz, flagzText, type StatuszFacts } from '../../api-types/index.js';
import { flagzFlags, type CommandSpec } from '../../cmd/args.js';

const facts: StatuszFacts = {
  name: 'featuregates-operator', startedMs: Date.UTC(2026, 11, 3, 21, 6, 7), nowMs: Date.UTC(2026, 11, 3, 22, 7, 9, 900),
  runtimeVersion: 'node24.11.1', binaryVersion: '0.9.0', paths: ['/metrics', '/flagz', '/healthz/ready', '/apis/x'],
};
const STRUCTURED = 'application/json;as=Statusz;v=v1beta1;g=config.k8s.io';

describe('z-pages', () => {
  it('orders Accept clauses as Go\'s sort.Sort does with the parser\'s comparator (a concrete type outranks a wildcard of higher quality; q=0 kept)', () => {
    const c = acceptClauses('*/*;q=0.9, text/*, text/plain;q=0, application/json ;as=X, bad, a/b/c');
    expect(c.map((x) => `${x.type}/${x.subType};${x.q}`)).toEqual(['application/json;1', 'text/plain;0', 'text/*;1', '*/*;0.9']);
    expect(c[0]!.params.get('as')).toBe('X');
  });

  it('answers the text page for text/plain at a higher quality than the structured one, and the structured one otherwise', () => {
    expect(answerStatusz({ accept: `text/plain;q=0.9, ${STRUCTURED};q=0.5` }, facts, '=').headers['Content-Type']).toBe('text/plain; charset=utf-8');
    expect(answerStatusz({ accept: `text/plain;q=0.4, ${STRUCTURED};q=0.5` }, facts, '=').headers['Content-Type'])
      .toBe('application/json;g=config.k8s.io;v=v1beta1;as=Statusz');
  });

  it('lays out the text page as upstream: times in Go\'s UnixDate, uptime in hours, folders of the paths, no emulation line content', () => {
    const body = answerStatusz({}, facts, ': ').body;
    expect(body).toBe('\nfeaturegates-operator statusz\nWarning: This endpoint is not meant to be machine parseable, has no formatting compatibility guarantees ' +
      'and is for debugging purposes only.\n\nStarted:  Thu Dec  3 21:06:07 UTC 2026\nUp:  1 hr 01 min 02 sec\nGo version:  node24.11.1\n' +
      'Binary version:  0.9.0\n\nPaths:  /flagz /healthz /metrics\n');
  });

  it('indents JSON for ?pretty=true and for curl, never for other agents', () => {
    expect(answerStatusz({ accept: STRUCTURED, query: 'pretty=true' }, facts, ':').body.startsWith('{\n  "kind"')).toBe(true);
    expect(answerStatusz({ accept: STRUCTURED, userAgent: 'curl/8' }, facts, ':').body.startsWith('{\n')).toBe(true);
    expect(answerStatusz({ accept: STRUCTURED, userAgent: 'prometheus/3', query: 'pretty=false' }, facts, ':').body).toMatch(/^\{"kind":"Statusz".*\}\n$/);
  });

  it('flagz: sorted flags, a repeatable flag as a list, a secret CLASSIFIED, an unset one empty', () => {
    const cmd: CommandSpec = { name: 'x', usage: '', run: () => 0, options: {
      token: { type: 'string', help: '', classified: true }, zone: { type: 'string', help: '' }, all: { type: 'boolean', help: '' },
      component: { type: 'string', help: '', multiple: true }, unused: { type: 'string', help: '', classified: true },
    } };
    const flags = flagzFlags(cmd, { token: 's3cret', zone: 'a' }, {}, { component: ['a=1', 'b=2'] });
    expect(flags).toEqual({ token: 'CLASSIFIED', zone: 'a', all: 'false', component: '[a=1,b=2]', unused: '' });
    const text = flagzText('x', flags, '=');
    expect(text.split('\n').slice(3)).toEqual(['all=false', 'component=[a=1,b=2]', 'token=CLASSIFIED', 'unused=', 'zone=a', '']);
    expect(JSON.parse(answerFlagz({ accept: 'application/json;as=Flagz;v=v1alpha1;g=config.k8s.io' }, 'x', flags, text).body))
      .toEqual({ kind: 'Flagz', apiVersion: 'config.k8s.io/v1alpha1', metadata: { name: 'x' }, flags: { all: 'false', component: '[a=1,b=2]', token: 'CLASSIFIED', unused: '', zone: 'a' } });
  });
});
