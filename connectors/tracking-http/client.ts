// tracking-http's request: the URL template filled in ({base_url}, {tracking_code}, {carrier},
// the last two URL-encoded), the key in the configured header, and any fixed headers.
export interface HttpRequestOptions {
  base_url: string;
  url_template: string;
  auth_header?: string;
  auth_prefix: string;
  headers: Record<string, string>;
}

export function fillTemplate(template: string, values: { base_url: string; tracking_code: string; carrier: string }): string {
  return template
    .replaceAll('{base_url}', values.base_url.replace(/\/+$/, ''))
    .replaceAll('{tracking_code}', encodeURIComponent(values.tracking_code))
    .replaceAll('{carrier}', encodeURIComponent(values.carrier));
}

export function httpRequest(o: HttpRequestOptions, apiKey: string | null, trackingCode: string, carrier: string): { url: string; headers: Record<string, string> } {
  const headers: Record<string, string> = { ...o.headers };
  if (o.auth_header !== undefined && apiKey !== null) headers[o.auth_header] = `${o.auth_prefix}${apiKey}`;
  return { url: fillTemplate(o.url_template, { base_url: o.base_url, tracking_code: trackingCode, carrier }), headers };
}
