// Shops and their API keys: create a shop (its webhook secret shown once), rotate its webhook
// secret, create a key (shown once), revoke a key.
import type { ApiKey, Shop } from '../../shops/shops.schemas.ts';
import { at, html, type Html } from './html.ts';

export function shopsFragment(shops: Shop[], keys: ApiKey[]): Html {
  return html`<table><thead><tr><th>Shop</th><th>Webhook</th><th>Created</th><th>Keys</th><th></th></tr></thead>
<tbody>${shops.map((s) => {
    const own = keys.filter((k) => k.shop_pk === s.pk);
    return html`<tr data-shop="${s.pk}" id="shop-${s.pk}"><td><b>${s.name}</b> <small class="muted">#${s.pk}</small></td><td class="wrap">${s.webhook_url ?? '–'}</td><td>${at(s.created_at)}</td>
<td>${
      own.length === 0
        ? html`<span class="muted">none</span>`
        : html`<ul class="keys">${own.map(
            (k) => html`<li data-key="${k.prefix}"><code>${k.prefix}…</code> ${k.label ?? ''}
${
  k.revoked_at === null
    ? html`<small class="muted">${k.last_used_at === null ? 'never used' : html`last used ${at(k.last_used_at)}`}</small> <button class="danger small" data-action="/admin/api/keys/${k.prefix}/revoke" data-confirm="Revoke key ${k.prefix}…? Clients using it stop working at once; this cannot be undone.">Revoke</button>`
    : html`<span class="badge failed">revoked</span>`
}</li>`,
          )}</ul>`
    }</td>
<td class="actions"><button data-create-key="${s.pk}" data-confirm="Create a new API key for ${s.name}? It is shown once.">New key</button>
<button class="secondary" data-action="/admin/api/shops/${s.pk}/rotate-secret" data-reveal="webhook_secret" data-confirm="Rotate the webhook secret of ${s.name}? The new one is shown once; X-Madkting-Signature uses it at once, webhook-signature carries the old one too for 24 h.">Rotate secret</button></td></tr>`;
  })}</tbody></table>`;
}

export const shopsBody = (shops: Shop[], keys: ApiKey[]): Html => html`<h1>Shops &amp; keys</h1>
<form class="card inline-form" data-post="/admin/api/shops" data-reveal="webhook_secret" id="create-shop">
<label>Name <input name="name" required maxlength="255"></label>
<label>Webhook URL <input name="webhook_url" type="url" placeholder="https://… (optional)" size="30"></label>
<button type="submit">Create shop</button></form>
<div id="new-secret" class="card secret" hidden><b>Webhook secret of shop <span id="new-secret-shop"></span></b> (copy it now, it is not shown again): <code id="new-secret-value"></code></div>
<div id="new-key" class="card secret" hidden><b>New API key</b> (copy it now, it is not shown again): <code id="new-key-value"></code></div>
<section id="shops" data-live="/admin/shops?fragment=1" data-every="10000">${shopsFragment(shops, keys)}</section>`;
