// My jobs: the client's and the camello's views. Accept, start, complete,
// cancel (confirmed), book an appointment or a weekly series, reschedule or
// cancel an appointment, review when completed. Every answer shows inside
// the job's card, next to the button that asked.
import {
  api, el, $, requireSession, renderChrome, showAlert, statusLabel, fmtDate, fmtDateTz, avatar, renderMore,
  confirmDialog, toast, msgBox, money, tzShort,
} from './app.js';
import { loadSlots, renderSlots, book, conflictsText } from './slots.js';

const PER_PAGE = 20;
let session = null;
let page = 1;
let shown = 0;
let status = '';
let appointmentsByJob = new Map();
let linkedShown = false;

const jobIdOf = (a) => (a.job && typeof a.job === 'object' ? a.job.id : a.job) || a.jobId;

async function loadAppointments() {
  appointmentsByJob = new Map();
  try {
    const from = new Date(Date.now() - 24 * 3600 * 1000).toISOString();
    const to = new Date(Date.now() + 60 * 24 * 3600 * 1000).toISOString();
    const r = await api('GET', `/api/agenda/appointments?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}&perPage=100`);
    for (const a of r.appointments || []) {
      if (a.status !== 'PROGRAMADA') continue;
      const k = jobIdOf(a);
      if (!appointmentsByJob.has(k)) appointmentsByJob.set(k, []);
      appointmentsByJob.get(k).push(a);
    }
  } catch (e) { /* the agenda may not be available: jobs still show */ }
}

function isMine(job) {
  const cam = session.camello;
  return cam && job.provider && job.provider.id === cam.id;
}

// redraw reloads one job and its appointments and replaces its card, then
// shows text in the card's message line.
async function redraw(jobId, text, kind = 'ok') {
  try {
    const [r] = await Promise.all([api('GET', `/api/jobs/${encodeURIComponent(jobId)}`), loadAppointments()]);
    const old = document.getElementById('job-' + jobId);
    const card = jobItem(r.job);
    if (old) old.replaceWith(card);
    say(card, text, kind);
  } catch (e) {
    toast(text, kind);
  }
}

// say writes in the card's message line, brings it into view and repeats
// it in the toast.
function say(card, text, kind = 'ok') {
  const box = card.querySelector('.card-msg');
  showAlert(box, text, kind, false);
  toast(text, kind);
}

async function act(job, action, okText, btn) {
  const card = btn.closest('.job');
  btn.disabled = true;
  try {
    await api('POST', `/api/jobs/${encodeURIComponent(job.id)}/${action}`);
    await redraw(job.id, okText);
  } catch (e) {
    btn.disabled = false;
    say(card, e.message, 'error');
  }
}

// complete asks before completing: the job's future visits are cancelled
// with it, so they are listed and endFutureVisits is sent only once the
// camello confirmed them (the server's 409 lists any this page missed).
async function complete(job, btn) {
  const visits = (list) => list.map((a) => fmtDateTz(a.start)).join('; ');
  const ask = (list) => confirmDialog(list.length
    ? `Completar cancela ${list.length === 1 ? 'la cita futura' : `las ${list.length} citas futuras`} de este trabajo: ${visits(list)}. Se avisará al cliente. ¿Completar y cancelarlas?`
    : '¿Marcar el trabajo como completado?', list.length ? 'Sí, completar y cancelar citas' : 'Sí, completar');
  let future = (appointmentsByJob.get(job.id) || []).filter((a) => Date.parse(a.start) > Date.now());
  if (!await ask(future)) return;
  btn.disabled = true;
  for (;;) {
    try {
      const r = await api('POST', `/api/jobs/${encodeURIComponent(job.id)}/complete`, { endFutureVisits: future.length > 0 });
      const n = (r.cancelledAppointments || []).length;
      await redraw(job.id, n ? `Trabajo completado; ${n === 1 ? 'se canceló 1 cita' : `se cancelaron ${n} citas`} y se avisó al cliente.` : 'Trabajo completado.');
      return;
    } catch (e) {
      const more = e.status === 409 && e.issues.conflicts;
      if (more && more.length && !future.length && await ask(more)) { future = more; continue; }
      btn.disabled = false;
      say(btn.closest('.job'), e.message, 'error');
      return;
    }
  }
}

