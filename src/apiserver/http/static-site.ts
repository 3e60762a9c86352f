/**
 * A StaticSite serves the files of one flat directory under a path prefix, without
 * authentication: the web dashboard's shell at `/ui/` (its data calls are ordinary API
 * requests, authenticated and authorized like kubectl's). Only names made of letters, digits,
 * `.`, `_` and `-` are served (no sub-directories, no dot files); `<prefix>` alone is
 * `index.html`. A name carrying a content hash (`app-3FZK2QXA.js`) is cached for a year as
 * immutable; the rest (index.html) is revalidated on every load.
 */
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, errors } from '../../machinery/errors.js';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
};

/** A file name the site serves: one path segment, no dot file. */
const SERVED_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
/** esbuild's `[name]-[hash]`: eight upper-case base-32 characters before the extension. */
const HASHED_NAME = /-[A-Z0-9]{8}\.[a-z]+$/;

/**
 * The shell's policy: scripts, styles and data from this server only, no framing. Whatever a
 * tenant wrote is rendered as text by the app; this stops it running as code even if it were not.
 */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

export class StaticSite {
  /**
   * @param prefix the path it serves, ending in `/` (`/ui/`)
   * @param dir the directory holding index.html and the hashed assets
   */
  constructor(
    readonly prefix: string,
    private readonly dir: string,
  ) {
    if (!prefix.startsWith('/') || !prefix.endsWith('/')) throw new Error(`a static site's prefix starts and ends with "/", got ${JSON.stringify(prefix)}`);
  }

  /** Whether `path` is the site's (the prefix without its final `/` included). */
  owns(path: string): boolean {
    return path === this.prefix.slice(0, -1) || path.startsWith(this.prefix);
  }

  async serve(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') throw errors.methodNotAllowed(`${method} is not supported on ${path}: the dashboard's files are only read`);
    if (path === this.prefix.slice(0, -1)) {
      res.writeHead(301, { Location: this.prefix, 'Content-Length': 0 });
      res.end();
      return;
    }
    const name = path.slice(this.prefix.length) || 'index.html';
    if (!SERVED_NAME.test(name)) throw errors.pathNotFound(path.slice(0, 200));
    let body: Buffer;
    try {
      body = await readFile(join(this.dir, name));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && name === 'index.html') {
        throw new ApiError(
          404,
          'NotFound',
          'the dashboard is not built into this installation: run `npm run build` (it bundles src/dashboard/web into dist/dashboard)',
        );
      }
      if (code === 'ENOENT' || code === 'EISDIR') throw errors.pathNotFound(path.slice(0, 200));
      throw err;
    }
    const headers: Record<string, string | number> = {
      'Content-Type': CONTENT_TYPES[extname(name)] ?? 'application/octet-stream',
      'Content-Length': body.length,
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': HASHED_NAME.test(name) ? 'public, max-age=31536000, immutable' : 'no-cache',
    };
    if (name.endsWith('.html')) {
      headers['Content-Security-Policy'] = CONTENT_SECURITY_POLICY;
      headers['Referrer-Policy'] = 'no-referrer';
    }
    res.writeHead(200, headers);
    res.end(method === 'HEAD' ? undefined : body);
  }
}
