// Camello profile: description, services, reviews with the average, free
// slots (signed in; a client with an assigned job books here), the
// "Solicitar trabajo" form for clients and a sticky primary action on phones.
import {
  api, el, $, param, renderChrome, showAlert, stars, ratingOf, avatar, fmtShortDate, formError,
  clearFieldErrors, signInURL, msgBox, busy, confirmDialog, fmtSpan, fmtSpanTz, tzName,
} from './app.js';
import { loadSlots, renderSlots, book } from './slots.js';

const id = param('id');
let camello = null;
let session = null;

function header(c) {
  const r = ratingOf(c);
  return el('div', { class: 'card profile-head' },
    avatar(c.photo, c.name, true, true),
    el('div', {},
      el('h1', { style: 'margin:0' }, c.name, ' ', c.premium ? el('span', { class: 'premium' }, 'Premium') : null,
        c.verified === true ? el('span', { class: 'verified' }, 'Correo verificado') : null),
      el('ul', { class: 'tags', 'aria-label': 'Oficios' }, (c.trades || []).map((t) => el('li', {}, t))),
      el('div', { class: 'meta' },
        el('span', {}, [c.city, c.neighborhood].filter(Boolean).join(', ')),
        stars(r.average, r.count))));
}

function about(c) {
  return el('section', { class: 'card o-about', 'aria-labelledby': 'about-title' },
    el('h2', { id: 'about-title' }, 'Sobre mí'),
    el('p', { style: 'white-space:pre-line' }, c.description || 'Este camello aún no ha escrito una descripción.'),
    el('h3', {}, 'Servicios'),
    (c.services || []).length
      ? el('ul', { class: 'tags' }, c.services.map((s) => el('li', {}, s.name)))
      : el('p', { class: 'muted' }, 'Sin servicios registrados.'));
}

async function reviews() {
  const box = el('section', { class: 'card o-reviews', 'aria-labelledby': 'reviews-title' },
    el('h2', { id: 'reviews-title' }, 'Reseñas'));
  try {
    const r = await api('GET', `/api/camellos/${encodeURIComponent(id)}/reviews`);
    const list = r.reviews || [];
    box.append(el('p', {}, r.count ? el('span', {}, 'Promedio: ', stars(r.average, r.count)) : 'Aún no tiene reseñas.'));
    for (const rv of list) {
      const who = (rv.author && rv.author.name) || (rv.client && rv.client.name) || 'Cliente';
      box.append(el('div', { class: 'review' },
        el('p', { style: 'margin:0' }, el('span', { class: 'stars', role: 'img', 'aria-label': `${rv.rating} de 5` }, '★'.repeat(rv.rating) + '☆'.repeat(5 - rv.rating)),
          ' ', el('strong', {}, who), ' ', el('span', { class: 'muted' }, fmtShortDate(rv.createdAt))),
        rv.comment ? el('p', { style: 'margin:.25rem 0 0' }, rv.comment) : null));
    }
  } catch (e) {
    box.append(el('p', { class: 'muted' }, 'No se pudieron cargar las reseñas.'));
  }
  return box;
}

async function slotsSection() {
  const box = el('section', { class: 'card o-slots', 'aria-labelledby': 'slots-title', id: 'slots' },
    el('h2', { id: 'slots-title' }, 'Horarios libres'));
  if (!session) {
    box.append(el('p', {}, el('a', { href: signInURL() }, 'Ingresa'), ' para ver los horarios libres de los próximos días.'));
    return box;
  }
  // A client with an assigned job with this camello can book right here.
  let job = null;
  if (session.user.role === 'CLIENTE') {
    try {
      const r = await api('GET', '/api/jobs?perPage=100');
      job = (r.jobs || []).find((j) => j.provider && j.provider.id === id && ['ASIGNADO', 'EN_PROGRESO'].includes(j.status));
    } catch (e) { job = null; }
  }
  const hint = el('p', { class: 'muted' }, job ? `Elige un horario para «${job.title}».` : '');
  const msg = msgBox('slot-msg');
  const body = el('div', {}, el('p', { class: 'muted' }, 'Cargando horarios…'));
  box.append(hint, msg, body);
  const draw = async () => {
    try {
      const slots = await loadSlots(id);
      body.replaceChildren(renderSlots(slots, job ? pick : null));
    } catch (e) {
      body.replaceChildren(el('p', { class: 'muted' }, e.message));
    }
  };
  const pick = async (slot, btn) => {
    if (!await confirmDialog(`¿Agendar la cita del ${fmtSpanTz(slot.start, slot.end)} para «${job.title}»?`, 'Sí, agendar')) return;
    btn.disabled = true;
    // Said at once, in the room the answer takes: nothing below moves
    // when the answer comes, however slow; the booked time stays in place.
    showAlert(msg, 'Reservando la cita…', 'ok', false);
    try {
      await book(job.id, slot.start);
      btn.textContent = 'Reservada';
      btn.setAttribute('aria-label', `Reservada: ${fmtSpanTz(slot.start, slot.end)}`);
      showAlert(msg, `Cita reservada para el ${fmtSpanTz(slot.start, slot.end)}.`, 'ok');
    } catch (e) {
      btn.disabled = false;
      showAlert(msg, e.message, 'error');
      if (e.status === 409) await draw();
    }
  };
  await draw();
  return box;
}

