// A watch response is one JSON event per line, cut into chunks anywhere. lineSplitter feeds the chunks and
// calls `onLine` with each complete line, trimmed, empty lines skipped; `onLine` returning false stops the
// rest of that stream (it is being torn down). A line is never longer than `maxLineBytes`: when the bytes
// buffered without a newline pass it, `onTooLong` is called once and nothing more is read. Only the new chunk
// is searched for a newline (a long line costs linear time, not quadratic), and lines are decoded as UTF-8
// whole, so a character split across chunks is never broken. With `prefixes`, a line whose bytes (after leading
// white space) start with none of them is dropped before it is decoded: a text body of megabytes (`/metrics`)
// of which a few lines are wanted costs no string per line.
/**
 * The newline search: the typed array's own indexOf, which allocates nothing per call (Buffer's wrapper allocates
 * ~56 bytes each, and this runs once a line) and is ~3× faster in the image's interpreter-only mode.
 */
const indexOf = Uint8Array.prototype.indexOf;
const NL = 0x0a;

export function lineSplitter(maxLineBytes: number, onTooLong: () => void, onLine: (line: string) => boolean | void,
  prefixes?: readonly string[]): (chunk: Buffer | string) => void {
  const heads = prefixes?.map((p) => Buffer.from(p, 'utf8'));
  // Byte by byte, allocating nothing: this runs for every line of a body of megabytes.
  const wanted = (b: Buffer, from: number, to: number) => {
    if (!heads) return true;
    while (from < to && (b[from] === 0x20 || b[from] === 0x09 || b[from] === 0x0d)) from++;
    for (let k = 0; k < heads.length; k++) {
      const h = heads[k]!;
      if (to - from < h.length) continue;
      let j = 0;
      while (j < h.length && b[from + j] === h[j]) j++;
      if (j === h.length) return true;
    }
    return false;
  };
  let parts: Buffer[] = [];
  let buffered = 0;
  let done = false;
  return (input) => {
    if (done) return;
    const chunk = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
    let start = 0;
    for (let nl = indexOf.call(chunk, NL); nl >= 0; nl = indexOf.call(chunk, NL, start)) {
      if (buffered + nl - start > maxLineBytes) break;
      let line: string | undefined;
      if (parts.length === 0) {
        if (wanted(chunk, start, nl)) line = chunk.toString('utf8', start, nl).trim();
      } else {
        parts.push(chunk.subarray(start, nl));
        const whole = Buffer.concat(parts);
        if (wanted(whole, 0, whole.length)) line = whole.toString('utf8').trim();
        parts = [];
        buffered = 0;
      }
      start = nl + 1;
      if (line && onLine(line) === false) {
        done = true;
        return;
      }
    }
    const nl = indexOf.call(chunk, NL, start);
    if (buffered + (nl >= 0 ? nl : chunk.length) - start > maxLineBytes) {
      done = true;
      parts = [];
      onTooLong();
      return;
    }
    if (chunk.length > start) {
      parts.push(chunk.subarray(start));
      buffered += chunk.length - start;
    }
  };
}
