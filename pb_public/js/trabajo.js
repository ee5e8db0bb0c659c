// One job, its whole life for each party: the request, the quotes side by
// side ("Aceptar y agendar" accepts and books in one request), the visits
// (book, series, reschedule, cancel, add to calendar: each confirmed, with
// weekday and start–end in one zone spelling), start and completion (the
// visits completion ends are listed before confirming), the review, a slot
// for the payment steps (#pago) and the conversation, live.
import {
  api, el, $, param, requireSession, renderChrome, showAlert, statusLabel, fmtDate, fmtDateTz, fmtSpan, fmtSpanTz,
  avatar, money, confirmDialog, toast, busy, msgBox, formError, clearFieldErrors, events, tzName,
} from './app.js';
import { loadSlots, renderSlots, conflictsText } from './slots.js';

const id = param('id');
const enc = encodeURIComponent;
let session = null;
let job = null;
let quotes = [];
let visits = [];
const seen = new Set();
const FINAL = ['COMPLETADO', 'CANCELADO'];

const isClient = () => job && job.client && job.client.id === session.user.id;
const isMine = () => session.camello && job.provider && job.provider.id === session.camello.id;
const bookable = () => job.provider && (['ASIGNADO', 'EN_PROGRESO'].includes(job.status) || (job.status === 'PENDIENTE' && job.source === 'PERFIL'));

// say answers in the job's message line; the toast only when the line is
// out of view (it never repeats what the eye already reads).
function say(box, text, kind = 'ok') {
  showAlert(box, text, kind, false);
  const r = box && box.getBoundingClientRect();
  if (!r || r.bottom < 0 || r.top > innerHeight) toast(text, kind);
}

// nextStep says in one line what the job waits for, and from whom.
function nextStep() {
  const c = isClient();
  const s = job.status;
  if (s === 'PENDIENTE' && !job.provider) return c ? 'Compara las cotizaciones y acepta una eligiendo la hora de la primera cita.' : 'El cliente está comparando cotizaciones.';
  if (s === 'PENDIENTE') return c ? 'Esperando la respuesta del camello a tu solicitud.' : 'El cliente te pidió este trabajo: acéptalo o recházalo.';
  if (s === 'ASIGNADO') return c ? (visits.length ? 'El camello iniciará el trabajo en la cita.' : 'Agenda la primera cita.') : 'Inicia el trabajo cuando llegues.';
  if (s === 'EN_PROGRESO') return c ? 'El camello está haciendo el trabajo.' : 'Márcalo como completado cuando termines.';
  if (s === 'COMPLETADO') return c ? (job.reviewed ? 'Gracias por tu reseña.' : 'Califica el trabajo.') : 'Trabajo terminado.';
  return 'Este trabajo fue cancelado.';
}