async function requestSection(c) {
  const box = el('section', { class: 'card o-request', 'aria-labelledby': 'req-title', id: 'request' },
    el('h2', { id: 'req-title' }, 'Solicitar trabajo'));
  if (!session) {
    box.append(el('p', {}, el('a', { href: signInURL() }, 'Ingresa'),
      ' o ', el('a', { href: '/registro.html?next=' + encodeURIComponent(location.pathname + location.search), id: 'signup-here' }, 'crea una cuenta'), ' para solicitar un trabajo a ', c.name, '.'));
    return box;
  }
  if (session.user.role !== 'CLIENTE') {
    box.append(el('p', { class: 'muted' }, 'Solo los clientes pueden solicitar trabajos.'));
    return box;
  }
  let services = c.services || [];
  if (!services.length) {
    try { services = (await api('GET', '/api/services')).services || []; } catch (e) { services = []; }
  }
  const alert = el('div', { class: 'alert', role: 'alert', tabindex: '-1' });
  const fieldOf = (name, label, input) => el('div', { class: 'field' },
    el('label', { for: 'job-' + name }, label), input,
    el('p', { class: 'field-error', id: 'err-' + name }));
  const submit = el('button', { class: 'btn', type: 'submit' }, 'Solicitar trabajo');
  const form = el('form', { novalidate: true, id: 'job-form', method: 'post', action: location.pathname + location.search },
    fieldOf('title', 'Qué necesitas', el('input', { id: 'job-title', name: 'title', type: 'text', required: true, minlength: 3, maxlength: 120, placeholder: 'Ej.: Arreglar fuga del lavamanos', 'aria-describedby': 'err-title' })),
    fieldOf('serviceId', 'Servicio', el('select', { id: 'job-serviceId', name: 'serviceId', required: true, 'aria-describedby': 'err-serviceId' },
      services.map((s) => el('option', { value: s.id }, s.name)))),
    fieldOf('description', 'Detalles (opcional)', el('textarea', { id: 'job-description', name: 'description', maxlength: 5000, 'aria-describedby': 'err-description' })),
    el('div', { class: 'grid-2' },
      fieldOf('city', 'Ciudad', el('input', { id: 'job-city', name: 'city', type: 'text', required: true, maxlength: 120, value: session.user.city || c.city || '', 'aria-describedby': 'err-city' })),
      fieldOf('neighborhood', 'Barrio (opcional)', el('input', { id: 'job-neighborhood', name: 'neighborhood', type: 'text', maxlength: 120, 'aria-describedby': 'err-neighborhood' }))),
    timeField(), alert, submit);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFieldErrors(form);
    showAlert(alert, '');
    const data = Object.fromEntries(new FormData(form));
    const title = data.title.trim();
    if (title.length < 3) {
      formError(form, alert, { fieldErrors: { title: ['Escribe al menos 3 caracteres'] } });
      return;
    }
    try {
      const r = await busy(submit, () => api('POST', '/api/jobs', {
        title, description: data.description, serviceId: data.serviceId,
        city: data.city.trim(), neighborhood: data.neighborhood.trim(), camelloId: id,
      }));
      // The chosen time is held at once (the request names the camello) or refused.
      let held = '';
      let kind = 'ok';
      if (data.start) {
        const span = fmtSpanTz(data.start);
        try {
          await book(r.job.id, data.start);
          held = `Hora apartada: ${span}. `;
        } catch (e) {
          kind = 'error';
          held = `La hora ${span} no se pudo apartar (${e.message}); elige otra en el trabajo. `;
        }
      }
      const done = el('div', { class: `alert ${kind}`, role: kind === 'ok' ? 'status' : 'alert', tabindex: '-1', id: 'request-done' },
        `Solicitud enviada a ${c.name}. ${held}`, el('a', { href: '/trabajo.html?id=' + encodeURIComponent(r.job && r.job.id) }, 'Ver el trabajo'));
      // The section keeps its height: the free times below never move up.
      box.style.minHeight = `${box.offsetHeight}px`;
      form.replaceWith(done);
      done.focus({ preventScroll: true });
      done.scrollIntoView({ block: 'nearest' });
    } catch (e) {
      formError(form, alert, e);
    }
  });
  box.append(form);
  return box;
}

