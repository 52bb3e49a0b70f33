// Reading a response body from an untrusted server, bounded: whole (JSON, up to a limit), line by line (a text
// body such as `/metrics`: nothing kept), or the start of an error body. A body past its bound is not read further
// (the stream is destroyed).
import type { Readable } from 'node:stream';
import { lineSplitter } from './watch-lines.js';

/**
 * The largest response body read for one object, and the largest watch event: etcd takes requests of up to
 * 1.5 MiB by default (a FeatureGate with 100 versions is about 1 MiB), and an object's JSON on the wire stays
 * under twice that.
 */
export const MAX_OBJECT_BYTES = 3 * 1024 * 1024;
/** The largest list response read (a list is many objects; lists of a guest's named object use MAX_OBJECT_BYTES). */
export const MAX_LIST_BYTES = 64 * 1024 * 1024;

/** The body, up to `limit` bytes: a longer one is not read further (the stream is destroyed) and rejects with `tooLarge`. */
export function readBody(res: Readable, limit: number, tooLarge: () => Error): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        chunks.length = 0;
        reject(tooLarge());
        res.destroy();
        return;
      }
      chunks.push(c);
    });
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
    res.on('aborted', () => reject(new Error('response aborted')));
  });
}

/** The longest line a text body (`/metrics`) may have. */
export const MAX_TEXT_LINE_BYTES = 64 * 1024;

/**
 * A text body line by line, up to `limit` bytes in all and MAX_TEXT_LINE_BYTES a line; nothing is kept.
 * `tooLarge` is told which bound was passed and what it bounds.
 */
export function readLines(res: Readable, limit: number, onLine: (line: string) => void, tooLarge: (bytes: number, what: string) => Error,
  prefixes?: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const fail = (e: Error) => { reject(e); res.destroy(); };
    const feed = lineSplitter(MAX_TEXT_LINE_BYTES, () => fail(tooLarge(MAX_TEXT_LINE_BYTES, 'response line')), (line) => { onLine(line); }, prefixes);
    res.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) return fail(tooLarge(limit, 'response body'));
      feed(c);
    });
    res.on('end', () => { feed('\n'); resolve(); });
    res.on('error', reject);
    res.on('aborted', () => reject(new Error('response aborted')));
  });
}

/** An error body is read up to this much (a Status is a few hundred bytes; its message is cut further). */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** The error body of a failed exchange (never more than MAX_ERROR_BODY_BYTES; a longer one reads as its start). */
export async function errorBody(res: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  return new Promise((resolve, reject) => {
    res.on('data', (c: Buffer) => {
      if (size >= MAX_ERROR_BODY_BYTES) return;
      chunks.push(c);
      size += c.length;
      if (size >= MAX_ERROR_BODY_BYTES) {
        res.destroy();
        resolve(Buffer.concat(chunks).toString('utf8', 0, MAX_ERROR_BODY_BYTES));
      }
    });
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}
