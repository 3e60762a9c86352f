/** uriHost writes a host for a URI's authority: an IPv6 address in brackets, anything else as it is. */
export function uriHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}
