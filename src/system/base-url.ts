// {base_url} of the documented interface (Location headers, feed and label URLs): PUBLIC_URL
// when set, else the request's own protocol and Host, or outside a request (connector runs,
// jobs) the address the daemon listens on.

/** {base_url} of a request: PUBLIC_URL, else the request's own protocol and Host. */
export const baseUrl = (request: { protocol: string; host: string }, publicUrl: string | undefined): string =>
  publicUrl ?? `${request.protocol}://${request.host}`;

/** {base_url} outside a request: PUBLIC_URL, else http://HOST:PORT (an IPv6 host in brackets). */
export const configuredBaseUrl = ({ publicUrl, host, port }: { publicUrl?: string | undefined; host: string; port: number }): string =>
  publicUrl ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
