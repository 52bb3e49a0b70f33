// The bytes of one watch line or one response body as they arrive, gathered in a buffer the process keeps for that
// (a few, reused), not in the socket's chunks joined by a new allocation each time. A hostile guest's events and
// bodies of up to MAX_OBJECT_BYTES, read, judged and dropped, used to leave the allocator pages of each join behind
// (3–4 MB of RSS per hostile guest in the 2,010-HCP fleet): with the gathering buffers shared by every reader of
// the process, ten such guests cost the buffers, not ten times them. A run longer than a buffer, or one begun while
// every buffer is in use, gathers its chunks as before.

/** Buffers of `size` bytes, at most `most` of them, made when first needed and kept. */
export class GatherBuffers {
  private readonly free: Buffer[] = [];
  private made = 0;

  constructor(readonly size: number, private readonly most: number) {}

  take(): Buffer | undefined {
    const b = this.free.pop();
    if (b) return b;
    if (this.made >= this.most) return undefined;
    this.made++;
    return Buffer.allocUnsafeSlow(this.size);
  }

  give(b: Buffer): void {
    this.free.push(b);
  }

  /** Buffers made so far (kept for the process's life). */
  get count(): number {
    return this.made;
  }
}

/** Enough for the largest object read (MAX_OBJECT_BYTES, response-body.ts): four, shared by the whole process. */
export const GATHER_BUFFER_BYTES = 3 * 1024 * 1024;
export const gatherBuffers = new GatherBuffers(GATHER_BUFFER_BYTES, 4);

/** One run of bytes: in a gathering buffer while it fits, else its chunks. */
export class ByteRun {
  private buffer: Buffer | undefined;
  private parts: Buffer[] = [];
  private used = 0;

  constructor(private readonly pool: GatherBuffers = gatherBuffers) {}

  get length(): number {
    return this.used;
  }

  /** Adds `chunk[from, to)`; the chunk is not kept while the run is in a gathering buffer. */
  push(chunk: Buffer, from = 0, to = chunk.length): void {
    const n = to - from;
    if (n <= 0) return;
    if (this.parts.length === 0 && this.used === 0 && !this.buffer) this.buffer = this.pool.take();
    const b = this.buffer;
    if (b && this.used + n <= b.length) {
      chunk.copy(b, this.used, from, to);
    } else {
      if (b) {
        // Past the buffer: what it holds becomes the first part (copied out: the buffer goes back now).
        this.parts.push(Buffer.from(b.subarray(0, this.used)));
        this.pool.give(b);
        this.buffer = undefined;
      }
      this.parts.push(chunk.subarray(from, to));
    }
    this.used += n;
  }

  /** The run's bytes (valid until the next push or clear). */
  bytes(): Buffer {
    if (this.buffer) return this.buffer.subarray(0, this.used);
    return this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.used);
  }

  /** Empties the run, giving its buffer back. */
  clear(): void {
    if (this.buffer) this.pool.give(this.buffer);
    this.buffer = undefined;
    this.parts = [];
    this.used = 0;
  }
}