function details() {
  const msg = msgBox('job-msg');
  msg.classList.add('card-msg');
  const bar = el('div', { class: 'actions job-actions' });
  const act = (label, fn, cls = 'btn small') => bar.append(el('button', { class: cls, type: 'button', onclick: (ev) => fn(ev.currentTarget, msg) }, label));
  if (isMine()) {
    if (job.status === 'PENDIENTE') act('Aceptar', (b) => step(b, msg, 'accept', 'Trabajo aceptado.', '¿Aceptar este trabajo?'));
    if (job.status === 'ASIGNADO') act('Iniciar', (b) => step(b, msg, 'start', 'Trabajo iniciado.', '¿Iniciar el trabajo ahora?'));
    if (job.status === 'EN_PROGRESO') act('Completar', complete);
  }
  if (!FINAL.includes(job.status) && session.user.role !== 'ADMIN') {
    act(isMine() && job.status === 'PENDIENTE' ? 'Rechazar' : 'Cancelar trabajo',
      (b) => step(b, msg, 'cancel', 'Trabajo cancelado.', `¿Cancelar el trabajo «${job.title}»? Sus citas futuras también se cancelan.`, 'Sí, cancelar el trabajo'), 'btn danger small');
  }
  const card = el('div', { class: 'card job', id: `job-${job.id}`, 'data-status': job.status },
    el('dl', { class: 'kv' },
      el('dt', {}, 'Servicio'), el('dd', {}, job.service ? job.service.name : '—'),
      el('dt', {}, 'Lugar'), el('dd', {}, [job.neighborhood, job.city].filter(Boolean).join(', ') || '—'),
      job.address != null ? [el('dt', {}, 'Dirección'), el('dd', { id: 'job-address' }, job.address || 'Sin dirección')] : null,
      el('dt', {}, 'Precio'), el('dd', { id: 'job-price' }, job.price ? money(job.price.amount) : 'Por acordar'),
      job.provider ? [el('dt', {}, 'Camello'), el('dd', {}, el('a', { href: '/camello.html?id=' + enc(job.provider.id) }, job.provider.name))] : null,
      job.client && !isClient() ? [el('dt', {}, 'Cliente'), el('dd', {}, job.client.name || '')] : null,
      el('dt', {}, 'Creado'), el('dd', {}, fmtDate(job.createdAt))),
    job.description ? el('p', { class: 'pre' }, job.description) : null,
    el('p', { class: 'next', id: 'next-step' }, el('strong', {}, 'Qué sigue: '), nextStep()),
    isClient() && !FINAL.includes(job.status) ? editForm() : null,
    isClient() && job.status === 'COMPLETADO' && !job.reviewed ? reviewForm(msg) : null,
    bar, msg);
  $('#job').replaceChildren(el('div', { class: 'row' }, el('h1', {}, job.title),
    el('span', { class: `status ${job.status}`, id: 'job-status' }, statusLabel(job.status))), card);
  $('#job').removeAttribute('aria-busy');
  document.title = `${job.title} · Camellos`;
  // The payment steps (another module) fill #pago from this event.
  dispatchEvent(new CustomEvent('camellos:job', { detail: { job, client: isClient(), camello: isMine() } }));
}

async function step(btn, msg, action, okText, question, okLabel = 'Sí, continuar') {
  if (!await confirmDialog(question, okLabel)) return;
  try {
    await busy(btn, () => api('POST', `/api/jobs/${enc(id)}/${action}`));
    await reload();
    say($('#job-msg'), okText);
  } catch (e) { say(msg, e.message, 'error'); }
}

// complete spells out which future visits completion ends before asking;
// the server's 409 lists any this page missed, asked again.
async function complete(btn, msg) {
  let future = visits.filter((a) => Date.parse(a.start) > Date.now());
  const ask = (list) => confirmDialog(list.length
    ? `Completar cancela ${list.length === 1 ? 'esta cita futura' : `estas ${list.length} citas futuras`}: ${list.map((a) => fmtSpan(a.start, a.end)).join('; ')} (${tzName()}). Se avisará al cliente. ¿Completar y cancelarlas?`
    : '¿Marcar el trabajo como completado? No tiene citas futuras.', list.length ? 'Sí, completar y cancelar citas' : 'Sí, completar');
  if (!await ask(future)) return;
  for (;;) {
    try {
      const r = await busy(btn, () => api('POST', `/api/jobs/${enc(id)}/complete`, { endFutureVisits: future.length > 0 }));
      const n = (r.cancelledAppointments || []).length;
      await reload();
      say($('#job-msg'), n ? `Trabajo completado; ${n === 1 ? 'se canceló 1 cita' : `se cancelaron ${n} citas`} y se avisó al cliente.` : 'Trabajo completado.');
      return;
    } catch (e) {
      const more = e.status === 409 && e.issues.conflicts;
      if (more && more.length && !future.length && await ask(more)) { future = more; continue; }
      say(msg, e.message, 'error');
      return;
    }
  }
}

