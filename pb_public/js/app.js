// Camellos web front: shared module. Fetch wrapper for our /api (cookie
// session), session state, header navigation, feedback (inline messages,
// toast, confirmation dialog) and small DOM helpers.

// defaultMessage is used when an answer carries no envelope.
function defaultMessage(status) {
  if (status === 401) return 'Debes ingresar para continuar.';
  if (status === 403) return 'No tienes permiso para hacer esto.';
  if (status === 404) return 'No encontramos lo que buscas.';
  if (status === 413) return 'El archivo o el formulario es demasiado grande.';
  if (status === 429) return 'Demasiados intentos. Espera un momento y vuelve a intentarlo.';
  if (status >= 500) return 'El servicio no está disponible en este momento. Inténtalo más tarde.';
  return `No se pudo completar la solicitud (${status}).`;
}

// ApiError carries the service's error envelope {error, issues, detail}.
export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.error) || defaultMessage(status));
    this.status = status;
    this.body = body || {};
    this.issues = (body && body.issues) || {};
    this.fieldErrors = this.issues.fieldErrors || {};
  }
}

// api sends a request to the service and returns the decoded JSON body.
// body may be a plain object (sent as JSON) or a FormData (multipart).
export async function api(method, path, body) {
  const opts = { method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
  if (body instanceof FormData) {
    opts.body = body;
  } else if (body !== undefined) {
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, opts);
  } catch (e) {
    throw new ApiError(0, { error: 'No hay conexión con el servidor. Inténtalo de nuevo.' });
  }
  let data = null;
  const text = await res.text();
  if (text) {
    try { data = JSON.parse(text); } catch (e) { data = null; }
  }
  if (!res.ok) throw new ApiError(res.status, data);
  return data || {};
}

let mePromise = null;

// me returns {user, camello} of the signed-in user, or null. Cached per
// page. The server marks pages sent to a browser holding a session cookie
// (data-session): a guest's page never asks, so it logs no 401.
export function me() {
  if (!mePromise) {
    mePromise = document.documentElement.dataset.session !== '1'
      ? Promise.resolve(null)
      : api('GET', '/api/me').catch((e) => {
        if (e.status === 401 || e.status === 403 || e.status === 404) return null;
        throw e;
      });
  }
  return mePromise;
}

// forgetSession drops the cached session (after the account is deleted).
export function forgetSession() {
  mePromise = Promise.resolve(null);
  delete document.documentElement.dataset.session;
}

// signInURL is the sign-in page that comes back here.
export const signInURL = () => '/ingresar.html?next=' + encodeURIComponent(location.pathname + location.search);

// requireSession sends a guest to the sign-in page and returns the session.
export async function requireSession() {
  const s = await me().catch(() => null);
  if (!s || !s.user) {
    location.replace(signInURL());
    return new Promise(() => {});
  }
  return s;
}

// el builds an element: el('a', {href: '/'}, 'texto', child...).
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k.startsWith('on') && typeof v === 'function') node.addEventListener(k.slice(2), v);
    else if (v === true) node.setAttribute(k, '');
    else node.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

// $ is querySelector.
export const $ = (sel, root = document) => root.querySelector(sel);

// param reads a query-string parameter.
export const param = (name) => new URLSearchParams(location.search).get(name);

// asset is the versioned URL of a file of the site (img/avatar.svg).
export const asset = (p) => new URL('../' + p, import.meta.url).pathname;