// slotPicker opens a camello's free slots under a toggle button; onPick
// gets the chosen slot.
function slotPicker(label, camelloId, onPick, verb, extra) {
  const box = el('div', { class: 'booking' });
  const list = el('div', {});
  const open = el('button', {
    class: 'btn secondary small', type: 'button', 'aria-expanded': 'false',
    onclick: async () => {
      if (open.getAttribute('aria-expanded') === 'true') {
        open.setAttribute('aria-expanded', 'false');
        list.replaceChildren();
        return;
      }
      open.setAttribute('aria-expanded', 'true');
      list.replaceChildren(el('p', { class: 'muted' }, 'Cargando horarios…'));
      await draw();
    },
  }, label);
  const draw = async () => {
    try {
      const slots = await loadSlots(camelloId, 14);
      list.replaceChildren(...(extra ? [extra] : []), renderSlots(slots, (s, b) => onPick(s, b, draw), verb));
    } catch (e) {
      list.replaceChildren(el('p', { class: 'muted' }, e.message));
    }
  };
  box.append(open, list);
  return box;
}

function bookingPanel(job) {
  const repeat = el('select', { id: `repeat-${job.id}`, name: 'repeat' },
    el('option', { value: '' }, 'Una sola vez'),
    el('option', { value: 'WEEK' }, 'Cada semana'),
    el('option', { value: '2WEEKS' }, 'Cada 2 semanas'));
  const count = el('select', { id: `count-${job.id}`, name: 'count' },
    [2, 3, 4, 5, 6, 8, 10, 12].map((n) => el('option', { value: n }, `${n} citas`)));
  const countField = el('div', { class: 'field', hidden: true }, el('label', { for: `count-${job.id}` }, 'Cuántas'), count);
  repeat.addEventListener('change', () => { countField.hidden = !repeat.value; });
  const opts = el('div', { class: 'grid-2' },
    el('div', { class: 'field' }, el('label', { for: `repeat-${job.id}` }, 'Repetir'), repeat), countField);
  const p = slotPicker('Agendar cita', job.provider.id, async (slot, btn, draw) => {
    btn.disabled = true;
    const card = btn.closest('.job');
    const rep = repeat.value ? { every: repeat.value, count: Number(count.value) } : null;
    try {
      const r = await book(job.id, slot.start, rep);
      const n = (r.appointments || []).length;
      const skipped = (r.skippedHolidays || []).map((h) => h.label);
      await redraw(job.id, (n > 1 ? `${n} citas reservadas desde el ${fmtDate(slot.start)} (${tzShort()})`
        : `Cita reservada para el ${fmtDate(slot.start)} (${tzShort()})`) + (skipped.length ? `. Sin cita en festivos: ${skipped.join('; ')}` : ''));
    } catch (e) {
      btn.disabled = false;
      say(card, e.message + conflictsText(e), 'error');
      if (e.status === 409) await draw();
    }
  }, 'Reservar', opts);
  p.id = `book-${job.id}`;
  return p;
}

function appointmentRow(job, a, mine) {
  const camelloId = mine ? session.camello.id : job.provider && job.provider.id;
  const row = el('li', { class: 'appt', 'data-id': a.id },
    el('span', {}, 'Cita: ', el('strong', {}, fmtDateTz(a.start))));
  if (camelloId) {
    row.append(slotPicker('Reprogramar', camelloId, async (slot, btn) => {
      btn.disabled = true;
      try {
        await api('POST', `/api/appointments/${encodeURIComponent(a.id)}/reschedule`, { start: slot.start });
        await redraw(job.id, `Cita movida al ${fmtDate(slot.start)} (${tzShort()})`);
      } catch (e) {
        btn.disabled = false;
        say(row.closest('.job'), e.message, 'error');
      }
    }, 'Mover a'));
  }
  row.append(el('button', {
    class: 'btn danger small', type: 'button',
    onclick: async (ev) => {
      const btn = ev.currentTarget;
      if (!await confirmDialog(`¿Cancelar la cita del ${fmtDateTz(a.start)}? El horario quedará libre.`, 'Sí, cancelar la cita')) return;
      btn.disabled = true;
      try {
        await api('POST', `/api/appointments/${encodeURIComponent(a.id)}/cancel`);
        await redraw(job.id, 'Cita cancelada.');
      } catch (e) {
        btn.disabled = false;
        say(row.closest('.job'), e.message, 'error');
      }
    },
  }, 'Cancelar cita'));
  return row;
}

