// Free slots grouped by day; shared by the profile and "Mis trabajos".
import { api, el, fmtDay, fmtTime } from './app.js';

/** loadSlots returns the free slots of a camello for the next days. */
export async function loadSlots(camelloId, days = 7) {
  const from = new Date();
  const to = new Date(from.getTime() + days * 24 * 3600 * 1000);
  const q = new URLSearchParams({ from: from.toISOString(), to: to.toISOString() });
  const r = await api('GET', `/api/camellos/${encodeURIComponent(camelloId)}/slots?${q}`);
  return r.slots || [];
}

/**
 * renderSlots draws slots grouped by day. With onPick each slot is a button
 * that books it; without, a plain list.
 */
export function renderSlots(slots, onPick) {
  if (!slots.length) return el('p', { class: 'muted' }, 'No hay horarios libres en los próximos días.');
  const byDay = new Map();
  for (const s of slots) {
    const d = fmtDay(s.start);
    if (!byDay.has(d)) byDay.set(d, []);
    byDay.get(d).push(s);
  }
  const box = el('div', { class: 'slot-list' });
  let first = true;
  for (const [day, list] of byDay) {
    // One folding section per day, the first one open.
    const details = el('details', { class: 'slot-day', open: first });
    first = false;
    details.append(el('summary', {}, `${day} `, el('span', { class: 'muted' }, `(${list.length} ${list.length === 1 ? 'horario' : 'horarios'})`)));
    box.append(details);
    details.append(el('ul', { class: 'slots' }, list.map((s) => onPick
      ? el('li', {}, el('button', {
        type: 'button', 'data-start': s.start,
        'aria-label': `Reservar ${day} a las ${fmtTime(s.start)}`,
        onclick: (ev) => onPick(s, ev.currentTarget),
      }, fmtTime(s.start)))
      : el('li', { class: 'static', 'data-start': s.start }, `${fmtTime(s.start)}–${fmtTime(s.end)}`))));
  }
  return box;
}

/** book creates an appointment for a job at a slot's start. */
export function book(jobId, start) {
  return api('POST', `/api/jobs/${encodeURIComponent(jobId)}/appointments`, { start });
}
