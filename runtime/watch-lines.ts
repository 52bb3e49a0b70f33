// A watch response is one JSON event per line, cut into chunks anywhere. lineSplitter feeds the chunks and
// calls `onLine` with each complete line, trimmed, empty lines skipped; `onLine` returning false stops the
// rest of that chunk (the stream is being torn down).
export function lineSplitter(onLine: (line: string) => boolean | void): (chunk: string) => void {
  let buffered = '';
  return (chunk) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (line && onLine(line) === false) return;
    }
  };
}
