// My jobs: the client's and the camello's views. Cancel, accept, start,
// complete, book an appointment from the free slots, review when completed.
import {
  api, el, $, requireSession, renderChrome, showAlert, statusLabel, fmtDate, avatar, renderPager,
} from './app.js';
import { loadSlots, renderSlots, book } from './slots.js';

const PER_PAGE = 20;
let session = null;
let page = 1;
let status = '';
let appointmentsByJob = new Map();
let linkedShown = false;

const jobIdOf = (a) => (a.job && typeof a.job === 'object' ? a.job.id : a.job) || a.jobId;

async function loadAppointments() {
  appointmentsByJob = new Map();
  try {
    const from = new Date(Date.now() - 24 * 3600 * 1000).toISOString();
    const to = new Date(Date.now() + 60 * 24 * 3600 * 1000).toISOString();
    const r = await api('GET', `/api/agenda/appointments?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
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

async function act(job, action, okText) {
  try {
    await api('POST', `/api/jobs/${encodeURIComponent(job.id)}/${action}`);
    showAlert($('#alert'), okText, 'ok');
    await refresh();
  } catch (e) {
    showAlert($('#alert'), e.message);
  }
}

function bookingPanel(job) {
  const box = el('div', { class: 'booking', id: `book-${job.id}` });
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
  }, 'Agendar cita');
  const msg = el('p', { class: 'muted', 'aria-live': 'polite' });
  const list = el('div', {});
  const draw = async () => {
    try {
      const slots = await loadSlots(job.provider.id);
      list.replaceChildren(renderSlots(slots, async (slot, btn) => {
        btn.disabled = true;
        try {
          await book(job.id, slot.start);
          showAlert($('#alert'), `Cita reservada: ${fmtDate(slot.start)}.`, 'ok');
          await refresh();
        } catch (e) {
          btn.disabled = false;
          msg.textContent = e.message;
          if (e.status === 409) await draw();
        }
      }));
    } catch (e) {
      list.replaceChildren(el('p', { class: 'muted' }, e.message));
    }
  };
  box.append(open, msg, list);
  return box;
}

function reviewForm(job) {
  const id = job.id;
  const form = el('form', { class: 'review-form', novalidate: true },
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
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const fd = new FormData(form);
    try {
      await api('POST', `/api/jobs/${encodeURIComponent(id)}/review`, { rating: Number(fd.get('rating')), comment: fd.get('comment') });
      box.replaceWith(el('p', { class: 'alert ok', role: 'status' }, '¡Gracias por tu reseña!'));
    } catch (e) {
      // 409: already reviewed; the list does not say which jobs are.
      if (e.status === 409) box.replaceWith(el('p', { class: 'muted' }, e.message));
      else showAlert($('#alert'), e.message);
    }
  });
  const box = el('details', { class: 'review-box' }, el('summary', {}, 'Calificar este trabajo'), form);
  return box;
}

function jobItem(job) {
  const mine = isMine(job);
  const actions = el('div', { class: 'actions' });
  const open = !['COMPLETADO', 'CANCELADO'].includes(job.status);
  if (mine) {
    if (job.status === 'PENDIENTE') actions.append(el('button', { class: 'btn small', type: 'button', onclick: () => act(job, 'accept', 'Trabajo aceptado.') }, 'Aceptar'));
    if (job.status === 'ASIGNADO') actions.append(el('button', { class: 'btn small', type: 'button', onclick: () => act(job, 'start', 'Trabajo iniciado.') }, 'Iniciar'));
    if (job.status === 'EN_PROGRESO') actions.append(el('button', { class: 'btn small', type: 'button', onclick: () => act(job, 'complete', 'Trabajo completado.') }, 'Completar'));
  }
  if (open) {
    actions.append(el('button', {
      class: 'btn danger small', type: 'button',
      onclick: () => { if (confirm('¿Seguro que quieres cancelar este trabajo?')) act(job, 'cancel', 'Trabajo cancelado.'); },
    }, 'Cancelar'));
  }
  const appts = appointmentsByJob.get(job.id) || [];
  const li = el('li', { class: 'card job', id: `job-${job.id}`, 'data-status': job.status },
    el('div', { class: 'row' },
      el('h2', { style: 'margin:0;font-size:1.1rem' }, job.title),
      el('span', { class: `status ${job.status}` }, statusLabel(job.status))),
    el('p', { class: 'meta', style: 'margin:.3rem 0' },
      el('span', {}, job.service ? job.service.name : ''),
      el('span', {}, [job.city, job.neighborhood].filter(Boolean).join(', ')),
      el('span', {}, 'Creado ' + fmtDate(job.createdAt))),
    job.description ? el('p', { style: 'margin:.3rem 0' }, job.description) : null,
    job.provider && !mine
      ? el('p', { class: 'row', style: 'justify-content:flex-start' }, avatar(job.provider.photo, job.provider.name),
        el('span', {}, 'Camello: ', el('a', { href: '/camello.html?id=' + encodeURIComponent(job.provider.id) }, job.provider.name)))
      : (!job.provider ? el('p', { class: 'muted' }, 'Aún sin camello asignado.') : null),
    mine && job.client ? el('p', {}, 'Cliente: ', job.client.name || '') : null,
    appts.length ? el('ul', { class: 'list', 'aria-label': 'Citas' }, appts.map((a) => el('li', { class: 'appointment' },
      'Cita: ', el('strong', {}, fmtDate(a.start)),
      ' ', el('button', {
        class: 'btn danger small', type: 'button',
        onclick: async () => {
          try { await api('POST', `/api/appointments/${encodeURIComponent(a.id)}/cancel`); await refresh(); } catch (e) { showAlert($('#alert'), e.message); }
        },
      }, 'Cancelar cita')))) : null,
    actions);
  if (!mine && job.provider && ['ASIGNADO', 'EN_PROGRESO'].includes(job.status)) li.append(bookingPanel(job));
  if (!mine && job.status === 'COMPLETADO' && !job.review && !job.reviewed) li.append(reviewForm(job));
  return li;
}

function filters() {
  const box = $('#filters');
  box.replaceChildren(...['', 'PENDIENTE', 'ASIGNADO', 'EN_PROGRESO', 'COMPLETADO', 'CANCELADO'].map((s) => el('button', {
    class: 'btn small ' + (status === s ? '' : 'secondary'), type: 'button', 'aria-pressed': String(status === s),
    onclick: () => { status = s; page = 1; refresh(); },
  }, s ? statusLabel(s) : 'Todos')));
}

async function refresh() {
  filters();
  const q = new URLSearchParams({ page, perPage: PER_PAGE });
  if (status) q.set('status', status);
  const list = $('#jobs');
  try {
    const [r] = await Promise.all([api('GET', '/api/jobs?' + q), loadAppointments()]);
    const jobs = (r.jobs || []).filter((j) => !status || j.status === status);
    list.replaceChildren(...jobs.map(jobItem));
    if (!jobs.length) {
      list.append(el('li', { class: 'card empty' }, session.user.role === 'CLIENTE'
        ? el('span', {}, 'Aún no tienes trabajos. ', el('a', { href: '/' }, 'Busca un camello'), ' y solicita uno.')
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
    const total = r.total ?? jobs.length;
    renderPager($('#pager'), page, total, PER_PAGE, (p) => { page = p; refresh(); });
  } catch (e) {
    showAlert($('#alert'), e.message);
  }
}

async function main() {
  renderChrome();
  session = await requireSession();
  refresh();
}

main();
