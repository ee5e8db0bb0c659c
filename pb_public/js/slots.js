// Free slots grouped by day; shared by the profile, "Mis trabajos" and the
// agenda (rescheduling).
import { api, el, fmtDay, fmtTime, tzName, localDate } from './app.js';

// loadSlots returns the free slots of a camello for the next days (with .holidays, the festivos named).
export async function loadSlots(camelloId, days = 7) {
  const from = new Date();
  const to = new Date(from.getTime() + days * 24 * 3600 * 1000);
  const q = new URLSearchParams({ from: from.toISOString(), to: to.toISOString() });
  const r = await api('GET', `/api/camellos/${encodeURIComponent(camelloId)}/slots?${q}`);
  return Object.assign(r.slots || [], { holidays: r.holidays || [] });
}

// holidayNote names the festivos the camello does not work.
function holidayNote(holidays = []) {
  const closed = holidays.filter((h) => h.closed);
  return closed.length ? el('p', { class: 'hint holidays' }, `No atiende en festivos: ${closed.map((h) => h.label).join('; ')}.`) : null;
}

// renderSlots draws slots grouped by day, with the time zone they are
// shown in. With onPick each slot is a button; without, a plain list.
export function renderSlots(slots, onPick, verb = 'Reservar') {
  const note = holidayNote(slots.holidays);
  if (!slots.length) {
    const none = el('p', { class: 'muted' }, 'No hay horarios libres en los próximos días.');
    return note ? el('div', {}, none, note) : none;
  }
  const named = new Map((slots.holidays || []).map((h) => [h.date, h.label]));
  const byDay = new Map();
  for (const s of slots) {
    const d = fmtDay(s.start);
    if (!byDay.has(d)) byDay.set(d, []);
    byDay.get(d).push(s);
  }
  const box = el('div', { class: 'slot-list' }, el('p', { class: 'hint tz-label' }, `Horas en ${tzName()}.`), note);
  let first = true;
  for (const [day, list] of byDay) {
    // One folding section per day, the first one open.
    const details = el('details', { class: 'slot-day', open: first });
    first = false;
    const holiday = named.get(localDate(list[0].start));
    details.append(el('summary', {}, `${day} `, holiday ? el('span', { class: 'holiday' }, `${holiday} `) : null,
      el('span', { class: 'muted' }, `(${list.length} ${list.length === 1 ? 'horario' : 'horarios'})`)));
    box.append(details);
    details.append(el('ul', { class: 'slots' }, list.map((s) => (onPick
      ? el('li', {}, el('button', {
        type: 'button', 'data-start': s.start,
        'aria-label': `${verb} ${day} a las ${fmtTime(s.start)}`,
        onclick: (ev) => onPick(s, ev.currentTarget),
      }, fmtTime(s.start)))
      : el('li', { class: 'static', 'data-start': s.start }, `${fmtTime(s.start)}–${fmtTime(s.end)}`)))));
  }
  return box;
}

// book creates an appointment (or a weekly series) for a job at a slot's start.
export function book(jobId, start, repeat) {
  return api('POST', `/api/jobs/${encodeURIComponent(jobId)}/appointments`, repeat ? { start, repeat } : { start });
}

// conflictsText lists the starts a series could not take (409 issues.conflicts).
export function conflictsText(err) {
  const c = (err.issues && err.issues.conflicts) || [];
  return c.length ? ' Ocupados: ' + c.map((x) => `${fmtDay(x.start || x)} ${fmtTime(x.start || x)}`).join('; ') + '.' : '';
}
