// Agenda of a camello: the week as day toggles with hours (presets
// "Lun–Vie 8–17"), the zone behind a sensible default, booking rules,
// blocked days with date pickers, the calendar-feed link, and the upcoming
// appointments (reschedule, cancel).
import {
  api, el, $, requireSession, renderChrome, showAlert, formError, clearFieldErrors, fmtDateTz, statusLabel,
  confirmDialog, toast, tzName, fmtSpan, fmtSpanTz,
} from './app.js';
import { loadSlots, renderSlots } from './slots.js';

// Monday first, as people read a week here; values are the API's weekday (0 = Sunday).
const DAYS = [[1, 'Lunes'], [2, 'Martes'], [3, 'Miércoles'], [4, 'Jueves'], [5, 'Viernes'], [6, 'Sábado'], [0, 'Domingo']];
const NAME = Object.fromEntries(DAYS);
// The zones people here use, named for people; another zone saved before
// still shows as it is.
const ZONES = {
  'America/Bogota': 'Colombia (Bogotá)', 'America/Mexico_City': 'México (Ciudad de México)', 'America/Lima': 'Perú (Lima)',
  'America/Guayaquil': 'Ecuador (Guayaquil)', 'America/Panama': 'Panamá', 'America/Caracas': 'Venezuela (Caracas)',
  'America/Santiago': 'Chile (Santiago)', 'America/Argentina/Buenos_Aires': 'Argentina (Buenos Aires)',
  'America/New_York': 'Estados Unidos (Nueva York)', 'Europe/Madrid': 'España (Madrid)',
};
let session = null;

function rangeEl(day, r) {
  const n = Math.random().toString(36).slice(2, 8);
  const row = el('div', { class: 'range', role: 'group', 'aria-label': `Horario del ${NAME[day].toLowerCase()}` },
    el('label', { class: 'visually-hidden', for: `st-${n}` }, `${NAME[day]}: desde`),
    el('input', { id: `st-${n}`, type: 'time', 'data-k': 'start', value: r.start, required: true, step: 900 }),
    el('span', { class: 'sep', 'aria-hidden': 'true' }, 'a'),
    el('label', { class: 'visually-hidden', for: `en-${n}` }, `${NAME[day]}: hasta`),
    el('input', { id: `en-${n}`, type: 'time', 'data-k': 'end', value: r.end, required: true, step: 900 }));
  return row;
}

function dayRow(day, ranges) {
  const on = ranges.length > 0;
  const box = el('div', { class: 'ranges' });
  const toggle = el('button', { class: 'day-toggle', type: 'button', 'aria-pressed': String(on), 'data-day': day }, NAME[day]);
  const row = el('div', { class: 'day-row', 'data-day': day }, toggle, box);
  const draw = (list) => {
    box.replaceChildren();
    if (!list.length) { box.append(el('p', { class: 'day-off' }, 'No atiendes')); return; }
    list.forEach((r, i) => {
      const rr = rangeEl(day, r);
      if (i > 0) rr.append(el('button', { class: 'btn danger small', type: 'button', 'aria-label': `Quitar tramo ${i + 1} del ${NAME[day].toLowerCase()}`, onclick: () => { rr.remove(); } }, 'Quitar'));
      box.append(rr);
    });
    box.append(el('button', {
      class: 'btn secondary small', type: 'button', 'aria-label': `Añadir otro tramo el ${NAME[day].toLowerCase()}`,
      onclick: (ev) => { const rr = rangeEl(day, { start: '14:00', end: '18:00' }); rr.append(el('button', { class: 'btn danger small', type: 'button', 'aria-label': `Quitar tramo del ${NAME[day].toLowerCase()}`, onclick: () => rr.remove() }, 'Quitar')); ev.currentTarget.before(rr); },
    }, '+ Tramo'));
  };
  toggle.addEventListener('click', () => {
    const now = toggle.getAttribute('aria-pressed') !== 'true';
    toggle.setAttribute('aria-pressed', String(now));
    draw(now ? [{ start: '08:00', end: '17:00' }] : []);
  });
  draw(ranges);
  return row;
}