function reviewForm(job) {
  const id = job.id;
  const form = el('form', { class: 'review-form', novalidate: true, method: 'post', action: '/trabajos.html' },
    el('fieldset', {},
      el('legend', {}, 'Tu calificación'),
      el('div', { class: 'field' },
        el('label', { for: `rating-${id}` }, 'Calificación'),
        el('select', { id: `rating-${id}`, name: 'rating' },
          [5, 4, 3, 2, 1].map((n) => el('option', { value: n }, `${'★'.repeat(n)} (${n})`)))),
      el('div', { class: 'field' },
        el('label', { for: `comment-${id}` }, 'Comentario (opcional)'),
        el('textarea', { id: `comment-${id}`, name: 'comment', maxlength: 2000 })),
      el('button', { class: 'btn small', type: 'submit' }, 'Enviar reseña')));
  const box = el('details', { class: 'review-box' }, el('summary', {}, 'Calificar este trabajo'), form);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const fd = new FormData(form);
    const card = box.closest('.job');
    try {
      await api('POST', `/api/jobs/${encodeURIComponent(id)}/review`, { rating: Number(fd.get('rating')), comment: fd.get('comment') });
      box.remove();
      say(card, '¡Gracias por tu reseña!');
    } catch (e) {
      // 409: already reviewed; the list does not say which jobs are.
      if (e.status === 409) box.remove();
      say(card, e.message, 'error');
    }
  });
  return box;
}

function jobItem(job) {
  const mine = isMine(job);
  const main = el('div', { class: 'actions' });
  const open = !['COMPLETADO', 'CANCELADO'].includes(job.status);
  if (mine) {
    if (job.status === 'PENDIENTE') main.append(el('button', { class: 'btn small', type: 'button', onclick: (ev) => act(job, 'accept', 'Trabajo aceptado.', ev.currentTarget) }, 'Aceptar'));
    if (job.status === 'ASIGNADO') main.append(el('button', { class: 'btn small', type: 'button', onclick: (ev) => act(job, 'start', 'Trabajo iniciado.', ev.currentTarget) }, 'Iniciar'));
    if (job.status === 'EN_PROGRESO') main.append(el('button', { class: 'btn small', type: 'button', onclick: (ev) => complete(job, ev.currentTarget) }, 'Completar'));
  }
  main.append(el('a', { class: 'btn secondary small', href: '/trabajo.html?id=' + encodeURIComponent(job.id) },
    !job.provider && job.status === 'PENDIENTE' && !mine ? 'Ver cotizaciones' : 'Ver detalle y mensajes'));
  const appts = appointmentsByJob.get(job.id) || [];
  const li = el('li', { class: 'card job', id: `job-${job.id}`, 'data-status': job.status },
    el('div', { class: 'row' },
      el('h2', { style: 'margin:0;font-size:1.1rem' }, el('a', { href: '/trabajo.html?id=' + encodeURIComponent(job.id) }, job.title)),
      el('span', { class: `status ${job.status}` }, statusLabel(job.status))),
    el('p', { class: 'meta', style: 'margin:.3rem 0' },
      el('span', {}, job.service ? job.service.name : ''),
      el('span', {}, [job.city, job.neighborhood].filter(Boolean).join(', ')),
      job.price ? el('span', {}, 'Precio: ', el('strong', {}, money(job.price.amount))) : null,
      el('span', {}, 'Creado ' + fmtDate(job.createdAt))),
    job.description ? el('p', { style: 'margin:.3rem 0' }, job.description) : null,
    job.provider && !mine
      ? el('p', { class: 'row', style: 'justify-content:flex-start' }, avatar(job.provider.photo, job.provider.name),
        el('span', {}, 'Camello: ', el('a', { href: '/camello.html?id=' + encodeURIComponent(job.provider.id) }, job.provider.name)))
      : (!job.provider ? el('p', { class: 'muted' }, 'Aún sin camello asignado.') : null),
    mine && job.client ? el('p', {}, 'Cliente: ', job.client.name || '') : null,
    appts.length ? el('div', { class: 'appts' }, el('h3', {}, 'Citas'),
      el('ul', { class: 'list', 'aria-label': 'Citas' }, appts.map((a) => appointmentRow(job, a, mine)))) : null);
  if (!mine && job.provider && ['ASIGNADO', 'EN_PROGRESO'].includes(job.status)) li.append(bookingPanel(job));
  if (!mine && job.status === 'COMPLETADO' && !job.review && !job.reviewed) li.append(reviewForm(job));
  li.append(msgBox(`msg-${job.id}`));
  li.lastChild.classList.add('card-msg');
  // The job's own cancel sits apart from the appointment's, and asks first.
  const bar = el('div', { class: 'actions job-actions' }, main);
  if (open) {
    bar.append(el('button', {
      class: 'btn danger small', type: 'button',
      onclick: async (ev) => {
        const btn = ev.currentTarget;
        if (!await confirmDialog(`¿Cancelar el trabajo «${job.title}»? Sus citas futuras también se cancelan.`, 'Sí, cancelar el trabajo')) return;
        act(job, 'cancel', 'Trabajo cancelado.', btn);
      },
    }, 'Cancelar trabajo'));
  }
  li.append(bar);
  return li;
}