function editForm() {
  const msg = msgBox('edit-msg');
  const f = el('form', { id: 'edit-form', method: 'post', action: location.pathname + location.search, novalidate: true },
    el('div', { class: 'field' }, el('label', { for: 'address' }, 'Dirección'),
      el('input', { id: 'address', name: 'address', type: 'text', maxlength: 200, value: job.address || '', autocomplete: 'street-address', 'aria-describedby': 'hint-address err-address' }),
      el('p', { class: 'hint', id: 'hint-address' }, 'Solo la ven tú y el camello asignado.'),
      el('p', { class: 'field-error', id: 'err-address' })),
    el('div', { class: 'field' }, el('label', { for: 'description' }, 'Detalles'),
      el('textarea', { id: 'description', name: 'description', maxlength: 5000, 'aria-describedby': 'err-description' }, job.description || ''),
      el('p', { class: 'field-error', id: 'err-description' })),
    el('div', { class: 'save-row' }, el('button', { class: 'btn secondary', type: 'submit' }, 'Guardar cambios'), msg));
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFieldErrors(f);
    const d = Object.fromEntries(new FormData(f));
    try {
      const r = await busy(f.querySelector('button'), () => api('PATCH', `/api/jobs/${enc(id)}`, { address: d.address.trim(), description: d.description }));
      job = r.job || job;
      if ($('#job-address')) $('#job-address').textContent = job.address || 'Sin dirección';
      showAlert(msg, 'Cambios guardados.', 'ok');
    } catch (e) { formError(f, msg, e); }
  });
  return el('details', { class: 'review-box' }, el('summary', {}, 'Editar dirección y detalles'), f);
}

function reviewForm(msg) {
  const f = el('form', { class: 'review-form', id: 'review-form', novalidate: true, method: 'post', action: location.pathname + location.search },
    el('fieldset', {}, el('legend', {}, 'Tu calificación'),
      el('div', { class: 'field' }, el('label', { for: 'rating' }, 'Calificación'),
        el('select', { id: 'rating', name: 'rating' }, [5, 4, 3, 2, 1].map((n) => el('option', { value: n }, `${'★'.repeat(n)} (${n})`)))),
      el('div', { class: 'field' }, el('label', { for: 'comment' }, 'Comentario (opcional)'),
        el('textarea', { id: 'comment', name: 'comment', maxlength: 2000 })),
      el('button', { class: 'btn small', type: 'submit' }, 'Enviar reseña')));
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const fd = new FormData(f);
    try {
      await busy(f.querySelector('button'), () => api('POST', `/api/jobs/${enc(id)}/review`, { rating: Number(fd.get('rating')), comment: fd.get('comment') }));
      await reload();
      say($('#job-msg'), '¡Gracias por tu reseña!');
    } catch (e) { say(msg, e.message, 'error'); }
  });
  return el('details', { class: 'review-box', open: true }, el('summary', {}, 'Calificar este trabajo'), f);
}

// repeatFields are the "Repetir" and "Cuántas" selects of a booking (p: id prefix).
function repeatFields(p) {
  const repeat = el('select', { id: `${p}-repeat` }, el('option', { value: '' }, 'Una sola vez'),
    el('option', { value: 'WEEK' }, 'Cada semana'), el('option', { value: '2WEEKS' }, 'Cada 2 semanas'));
  const count = el('select', { id: `${p}-count` }, [2, 3, 4, 5, 6, 8, 10, 12].map((n) => el('option', { value: n }, `${n} citas`)));
  const cf = el('div', { class: 'field', hidden: true }, el('label', { for: `${p}-count` }, 'Cuántas'), count);
  repeat.addEventListener('change', () => { cf.hidden = !repeat.value; });
  return {
    box: el('div', { class: 'grid-2' }, el('div', { class: 'field' }, el('label', { for: `${p}-repeat` }, 'Repetir'), repeat), cf),
    value: () => (repeat.value ? { every: repeat.value, count: Number(count.value) } : null),
  };
}

const repeatText = (rep) => (rep ? `, y ${rep.every === 'WEEK' ? 'cada semana' : 'cada 2 semanas'} hasta completar ${rep.count} citas` : '');

// slotPicker opens a camello's free slots under a toggle button; onPick(slot, button, redraw).
function slotPicker(label, camelloId, onPick, verb, extra) {
  const list = el('div', {});
  const open = el('button', { class: 'btn secondary small', type: 'button', 'aria-expanded': 'false' }, label);
  const draw = async () => {
    try {
      const slots = await loadSlots(camelloId, 14);
      list.replaceChildren(...(extra ? [extra] : []), renderSlots(slots, (s, b) => onPick(s, b, draw), verb));
    } catch (e) { list.replaceChildren(el('p', { class: 'muted' }, e.message)); }
  };
  open.addEventListener('click', async () => {
    const on = open.getAttribute('aria-expanded') !== 'true';
    open.setAttribute('aria-expanded', String(on));
    list.replaceChildren(...(on ? [el('p', { class: 'muted' }, 'Cargando horarios…')] : []));
    if (on) await draw();
  });
  return el('div', { class: 'booking' }, open, list);
}

