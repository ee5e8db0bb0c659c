// Camellos service worker. The service sends push payloads in the
// Declarative Web Push form:
//   {"web_push": 8030, "notification": {title, body, navigate, lang, dir, tag, data}}
// Safari on iOS/iPadOS 18.4+ shows such a message itself; every other
// browser hands it to this worker, which shows that same notification.
// Whatever arrives (an older {title, body, url} payload, or something it
// cannot read), a notification is shown: a push without a visible one
// makes browsers revoke the subscription (Safari after three).
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

const ICON = '/img/icon-192.png';
const FALLBACK = { title: 'Camellos', body: 'Tienes un aviso nuevo en Camellos.', url: '/notificaciones.html' };

// noticeOf turns a push message into [title, options].
function noticeOf(data) {
  let raw = null;
  try { raw = data ? data.json() : null; } catch (e) { raw = null; }
  const n = raw && raw.web_push === 8030 && raw.notification;
  if (n && typeof n.title === 'string' && n.title) {
    return [n.title, {
      body: typeof n.body === 'string' ? n.body : '',
      lang: n.lang || 'es-CO',
      dir: n.dir || 'auto',
      tag: n.tag || undefined,
      silent: n.silent === true,
      icon: ICON,
      badge: ICON,
      data: { ...(n.data || {}), url: n.navigate || FALLBACK.url },
    }];
  }
  if (raw && typeof raw.title === 'string' && raw.title) { // the service's earlier payload
    return [raw.title, { body: raw.body || '', lang: 'es-CO', icon: ICON, badge: ICON, tag: raw.id || raw.kind || undefined,
      data: { url: raw.url || FALLBACK.url, kind: raw.kind, id: raw.id } }];
  }
  return [FALLBACK.title, { body: FALLBACK.body, lang: 'es-CO', icon: ICON, badge: ICON, tag: 'camellos', data: { url: FALLBACK.url } }];
}

self.addEventListener('push', (event) => {
  const [title, options] = noticeOf(event.data);
  event.waitUntil(self.registration.showNotification(title, options)
    .catch(() => self.registration.showNotification(FALLBACK.title, { body: FALLBACK.body, data: { url: FALLBACK.url } })));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const target = new URL((event.notification.data && event.notification.data.url) || '/', self.location.origin);
  // Only open pages of this site.
  const url = target.origin === self.location.origin ? target.href : self.location.origin + '/';
  event.waitUntil((async () => {
    const all = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
    for (const c of all) {
      if (c.url === url && 'focus' in c) return c.focus();
    }
    return self.clients.openWindow(url);
  })());
});

function urlB64ToBytes(s) {
  const pad = '='.repeat((4 - (s.length % 4)) % 4);
  const raw = atob((s + pad).replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

// The browser renewed (or dropped) the subscription: subscribe again with
// the same key when it gave no new one, and tell the service, which
// replaces the old endpoint (POST /api/notifications/push/sync).
self.addEventListener('pushsubscriptionchange', (event) => {
  event.waitUntil((async () => {
    const old = event.oldSubscription;
    let sub = event.newSubscription;
    if (!sub) {
      let key = old && old.options && old.options.applicationServerKey;
      if (!key) {
        const r = await fetch('/api/notifications/push/public-key', { credentials: 'same-origin' });
        key = urlB64ToBytes((await r.json()).publicKey);
      }
      sub = await self.registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
    }
    const j = sub.toJSON();
    await fetch('/api/notifications/push/sync', {
      method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ endpoint: j.endpoint, keys: j.keys, oldEndpoint: old ? old.endpoint : undefined }),
    });
  })().catch(() => {}));
});
