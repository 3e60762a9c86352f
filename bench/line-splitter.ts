/**
 * A LineSplitter cuts a stream of text chunks into newline-terminated lines, the framing
 * of a Kubernetes JSON watch stream (one event per line).
 */
export class LineSplitter {
  private rest = '';

  /** push adds a chunk and returns the lines it completed, without their newlines; empty lines are dropped. */
  push(chunk: string): string[] {
    const text = this.rest + chunk;
    const lines: string[] = [];
    let start = 0;
    for (let nl = text.indexOf('\n', start); nl !== -1; nl = text.indexOf('\n', start)) {
      const line = text.slice(start, nl).trim();
      if (line !== '') lines.push(line);
      start = nl + 1;
    }
    this.rest = text.slice(start);
    return lines;
  }

  /** pending returns the text received after the last newline. */
  pending(): string {
    return this.rest;
  }
}
