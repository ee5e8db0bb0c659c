// Camellos web front: shared module. Fetch wrapper for our /api (cookie
// session), session state, header navigation and small DOM helpers.

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

/** ApiError carries the service's error envelope {error, issues, detail}. */
export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.error) || defaultMessage(status));
    this.status = status;
    this.body = body || {};
    this.fieldErrors = (body && body.issues && body.issues.fieldErrors) || {};
  }
}

/**
 * api sends a request to the service and returns the decoded JSON body.
 * body may be a plain object (sent as JSON) or a FormData (multipart).
 */
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
  if (!res.ok) {
    if (res.status === 413) throw new ApiError(413, data || { error: 'El archivo o el formulario es demasiado grande' });
    throw new ApiError(res.status, data);
  }
  return data || {};
}

let mePromise = null;

/** me returns {user, camello} of the signed-in user, or null. Cached per page. */
export function me() {
  if (!mePromise) {
    mePromise = api('GET', '/api/me').catch((e) => {
      if (e.status === 401 || e.status === 403 || e.status === 404) return null;
      throw e;
    });
  }
  return mePromise;
}

/** requireSession sends a guest to the sign-in page and returns the session. */
export async function requireSession() {
  const s = await me().catch(() => null);
  if (!s || !s.user) {
    location.href = '/ingresar.html?next=' + encodeURIComponent(location.pathname + location.search);
    return new Promise(() => {});
  }
  return s;
}

/** el builds an element: el('a', {href: '/'}, 'texto', child...). */
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

/** $ is querySelector. */
export const $ = (sel, root = document) => root.querySelector(sel);

/** param reads a query-string parameter. */
export const param = (name) => new URLSearchParams(location.search).get(name);

const dateFmt = new Intl.DateTimeFormat('es-CO', { dateStyle: 'medium', timeStyle: 'short' });
const dayFmt = new Intl.DateTimeFormat('es-CO', { weekday: 'long', day: 'numeric', month: 'long' });
const shortFmt = new Intl.DateTimeFormat('es-CO', { dateStyle: 'medium' });
const timeFmt = new Intl.DateTimeFormat('es-CO', { hour: '2-digit', minute: '2-digit' });

/** fmtDate formats an ISO timestamp for people, in the browser's zone. */
export const fmtDate = (iso) => (iso ? dateFmt.format(new Date(iso)) : '');
/** fmtShortDate formats the date only ("22 nov 2026"). */
export const fmtShortDate = (iso) => (iso ? shortFmt.format(new Date(iso)) : '');
/** fmtDay formats the day of an ISO timestamp ("lunes, 24 de noviembre"). */
export const fmtDay = (iso) => dayFmt.format(new Date(iso));
/** fmtTime formats the time of an ISO timestamp. */
export const fmtTime = (iso) => timeFmt.format(new Date(iso));

/** stars renders a rating as text with an accessible label. */
export function stars(avg, count) {
  const a = Number(avg) || 0;
  if (!count) return el('span', { class: 'muted' }, 'Sin reseñas');
  return el('span', { class: 'stars', 'aria-label': `Calificación ${a.toFixed(1)} de 5, ${count} reseñas` },
    '★ ' + a.toFixed(1), el('span', { class: 'muted' }, ` (${count})`));
}

/** ratingOf reads {average, count} from a camello in either shape. */
export function ratingOf(c) {
  if (c.rating && typeof c.rating === 'object') return c.rating;
  return { average: c.ratingAvg || 0, count: c.ratingCount || 0 };
}

/** avatar renders a camello's photo or the default drawing. */
export function avatar(photo, name, big) {
  return el('img', {
    class: big ? 'avatar big' : 'avatar', src: photo || '/img/avatar.svg',
    alt: photo ? `Foto de ${name}` : '', width: big ? 120 : 72, height: big ? 120 : 72, loading: 'lazy',
  });
}

/** statusLabel is the Spanish label of a job or appointment status. */
export const statusLabel = (s) => ({
  PENDIENTE: 'Pendiente', ASIGNADO: 'Asignado', EN_PROGRESO: 'En progreso', COMPLETADO: 'Completado',
  CANCELADO: 'Cancelado', PROGRAMADA: 'Programada', CANCELADA: 'Cancelada', COMPLETADA: 'Completada',
  ACTIVO: 'Activo', RECHAZADO: 'Rechazado', SUSPENDIDO: 'Suspendido',
}[s] || s);

/**
 * showAlert puts a message in a live region (kind 'error' or 'ok'); an
 * error takes the focus unless focus is false (a field has it).
 */
export function showAlert(box, message, kind = 'error', focus = true) {
  if (!box) return;
  box.className = 'alert ' + kind;
  box.textContent = message || '';
  if (message && kind === 'error' && focus) box.focus?.();
}

/**
 * showFieldErrors writes issues.fieldErrors beside each field of a form
 * (elements with id `err-<field>`), marks the inputs invalid and focuses the
 * first one. Returns true when any field error was shown.
 */