function quoteCard(q) {
  const msg = msgBox(`q-msg-${q.id}`);
  const c = q.camello || {};
  const card = el('li', { class: `card quote ${q.status}`, 'data-id': q.id, 'data-status': q.status },
    el('div', { class: 'row start' }, avatar(c.photo, c.name),
      el('div', {}, el('h3', {}, c.id ? el('a', { href: '/camello.html?id=' + enc(c.id) }, c.name) : c.name),
        c.ratingAvg ? el('span', { class: 'stars', role: 'img', 'aria-label': `Calificación ${Number(c.ratingAvg).toFixed(1)} de 5` }, '★ ' + Number(c.ratingAvg).toFixed(1)) : null,
        el('p', { class: 'muted flush' }, (c.trades || []).join(' · ')))),
    el('p', { class: 'amount' }, money(q.amount)),
    el('p', {}, el('span', { class: `status ${q.status}` }, statusLabel(q.status)), ' ',
      q.status === 'PENDIENTE' ? el('span', { class: 'muted' }, `válida hasta el ${fmtDateTz(q.expiresAt)}`) : null),
    q.message ? el('p', { class: 'pre' }, q.message) : null);
  const actions = el('div', { class: 'actions' });
  const decided = async (path, body, text) => {
    await api('POST', path, body);
    await reload();
    say($('#job-msg'), text);
  };
  if (q.status === 'PENDIENTE' && isClient()) {
    const rep = repeatFields(`q-${q.id}`);
    const pick = slotPicker('Aceptar y agendar', c.id, async (slot, b, redraw) => {
      const r = rep.value();
      if (!await confirmDialog(`¿Aceptar la cotización de ${c.name} por ${money(q.amount)} y agendar la cita del ${fmtSpanTz(slot.start, slot.end)}${repeatText(r)}? Las demás cotizaciones se rechazan.`, 'Sí, aceptar y agendar')) return;
      try {
        await busy(b, () => decided(`/api/quotes/${enc(q.id)}/accept-and-book`, r ? { start: slot.start, repeat: r } : { start: slot.start },
          `Aceptaste la cotización de ${c.name} y agendaste la cita del ${fmtSpanTz(slot.start, slot.end)}${r ? ` (serie de ${r.count})` : ''}.`), '…');
      } catch (e) {
        say(msg, (e.status === 409 ? `${e.message}. No se aceptó nada: elige otra hora.` : e.message) + conflictsText(e), 'error');
        if (e.status === 409) await redraw();
      }
    }, 'Aceptar y agendar', rep.box);
    actions.append(pick,
      el('button', {
        class: 'btn secondary small', type: 'button',
        onclick: async (ev) => {
          const b = ev.currentTarget;
          if (!await confirmDialog(`¿Aceptar la cotización de ${c.name} por ${money(q.amount)} sin agendar todavía? Las demás se rechazan.`, 'Sí, aceptar')) return;
          try { await busy(b, () => decided(`/api/quotes/${enc(q.id)}/accept`, undefined, `Aceptaste la cotización de ${c.name}. Agenda la primera cita en «Citas».`)); } catch (e) { say(msg, e.message, 'error'); }
        },
      }, 'Aceptar sin agendar'),
      el('button', {
        class: 'btn danger small', type: 'button',
        onclick: async (ev) => {
          const b = ev.currentTarget;
          if (!await confirmDialog(`¿Rechazar la cotización de ${c.name}?`, 'Sí, rechazar')) return;
          try { await busy(b, () => decided(`/api/quotes/${enc(q.id)}/reject`, undefined, 'Cotización rechazada.')); } catch (e) { say(msg, e.message, 'error'); }
        },
      }, 'Rechazar'));
  }
  if (q.status === 'PENDIENTE' && session.camello && c.id === session.camello.id) {
    actions.append(el('button', {
      class: 'btn danger small', type: 'button',
      onclick: async (ev) => {
        const b = ev.currentTarget;
        if (!await confirmDialog('¿Retirar tu cotización? El cliente ya no podrá aceptarla.', 'Sí, retirar')) return;
        try { await busy(b, () => decided(`/api/quotes/${enc(q.id)}/withdraw`, undefined, 'Cotización retirada.')); } catch (e) { say(msg, e.message, 'error'); }
      },
    }, 'Retirar'));
  }
  card.append(actions, msg);
  return card;
}

