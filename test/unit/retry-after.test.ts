// Which answers the transport sends again, and after how long (client-go's checkWait, with a 5xx's wait capped).
import { describe, expect, it } from '@jest/globals';
import { ApiError, MAX_5XX_RETRY_AFTER_MS, retryAfterMs } from '../../runtime/index.js';

const answer = (code: number, retryAfterSeconds?: number) => new ApiError(code, undefined, undefined, 'GET', '/x', retryAfterSeconds);

describe('retryAfterMs', () => {
  it('a 429 with Retry-After: the whole wait (priority-and-fairness shedding load)', () => {
    expect(retryAfterMs(answer(429, 3))).toBe(3000);
    expect(retryAfterMs(answer(429, 0))).toBe(0);
    expect(retryAfterMs(answer(429, 60))).toBe(60_000);
  });

  it('a 5xx with Retry-After: at most 1 s (kube-apiserver says 5 s while its paths are not installed yet)', () => {
    expect(retryAfterMs(answer(503, 5))).toBe(MAX_5XX_RETRY_AFTER_MS);
    expect(retryAfterMs(answer(500, 0))).toBe(0);
    expect(MAX_5XX_RETRY_AFTER_MS).toBe(1000);
  });

  it('no Retry-After, another status, or not an API answer: no retry here', () => {
    expect(retryAfterMs(answer(429))).toBeUndefined();
    expect(retryAfterMs(answer(503))).toBeUndefined();
    expect(retryAfterMs(answer(404, 1))).toBeUndefined();
    expect(retryAfterMs(answer(409, 1))).toBeUndefined();
    expect(retryAfterMs(new Error('ECONNRESET'))).toBeUndefined();
  });
});