// Dates, times and pesos are spelled here as Chromium's es-CO locale spells
// them ("5/03/2026, 12:00 p. m.", "jueves, 5 de marzo", "$ 150.000"), on
// the browser's clock, without Intl: a page's first Intl formatter loads
// ICU's data, 15-30 ms of main thread (60-120 ms on Lighthouse's phone),
// inside the task that draws the page (issue 24: Total Blocking Time).
const DAYS = ['domingo', 'lunes', 'martes', 'miércoles', 'jueves', 'viernes', 'sábado'];
export const MONTHS = ['enero', 'febrero', 'marzo', 'abril', 'mayo', 'junio', 'julio', 'agosto', 'septiembre', 'octubre', 'noviembre', 'diciembre'];
export const pad2 = (n) => String(n).padStart(2, '0');
// localDate is a timestamp's date on the browser's clock (YYYY-MM-DD).
export const localDate = (iso) => { const d = new Date(iso); return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}`; };
// colombia: the browser's clock is UTC-5 all year, Colombia's time (the
// zone the tests and nearly every reader use).
const colombia = () => new Date(2026, 0, 1).getTimezoneOffset() === 300 && new Date(2026, 6, 1).getTimezoneOffset() === 300;
let zone = null;
// offsetName spells any other clock by its offset ("hora local (UTC−3)",
// "hora local (UTC+5:30)"), without Intl: a zone's name from Intl costs
// ICU's data inside the task that draws (12-25 ms, x4 on a phone).
const offsetName = () => {
  const m = -new Date().getTimezoneOffset(); const a = Math.abs(m);
  return `hora local (UTC${m < 0 ? '\u2212' : '+'}${Math.floor(a / 60)}${a % 60 ? ':' + pad2(a % 60) : ''})`;
};
// tzName is the one spelling of the browser's time zone on every page.
export const tzName = () => (zone ??= colombia() ? 'hora de Colombia' : offsetName());
// fmtTime formats the time of an ISO timestamp ("9:05 a. m.").
export const fmtTime = (iso) => { const d = new Date(iso); const h = d.getHours(); return `${h % 12 || 12}:${pad2(d.getMinutes())} ${h < 12 ? 'a. m.' : 'p. m.'}`; };
// fmtShortDate formats the date only ("22/11/2026").
export const fmtShortDate = (iso) => { if (!iso) return ''; const d = new Date(iso); return `${d.getDate()}/${pad2(d.getMonth() + 1)}/${d.getFullYear()}`; };
// fmtDate formats an ISO timestamp for people ("22/11/2026, 9:05 a. m.").
export const fmtDate = (iso) => (iso ? `${fmtShortDate(iso)}, ${fmtTime(iso)}` : '');
// fmtDateTz is fmtDate with the zone ("24/11/2026, 9:00 a. m. (hora de Colombia)").
export const fmtDateTz = (iso) => (iso ? `${fmtDate(iso)} (${tzName()})` : '');
// fmtDay formats the day of an ISO timestamp ("lunes, 24 de noviembre").
export const fmtDay = (iso) => { const d = new Date(iso); return `${DAYS[d.getDay()]}, ${d.getDate()} de ${MONTHS[d.getMonth()]}`; };
// fmtSpan is a visit's weekday, date and start–end ("lunes, 24 de noviembre, 8:00–9:00 a. m.").
export function fmtSpan(start, end) {
  const e = end || new Date(Date.parse(start) + 3600e3).toISOString();
  const a = fmtTime(start); const b = fmtTime(e);
  const ap = /\s?[ap]\.\s?m\.$/.exec(a);
  return `${fmtDay(start)}, ${ap && b.endsWith(ap[0]) ? a.slice(0, -ap[0].length) : a}–${b}`;
}
// fmtSpanTz is fmtSpan with the zone.
export const fmtSpanTz = (start, end) => `${fmtSpan(start, end)} (${tzName()})`;
// money formats an amount in pesos ("$ 150.000", no decimals, half away from zero).
export function money(n) {
  const v = Number(n) || 0;
  const r = Math.round(Math.abs(v));
  return `${v < 0 && r ? '-' : ''}$\u00a0${String(r).replace(/\B(?=(\d{3})+(?!\d))/g, '.')}`;
}

// stars renders a rating as text with an accessible label.
export function stars(avg, count) {
  const a = Number(avg) || 0;
  if (!count) return el('span', { class: 'muted' }, 'Sin reseñas');
  return el('span', { class: 'stars', role: 'img', 'aria-label': `Calificación ${a.toFixed(1)} de 5, ${count} reseñas` },
    '★ ' + a.toFixed(1), el('span', { class: 'muted' }, ` (${count})`));
}

// ratingOf reads {average, count} from a camello in either shape.
export function ratingOf(c) {
  if (c.rating && typeof c.rating === 'object') return c.rating;
  return { average: c.ratingAvg || 0, count: c.ratingCount || 0 };
}

// avatar renders a camello's photo or the default drawing.
export function avatar(photo, name, big, eager) {
  return el('img', {
    class: big ? 'avatar big' : 'avatar', src: photo || asset('img/avatar.svg'),
    alt: photo ? `Foto de ${name}` : '', width: big ? 120 : 72, height: big ? 120 : 72, loading: eager ? null : 'lazy',
    decoding: 'async',
  });
}

// statusLabel is the Spanish label of a job, appointment or quote status.
export const statusLabel = (s) => ({
  PENDIENTE: 'Pendiente', ASIGNADO: 'Asignado', EN_PROGRESO: 'En progreso', COMPLETADO: 'Completado',
  CANCELADO: 'Cancelado', PROGRAMADA: 'Programada', CANCELADA: 'Cancelada', COMPLETADA: 'Completada',
  ACTIVO: 'Activo', RECHAZADO: 'Rechazado', SUSPENDIDO: 'Suspendido', ACEPTADA: 'Aceptada',
  RECHAZADA: 'Rechazada', RETIRADA: 'Retirada', VENCIDA: 'Vencida',
}[s] || s);

// showAlert puts a message in a live region (kind 'error' or 'ok') and
// brings it into view; an error takes the focus unless focus is false.
export function showAlert(box, message, kind = 'error', focus = true) {
  if (!box) return;
  const base = box.dataset.base ?? (box.dataset.base = [...box.classList].filter((c) => !['alert', 'error', 'ok'].includes(c)).join(' '));
  box.className = `${base} alert ${kind}`.trim();
  box.textContent = message || '';
  if (!message) return;
  if (kind === 'error' && focus && box.hasAttribute('tabindex')) box.focus({ preventScroll: true });
  box.scrollIntoView?.({ block: 'nearest' });
}

// msgBox is an inline message region to put next to an action.
export const msgBox = (id) => el('p', { class: 'alert', id, role: 'status', 'aria-live': 'polite', tabindex: '-1' });

let toastTimer = 0;
const seen = (r) => r.width > 0 && r.height > 0 && r.bottom > 0 && r.top < innerHeight;
const gist = (s) => s.trim().replace(/[.!…\s]+$/, '').toLowerCase();
// toast shows a short message, announced, unless a message line in view
// says it. It never covers the focused element, a message line or a button
// in view: at the bottom, else at the top, else only announced.
export function toast(message, kind = 'ok') {
  const lines = [...document.querySelectorAll('.alert, [role=status], [role=alert]')].filter((n) => n.id !== 'toast' && n.textContent.trim() && seen(n.getBoundingClientRect()));
  const g = gist(message);
  if (lines.some((n) => gist(n.textContent).includes(g) || g.includes(gist(n.textContent)))) return;
  let t = $('#toast');
  if (!t) ($('main') || document.body).append(t = el('div', { id: 'toast', class: 'toast', role: 'status', 'aria-live': 'polite' }));
  t.textContent = message;
  const guard = [...lines, ...document.querySelectorAll('button, .btn'), document.activeElement]
    .filter((n) => n && n !== document.body && !t.contains(n)).map((n) => n.getBoundingClientRect()).filter(seen);
  const hits = () => { const b = t.getBoundingClientRect(); return guard.some((r) => r.left < b.right && r.right > b.left && r.top < b.bottom && r.bottom > b.top); };
  for (const at of ['', ' top', ' quiet']) {
    t.className = `toast show${at} ${kind}`;
    if (at === ' quiet' || !hits()) break;
  }
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.className = 'toast'; t.textContent = ''; }, 6000);
}

// confirmDialog asks before a destructive action: a modal dialog with the
// question and two buttons. Resolves true when confirmed.
export function confirmDialog(question, okLabel = 'Sí, continuar', cancelLabel = 'No, volver') {
  return new Promise((resolve) => {
    const ok = el('button', { class: 'btn danger', type: 'button', value: 'ok' }, okLabel);
    const no = el('button', { class: 'btn secondary', type: 'button', value: 'no' }, cancelLabel);
    const d = el('dialog', { class: 'confirm', 'aria-labelledby': 'confirm-q' },
      el('p', { id: 'confirm-q' }, question), el('div', { class: 'actions' }, no, ok));
    const done = (v) => { d.close(); d.remove(); resolve(v); };
    ok.addEventListener('click', () => done(true));
    no.addEventListener('click', () => done(false));
    d.addEventListener('cancel', (ev) => { ev.preventDefault(); done(false); });
    ($('main') || document.body).append(d);
    d.showModal();
    no.focus();
  });
}

// busy disables a button while fn runs, with a working label.
export async function busy(btn, fn, label = 'Enviando…') {
  const text = btn.textContent;
  btn.disabled = true;
  btn.setAttribute('aria-busy', 'true');
  btn.textContent = label;
  try { return await fn(); } finally {
    btn.disabled = false;
    btn.removeAttribute('aria-busy');
    btn.textContent = text;
  }
}

// showFieldErrors writes issues.fieldErrors beside each field of a form
// (elements with id `err-<field>`), marks the inputs invalid and focuses the
// first one. Returns true when any field error was shown.
export function showFieldErrors(form, fieldErrors) {
  clearFieldErrors(form);
  let first = null;
  let shown = false;
  for (const [field, msgs] of Object.entries(fieldErrors || {})) {
    const box = form.querySelector(`#err-${CSS.escape(field)}`) || form.querySelector(`[data-err="${CSS.escape(field)}"]`);
    const input = form.querySelector(`[name="${CSS.escape(field)}"]`);
    if (box) { box.textContent = [].concat(msgs).join(' '); shown = true; }
    if (input) {
      input.setAttribute('aria-invalid', 'true');
      if (!first) first = input;
    }
  }
  if (first) first.focus();
  return shown;
}

