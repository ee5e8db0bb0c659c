// Notifications: inbox with unread count, mark read, preferences, and Web
// Push activation (service worker + VAPID subscription).
import { api, el, $, requireSession, renderChrome, showAlert, fmtDate, setUnread, toast, syncPush, field, formError, clearFieldErrors, busy } from './app.js';
import { renderMore } from './more.js';

// iOS and iPadOS (an iPad may present itself as a Mac with a touch screen)
// give Web Push only to a web app opened from the home screen: in Safari's
// tabs the button could never work, so the page shows how to add the app.
const IOS = /iPhone|iPad|iPod/.test(navigator.userAgent) || (navigator.platform === 'MacIntel' && navigator.maxTouchPoints > 1);
const STANDALONE = navigator.standalone === true || (window.matchMedia && matchMedia('(display-mode: standalone)').matches);
const IOS_BROWSER_TAB = IOS && !STANDALONE;

// Decided before anything is drawn: no button that cannot work; the guide
// appears with the preferences, below the inbox (nothing jumps).
if (IOS_BROWSER_TAB) $('#push-btn').hidden = true;

const PER_PAGE = 20;
// CODE_ATTEMPTS is how many tries a new WhatsApp code gives (whatsapp.CodeAttempts).
const CODE_ATTEMPTS = 5;
let page = 1;
let shown = 0;

const KINDS = {
  JOB_ASSIGNED: 'Trabajo asignado', JOB_CANCELLED: 'Trabajo cancelado', JOB_STATUS: 'Cambios de estado de trabajos',
  APPOINTMENT_BOOKED: 'Citas reservadas', APPOINTMENT_REMINDER: 'Recordatorios de citas',
  CAMELLO_STATUS: 'Estado de mi perfil', ADMIN_MESSAGE: 'Mensajes de Camellos',
  APPOINTMENT_RESCHEDULED: 'Citas reprogramadas', QUOTE_RECEIVED: 'Cotizaciones recibidas',
  QUOTE_ACCEPTED: 'Cotizaciones aceptadas', QUOTE_REJECTED: 'Cotizaciones no elegidas', MESSAGE: 'Mensajes de trabajos', PAYMENT: 'Pagos',
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

function item(n) {
  const unread = !n.readAt;
  const li = el('li', { class: 'card notif' + (unread ? ' unread' : ''), 'data-kind': n.kind, 'data-id': n.id },
    el('div', { class: 'row' },
      el('h2', { style: 'margin:0;font-size:1.05rem' }, unread ? el('span', { class: 'visually-hidden' }, 'No leída: ') : null, n.title),
      el('span', { class: 'muted' }, fmtDate(n.createdAt))),
    n.body ? el('p', { style: 'margin:.3rem 0' }, n.body) : null,
    el('div', { class: 'actions' },
      n.url ? el('a', { class: 'btn small secondary', href: n.url, onclick: () => { if (unread) markRead(n); } }, 'Ver') : null,
      unread ? el('button', {
        class: 'btn small', type: 'button',
        onclick: async () => { await markRead(n); li.replaceWith(item({ ...n, readAt: new Date().toISOString() })); },
      }, 'Marcar como leída') : null));
  return li;
}

async function load(append) {
  const ul = $('#inbox');
  try {
    const r = await api('GET', `/api/notifications?page=${page}&perPage=${PER_PAGE}`);
    setCount(r.unread || 0);
    const items = r.notifications || [];
    if (!append) { ul.replaceChildren(); shown = 0; }
    for (const n of items) { ul.append(item(n)); shown++; }
    if (!shown) ul.append(el('li', { class: 'card empty' }, 'No tienes notificaciones.'));
    renderMore($('#more'), shown, r.total, async () => { page++; await load(true); });
  } catch (e) {
    showAlert($('#alert'), e.message);
  } finally {
    ul.removeAttribute('aria-busy');
  }
}

function refresh() { page = 1; return load(false); }

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
  // The service says which kinds it knows; the labels only name them.
  const known = Object.keys(prefs);
  const kinds = known.length ? [...Object.keys(KINDS).filter((k) => known.includes(k)), ...known.filter((k) => !KINDS[k])] : Object.keys(KINDS);
  // Reminders always reach the inbox: that box cannot be switched off.
  const locked = (k, ch) => k === 'APPOINTMENT_REMINDER' && ch === 'inApp';
  // WhatsApp carries only the kinds with an approved template: the others
  // have no box in that column (the service leaves them out).
  const cell = (k, ch) => (ch === 'whatsapp' && !(prefs[k] && ch in prefs[k])
    ? el('td', { class: 'muted' }, el('span', { 'aria-hidden': 'true' }, '—'), el('span', { class: 'visually-hidden' }, 'No disponible'))
    : cellBox(k, ch));
  const cellBox = (k, ch) => el('td', {}, el('label', {}, el('input', {
    type: 'checkbox', name: `${k}.${ch}`, id: `p-${k}-${ch}`, checked: (prefs[k] || {})[ch] !== false,
    disabled: locked(k, ch), title: locked(k, ch) ? 'Este aviso no se puede desactivar' : null,
    'aria-label': `${KINDS[k] || k}: ${{ inApp: 'en la aplicación', push: 'push', email: 'correo', whatsapp: 'WhatsApp' }[ch]}`,
  })));
  box.replaceChildren(el('table', { class: 'prefs' },
    el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'Tipo'), el('th', { scope: 'col' }, 'En la app'), el('th', { scope: 'col' }, 'Push'), el('th', { scope: 'col' }, 'Correo'), el('th', { scope: 'col' }, 'WhatsApp'))),
    el('tbody', {}, kinds.map((k) => el('tr', {}, el('th', { scope: 'row' }, KINDS[k] || k), cell(k, 'inApp'), cell(k, 'push'), cell(k, 'email'), cell(k, 'whatsapp'))))));
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
    showAlert($('#prefs-msg'), 'Preferencias guardadas.', 'ok');
    toast('Preferencias guardadas.');
  } catch (e) {
    showAlert($('#prefs-msg'), e.message, 'error');
  }
}

