// RBAC proofs: a request that must be refused with 403 Forbidden (any other outcome fails the test).
import { expect } from '@jest/globals';
import { statusCode } from '../../runtime/index.js';

export async function forbidden(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (e) {
    expect(statusCode(e)).toBe(403);
    return;
  }
  throw new Error('expected 403 Forbidden, but the request was allowed');
}
