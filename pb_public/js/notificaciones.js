// Notifications: inbox with unread count, mark read, preferences, and Web
// Push activation (service worker + VAPID subscription).
import { api, el, $, requireSession, renderChrome, showAlert, fmtDate, setUnread, renderPager } from './app.js';

const PER_PAGE = 20;
let page = 1;

const KINDS = {
  JOB_ASSIGNED: 'Trabajo asignado', JOB_CANCELLED: 'Trabajo cancelado', JOB_STATUS: 'Cambios de estado de trabajos',
  APPOINTMENT_BOOKED: 'Citas reservadas', APPOINTMENT_REMINDER: 'Recordatorios de citas',
  CAMELLO_STATUS: 'Estado de mi perfil', ADMIN_MESSAGE: 'Mensajes de Camellos',
};

function setCount(n) {
  $('#unread-title').textContent = n ? `(${n} sin leer)` : '';
  setUnread(n);
}

async function markRead(n) {
  try {
    const r = await api('POST', `/api/notifications/${encodeURIComponent(n.id)}/read`);
    if (typeof r.unread === 'number') setCount(r.unread);
  } catch (e) { /* opening the link still works */ }
}

async function refresh() {
  const ul = $('#inbox');
  try {
    const r = await api('GET', `/api/notifications?page=${page}&perPage=${PER_PAGE}`);
    setCount(r.unread || 0);
    const items = r.notifications || [];
    ul.replaceChildren(...items.map((n) => {
      const unread = !n.readAt;
      return el('li', { class: 'card notif' + (unread ? ' unread' : ''), 'data-kind': n.kind },
        el('div', { class: 'row' },
          el('h2', { style: 'margin:0;font-size:1.05rem' }, unread ? el('span', { class: 'visually-hidden' }, 'No leída: ') : null, n.title),
          el('span', { class: 'muted' }, fmtDate(n.createdAt))),
        n.body ? el('p', { style: 'margin:.3rem 0' }, n.body) : null,
        el('div', { class: 'actions' },
          n.url ? el('a', { class: 'btn small secondary', href: n.url, onclick: () => { if (unread) markRead(n); } }, 'Ver') : null,
          unread ? el('button', {
            class: 'btn small', type: 'button',
            onclick: async () => { await markRead(n); refresh(); },
          }, 'Marcar como leída') : null));
    }));
    if (!items.length) ul.append(el('li', { class: 'card empty' }, 'No tienes notificaciones.'));
    renderPager($('#pager'), page, r.total, PER_PAGE, (p) => { page = p; refresh(); });
  } catch (e) {
    showAlert($('#alert'), e.message);
  }
}

async function loadPrefs() {
  const box = $('#prefs');
  let prefs = {};
  try {
    const r = await api('GET', '/api/notifications/preferences');
    prefs = r.preferences || r.prefs || {};
  } catch (e) {
    box.replaceChildren(el('p', { class: 'muted' }, e.message));
    return;
  }
  const kinds = [...new Set([...Object.keys(KINDS), ...Object.keys(prefs)])];
  // Reminders always reach the inbox: that box cannot be switched off.
  const locked = (k, ch) => k === 'APPOINTMENT_REMINDER' && ch === 'inApp';
  const cell = (k, ch) => el('td', {}, el('input', {
    type: 'checkbox', name: `${k}.${ch}`, id: `p-${k}-${ch}`, checked: (prefs[k] || {})[ch] !== false,
    disabled: locked(k, ch), title: locked(k, ch) ? 'Este aviso no se puede desactivar' : null,
    'aria-label': `${KINDS[k] || k}: ${{ inApp: 'en la aplicación', push: 'push', email: 'correo' }[ch]}`,
  }));
  box.replaceChildren(el('table', { class: 'prefs' },
    el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'Tipo'), el('th', { scope: 'col' }, 'En la app'), el('th', { scope: 'col' }, 'Push'), el('th', { scope: 'col' }, 'Correo'))),
    el('tbody', {}, kinds.map((k) => el('tr', {}, el('th', { scope: 'row' }, KINDS[k] || k), cell(k, 'inApp'), cell(k, 'push'), cell(k, 'email'))))));
}

async function savePrefs(ev) {
  ev.preventDefault();
  const prefs = {};
  for (const input of $('#prefs').querySelectorAll('input[type=checkbox]:not(:disabled)')) {
    const [k, ch] = input.name.split('.');
    prefs[k] = prefs[k] || {};
    prefs[k][ch] = input.checked;
  }
  try {
    await api('PUT', '/api/notifications/preferences', { preferences: prefs });
    showAlert($('#alert'), 'Preferencias guardadas.', 'ok');
  } catch (e) {
    showAlert($('#alert'), e.message);
  }
}

function urlB64ToBytes(s) {
  const pad = '='.repeat((4 - (s.length % 4)) % 4);
  const raw = atob((s + pad).replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

const b64url = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

async function enablePush() {
  const out = $('#push-status');
  if (!('serviceWorker' in navigator) || !('PushManager' in window)) {
    out.textContent = 'Tu navegador no permite notificaciones push.';
    return;
  }
  try {
    const perm = await Notification.requestPermission();
    if (perm !== 'granted') { out.textContent = 'No diste permiso para mostrar notificaciones.'; return; }
    const reg = await navigator.serviceWorker.register('/sw.js', { scope: '/' });
    await navigator.serviceWorker.ready;
    const { publicKey } = await api('GET', '/api/notifications/push/public-key');
    let sub = await reg.pushManager.getSubscription();
    if (!sub) sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: urlB64ToBytes(publicKey) });
    await api('POST', '/api/notifications/push/subscribe', {
      endpoint: sub.endpoint,
      keys: { p256dh: b64url(sub.getKey('p256dh')), auth: b64url(sub.getKey('auth')) },
    });
    out.textContent = 'Notificaciones activadas en este dispositivo.';
  } catch (e) {
    out.textContent = 'No se pudieron activar las notificaciones: ' + e.message;
  }
}

async function main() {
  renderChrome();
  await requireSession();
  $('#read-all').addEventListener('click', async () => {
    try { await api('POST', '/api/notifications/read-all'); refresh(); } catch (e) { showAlert($('#alert'), e.message); }
  });
  $('#push-btn').addEventListener('click', enablePush);
  $('#prefs-form').addEventListener('submit', savePrefs);
  refresh();
  loadPrefs();
}

main();
