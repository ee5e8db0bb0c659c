// My account: profile, password, e-mail verification, the camello profile
// with its photo, download of one's data, account deletion (confirmed).
import {
  api, el, $, requireSession, renderChrome, showAlert, formError, clearFieldErrors, field, busy, toast,
  confirmDialog, logout, statusLabel, avatar, forgetSession,
} from './app.js';
import { chars, splitTrades, checkCamello } from './validate.js';

let session = null;

const input = (attrs) => el('input', { type: 'text', ...attrs });
const saveRow = (label, id) => {
  const msg = el('p', { class: 'alert', id, role: 'status', 'aria-live': 'polite', tabindex: '-1' });
  return [el('div', { class: 'save-row' }, el('button', { class: 'btn', type: 'submit' }, label), msg), msg];
};
const form = (id, ...children) => el('form', { id, method: 'post', action: '/cuenta.html', novalidate: true }, ...children);

async function submitWith(f, msg, fn, okText) {
  clearFieldErrors(f);
  showAlert(msg, '');
  try {
    const r = await busy(f.querySelector('button[type=submit]'), fn, 'Guardando…');
    showAlert(msg, okText, 'ok');
    toast(okText);
    return r;
  } catch (e) {
    formError(f, msg, e);
    return null;
  }
}

function profileSection(u) {
  const [row, msg] = saveRow('Guardar datos', 'me-msg');
  const f = form('me-form',
    field('me', 'name', 'Nombre completo', input({ value: u.name || '', required: true, maxlength: 120, autocomplete: 'name' })),
    el('div', { class: 'grid-2' },
      field('me', 'phone', 'Teléfono', input({ type: 'tel', value: u.phone || '', maxlength: 32, autocomplete: 'tel' })),
      field('me', 'city', 'Ciudad', input({ value: u.city || '', maxlength: 120, autocomplete: 'address-level2' }))),
    row);
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const d = Object.fromEntries(new FormData(f));
    const r = await submitWith(f, msg, () => api('PATCH', '/api/me', { name: d.name.trim(), phone: d.phone.trim(), city: d.city.trim() }), 'Datos guardados.');
    if (r && r.user) session.user = r.user;
  });
  const verified = u.verified;
  const resendMsg = el('p', { class: 'alert', role: 'status', 'aria-live': 'polite' });
  return el('section', { class: 'card', 'aria-labelledby': 'me-title' },
    el('h2', { id: 'me-title' }, 'Tus datos'),
    el('p', {}, 'Correo: ', el('strong', {}, u.email), ' ',
      verified === true ? el('span', { class: 'status COMPLETADO', id: 'verified' }, 'Verificado')
        : verified === false ? el('span', { class: 'status PENDIENTE', id: 'verified' }, 'Sin verificar') : null),
    verified === false ? el('div', { style: 'margin-bottom:1rem' },
      el('p', { class: 'muted' }, 'Te enviamos un enlace al registrarte. Si no lo encuentras, pide otro.'),
      el('button', {
        class: 'btn secondary small', type: 'button', id: 'resend',
        onclick: async (ev) => {
          try {
            await busy(ev.currentTarget, () => api('POST', '/api/auth/verify/resend'));
            showAlert(resendMsg, `Te enviamos un enlace nuevo a ${u.email}.`, 'ok');
          } catch (e) { showAlert(resendMsg, e.message, 'error'); }
        },
      }, 'Enviar el enlace otra vez'), resendMsg) : null,
    f);
}

function passwordSection() {
  const [row, msg] = saveRow('Cambiar contraseña', 'pw-msg');
  const pw = (name, label, ac, hint) => field('pw', name, label, el('input', { type: 'password', autocomplete: ac, maxlength: 128, required: true }), hint);
  const f = form('pw-form',
    pw('currentPassword', 'Contraseña actual', 'current-password'),
    el('div', { class: 'grid-2' },
      pw('password', 'Contraseña nueva', 'new-password', 'Entre 8 y 128 caracteres.'),
      pw('confirmPassword', 'Confirma la contraseña nueva', 'new-password')),
    row);
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const d = Object.fromEntries(new FormData(f));
    clearFieldErrors(f);
    const errs = {};
    if (!d.currentPassword) errs.currentPassword = ['Escribe tu contraseña actual'];
    if (chars(d.password) < 8 || chars(d.password) > 128) errs.password = ['Debe tener entre 8 y 128 caracteres'];
    else if (d.password !== d.confirmPassword) errs.confirmPassword = ['Las contraseñas no coinciden'];
    if (Object.keys(errs).length) { formError(f, msg, { fieldErrors: errs }); return; }
    const r = await submitWith(f, msg, () => api('PATCH', '/api/me', d), 'Contraseña cambiada. Cerramos tus otras sesiones.');
    if (r) f.reset();
  });
  return el('section', { class: 'card', 'aria-labelledby': 'pw-title' }, el('h2', { id: 'pw-title' }, 'Contraseña'), f);
}

