// Text from outside the process (an API server's error message, a guest's answer) made fit to show: control
// characters (terminal escapes, newlines, NULs, C1 controls, bidi overrides) become spaces and anything past
// `max` characters is cut with a marker that says how much was cut. Logs, Events, status records and the
// CLI's output all take untrusted text through here, so one hostile answer is never a megabyte anywhere.

/** The most characters of an untrusted message kept (an Event's message keeps 1,024 too). */
export const MAX_UNTRUSTED_MESSAGE_CHARS = 1024;

// C0 and C1 controls, DEL, and the bidi embedding/override/isolate characters (a "Trojan source" display).
// eslint-disable-next-line no-control-regex
const UNSHOWABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** `text` with control characters replaced by spaces, cut to `max` characters with a "… [N more characters]" marker. */
export function boundedText(text: string, max = MAX_UNTRUSTED_MESSAGE_CHARS): string {
  // Cut before cleaning: a 2 MiB message is never scanned in full.
  const head = text.length > max ? text.slice(0, max) : text;
  const clean = head.replace(UNSHOWABLE, ' ');
  return text.length > max ? `${clean}… [${text.length - max} more characters]` : clean;
}
