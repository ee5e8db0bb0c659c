// The visits of the job page: weekday and start–end, a series read as one,
// reschedule, cancel, add to calendar, and the client's booking. Loaded
// only when the job has a camello.
import { api, el, $, fmtSpan, fmtSpanTz, confirmDialog, tzName, showAlert } from './app.js';
import { conflictsText } from './slots.js';
import { S, enc, isClient, isMine, bookable, say, reload, kept, drawNext } from './trabajo.js';
import { repeatFields, repeatText, slotPicker } from './trabajo-book.js';

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

function visitRow(a) {
  const mine = isMine();
  const row = el('li', { class: 'appt', 'data-id': a.id, 'data-status': a.status, inert: a.soon },
    el('span', {}, el('strong', {}, fmtSpan(a.start, a.end)), a.holiday ? ` · ${a.holiday.label}` : ''));
  const acts = el('div', { class: 'actions' });
  // A visit cancelled here keeps its place, marked: nothing pulls up.
  if (a.status === 'CANCELADA') {
    acts.append(el('span', { class: 'status CANCELADO' }, 'Cancelada'));
    row.append(acts);
    return row;
  }
  if (bookable()) {
    acts.append(slotPicker('Reprogramar', S.job.provider.id, async (slot) => {
      const when = fmtSpanTz(slot.start, slot.end);
      if (!await confirmDialog(`¿Mover la cita del ${fmtSpan(a.start, a.end)} al ${when}?`, 'Sí, mover la cita')) return;
      await soon(S.visits.map((v) => (v === a ? { ...a, start: slot.start, end: slot.end, soon: 1 } : v)), `Moviendo la cita al ${when}…`,
        () => api('POST', `/api/appointments/${enc(a.id)}/reschedule`, { start: slot.start }), () => `Cita movida al ${when}.`);
    }, 'Mover a'));
  }
  acts.append(el('a', { class: 'btn secondary small', href: `/api/appointments/${enc(a.id)}/ics`, download: `cita-${a.id}.ics` }, 'Añadir al calendario'),
    el('button', {
      class: 'btn danger small', type: 'button',
      onclick: async () => {
        if (!await confirmDialog(`¿Cancelar la cita del ${fmtSpanTz(a.start, a.end)}? El horario quedará libre${mine ? ' y se avisará al cliente' : ''}.`, 'Sí, cancelar la cita')) return;
        (S.gone ||= new Set()).add(a.id);
        S.kept = [...(S.kept || []), { ...a, status: 'CANCELADA' }];
        await soon(S.visits.filter((v) => v !== a), 'Cancelando la cita…', () => api('POST', `/api/appointments/${enc(a.id)}/cancel`), () => 'Cita cancelada.');
      },
    }, 'Cancelar cita'));
  row.append(acts);
  return row;
}

// soon draws the visits as the answer will leave them (inert) and says what
// is asked, at the tap: a late answer moves nothing (issue 24).
async function soon(list, asked, call, done) {
  const was = S.visits;
  S.visits = list;
  drawVisits();
  drawNext();
  showAlert($('#visits-msg'), asked, 'ok', false);
  try {
    const out = await call();
    await reload();
    say($('#visits-msg'), done(out));
  } catch (e) {
    S.visits = was;
    await reload().catch(() => {});
    say($('#visits-msg'), e.message + conflictsText(e), 'error');
  }
}

function bookingPanel() {
  const rep = repeatFields('book');
  const p = slotPicker(S.visits.length ? 'Agendar otra cita' : 'Agendar cita', S.job.provider.id, async (slot) => {
    const r = rep.value();
    const when = fmtSpanTz(slot.start, slot.end);
    if (!await confirmDialog(`¿Agendar la cita del ${when}${repeatText(r)}?`, 'Sí, agendar')) return;
    const n = r ? r.count : 1, d = (r && r.every === 'WEEK' ? 7 : 14) * 864e5;
    const at = (s, i) => new Date(Date.parse(s) + i * d).toISOString();
    await soon([...S.visits, ...Array.from({ length: n }, (_, i) => ({ soon: 1, status: 'PROGRAMADA', start: at(slot.start, i), end: at(slot.end, i) }))],
      n > 1 ? `Reservando ${n} citas desde el ${when}…` : `Reservando la cita del ${when}…`,
      () => api('POST', `/api/jobs/${enc(S.id)}/appointments`, r ? { start: slot.start, repeat: r } : { start: slot.start }), (out) => {
        const k = (out.appointments || []).length;
        const skipped = (out.skippedHolidays || []).map((h) => h.label);
        return (k > 1 ? `${k} citas reservadas desde el ${when}` : `Cita reservada para el ${when}`) + (skipped.length ? `. Sin cita en festivos: ${skipped.join('; ')}` : '') + '.';
      });
  }, 'Reservar', rep.box);
  p.id = `book-${S.job.id}`;
  return p;
}

// drawVisits draws the visits S.visits holds.
export function drawVisits() {
  const section = $('#visits-box');
  const msg = kept('visits-msg');
  const shown = [...S.visits, ...(S.kept || [])].sort((a, b) => Date.parse(a.start) - Date.parse(b.start));
  const groups = series(shown);
  section.hidden = false;
  $('#visits').replaceChildren(
    el('p', { class: 'hint tz-label' }, `Horas en ${tzName()}.`),
    shown.length ? el('ul', { class: 'list', 'aria-label': 'Citas' }, groups.map((g) => (g.length > 1
      ? el('li', { class: 'series' }, el('p', { class: 'series-title' }, el('strong', {}, `Serie ${(Date.parse(g[1].start) - Date.parse(g[0].start)) / 864e5 === 7 ? 'semanal' : 'cada 2 semanas'}: ${g.length} citas`)),
        el('ul', { class: 'list' }, g.map((a) => visitRow(a))))
      : visitRow(g[0]))))
      : el('p', { class: 'muted' }, S.job.status === 'PENDIENTE' && isClient() ? 'Puedes apartar una hora mientras el camello responde.' : 'No hay citas programadas.'),
    ...(isClient() && bookable() ? [bookingPanel()] : []), msg);
}

