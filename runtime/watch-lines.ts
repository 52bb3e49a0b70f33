// A watch response is one JSON event per line, cut into chunks anywhere. lineSplitter feeds the chunks and
// calls `onLine` with each complete line, trimmed, empty lines skipped; `onLine` returning false stops the
// rest of that stream (it is being torn down). A line is never longer than `maxLineBytes`: when the bytes
// buffered without a newline pass it, `onTooLong` is called once and nothing more is read. Only the new chunk
// is searched for a newline (a long line costs linear time, not quadratic), and lines are decoded as UTF-8
// whole, so a character split across chunks is never broken.
export function lineSplitter(maxLineBytes: number, onTooLong: () => void, onLine: (line: string) => boolean | void): (chunk: Buffer | string) => void {
  let parts: Buffer[] = [];
  let buffered = 0;
  let done = false;
  return (input) => {
    if (done) return;
    let chunk = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
    for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a)) {
      if (buffered + nl > maxLineBytes) break;
      parts.push(chunk.subarray(0, nl));
      const line = (parts.length === 1 ? parts[0]! : Buffer.concat(parts)).toString('utf8').trim();
      parts = [];
      buffered = 0;
      chunk = chunk.subarray(nl + 1);
      if (line && onLine(line) === false) {
        done = true;
        return;
      }
    }
    const nl = chunk.indexOf(0x0a);
    if (buffered + (nl >= 0 ? nl : chunk.length) > maxLineBytes) {
      done = true;
      parts = [];
      onTooLong();
      return;
    }
    if (chunk.length > 0) {
      parts.push(chunk);
      buffered += chunk.length;
    }
  };
}
