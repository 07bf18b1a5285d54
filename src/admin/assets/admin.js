// waybill admin: live regions (polling HTML fragments), confirmed actions, forms posted as
// JSON to the admin API, and the live log tail. No framework, no network beyond the daemon.
/* global document, window, location, FormData, URLSearchParams, getComputedStyle */
'use strict';

const toast = (text, bad) => {
  const t = document.getElementById('toast');
  if (!t) return;
  t.textContent = text;
  t.className = bad ? 'show bad' : 'show';
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => {
    t.className = '';
  }, 4000);
};

/** A modal "are you sure" for actions that cannot be undone; resolves true on Confirm. */
const confirmed = (text) =>
  new Promise((resolve) => {
    const dialog = document.getElementById('confirm');
    if (!dialog || typeof dialog.showModal !== 'function') {
      resolve(window.confirm(text));
      return;
    }
    document.getElementById('confirm-text').textContent = text;
    dialog.returnValue = '';
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'ok'), { once: true });
    dialog.showModal();
  });

// Times: the server sends <time datetime="ISO" title="UTC text">UTC text</time>; here each is
// shown in the browser's time zone, one format everywhere (2026-11-24 10:30:05 CET), the UTC
// time on hover. Chart axes (<text data-time>) get the hour and minute in the same zone.
const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
const parts = new Intl.DateTimeFormat('en-GB', {
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
  timeZoneName: 'short',
});
const localTime = (date) => {
  const p = Object.fromEntries(parts.formatToParts(date).map((x) => [x.type, x.value]));
  return p.year + '-' + p.month + '-' + p.day + ' ' + p.hour + ':' + p.minute + ':' + p.second + ' ' + p.timeZoneName;
};
const localTimes = (root) => {
  for (const t of root.querySelectorAll('time[datetime]:not([data-local])')) {
    const d = new Date(t.getAttribute('datetime'));
    if (Number.isNaN(d.getTime())) continue;
    t.textContent = localTime(d);
    t.dataset.local = '1';
  }
  for (const t of root.querySelectorAll('text[data-time]')) {
    const d = new Date(t.dataset.time);
    if (!Number.isNaN(d.getTime())) t.textContent = localTime(d).slice(11, 16);
  }
  for (const z of root.querySelectorAll('[data-zone]')) z.textContent = zone;
};
localTimes(document);

// A table wider than its box scrolls inside it (a phone): mark it (an edge shadow) and say so
// above it, so the hidden columns are not taken for missing ones.
const markScrolls = (root) => {
  for (const t of root.querySelectorAll('main table')) {
    const wide = t.scrollWidth > t.clientWidth + 1 && getComputedStyle(t).overflowX === 'auto';
    t.classList.toggle('scrolls', wide);
    const hint = t.previousElementSibling && t.previousElementSibling.classList.contains('scroll-hint') ? t.previousElementSibling : null;
    if (wide && !hint)
      t.insertAdjacentHTML(
        'beforebegin',
        '<p class="scroll-hint" aria-hidden="true">Wider than the screen: swipe the table sideways →</p>',
      );
    if (!wide && hint) hint.remove();
  }
};
markScrolls(document);
window.addEventListener('resize', () => markScrolls(document));
// An opened row (a delivery's attempts) may hold a table of its own.
document.addEventListener('toggle', () => markScrolls(document), true);

// A date-time filter (input[data-local-time]) is typed in the browser's zone: its offset goes
// along (tz, minutes behind UTC as getTimezoneOffset says) so the server reads it right.
document.addEventListener(
  'submit',
  (event) => {
    for (const input of event.target.querySelectorAll('input[data-local-time]')) {
      const tz = event.target.querySelector('input[name="tz"]');
      if (tz) tz.value = input.value === '' ? '' : String(new Date(input.value).getTimezoneOffset());
    }
  },
  true,
);