function sendQuoteForm() {
  const msg = msgBox('send-msg');
  const f = el('form', { id: 'quote-form', method: 'post', action: location.pathname + location.search, novalidate: true },
    el('h3', {}, 'Enviar una cotización'),
    el('div', { class: 'grid-2' },
      el('div', { class: 'field' }, el('label', { for: 'amount' }, 'Precio total (COP)'),
        el('input', { id: 'amount', name: 'amount', type: 'number', inputmode: 'numeric', min: 10000, max: 100000000, step: 1000, 'aria-describedby': 'err-amount' }),
        el('p', { class: 'field-error', id: 'err-amount' })),
      el('div', { class: 'field' }, el('label', { for: 'validDays' }, 'Válida por'),
        el('select', { id: 'validDays', name: 'validDays' }, [3, 7, 15, 30].map((d) => el('option', { value: d, selected: d === 7 }, `${d} días`))))),
    el('div', { class: 'field' }, el('label', { for: 'qmessage' }, 'Mensaje (opcional)'),
      el('textarea', { id: 'qmessage', name: 'message', maxlength: 1000, 'aria-describedby': 'err-message' }),
      el('p', { class: 'field-error', id: 'err-message' })),
    el('div', { class: 'save-row' }, el('button', { class: 'btn', type: 'submit' }, 'Enviar cotización'), msg));
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFieldErrors(f);
    const d = Object.fromEntries(new FormData(f));
    const amount = Number(d.amount);
    if (!Number.isInteger(amount) || amount < 10000 || amount > 100000000) { formError(f, msg, { fieldErrors: { amount: ['Entre $10.000 y $100.000.000, sin decimales'] } }); return; }
    try {
      await busy(f.querySelector('button'), () => api('POST', `/api/jobs/${enc(id)}/quotes`, { amount, message: d.message.trim(), validDays: Number(d.validDays) }));
      await reload();
      say($('#job-msg'), `Cotización enviada por ${money(amount)}.`);
    } catch (e) { formError(f, msg, e); }
  });
  return f;
}

async function drawQuotes() {
  const section = $('#quotes-box');
  try {
    quotes = (await api('GET', `/api/jobs/${enc(id)}/quotes`)).quotes || [];
  } catch (e) { quotes = []; }
  const cam = session.camello && session.camello.status === 'ACTIVO' && !isClient();
  const canSend = cam && job.status === 'PENDIENTE' && !quotes.some((q) => q.status === 'PENDIENTE' && q.camello && q.camello.id === session.camello.id);
  section.hidden = !quotes.length && !canSend;
  if (section.hidden) return;
  const open = quotes.filter((q) => q.status === 'PENDIENTE').length;
  $('#quotes').replaceChildren(...[
    isClient() && quotes.length ? el('p', { class: 'muted' }, open ? `${open} ${open === 1 ? 'cotización espera' : 'cotizaciones esperan'} tu respuesta. Compáralas; «Aceptar y agendar» elige también la hora de la primera cita.` : 'Ninguna cotización espera respuesta.') : null,
    quotes.length ? el('ul', { class: 'quotes list' }, quotes.map(quoteCard)) : el('p', { class: 'muted' }, 'Aún no has cotizado este trabajo.'),
    canSend ? sendQuoteForm() : null].filter(Boolean));
}

