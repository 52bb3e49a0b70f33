// The one YAML reader: every document of a text, decoded to plain values, or an error that names the
// source and the line and column (`path:3:7: <what>`). JSON is YAML, so JSON files go through here too.
// Duplicate keys are an error (the yaml library's default), unlike go-yaml's keep-the-last. YAML 1.2 by
// default; `{ version: '1.1' }` reads as go-yaml v2 does (sigs.k8s.io/yaml): on/off/yes/no/y/n are booleans
// and `<<` merge keys apply.
import { parseAllDocuments, type DocumentOptions, type ParseOptions, type SchemaOptions } from 'yaml';

export class YamlSyntaxError extends Error {
  override name = 'YamlSyntaxError';

  /** `what` at `line`:`col` (1-based) of `source`; the message is `source:line:col: what`. */
  constructor(readonly source: string, readonly what: string, readonly line?: number, readonly col?: number) {
    super(`${source}${line !== undefined ? `:${line}:${col}` : ''}: ${what}`);
  }
}

export type YamlOptions = ParseOptions & DocumentOptions & SchemaOptions;

/** Every document in `text`, in order; empty documents are undefined. */
export function parseYamlDocuments(text: string, source: string, options: YamlOptions = {}): unknown[] {
  const docs = parseAllDocuments(text, options);
  // parseAllDocuments returns an EmptyStream (an array-like with `errors` of its own) for a text with no documents.
  if (!Array.isArray(docs)) return [];
  return docs.map((doc) => {
    const err = doc.errors[0];
    if (err) {
      const pos = err.linePos?.[0];
      const what = (err.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
      throw new YamlSyntaxError(source, what, pos?.line, pos?.col);
    }
    return (doc.toJS({ maxAliasCount: 100 }) as unknown) ?? undefined;
  });
}

/** A text that holds at most one document (undefined when it holds none). */
export function parseYaml(text: string, source: string, options: YamlOptions = {}): unknown {
  const docs = parseYamlDocuments(text, source, options);
  if (docs.length > 1) throw new YamlSyntaxError(source, `holds ${docs.length} YAML documents, expected one`);
  return docs[0];
}