// clearFieldErrors removes the field messages of a form.
export function clearFieldErrors(form) {
  form.querySelectorAll('.field-error').forEach((n) => { n.textContent = ''; });
  form.querySelectorAll('[aria-invalid]').forEach((n) => n.removeAttribute('aria-invalid'));
}

// formError shows an API error on a form: field errors beside fields, else the message.
export function formError(form, alertBox, err) {
  const shown = showFieldErrors(form, err.fieldErrors);
  let text = shown ? 'Revisa los campos marcados.' : err.message;
  if (!shown && err.issues) {
    const general = err.issues.formErrors || [];
    if (general.length) text = general.join(' ');
    else if (err.body && err.body.detail) text = `${err.message}: ${err.body.detail}`;
  }
  showAlert(alertBox, text, 'error', !shown);
}

// field builds a labelled form field with its error line (id prefix p).
export function field(p, name, label, input, hint) {
  const id = `${p}-${name}`;
  input.id = id;
  if (!input.name) input.name = name;
  const described = [hint ? `hint-${id}` : '', `err-${id}`].filter(Boolean).join(' ');
  input.setAttribute('aria-describedby', described);
  return el('div', { class: 'field' }, el('label', { for: id }, label), input,
    hint ? el('p', { class: 'hint', id: `hint-${id}` }, hint) : null,
    el('p', { class: 'field-error', id: `err-${id}`, 'data-err': name }));
}