function drawWeek(weekly) {
  $('#weekly').replaceChildren(...DAYS.map(([d]) => dayRow(d, weekly.filter((r) => Number(r.weekday) === d))));
}

function readWeekly() {
  const out = [];
  for (const row of document.querySelectorAll('#weekly .day-row')) {
    if (row.querySelector('.day-toggle').getAttribute('aria-pressed') !== 'true') continue;
    for (const r of row.querySelectorAll('.range')) {
      out.push({ weekday: Number(row.dataset.day), start: r.querySelector('[data-k=start]').value, end: r.querySelector('[data-k=end]').value });
    }
  }
  return out;
}

function checkWeekly(weekly) {
  for (const r of weekly) {
    if (!/^\d\d:\d\d$/.test(r.start) || !/^\d\d:\d\d$/.test(r.end)) return 'Completa las horas de cada día marcado';
    if (r.end <= r.start) return `${NAME[r.weekday]}: la hora final debe ser posterior a la inicial`;
  }
  const sorted = [...weekly].sort((a, b) => a.weekday - b.weekday || (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i].weekday === sorted[i - 1].weekday && sorted[i].start < sorted[i - 1].end) return `${NAME[sorted[i].weekday]}: los horarios se superponen`;
  }
  return '';
}

function blockedRow(value) {
  const n = Math.random().toString(36).slice(2, 8);
  const li = el('li', {},
    el('label', { class: 'visually-hidden', for: `bd-${n}` }, 'Día bloqueado'),
    el('input', { id: `bd-${n}`, type: 'date', value: value || '', 'data-k': 'blocked', 'aria-describedby': 'hint-blocked' }),
    el('button', { class: 'btn danger small', type: 'button', 'aria-label': `Quitar día bloqueado ${value || ''}`.trim(), onclick: () => li.remove() }, 'Quitar'));
  return li;
}

const zoneLabel = (z) => ZONES[z] || z.replace(/_/g, ' ');

function setZone(z) {
  const sel = $('#timezone');
  const zones = ZONES[z] ? Object.keys(ZONES) : [z, ...Object.keys(ZONES)];
  sel.replaceChildren(...zones.map((x) => el('option', { value: x, selected: x === z }, zoneLabel(x))));
  $('#tz-current').textContent = zoneLabel(z);
}

async function loadAvailability() {
  let a = {};
  try {
    const r = await api('GET', '/api/agenda/availability');
    a = r.availability || r || {};
  } catch (e) {
    if (e.status !== 404) showAlert($('#alert'), e.message);
  }
  setZone(a.timezone || 'America/Bogota');
  drawWeek(a.weekly || []);
  $('#minNoticeMinutes').value = String(a.minNoticeMinutes ?? 120);
  if (!$('#minNoticeMinutes').value) $('#minNoticeMinutes').value = '120';
  $('#bufferMinutes').value = String(a.bufferMinutes ?? 0);
  if (!$('#bufferMinutes').value) $('#bufferMinutes').value = '0';
  $('#horizonDays').value = String(a.horizonDays ?? 60);
  $('#blocked').replaceChildren(...(a.blockedDates || []).map(blockedRow));
  $('#worksHolidays').checked = a.worksHolidays === true;
}