function filters() {
  const box = $('#filters');
  box.replaceChildren(...['', 'PENDIENTE', 'ASIGNADO', 'EN_PROGRESO', 'COMPLETADO', 'CANCELADO'].map((s) => el('button', {
    class: 'btn small ' + (status === s ? '' : 'secondary'), type: 'button', 'aria-pressed': String(status === s),
    onclick: () => { status = s; refresh(); },
  }, s ? statusLabel(s) : 'Todos')));
}

async function load(append) {
  const q = new URLSearchParams({ page, perPage: PER_PAGE });
  if (status) q.set('status', status);
  const list = $('#jobs');
  try {
    const [r] = await Promise.all([api('GET', '/api/jobs?' + q), append ? null : loadAppointments()]);
    const jobs = (r.jobs || []).filter((j) => !status || j.status === status);
    if (!append) { list.replaceChildren(); shown = 0; }
    for (const j of jobs) { list.append(jobItem(j)); shown++; }
    if (!shown) {
      list.append(el('li', { class: 'card empty' }, session.user.role === 'CLIENTE'
        ? el('span', {}, 'Aún no tienes trabajos. ', el('a', { href: '/publicar.html' }, 'Publica uno'), ' o ', el('a', { href: '/' }, 'busca un camello'), '.')
        : 'Aún no tienes trabajos.'));
    }
    // A notification links to /trabajos.html?id=<job>: bring that job into view.
    const wanted = new URLSearchParams(location.search).get('id') || location.hash.replace('#job-', '');
    const target = wanted && document.getElementById('job-' + wanted);
    if (target && !linkedShown) {
      linkedShown = true;
      target.classList.add('highlight');
      target.setAttribute('tabindex', '-1');
      target.scrollIntoView({ block: 'center' });
      target.focus({ preventScroll: true });
    }
    renderMore($('#more'), shown, r.total ?? shown, async () => { page++; await load(true); });
  } catch (e) {
    showAlert($('#alert'), e.message);
  } finally {
    list.removeAttribute('aria-busy');
  }
}

function refresh() {
  page = 1;
  filters();
  return load(false);
}

async function main() {
  renderChrome();
  session = await requireSession();
  if (session.user.role === 'ADMIN') {
    $('#filters').replaceWith(el('p', { class: 'card' }, 'Como administrador no tienes trabajos propios. Los trabajos de todos, las asignaciones y las aprobaciones están en ',
      el('a', { href: '/admin.html' }, 'Administración'), '.'));
    $('#jobs').replaceChildren();
    $('#jobs').removeAttribute('aria-busy');
    return;
  }
  if (session.user.role === 'CLIENTE') $('#new-job').hidden = false;
  refresh();
}

main();