function urlB64ToBytes(s) {
  const pad = '='.repeat((4 - (s.length % 4)) % 4);
  const raw = atob((s + pad).replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

const b64url = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

// withTimeout rejects with a Spanish message when a browser step hangs.
function withTimeout(p, ms, what) {
  let t;
  return Promise.race([p, new Promise((_, rej) => { t = setTimeout(() => rej(Object.assign(new Error(what), { spanish: true })), ms); })]).finally(() => clearTimeout(t));
}

// pushError turns a browser's (English) error into Spanish.
function pushError(e) {
  if (e instanceof Error && e.status !== undefined) return e.message; // our API, already in Spanish
  switch (e && e.name) {
    case 'NotAllowedError': return 'El navegador no permite notificaciones aquí. Actívalas en la configuración del sitio.';
    case 'AbortError': return 'El servicio de avisos del navegador no respondió. Inténtalo en un momento.';
    case 'InvalidStateError': return 'El navegador no pudo preparar los avisos. Recarga la página.';
    case 'NotSupportedError': return 'Este navegador no permite notificaciones push.';
    case 'InvalidAccessError': return 'La clave del servicio no es válida. Avísanos para revisarlo.';
    default: return e && e.spanish ? e.message : 'No se pudieron activar las notificaciones. Inténtalo más tarde.';
  }
}

// pushSetup is this page's service worker registration and the service's
// VAPID key, prepared when the page opens so that the tap itself calls
// pushManager.subscribe() at once (Safari only lets a tap subscribe).
let pushSetup = null;
function preparePush() {
  if (IOS_BROWSER_TAB || !('serviceWorker' in navigator) || !('PushManager' in window) || !('Notification' in window)) return;
  pushSetup = Promise.all([
    navigator.serviceWorker.register('/sw.js', { scope: '/' }).then(() => navigator.serviceWorker.ready),
    api('GET', '/api/notifications/push/public-key').then((r) => urlB64ToBytes(r.publicKey)),
  ]);
  pushSetup.catch(() => {});
}

// enablePush runs only inside the person's tap: it asks the browser to
// subscribe (which asks for permission), then stores the subscription.
async function enablePush() {
  const out = $('#push-status');
  const btn = $('#push-btn');
  if (!pushSetup) {
    showAlert(out, 'Tu navegador no permite notificaciones push.', 'error', false);
    return;
  }
  btn.disabled = true;
  showAlert(out, 'Activando notificaciones…', 'ok');
  try {
    const [reg, key] = await withTimeout(pushSetup, 15000,
      'El navegador tardó demasiado. Recarga la página e inténtalo de nuevo.');
    const sub = await withTimeout(reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key }), 60000,
      'El servicio de avisos del navegador no respondió. Revisa tu conexión.');
    await api('POST', '/api/notifications/push/subscribe', {
      endpoint: sub.endpoint,
      keys: { p256dh: b64url(sub.getKey('p256dh')), auth: b64url(sub.getKey('auth')) },
    });
    try { sessionStorage.setItem('camellos.pushSynced', sub.endpoint); } catch (e) { /* private mode */ }
    showAlert(out, 'Notificaciones activadas en este dispositivo.', 'ok');
    toast('Notificaciones activadas.');
  } catch (e) {
    if (e && e.name === 'NotAllowedError' && 'Notification' in window && Notification.permission === 'denied') {
      showAlert(out, 'Bloqueaste las notificaciones. Permítelas en el candado junto a la dirección.', 'error', false);
    } else {
      showAlert(out, pushError(e), 'error', false);
    }
  } finally {
    btn.disabled = false;
  }
}

