// Agenda of a camello: weekly availability editor and upcoming appointments.
import {
  api, el, $, requireSession, renderChrome, showAlert, formError, clearFieldErrors, fmtDate, statusLabel,
} from './app.js';

const DAYS = ['Domingo', 'Lunes', 'Martes', 'Miércoles', 'Jueves', 'Viernes', 'Sábado'];
let rowSeq = 0;

function rangeRow(r = { weekday: 1, start: '08:00', end: '17:00' }) {
  const n = ++rowSeq;
  const row = el('div', { class: 'week-row', role: 'group', 'aria-label': `Horario ${n}` },
    el('div', { class: 'field' }, el('label', { for: `wd-${n}` }, 'Día'),
      el('select', { id: `wd-${n}`, 'data-k': 'weekday' },
        DAYS.map((d, i) => el('option', { value: i, selected: Number(r.weekday) === i }, d)))),
    el('div', { class: 'field' }, el('label', { for: `st-${n}` }, 'Desde'),
      el('input', { id: `st-${n}`, type: 'time', 'data-k': 'start', value: r.start, required: true })),
    el('div', { class: 'field' }, el('label', { for: `en-${n}` }, 'Hasta'),
      el('input', { id: `en-${n}`, type: 'time', 'data-k': 'end', value: r.end, required: true })),
    el('button', { class: 'btn danger small', type: 'button', 'aria-label': `Quitar horario ${n}`, onclick: () => row.remove() }, 'Quitar'));
  return row;
}

function readWeekly() {
  return [...document.querySelectorAll('#weekly .week-row')].map((row) => ({
    weekday: Number(row.querySelector('[data-k=weekday]').value),
    start: row.querySelector('[data-k=start]').value,
    end: row.querySelector('[data-k=end]').value,
  }));
}

function checkWeekly(weekly) {
  for (const r of weekly) {
    if (!/^\d\d:\d\d$/.test(r.start) || !/^\d\d:\d\d$/.test(r.end)) return 'Completa las horas de cada horario';
    if (r.end <= r.start) return `${DAYS[r.weekday]}: la hora final debe ser posterior a la inicial`;
  }
  const sorted = [...weekly].sort((a, b) => a.weekday - b.weekday || a.start.localeCompare(b.start));
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i].weekday === sorted[i - 1].weekday && sorted[i].start < sorted[i - 1].end) return `${DAYS[sorted[i].weekday]}: los horarios se superponen`;
  }
  return '';
}

async function loadAvailability() {
  let a = {};
  try {
    const r = await api('GET', '/api/agenda/availability');
    a = r.availability || r || {};
  } catch (e) {
    if (e.status !== 404) showAlert($('#alert'), e.message);
  }
  $('#timezone').value = a.timezone || Intl.DateTimeFormat().resolvedOptions().timeZone || 'America/Bogota';
  const weekly = a.weekly || [];
  $('#weekly').replaceChildren(...weekly.map(rangeRow));
  if (!weekly.length) $('#weekly').append(el('p', { class: 'muted', id: 'no-ranges' }, 'Aún no has indicado horarios.'));
  $('#blockedDates').value = (a.blockedDates || []).join(', ');
}

async function save(ev) {
  ev.preventDefault();
  const form = ev.target;
  clearFieldErrors(form);
  const weekly = readWeekly();
  const problem = checkWeekly(weekly);
  if (problem) { formError(form, $('#alert'), { fieldErrors: { weekly: [problem] } }); return; }
  const blockedDates = $('#blockedDates').value.split(',').map((s) => s.trim()).filter(Boolean);
  if (blockedDates.some((d) => !/^\d{4}-\d{2}-\d{2}$/.test(d))) {
    formError(form, $('#alert'), { fieldErrors: { blockedDates: ['Usa fechas AAAA-MM-DD'] } });
    return;
  }
  try {
    await api('PUT', '/api/agenda/availability', { timezone: $('#timezone').value.trim(), weekly, blockedDates });
    showAlert($('#alert'), 'Disponibilidad guardada.', 'ok');
  } catch (e) {
    const fe = {};
    for (const [k, v] of Object.entries(e.fieldErrors)) fe[k.split('.')[0]] = (fe[k.split('.')[0]] || []).concat(v);
    formError(form, $('#alert'), { ...e, message: e.message, fieldErrors: fe });
  }
}

async function loadAppointments() {
  const ul = $('#appointments');
  try {
    const from = new Date().toISOString();
    const to = new Date(Date.now() + 31 * 24 * 3600 * 1000).toISOString();
    const [r, jobs] = await Promise.all([
      api('GET', `/api/agenda/appointments?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}&perPage=100`),
      api('GET', '/api/jobs?perPage=100').catch(() => ({ jobs: [] })),
    ]);
    const titles = new Map((jobs.jobs || []).map((j) => [j.id, j.title]));
    const list = (r.appointments || []).filter((a) => a.status === 'PROGRAMADA');
    ul.replaceChildren(...list.map((a) => el('li', { class: 'card' },
      el('div', { class: 'row' }, el('strong', {}, fmtDate(a.start)), el('span', { class: 'status' }, statusLabel(a.status))),
      titles.get(a.job) ? el('p', { style: 'margin:.25rem 0' }, el('a', { href: '/trabajos.html?id=' + encodeURIComponent(a.job) }, titles.get(a.job))) : null,
      el('button', {
        class: 'btn danger small', type: 'button',
        onclick: async () => {
          try { await api('POST', `/api/appointments/${encodeURIComponent(a.id)}/cancel`); loadAppointments(); } catch (e) { showAlert($('#alert'), e.message); }
        },
      }, 'Cancelar cita'))));
    if (!list.length) ul.append(el('li', { class: 'card empty' }, 'No tienes citas próximas.'));
  } catch (e) {
    ul.replaceChildren(el('li', { class: 'muted' }, e.message));
  }
}

async function main() {
  renderChrome();
  const s = await requireSession();
  if (s.user.role !== 'CAMELLOS') {
    $('#avail-form').closest('section').replaceWith(el('p', { class: 'card' }, 'La disponibilidad semanal es solo para camellos.'));
  } else {
    $('#add-range').addEventListener('click', () => {
      $('#no-ranges')?.remove();
      const row = rangeRow();
      $('#weekly').append(row);
      row.querySelector('select').focus();
    });
    $('#avail-form').addEventListener('submit', save);
    loadAvailability();
  }
  loadAppointments();
}

main();