// logout ends the session and returns to the home page.
export async function logout() {
  try { await api('POST', '/api/auth/logout'); } catch (e) { /* the cookie may be gone already */ }
  location.href = '/';
}

function navLink(href, text, extra) {
  const here = location.pathname + (href.includes('?') ? location.search : '') === href
    || (href === '/' && location.pathname === '/index.html');
  return el('li', {}, el('a', { href, 'aria-current': here ? 'page' : null }, text, extra || null));
}

// renderChrome fills the header navigation (a bottom bar on phones).
export async function renderChrome() {
  const nav = $('#nav');
  if (!nav) return null;
  const session = await me().catch(() => null);
  const links = [navLink('/', 'Inicio')];
  const acts = $('#session-actions');
  if (session && session.user) {
    const role = session.user.role;
    if (role === 'ADMIN') {
      links.push(navLink('/admin.html', 'Administrar'));
    } else {
      links.push(navLink('/trabajos.html', role === 'CAMELLOS' ? 'Trabajos' : 'Mis trabajos'));
    }
    if (role === 'CLIENTE') links.push(navLink('/publicar.html', 'Publicar'));
    if (role === 'CAMELLOS') {
      if (session.camello && session.camello.status === 'ACTIVO') links.push(navLink('/tablero.html', 'Tablero'));
      links.push(navLink('/agenda.html', 'Agenda'));
    }
    const count = el('span', { class: 'badge-count', id: 'unread-count', hidden: true });
    links.push(navLink('/notificaciones.html', 'Avisos', count));
    links.push(navLink('/cuenta.html', 'Cuenta'));
    acts?.replaceChildren(el('button', { type: 'button', id: 'logout', class: 'link-btn', onclick: logout }, 'Salir'));
    api('GET', '/api/notifications?perPage=1').then((r) => setUnread(r.unread)).catch(() => {});
    // Reading the push permission costs the main thread: once it is idle.
    idle(() => syncPush());
  } else {
    links.push(navLink('/ingresar.html', 'Ingresar'), navLink('/registro.html', 'Crear cuenta'), navLink('/registro-camello.html', 'Soy camello'));
    acts?.replaceChildren();
  }
  nav.replaceChildren(...links);
  document.body.classList.add('has-bar');
  return session;
}