async function save(ev, cancelConflicts) {
  ev?.preventDefault();
  const form = $('#avail-form');
  const msg = $('#avail-msg');
  clearFieldErrors(form);
  showAlert(msg, '');
  const weekly = readWeekly();
  const problem = checkWeekly(weekly);
  if (problem) { formError(form, msg, { fieldErrors: { weekly: [problem] } }); return; }
  const blockedDates = [...new Set([...document.querySelectorAll('#blocked [data-k=blocked]')].map((i) => i.value).filter(Boolean))].sort();
  const horizon = Number($('#horizonDays').value);
  if (!Number.isInteger(horizon) || horizon < 1 || horizon > 365) { formError(form, msg, { fieldErrors: { horizonDays: ['Entre 1 y 365 días'] } }); return; }
  const body = {
    timezone: $('#timezone').value, weekly, blockedDates,
    minNoticeMinutes: Number($('#minNoticeMinutes').value), bufferMinutes: Number($('#bufferMinutes').value), horizonDays: horizon,
    worksHolidays: $('#worksHolidays').checked,
  };
  if (cancelConflicts) body.cancelConflicts = true;
  const btn = $('#save-avail');
  btn.disabled = true;
  try {
    await api('PUT', '/api/agenda/availability', body);
    const text = cancelConflicts ? 'Disponibilidad guardada y citas de los días bloqueados canceladas.' : 'Disponibilidad guardada.';
    showAlert(msg, text, 'ok');
    toast(text);
    $('#tz-current').textContent = zoneLabel(body.timezone);
    if (cancelConflicts) loadAppointments();
  } catch (e) {
    const conflicts = (e.issues && e.issues.conflicts) || [];
    if (e.status === 409 && conflicts.length && !cancelConflicts) {
      const list = conflicts.map((c) => fmtDateTz(c.start || c)).join('; ');
      const where = conflicts.every((c) => c.holiday) ? 'en festivos' : 'en los días bloqueados';
      showAlert(msg, `Hay citas ${where}: ${list}.`, 'error', false);
      if (await confirmDialog(`Hay ${conflicts.length === 1 ? 'una cita' : conflicts.length + ' citas'} ${where} (${list}). ¿Cancelarlas y avisar a los clientes?`, 'Sí, cancelarlas y guardar')) {
        btn.disabled = false;
        return save(null, true);
      }
      return;
    }
    const fe = {};
    for (const [k, v] of Object.entries(e.fieldErrors)) fe[k.split('.')[0]] = (fe[k.split('.')[0]] || []).concat(v);
    formError(form, msg, { ...e, message: e.message, fieldErrors: fe });
  } finally {
    btn.disabled = false;
  }
}

function preset(n) {
  const weekly = [];
  for (let d = 1; d <= n; d++) weekly.push({ weekday: d, start: '08:00', end: '17:00' });
  drawWeek(weekly);
  const text = n ? `Marcado: ${n === 5 ? 'lunes a viernes' : 'lunes a sábado'}, de 8:00 a 17:00. Guarda para aplicarlo.` : 'Semana vacía. Guarda para aplicarlo.';
  showAlert($('#avail-msg'), text, 'ok');
}

async function calendar() {
  const box = $('#cal-box');
  try {
    const r = await api('GET', '/api/agenda/calendar');
    $('#cal-url').value = r.url;
    box.dataset.ready = '1';
  } catch (e) {
    return;
  }
  $('#cal-copy').addEventListener('click', async () => {
    try { await navigator.clipboard.writeText($('#cal-url').value); showAlert($('#cal-msg'), 'Enlace copiado.', 'ok'); } catch (e) {
      $('#cal-url').select();
      showAlert($('#cal-msg'), 'Selecciona el enlace y cópialo.', 'ok');
    }
  });
  $('#cal-rotate').addEventListener('click', async () => {
    if (!await confirmDialog('¿Cambiar el enlace? El enlace actual deja de funcionar en los calendarios donde lo agregaste.', 'Sí, cambiar el enlace')) return;
    try {
      const r = await api('POST', '/api/agenda/calendar/rotate');
      $('#cal-url').value = r.url;
      showAlert($('#cal-msg'), 'Enlace nuevo listo. Agrégalo otra vez en tu calendario.', 'ok');
    } catch (e) { showAlert($('#cal-msg'), e.message, 'error'); }
  });
}