// series groups visits at the same weekday and time every 1 or 2 weeks:
// a series reads as one ("Serie semanal: 3 citas").
function series(list) {
  const groups = [];
  for (const a of list) {
    const g = groups.find((x) => {
      const last = x[x.length - 1];
      const gap = (Date.parse(a.start) - Date.parse(last.start)) / 864e5;
      return (gap === 7 || gap === 14) && (x.length < 2 || gap === (Date.parse(x[1].start) - Date.parse(x[0].start)) / 864e5);
    });
    if (g) g.push(a); else groups.push([a]);
  }
  return groups;
}

function visitRow(a, msg) {
  const mine = isMine();
  const row = el('li', { class: 'appt', 'data-id': a.id },
    el('span', {}, el('strong', {}, fmtSpan(a.start, a.end)), a.holiday ? ` · ${a.holiday.label}` : ''));
  const acts = el('div', { class: 'actions' });
  if (bookable()) {
    acts.append(slotPicker('Reprogramar', job.provider.id, async (slot, b) => {
      if (!await confirmDialog(`¿Mover la cita del ${fmtSpan(a.start, a.end)} al ${fmtSpanTz(slot.start, slot.end)}?`, 'Sí, mover la cita')) return;
      try {
        await busy(b, () => api('POST', `/api/appointments/${enc(a.id)}/reschedule`, { start: slot.start }), '…');
        await reload();
        say($('#visits-msg'), `Cita movida al ${fmtSpanTz(slot.start, slot.end)}.`);
      } catch (e) { say(msg, e.message, 'error'); }
    }, 'Mover a'));
  }
  acts.append(el('a', { class: 'btn secondary small', href: `/api/appointments/${enc(a.id)}/ics`, download: `cita-${a.id}.ics` }, 'Añadir al calendario'),
    el('button', {
      class: 'btn danger small', type: 'button',
      onclick: async (ev) => {
        const b = ev.currentTarget;
        if (!await confirmDialog(`¿Cancelar la cita del ${fmtSpanTz(a.start, a.end)}? El horario quedará libre${mine ? ' y se avisará al cliente' : ''}.`, 'Sí, cancelar la cita')) return;
        try {
          await busy(b, () => api('POST', `/api/appointments/${enc(a.id)}/cancel`));
          await reload();
          say($('#visits-msg'), 'Cita cancelada.');
        } catch (e) { say(msg, e.message, 'error'); }
      },
    }, 'Cancelar cita'));
  row.append(acts);
  return row;
}

function bookingPanel(msg) {
  const rep = repeatFields('book');
  const p = slotPicker(visits.length ? 'Agendar otra cita' : 'Agendar cita', job.provider.id, async (slot, b, redraw) => {
    const r = rep.value();
    if (!await confirmDialog(`¿Agendar la cita del ${fmtSpanTz(slot.start, slot.end)}${repeatText(r)}?`, 'Sí, agendar')) return;
    try {
      const out = await busy(b, () => api('POST', `/api/jobs/${enc(id)}/appointments`, r ? { start: slot.start, repeat: r } : { start: slot.start }), '…');
      const n = (out.appointments || []).length;
      const skipped = (out.skippedHolidays || []).map((h) => h.label);
      await reload();
      say($('#visits-msg'), (n > 1 ? `${n} citas reservadas desde el ${fmtSpanTz(slot.start, slot.end)}` : `Cita reservada para el ${fmtSpanTz(slot.start, slot.end)}`)
        + (skipped.length ? `. Sin cita en festivos: ${skipped.join('; ')}` : '') + '.');
    } catch (e) {
      say(msg, e.message + conflictsText(e), 'error');
      if (e.status === 409) await redraw();
    }
  }, 'Reservar', rep.box);
  p.id = `book-${job.id}`;
  return p;
}