async function camelloSection(c) {
  const [row, msg] = saveRow('Guardar perfil', 'cam-msg');
  let services = [];
  try { services = (await api('GET', '/api/services?perPage=100')).services || []; } catch (e) { services = []; }
  const mine = new Set((c.services || []).map((s) => s.id));
  const preview = el('img', { class: 'photo-preview', alt: 'Vista previa de tu foto', width: 120, height: 120, src: c.photo || null, hidden: !c.photo });
  const file = el('input', { type: 'file', accept: 'image/jpeg,image/png,image/webp' });
  const f = form('cam-form',
    el('div', { class: 'row', style: 'justify-content:flex-start' }, avatar(c.photo, c.name, false, true),
      el('p', {}, 'Estado: ', el('span', { class: `status ${c.status}` }, statusLabel(c.status)), ' · ',
        c.status === 'ACTIVO' ? el('a', { href: '/camello.html?id=' + encodeURIComponent(c.id) }, 'Ver mi perfil público') : 'Tu perfil se publica cuando lo aprobemos.')),
    el('div', { class: 'grid-2' },
      field('cam', 'name', 'Nombre visible', input({ value: c.name || '', maxlength: 120, required: true })),
      field('cam', 'phone', 'Teléfono', input({ type: 'tel', value: c.phone || '', maxlength: 32 })),
      field('cam', 'city', 'Ciudad', input({ value: c.city || '', maxlength: 120 })),
      field('cam', 'neighborhood', 'Barrio', input({ value: c.neighborhood || '', maxlength: 120 }))),
    field('cam', 'trades', 'Oficios', input({ value: (c.trades || []).join(', ') }), 'Separa los oficios con comas (de 1 a 20).'),
    el('fieldset', {}, el('legend', {}, 'Servicios que ofreces'),
      el('div', { class: 'svc-list' }, services.map((s) => el('label', { class: 'check' },
        el('input', { type: 'checkbox', name: 'serviceIds', value: s.id, checked: mine.has(s.id) }), el('span', {}, s.name)))),
      el('p', { class: 'field-error', 'data-err': 'serviceIds' })),
    field('cam', 'description', 'Descripción', el('textarea', { maxlength: 5000 }, c.description || '')),
    el('div', { class: 'grid-2' },
      field('cam', 'professionalCard', 'Tarjeta profesional', input({ value: c.professionalCard || '', maxlength: 120 })),
      field('cam', 'documentId', 'Documento de identidad', input({ value: c.documentId || '', maxlength: 32 }))),
    field('cam', 'file', 'Foto de perfil nueva', file, 'JPEG, PNG o WebP, máximo 5 MB.'),
    preview, row);
  file.addEventListener('change', () => {
    const fl = file.files[0];
    if (!fl) return;
    const errs = checkCamello({}, ['x'], [], fl);
    if (errs.file) { formError(f, msg, { fieldErrors: errs }); return; }
    preview.src = URL.createObjectURL(fl);
    preview.hidden = false;
  });
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const fd = new FormData(f);
    const trades = splitTrades(fd.get('trades'));
    const serviceIds = fd.getAll('serviceIds');
    const fl = file.files[0];
    const errs = checkCamello({ description: fd.get('description'), neighborhood: fd.get('neighborhood'), professionalCard: fd.get('professionalCard'), documentId: fd.get('documentId') }, trades, serviceIds, fl);
    if (chars(String(fd.get('name')).trim()) < 2) errs.name = ['Debe tener al menos 2 caracteres'];
    if (Object.keys(errs).length) { formError(f, msg, { fieldErrors: errs }); return; }
    const body = new FormData();
    for (const k of ['name', 'phone', 'city', 'neighborhood', 'description', 'professionalCard', 'documentId']) body.set(k, String(fd.get(k) || '').trim());
    body.set('trades', JSON.stringify(trades));
    body.set('serviceIds', JSON.stringify(serviceIds));
    if (fl) body.set('file', fl);
    const r = await submitWith(f, msg, () => api('PATCH', '/api/me/camello', body), 'Perfil guardado.');
    if (r && r.camello && r.camello.photo) { f.querySelector('.avatar').src = r.camello.photo; file.value = ''; }
  });
  return el('section', { class: 'card', id: 'perfil', 'aria-labelledby': 'cam-title' }, el('h2', { id: 'cam-title' }, 'Mi perfil de camello'), f);
}