function apptItem(a, titles) {
  const msg = el('p', { class: 'alert', role: 'status', 'aria-live': 'polite' });
  const picker = el('div', {});
  const li = el('li', { class: 'card', 'data-id': a.id },
    el('div', { class: 'row' }, el('strong', {}, fmtSpan(a.start, a.end)), a.holiday ? el('span', { class: 'holiday' }, a.holiday.label) : null,
      el('span', { class: 'status' }, statusLabel(a.status))),
    titles.get(a.job) ? el('p', { style: 'margin:.25rem 0' }, el('a', { href: '/trabajo.html?id=' + encodeURIComponent(a.job) }, titles.get(a.job))) : null,
    el('div', { class: 'actions' },
      session.camello ? el('button', {
        class: 'btn secondary small', type: 'button', 'aria-expanded': 'false',
        onclick: async (ev) => {
          const b = ev.currentTarget;
          if (b.getAttribute('aria-expanded') === 'true') { b.setAttribute('aria-expanded', 'false'); picker.replaceChildren(); return; }
          b.setAttribute('aria-expanded', 'true');
          picker.replaceChildren(el('p', { class: 'muted' }, 'Cargando horarios…'));
          try {
            const slots = await loadSlots(session.camello.id, 14);
            picker.replaceChildren(renderSlots(slots, async (s, sb) => {
              if (!await confirmDialog(`¿Mover la cita del ${fmtSpan(a.start, a.end)} al ${fmtSpanTz(s.start, s.end)}?`, 'Sí, mover la cita')) return;
              sb.disabled = true;
              try {
                await api('POST', `/api/appointments/${encodeURIComponent(a.id)}/reschedule`, { start: s.start });
                toast(`Cita movida al ${fmtSpanTz(s.start, s.end)}.`);
                loadAppointments();
              } catch (e) { sb.disabled = false; showAlert(msg, e.message, 'error'); }
            }, 'Mover a'));
          } catch (e) { picker.replaceChildren(el('p', { class: 'muted' }, e.message)); }
        },
      }, 'Reprogramar') : null,
      el('button', {
        class: 'btn danger small', type: 'button',
        onclick: async (ev) => {
          const b = ev.currentTarget;
          if (!await confirmDialog(`¿Cancelar la cita del ${fmtSpanTz(a.start, a.end)}? Avisaremos al cliente.`, 'Sí, cancelar la cita')) return;
          b.disabled = true;
          try {
            await api('POST', `/api/appointments/${encodeURIComponent(a.id)}/cancel`);
            toast('Cita cancelada.');
            loadAppointments();
          } catch (e) { b.disabled = false; showAlert(msg, e.message, 'error'); }
        },
      }, 'Cancelar cita')),
    picker, msg);
  return li;
}

async function loadAppointments() {
  const ul = $('#appointments');
  try {
    const from = new Date().toISOString();
    const to = new Date(Date.now() + 31 * 24 * 3600 * 1000).toISOString();
    const [r, jobs] = await Promise.all([
      api('GET', `/api/agenda/appointments?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}&perPage=100`),
      // Only jobs that can hold an appointment: their titles name the appointments.
      Promise.all(['ASIGNADO', 'EN_PROGRESO'].map((st) => api('GET', `/api/jobs?status=${st}&perPage=100`).catch(() => ({ jobs: [] }))))
        .then((rs) => ({ jobs: rs.flatMap((x) => x.jobs || []) })),
    ]);
    const titles = new Map((jobs.jobs || []).map((j) => [j.id, j.title]));
    const list = (r.appointments || []).filter((a) => a.status === 'PROGRAMADA');
    ul.replaceChildren(...list.map((a) => apptItem(a, titles)));
    if (!list.length) ul.append(el('li', { class: 'card empty' }, 'No tienes citas próximas.'));
  } catch (e) {
    ul.replaceChildren(el('li', { class: 'muted' }, e.message));
  } finally {
    ul.removeAttribute('aria-busy');
  }
}

async function main() {
  renderChrome();
  session = await requireSession();
  $('#tz-note').textContent = `Horas en ${tzName()}.`;
  if (session.user.role !== 'CAMELLOS') {
    $('#avail-box').replaceWith(el('p', { class: 'card' }, 'La disponibilidad semanal es solo para camellos.'));
  } else {
    for (const b of document.querySelectorAll('[data-preset]')) b.addEventListener('click', () => preset(Number(b.dataset.preset)));
    $('#add-blocked').addEventListener('click', () => {
      const li = blockedRow('');
      $('#blocked').append(li);
      li.querySelector('input').focus();
    });
    $('#avail-form').addEventListener('submit', save);
    // What lies below the week appears once the week is drawn: nothing jumps.
    await Promise.all([loadAvailability(), calendar()]);
    $('#avail-rest').hidden = false;
    $('#cal-box').hidden = !$('#cal-box').dataset.ready;
  }
  $('#appts-box').hidden = false;
  loadAppointments();
}

main();