// WhatsApp: the number, confirmed by the code that arrives over WhatsApp;
// the reminders, quotes, bookings, payments and conversation summaries
// then go there instead of the mail (which stays as the fallback).
async function loadWhatsApp() {
  const box = $('#wa-body');
  const msg = $('#wa-msg');
  let wa;
  try {
    wa = (await api('GET', '/api/notifications/whatsapp')).whatsapp;
  } catch (e) {
    box.replaceChildren(el('p', { class: 'muted' }, e.message));
    return;
  }
  if (!wa.available && wa.status !== 'CONFIRMADO') {
    box.replaceChildren(el('p', { class: 'muted' }, 'Los avisos por WhatsApp no están disponibles por ahora.'));
    return;
  }
  // The card never moves what is below it when an answer arrives late (a
  // slow network): the code's form is drawn at the tap that asks for it
  // (disabled until the code is sent), the line that says the answer is
  // taken at the tap, and the card's body keeps its height at the tap when
  // the answer makes it shorter (the confirmation).
  const codeForm = (phone, attemptsLeft, onSubmit) => {
    const f = el('form', { id: 'wa-code-form', novalidate: true, style: 'margin-top:1.25rem' },
      field('wa', 'code', `Código enviado a ${phone}`, el('input', { type: 'text', inputmode: 'numeric', autocomplete: 'one-time-code', maxlength: 6, required: true, disabled: !onSubmit }),
        `Tienes ${attemptsLeft ?? CODE_ATTEMPTS} intentos; el código vence en 10 minutos.`),
      el('button', { class: 'btn', type: 'submit', disabled: !onSubmit }, 'Confirmar'));
    if (onSubmit) f.addEventListener('submit', onSubmit);
    return f;
  };
  const keepHeight = () => { box.style.minHeight = `${box.offsetHeight}px`; };
  const phoneForm = el('form', { id: 'wa-phone-form', novalidate: true },
    field('wa', 'phone', 'Tu celular con WhatsApp', el('input', { type: 'tel', autocomplete: 'tel', maxlength: 40, required: true, value: wa.phone || '' }),
      'Te enviaremos un código por WhatsApp para confirmar que es tuyo.'),
    el('button', { class: 'btn', type: 'submit' }, wa.status === 'SIN_NUMERO' ? 'Enviar código' : 'Enviar otro código'));
  phoneForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    clearFieldErrors(phoneForm);
    keepHeight();
    const typed = phoneForm.querySelector('input').value.trim();
    const pending = !$('#wa-code-form') && typed ? codeForm(typed) : null;
    if (pending) phoneForm.after(pending);
    showAlert(msg, 'Enviando el código por WhatsApp…', 'ok', false);
    busy(phoneForm.querySelector('button'), async () => {
      try {
        await api('PUT', '/api/notifications/whatsapp', { phone: phoneForm.querySelector('input').value });
        await loadWhatsApp();
        showAlert(msg, 'Te enviamos un código por WhatsApp. Escríbelo aquí para confirmar.', 'ok');
      } catch (e) { pending?.remove(); formError(phoneForm, msg, e); }
    });
  });
  const parts = [];
  if (wa.status === 'CONFIRMADO') {
    parts.push(el('p', {}, `Recibes los avisos en ${wa.phone}. Si un mensaje no llega, te lo enviamos por correo.`));
    const off = el('button', { class: 'btn secondary', type: 'button', id: 'wa-off' }, 'Desactivar WhatsApp');
    off.addEventListener('click', () => busy(off, async () => {
      try { await api('DELETE', '/api/notifications/whatsapp'); await loadWhatsApp(); toast('WhatsApp desactivado.'); } catch (e) { showAlert(msg, e.message, 'error'); }
    }));
    parts.push(el('div', { class: 'actions' }, off));
  } else {
    parts.push(el('p', {}, 'Recibe por WhatsApp los recordatorios de citas, las cotizaciones, los cambios de agenda, los pagos y el resumen de tus conversaciones.'));
    parts.push(phoneForm);
    if (wa.status === 'PENDIENTE') {
      const f = codeForm(wa.phone, wa.attemptsLeft, (ev) => {
        ev.preventDefault();
        clearFieldErrors(f);
        keepHeight();
        showAlert(msg, 'Confirmando el código…', 'ok', false);
        busy(f.querySelector('button'), async () => {
          try {
            await api('POST', '/api/notifications/whatsapp/confirm', { code: f.querySelector('input').value });
            await loadWhatsApp();
            showAlert(msg, 'WhatsApp confirmado: los avisos te llegarán allí.', 'ok');
          } catch (e) { formError(f, msg, e); }
        });
      });
      parts.push(f);
    }
  }
  box.replaceChildren(...parts);
}

async function main() {
  renderChrome();
  await requireSession();
  $('#read-all').addEventListener('click', async () => {
    try { await api('POST', '/api/notifications/read-all'); await refresh(); toast('Todas las notificaciones quedaron leídas.'); } catch (e) { showAlert($('#push-status'), e.message, 'error'); }
  });
  $('#push-btn').addEventListener('click', enablePush);
  preparePush();
  syncPush();
  $('#prefs-form').addEventListener('submit', savePrefs);
  // The preferences appear once the inbox above them is drawn: nothing jumps.
  await Promise.all([refresh(), loadPrefs(), loadWhatsApp()]);
  $('#ios-guide').hidden = !IOS_BROWSER_TAB;
  $('#wa-box').hidden = false;
  $('#prefs-box').hidden = false;
}

main();