function dataSection() {
  const [row, msg] = saveRow('Eliminar mi cuenta', 'del-msg');
  row.querySelector('button').className = 'btn danger';
  const f = form('del-form',
    el('p', {}, 'Tus trabajos, mensajes y reseñas quedan para la otra parte con el nombre «Usuario eliminado»; tus datos personales se borran. Si tienes trabajos asignados o en progreso, cancélalos primero.'),
    field('del', 'password', 'Escribe tu contraseña para confirmar', el('input', { type: 'password', autocomplete: 'current-password', required: true, maxlength: 128 })),
    row);
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFieldErrors(f);
    const password = f.querySelector('[name=password]').value;
    if (!password) { formError(f, msg, { fieldErrors: { password: ['Escribe tu contraseña'] } }); return; }
    if (!await confirmDialog('¿Eliminar tu cuenta para siempre? No se puede deshacer.', 'Sí, eliminar mi cuenta')) return;
    try {
      await busy(f.querySelector('button[type=submit]'), () => api('DELETE', '/api/me', { password }), 'Eliminando…');
      // The session is gone: the page drops the signed-in navigation and its sections.
      forgetSession();
      await renderChrome();
      $('#main').replaceChildren(el('h1', {}, 'Cuenta eliminada'),
        el('p', { class: 'alert ok', role: 'status', id: 'deleted' }, 'Tu cuenta fue eliminada. ', el('a', { href: '/' }, 'Ir al inicio'), '.'));
      scrollTo(0, 0);
      $('#main').focus({ preventScroll: true });
    } catch (e) {
      if (e.status === 401) e.fieldErrors = { password: [e.message] };
      formError(f, msg, e);
    }
  });
  return el('section', { class: 'card', 'aria-labelledby': 'data-title' },
    el('h2', { id: 'data-title' }, 'Tus datos personales'),
    el('p', {}, 'Descarga todo lo que guardamos de ti (perfil, trabajos, cotizaciones, mensajes, citas, reseñas, avisos y consentimientos) en un archivo JSON.'),
    el('p', {}, el('a', { class: 'btn secondary', href: '/api/me/export', download: 'camellos-mis-datos.json', id: 'export' }, 'Descargar mis datos')),
    el('h3', {}, 'Eliminar la cuenta'), f);
}