async function drawVisits() {
  const section = $('#visits-box');
  if (!job.provider || session.user.role === 'ADMIN') { section.hidden = true; visits = []; return; }
  try {
    const from = new Date(Date.now() - 864e5).toISOString();
    const r = await api('GET', `/api/agenda/appointments?job=${enc(id)}&from=${enc(from)}&perPage=100`);
    visits = (r.appointments || []).filter((a) => a.status === 'PROGRAMADA');
  } catch (e) { visits = []; }
  const msg = msgBox('visits-msg');
  const groups = series(visits);
  section.hidden = false;
  $('#visits').replaceChildren(
    el('p', { class: 'hint tz-label' }, `Horas en ${tzName()}.`),
    visits.length ? el('ul', { class: 'list', 'aria-label': 'Citas' }, groups.map((g) => (g.length > 1
      ? el('li', { class: 'series' }, el('p', { class: 'series-title' }, el('strong', {}, `Serie ${(Date.parse(g[1].start) - Date.parse(g[0].start)) / 864e5 === 7 ? 'semanal' : 'cada 2 semanas'}: ${g.length} citas`)),
        el('ul', { class: 'list' }, g.map((a) => visitRow(a, msg))))
      : visitRow(g[0], msg))))
      : el('p', { class: 'muted' }, job.status === 'PENDIENTE' && isClient() ? 'Puedes apartar una hora mientras el camello responde.' : 'No hay citas programadas.'),
    ...(isClient() && bookable() ? [bookingPanel(msg)] : []), msg);
}

function messageItem(m) {
  const mine = m.author && m.author.id === session.user.id;
  return el('li', { class: 'msg' + (mine ? ' mine' : ''), 'data-id': m.id },
    el('p', { class: 'who' }, `${mine ? 'Tú' : (m.author && m.author.name) || ''} · ${fmtDate(m.createdAt)}`),
    m.body ? el('p', {}, m.body) : null,
    (m.attachments || []).map((u, i) => el('a', { href: u, target: '_blank', rel: 'noopener' },
      el('img', { src: u, alt: `Foto ${i + 1} del mensaje`, loading: 'lazy', width: 200, height: 150 }))));
}

function addMessage(m) {
  if (!m || seen.has(m.id) || (m.jobId && m.jobId !== id)) return;
  seen.add(m.id);
  const ul = $('#messages');
  if (!ul) return;
  ul.querySelector('.empty')?.remove();
  ul.append(messageItem(m));
  ul.scrollTop = ul.scrollHeight;
}

async function drawChat() {
  const section = $('#chat-box');
  let r;
  try {
    r = await api('GET', `/api/jobs/${enc(id)}/messages?perPage=100`);
    if (r.total > 100) r = await api('GET', `/api/jobs/${enc(id)}/messages?perPage=100&page=${Math.ceil(r.total / 100)}`);
  } catch (e) {
    section.hidden = e.status !== 403;
    if (e.status === 403) $('#chat').replaceChildren(el('p', { class: 'muted' }, 'Podrás escribir aquí cuando cotices o te asignen este trabajo.'));
    return false;
  }
  section.hidden = false;
  const ul = el('ul', { class: 'messages', id: 'messages', 'aria-live': 'polite', 'aria-label': 'Mensajes' });
  $('#chat').replaceChildren(ul);
  seen.clear();
  for (const m of r.messages || []) addMessage(m);
  if (!(r.messages || []).length) ul.append(el('li', { class: 'empty muted' }, 'Aún no hay mensajes.'));
  if (job.status !== 'CANCELADO' && session.user.role !== 'ADMIN') $('#chat').append(chatForm());
  return true;
}