// idle runs fn once the main thread has nothing else to do (at most 2 s later).
export const idle = (fn) => (window.requestIdleCallback ? requestIdleCallback(fn, { timeout: 2000 }) : setTimeout(fn, 50));

// syncPush re-sends this browser's push subscription once per tab session,
// so a renewed or dropped one reaches the service. It never asks permission.
export async function syncPush(force = false) {
  try {
    if (!('serviceWorker' in navigator) || !('PushManager' in window) || !('Notification' in window)) return;
    if (Notification.permission !== 'granted') return;
    const reg = await navigator.serviceWorker.getRegistration('/');
    const sub = reg && reg.pushManager ? await reg.pushManager.getSubscription() : null;
    if (!sub) return;
    const key = 'camellos.pushSynced';
    if (!force && sessionStorage.getItem(key) === sub.endpoint) return;
    const j = sub.toJSON();
    await api('POST', '/api/notifications/push/sync', { endpoint: j.endpoint, keys: j.keys });
    sessionStorage.setItem(key, sub.endpoint);
  } catch (e) { /* the next open tries again */ }
}

// setUnread updates the unread badge of the header.
export function setUnread(n) {
  const b = $('#unread-count');
  if (!b) return;
  b.hidden = !n;
  b.textContent = n ? String(n) : '';
  b.setAttribute('aria-label', `${n} sin leer`);
}

// events opens the live stream of the caller's events (/api/events) and
// calls on(type, data) for each; it reconnects by itself. Returns close().
export function events(on) {
  if (!('EventSource' in window)) return () => {};
  const es = new EventSource('/api/events', { withCredentials: true });
  for (const type of ['notification', 'message', 'job']) {
    es.addEventListener(type, (ev) => {
      let data = null;
      try { data = JSON.parse(ev.data); } catch (e) { return; }
      on(type, data);
    });
  }
  // The service ends the stream when the session ends: no reconnecting then.
  es.addEventListener('end', () => es.close());
  return () => es.close();
}