// areaSection: where the camello works from (a barrio of the gazetteer,
// or the phone's position) and how far it travels. The exact point stays
// private; clients see the barrio and their distance.
function areaSection(c) {
  const [row, msg] = saveRow('Guardar zona', 'area-msg');
  const a = c.area;
  const byLabel = new Map(); // option label → place id
  let tapped = null; // {lat, lng} from "Usar mi ubicación"
  const barrio = input({ list: 'area-places', maxlength: 120, autocomplete: 'off', value: a && a.placeId ? c.neighborhood || '' : '' });
  const list = el('datalist', { id: 'area-places' });
  const radius = input({ type: 'number', min: 1, max: 100, step: 1, inputmode: 'numeric', value: a ? a.radiusKm : 10, required: true });
  const where = el('p', { class: 'muted', id: 'area-now' }, a
    ? (a.placeId ? `Trabajas desde ${c.neighborhood} y llegas hasta ${a.radiusKm} km.` : `Trabajas desde el punto que marcaste y llegas hasta ${a.radiusKm} km.`)
    : 'Aún no dices dónde trabajas: no apareces en las búsquedas «cerca de mí».');
  // The map (a lazy part: only camellos load it) marks a point by a tap or
  // the arrows; its box is reserved before it is drawn.
  let map = null;
  const mapBox = el('div', { class: 'area-map-wrap' }, el('div', { class: 'area-map', 'aria-busy': 'true' }), el('p', { class: 'hint area-map-said' }, 'Cargando el mapa…'));
  import('./area-map.js').then((m) => m.areaMap(c.city, a && !a.placeId ? a : null, (p) => {
    tapped = p;
    barrio.value = '';
  })).then((got) => {
    map = got;
    mapBox.replaceWith(got ? got.node : el('p', { class: 'hint area-map-said' }, 'Aún no tenemos el mapa de tu ciudad: elige tu barrio o usa tu ubicación.'));
  }).catch(() => mapBox.replaceWith(el('p', { class: 'hint area-map-said' }, 'No se pudo cargar el mapa: elige tu barrio o usa tu ubicación.')));
  let timer = 0;
  barrio.addEventListener('input', () => {
    tapped = null;
    map?.clear();
    clearTimeout(timer);
    const q = barrio.value.trim();
    if (q.length < 2 || byLabel.has(q)) return;
    timer = setTimeout(async () => {
      try {
        const r = await api('GET', '/api/places?' + new URLSearchParams({ q, limit: 8 }));
        list.replaceChildren(...(r.places || []).map((pl) => {
          const label = `${pl.name} (${pl.city})`;
          byLabel.set(label, pl.id);
          return el('option', { value: label });
        }));
      } catch (e) { /* the picker helps; saving says what is wrong */ }
    }, 200);
  });
  const locate = el('button', {
    class: 'btn secondary small', type: 'button', id: 'area-locate',
    onclick: () => {
      if (!navigator.geolocation) { showAlert(msg, 'Tu navegador no comparte la ubicación: elige tu barrio.', 'error'); return; }
      navigator.geolocation.getCurrentPosition((pos) => {
        tapped = { lat: Number(pos.coords.latitude.toFixed(5)), lng: Number(pos.coords.longitude.toFixed(5)) };
        barrio.value = '';
        map?.clear();
        showAlert(msg, 'Usaremos tu ubicación actual como punto de partida. Guarda para confirmar.', 'ok');
      }, () => showAlert(msg, 'No pudimos usar tu ubicación: elige tu barrio de la lista.', 'error'), { timeout: 15000 });
    },
  }, 'Usar mi ubicación');
  const f = form('area-form',
    where,
    field('area', 'placeId', 'Barrio o localidad desde donde trabajas', barrio, 'Escribe y elige de la lista, marca tu punto en el mapa o usa tu ubicación.'), list,
    mapBox,
    el('p', {}, locate),
    field('area', 'radiusKm', 'Hasta cuántos km te desplazas', radius, 'De 1 a 100 km.'),
    row);
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const km = Number(radius.value);
    const id = byLabel.get(barrio.value.trim());
    let body;
    if (tapped) body = { ...tapped, radiusKm: km };
    else if (id) body = { placeId: id, radiusKm: km };
    else if (a && a.placeId && barrio.value.trim() === (c.neighborhood || '')) body = { placeId: a.placeId, radiusKm: km };
    else { formError(f, msg, { fieldErrors: { placeId: ['Elige un barrio de la lista o usa tu ubicación'] } }); return; }
    const r = await submitWith(f, msg, () => api('PUT', '/api/me/camello/area', body), 'Zona guardada.');
    if (r && r.camello) {
      const na = r.camello.area;
      where.textContent = na.placeId ? `Trabajas desde ${r.camello.neighborhood} y llegas hasta ${na.radiusKm} km.` : `Trabajas desde el punto que marcaste y llegas hasta ${na.radiusKm} km.`;
    }
  });
  return el('section', { class: 'card', id: 'zona', 'aria-labelledby': 'area-title' }, el('h2', { id: 'area-title' }, 'Dónde trabajas'), f);
}

async function main() {
  renderChrome();
  session = await requireSession();
  const u = session.user;
  const parts = [profileSection(u), passwordSection()];
  if (session.camello) parts.push(await camelloSection(session.camello), areaSection(session.camello));
  parts.push(dataSection(), el('p', {}, el('button', { class: 'btn secondary', type: 'button', onclick: logout }, 'Salir de mi cuenta')));
  const root = $('#account');
  root.replaceChildren(...parts);
  root.removeAttribute('aria-busy');
  if (location.hash === '#perfil') $('#perfil')?.scrollIntoView();
}

main();