export function showFieldErrors(form, fieldErrors) {
  clearFieldErrors(form);
  let first = null;
  for (const [field, msgs] of Object.entries(fieldErrors || {})) {
    const box = form.querySelector(`#err-${CSS.escape(field)}`);
    const input = form.querySelector(`[name="${CSS.escape(field)}"]`);
    if (box) box.textContent = [].concat(msgs).join(' ');
    if (input) {
      input.setAttribute('aria-invalid', 'true');
      if (!first) first = input;
    }
  }
  if (first) first.focus();
  return Object.keys(fieldErrors || {}).length > 0;
}

/** clearFieldErrors removes the field messages of a form. */
export function clearFieldErrors(form) {
  form.querySelectorAll('.field-error').forEach((n) => { n.textContent = ''; });
  form.querySelectorAll('[aria-invalid]').forEach((n) => n.removeAttribute('aria-invalid'));
}

/** formError shows an API error on a form: field errors beside fields, the message on top. */
export function formError(form, alertBox, err) {
  const shown = showFieldErrors(form, err.fieldErrors);
  showAlert(alertBox, shown ? 'Revisa los campos marcados.' : err.message, 'error', !shown);
}

/** logout ends the session and returns to the home page. */
export async function logout() {
  try { await api('POST', '/api/auth/logout'); } catch (e) { /* the cookie may be gone already */ }
  location.href = '/';
}

function navLink(href, text, extra) {
  const here = location.pathname + (href.includes('?') ? location.search : '') === href
    || (href === '/' && location.pathname === '/index.html');
  return el('li', {}, el('a', { href, 'aria-current': here ? 'page' : null }, text, extra || null));
}

/** renderChrome fills the header navigation and footer of every page. */
export async function renderChrome() {
  const nav = $('#nav');
  const footer = $('#site-footer');
  if (footer && !footer.firstChild) {
    footer.append(el('div', { class: 'bar' },
      el('span', {}, '© Camellos'),
      el('a', { href: '/legal.html?slug=terminos' }, 'Términos y condiciones'),
      el('a', { href: '/legal.html?slug=privacidad' }, 'Política de privacidad'),
      el('a', { href: '/registro-camello.html' }, 'Trabaja con nosotros')));
  }
  if (!nav) return null;
  const session = await me().catch(() => null);
  nav.replaceChildren();
  nav.append(navLink('/', 'Inicio'));
  if (session && session.user) {
    nav.append(navLink('/trabajos.html', 'Mis trabajos'));
    if (session.user.role === 'CAMELLOS') {
      nav.append(navLink('/agenda.html', 'Agenda'));
      if (session.camello && session.camello.status === 'ACTIVO') {
        nav.append(navLink('/camello.html?id=' + encodeURIComponent(session.camello.id), 'Mi perfil'));
      }
    }
    const count = el('span', { class: 'badge-count', id: 'unread-count', hidden: true });
    nav.append(navLink('/notificaciones.html', 'Notificaciones', count));
    nav.append(el('li', {}, el('button', { type: 'button', onclick: logout }, 'Salir')));
    api('GET', '/api/notifications?perPage=1').then((r) => setUnread(r.unread)).catch(() => {});
  } else {
    nav.append(navLink('/ingresar.html', 'Ingresar'));
    nav.append(navLink('/registro.html', 'Crear cuenta'));
    nav.append(navLink('/registro-camello.html', 'Soy camello'));
  }
  return session;
}

/** setUnread updates the unread badge of the header. */
// renderPager fills nav with "‹ Anterior · Página p de n · Siguiente ›" (or
// empties it when everything fits one page); go(p) loads page p.
export function renderPager(nav, page, total, perPage, go) {
  const pages = Math.max(1, Math.ceil((total || 0) / perPage));
  nav.replaceChildren();
  if (pages <= 1) return;
  nav.append(
    el('button', { class: 'btn secondary small', type: 'button', disabled: page <= 1, onclick: () => go(page - 1) }, '‹ Anterior'),
    el('span', { 'aria-current': 'page' }, `Página ${page} de ${pages}`),
    el('button', { class: 'btn secondary small', type: 'button', disabled: page >= pages, onclick: () => go(page + 1) }, 'Siguiente ›'));
}

export function setUnread(n) {
  const b = $('#unread-count');
  if (!b) return;
  b.hidden = !n;
  b.textContent = n ? String(n) : '';
  b.setAttribute('aria-label', `${n} sin leer`);
}

/**
 * sameOriginPath returns next as a path of this origin ("/x", with its query
 * and fragment), or null: never "//host", "/\host", control or format
 * characters (browsers drop tabs and newlines, "/\t/host" becomes "//host")
 * nor another origin.
 */
export function sameOriginPath(next) {
  if (typeof next !== 'string' || !next.startsWith('/') || next.startsWith('//')) return null;
  if (/[\\\p{Cc}\p{Cf}]/u.test(next)) return null;
  let u;
  try { u = new URL(next, location.origin); } catch { return null; }
  return u.origin === location.origin ? u.pathname + u.search + u.hash : null;
}

/** safeNext returns a same-origin path from ?next=, or fallback. */
export function safeNext(fallback = '/') {
  return sameOriginPath(param('next')) ?? fallback;
}
