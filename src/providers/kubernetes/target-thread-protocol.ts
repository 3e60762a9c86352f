/**
 * The messages between the main thread (target-thread.ts) and the thread that sends the
 * target clients' requests (target-request-worker.ts). Small and flat: a request is its
 * method, URL, headers and body text; an answer its status and body text, or an error's code
 * and message.
 */

/** The error message of a call made through a client after its `close`. */
export const CLOSED_CLIENT =
  "the client of this target was closed (its Provider's credentials changed, or it was not used for long): the next reconcile makes a new one";

/** The TLS options of one target client's connections (the CA, a client certificate, a server name). */
export interface ThreadTls {
  ca?: string;
  cert?: string;
  key?: string;
  servername?: string;
}

export type ThreadCommand =
  | { op: 'open'; client: number; tls: ThreadTls; maxSockets: number }
  | { op: 'close'; client: number }
  | {
      op: 'request';
      id: number;
      client: number;
      method: string;
      url: string;
      headers: Record<string, string | number>;
      body: string | undefined;
      /** The most the answer's body may hold; past it the request is destroyed and answered `tooLarge`. */
      maxBytes: number;
    }
  | { op: 'cancel'; id: number };

export type ThreadAnswer =
  | { id: number; status: number; text: string; tooLarge?: undefined; error?: undefined }
  | { id: number; tooLarge: true; status?: undefined; error?: undefined }
  | { id: number; error: { code: string | undefined; message: string }; status?: undefined; tooLarge?: undefined };