function chatForm() {
  const msg = msgBox('chat-msg');
  const quoting = isClient() && job.status === 'PENDIENTE'
    ? [...new Map(quotes.filter((q) => q.camello).map((q) => [q.camello.id, q.camello])).values()] : [];
  if (isClient() && job.status === 'PENDIENTE' && !job.provider && !quoting.length) {
    return el('p', { class: 'muted', id: 'chat-form' }, 'Podrás escribir aquí cuando un camello cotice tu trabajo o lo asignes.');
  }
  const f = el('form', { id: 'chat-form', method: 'post', action: location.pathname + location.search, enctype: 'multipart/form-data', novalidate: true },
    quoting.length ? el('div', { class: 'field' }, el('label', { for: 'toCamelloId' }, 'Para'),
      el('select', { id: 'toCamelloId', name: 'toCamelloId' }, quoting.map((c) => el('option', { value: c.id }, c.name)))) : null,
    el('div', { class: 'field' }, el('label', { for: 'body' }, 'Mensaje'),
      el('textarea', { id: 'body', name: 'body', maxlength: 2000, rows: 3, 'aria-describedby': 'err-body' }),
      el('p', { class: 'field-error', id: 'err-body' })),
    el('div', { class: 'field' }, el('label', { for: 'files' }, 'Fotos (opcional, hasta 3)'),
      el('input', { id: 'files', name: 'files', type: 'file', multiple: true, accept: 'image/jpeg,image/png,image/webp', 'aria-describedby': 'hint-files err-files' }),
      el('p', { class: 'hint', id: 'hint-files' }, 'JPEG, PNG o WebP, máximo 5 MB cada una.'),
      el('p', { class: 'field-error', id: 'err-files' })),
    el('div', { class: 'save-row' }, el('button', { class: 'btn', type: 'submit' }, 'Enviar mensaje'), msg));
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFieldErrors(f);
    showAlert(msg, '');
    const body = f.querySelector('#body').value.trim();
    const files = [...f.querySelector('#files').files];
    const errs = {};
    if (!body && !files.length) errs.body = ['Escribe un mensaje o adjunta una foto'];
    if ([...body].length > 2000) errs.body = ['Máximo 2000 caracteres'];
    if (files.length > 3) errs.files = ['Máximo 3 fotos'];
    else if (files.some((x) => !['image/jpeg', 'image/png', 'image/webp'].includes(x.type) || x.size > 5 * 1024 * 1024)) errs.files = ['Cada foto debe ser JPEG, PNG o WebP de máximo 5 MB'];
    if (Object.keys(errs).length) { formError(f, msg, { fieldErrors: errs }); return; }
    const to = f.querySelector('#toCamelloId');
    let payload = { body };
    if (files.length) {
      payload = new FormData();
      payload.set('body', body);
      for (const x of files) payload.append('files', x);
    }
    if (to) payload instanceof FormData ? payload.set('toCamelloId', to.value) : (payload.toCamelloId = to.value);
    try {
      const r = await busy(f.querySelector('button'), () => api('POST', `/api/jobs/${enc(id)}/messages`, payload));
      addMessage(r.message);
      f.reset();
      showAlert(msg, 'Mensaje enviado.', 'ok');
      f.querySelector('#body').focus();
    } catch (e) { formError(f, msg, e); }
  });
  return f;
}

async function reload() {
  // A camello who quoted an open job reads it through its quotes (the job
  // itself is its client's until assigned).
  const q = session.camello ? ((await api('GET', `/api/me/quotes?job=${enc(id)}&perPage=1`).catch(() => ({}))).quotes || []) : [];
  if (q.length && q[0].job && q[0].job.status === 'PENDIENTE') job = { ...q[0].job, price: null, provider: null };
  else job = (await api('GET', `/api/jobs/${enc(id)}`)).job;
  details();
  await Promise.all([drawQuotes(), drawVisits()]);
  $('#next-step')?.replaceChildren(el('strong', {}, 'Qué sigue: '), nextStep());
  const old = $('#chat-form');
  if (old) {
    const typed = old.querySelector('#body')?.value;
    const f = chatForm();
    old.replaceWith(f);
    if (typed && f.querySelector('#body')) f.querySelector('#body').value = typed;
  }
}

async function main() {
  renderChrome();
  session = await requireSession();
  if (!id) {
    $('#job').replaceChildren(el('h1', {}, 'Falta el trabajo'), el('p', {}, el('a', { href: '/trabajos.html' }, 'Ver mis trabajos')));
    return;
  }
  try {
    await reload();
  } catch (e) {
    $('#job').replaceChildren(el('h1', {}, e.status === 404 || e.status === 403 ? 'Trabajo no encontrado' : 'No se pudo cargar el trabajo'),
      el('p', {}, e.message), el('p', {}, el('a', { href: '/trabajos.html' }, 'Ver mis trabajos')));
    $('#job').removeAttribute('aria-busy');
    return;
  }
  if (await drawChat()) {
    events((type, data) => {
      if (type === 'message') addMessage(data.message || data);
      if (type === 'job' && ((data.job || data).id === id)) reload().catch(() => {});
    });
  }
}

main();