const api = async (url, body) => {
  const res = await fetch(url, {
    method: 'POST',
    credentials: 'same-origin',
    headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await res.json().catch(() => ({}));
  if (res.status === 401) {
    location.href = '/admin/login?next=' + encodeURIComponent(location.pathname + location.search);
  }
  if (!res.ok) throw new Error(data.detail || 'HTTP ' + res.status);
  return data;
};

// Live regions: <section data-live="url?fragment=1" data-every="ms" [data-every-active="ms"]> is
// re-rendered by the server; while it shows a running feed ([data-state=queued|processing]) it
// refreshes at the faster data-every-active pace, so progress bars move smoothly.
const refreshers = [];
const busy = (el) =>
  el.querySelector('details[open]') !== null ||
  (el.contains(document.activeElement) && document.activeElement.matches('input, select, textarea')) ||
  document.querySelector('dialog[open]') !== null;
for (const el of document.querySelectorAll('[data-live]')) {
  let running = false;
  const refresh = async (force) => {
    if (running || document.hidden || (!force && busy(el))) return;
    running = true;
    try {
      const res = await fetch(el.dataset.live, { credentials: 'same-origin', headers: { accept: 'text/html' } });
      if (res.redirected || res.status === 401) {
        location.reload();
        return;
      }
      if (res.ok) {
        el.innerHTML = await res.text();
        localTimes(el);
        markScrolls(el);
      }
    } catch {
      /* the next tick tries again */
    } finally {
      running = false;
    }
  };
  refreshers.push(refresh);
  const active = () =>
    el.dataset.everyActive !== undefined && el.querySelector('[data-state="queued"], [data-state="processing"]') !== null;
  const tick = async () => {
    await refresh(false);
    setTimeout(tick, Number(active() ? el.dataset.everyActive : el.dataset.every || 3000));
  };
  setTimeout(tick, Number(active() ? el.dataset.everyActive : el.dataset.every || 3000));
}
const refreshAll = () => Promise.all(refreshers.map((r) => r(true)));

// data-reveal="field": a secret in the reply (a new shop's or a rotated webhook secret) is shown once.
const reveal = (el, result) => {
  const value = el.dataset.reveal && result[el.dataset.reveal];
  const card = document.getElementById('new-secret');
  if (!value || !card) return;
  document.getElementById('new-secret-value').textContent = value;
  document.getElementById('new-secret-shop').textContent = String(result.pk);
  card.hidden = false;
};

document.addEventListener('click', async (event) => {
  const button = event.target.closest('button[data-action], button[data-create-key]');
  if (!button) return;
  event.preventDefault();
  if (button.dataset.confirm && !(await confirmed(button.dataset.confirm))) return;
  button.disabled = true;
  try {
    if (button.dataset.createKey) {
      const key = await api('/admin/api/keys', { shop_pk: Number(button.dataset.createKey) });
      document.getElementById('new-key-value').textContent = key.key;
      document.getElementById('new-key').hidden = false;
      toast('Key ' + key.prefix + '… created');
    } else {
      const result = await api(button.dataset.action, button.dataset.body ? JSON.parse(button.dataset.body) : undefined);
      reveal(button, result);
      toast(result.detail || button.textContent.trim() + ': done');
    }
    await refreshAll();
  } catch (error) {
    toast(error.message, true);
  } finally {
    button.disabled = false;
  }
});

// <form data-post="/admin/api/..."> posts its non-empty fields as JSON (numbers stay numbers).
document.addEventListener('submit', async (event) => {
  const form = event.target.closest('form[data-post]');
  if (!form) return;
  event.preventDefault();
  if (form.dataset.confirm && !(await confirmed(form.dataset.confirm))) return;
  const body = {};
  for (const [k, v] of new FormData(form)) if (v !== '') body[k] = form.elements[k].type === 'number' ? Number(v) : v;
  try {
    const result = await api(form.dataset.post, body);
    reveal(form, result);
    toast(result.detail || 'Saved');
    form.reset();
    await refreshAll();
  } catch (error) {
    toast(error.message, true);
  }
});

// Live log tail (the first page only): the server renders the rows after the last one shown,
// newest first, with the page's filters; they go on top.
const tail = document.querySelector('#log-lines[data-tail]');
if (tail) {
  const filters = new URLSearchParams(new FormData(document.getElementById('log-filters')));
  for (const [k, v] of [...filters]) if (v === '') filters.delete(k);
  filters.set('fragment', '1');
  setInterval(async () => {
    if (document.hidden || !document.getElementById('follow').checked) return;
    filters.set('after', tail.dataset.after);
    try {
      const res = await fetch(tail.dataset.tail + '?' + filters, { credentials: 'same-origin', headers: { accept: 'text/html' } });
      if (!res.ok) return;
      const rows = (await res.text()).trim();
      if (rows !== '') {
        tail.insertAdjacentHTML('afterbegin', rows);
        localTimes(tail);
        while (tail.rows.length > 1000) tail.deleteRow(-1);
      }
      tail.dataset.after = res.headers.get('x-last-seq') || tail.dataset.after;
    } catch {
      /* next tick */
    }
  }, 1500);
}
