// The frame of every dashboard page: navigation, the confirm dialog, the shared CSS and script.
import type { Problem } from '../../http/problem.ts';
import { html, type Html } from './html.ts';

export type Section = 'overview' | 'feeds' | 'jobs' | 'connectors' | 'orders' | 'webhooks' | 'logs' | 'shops';

export interface Nav {
  /** Which sections exist (feeds, orders and connectors appear once their areas are there). */
  sections: Section[];
}

const labels: Record<Section, [string, string]> = {
  overview: ['Overview', '/admin/'],
  feeds: ['Feeds', '/admin/feeds'],
  jobs: ['Jobs', '/admin/jobs'],
  connectors: ['Connectors', '/admin/connectors'],
  orders: ['Orders', '/admin/orders'],
  webhooks: ['Webhooks', '/admin/webhooks'],
  logs: ['Logs', '/admin/logs'],
  shops: ['Shops & keys', '/admin/shops'],
};

export function page(title: string, active: Section | null, nav: Nav, body: Html): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · waybill admin</title>
<link rel="stylesheet" href="/admin/assets/admin.css">
<script src="/admin/assets/admin.js" defer></script>
</head><body>
<header class="top"><a class="brand" href="/admin/">waybill</a>
<nav>${nav.sections.map((s) => html`<a href="${labels[s][1]}"${active === s ? html` class="active" aria-current="page"` : ''}>${labels[s][0]}</a>`)}</nav>
<form method="post" action="/admin/logout" class="logout"><button type="submit" class="link">Log out</button></form>
</header>
<main>${body}</main>
<dialog id="confirm"><form method="dialog"><p id="confirm-text"></p>
<div class="actions"><button value="cancel" class="secondary">Cancel</button><button value="ok" id="confirm-ok" class="danger">Confirm</button></div></form></dialog>
<div id="toast" role="status" aria-live="polite"></div>
</body></html>`.value;
}

export function loginPage(error: string | null, next: string): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Log in · waybill admin</title><link rel="stylesheet" href="/admin/assets/admin.css"></head>
<body class="login"><main><form method="post" action="/admin/login" class="card login-card">
<h1>waybill admin</h1>
<p class="muted">Enter the admin token (WAYBILL_ADMIN_TOKEN).</p>
${error === null ? '' : html`<p class="error" role="alert" id="login-error">${error}</p>`}
<input type="hidden" name="next" value="${next}">
<label>Admin token <input type="password" name="token" autocomplete="current-password" required autofocus></label>
<button type="submit">Log in</button>
</form></main></body></html>`.value;
}

/** An error as a page: what went wrong, the request id to find its log lines, a way back. */
export const errorBody = (p: Problem): Html => html`<div class="card error-page" data-status="${p.status}">
<h1>${p.status === 404 ? 'Not found' : p.title}</h1>
<p id="error-detail">${p.detail}</p>
${p.errors === undefined ? '' : html`<ul>${p.errors.map((e) => html`<li><code>${e.pointer}</code> ${e.message}</li>`)}</ul>`}
<p class="muted small">Status ${p.status} · <code>${p.code}</code> · request <a href="/admin/logs?request=${encodeURIComponent(p.request_id)}">${p.request_id}</a></p>
<p><a href="/admin/" class="button">Back to the overview</a></p></div>`;