// timeField offers the camello's free times of the next 7 days while
// requesting: the chosen one is held with the request.
function timeField() {
  const sel = el('select', { id: 'job-start', name: 'start', 'aria-describedby': 'hint-start err-start' }, el('option', { value: '' }, 'Sin hora por ahora'));
  loadSlots(id).then((slots) => {
    const days = new Map();
    for (const s of slots) {
      const d = fmtSpan(s.start, s.end).split(', ').slice(0, 2).join(', ');
      if (!days.has(d)) days.set(d, el('optgroup', { label: d }));
      days.get(d).append(el('option', { value: s.start }, fmtSpan(s.start, s.end).split(', ').pop()));
    }
    sel.append(...days.values());
  }).catch(() => {});
  return el('div', { class: 'field' }, el('label', { for: 'job-start' }, 'Hora de la primera cita (opcional)'), sel,
    el('p', { class: 'hint', id: 'hint-start' }, `Horas en ${tzName()}. Se aparta al enviar la solicitud.`),
    el('p', { class: 'field-error', id: 'err-start' }));
}

// stickyAction is the primary action kept at hand on phones.
function stickyAction() {
  const go = (sel) => () => { const t = $(sel); t?.scrollIntoView({ behavior: 'smooth', block: 'start' }); t?.querySelector('input,select,button')?.focus({ preventScroll: true }); };
  let main;
  if (!session) main = el('a', { class: 'btn', href: signInURL() }, 'Ingresa para solicitar');
  else if (session.user.role === 'CLIENTE') main = el('button', { class: 'btn', type: 'button', onclick: go('#request') }, 'Solicitar trabajo');
  else if (session.camello && session.camello.id === id) main = el('a', { class: 'btn', href: '/cuenta.html#perfil' }, 'Editar mi perfil');
  else return null;
  document.body.classList.add('has-cta');
  return el('div', { class: 'sticky-cta' }, main,
    session ? el('button', { class: 'btn secondary', type: 'button', onclick: go('#slots') }, 'Ver horarios') : null);
}

async function main() {
  session = await renderChrome();
  const root = $('#profile');
  if (!id) {
    root.replaceChildren(el('h1', {}, 'Falta el camello'), el('p', {}, el('a', { href: '/' }, 'Volver al inicio')));
    return;
  }
  try {
    const r = await api('GET', `/api/camellos/${encodeURIComponent(id)}`);
    camello = r.camello;
  } catch (e) {
    root.replaceChildren(el('h1', {}, e.status === 404 ? 'Camello no encontrado' : 'No se pudo cargar el perfil'),
      el('p', {}, el('a', { href: '/' }, 'Volver al inicio')));
    root.removeAttribute('aria-busy');
    return;
  }
  document.title = `${camello.name} · Camellos`;
  const [rev, slots, req] = await Promise.all([reviews(), slotsSection(), requestSection(camello)]);
  root.replaceChildren(header(camello),
    // In reading order (phones); wide screens place them in two columns.
    el('div', { class: 'profile-grid' }, about(camello), req, slots, rev));
  root.removeAttribute('aria-busy');
  const cta = stickyAction();
  if (cta) $('main').append(cta);
}

main();
