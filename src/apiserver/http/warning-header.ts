/**
 * warningHeaderValue is one `Warning: 299 - "<text>"` header value for an API warning. The text
 * often quotes what a client wrote (a field name, a region), so it may hold any character, and
 * Node refuses a header with a character above U+00FF (the request would end in a 500 after its
 * write was done). Quotes, backslashes and control characters are escaped as JSON escapes them;
 * every other character outside printable ASCII is written as `U+XXXX`, which every client
 * shows as it is (kubectl drops a warning whose bytes are not printable UTF-8).
 */
export function warningHeaderValue(text: string): string {
  const quoted = JSON.stringify(text).replace(/[^\x20-\x7e]/gu, (c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
  return `299 - ${quoted}`;
}
