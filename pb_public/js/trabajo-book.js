// Booking controls shared by the quotes ("Aceptar y agendar") and the
// visits of the job page: loaded with the first of them.
import { el } from './app.js';
import { loadSlots, renderSlots } from './slots.js';

// repeatFields are the "Repetir" and "Cuántas" selects of a booking (p: id prefix).
export function repeatFields(p) {
  const repeat = el('select', { id: `${p}-repeat` }, el('option', { value: '' }, 'Una sola vez'),
    el('option', { value: 'WEEK' }, 'Cada semana'), el('option', { value: '2WEEKS' }, 'Cada 2 semanas'));
  const count = el('select', { id: `${p}-count` }, [2, 3, 4, 5, 6, 8, 10, 12].map((n) => el('option', { value: n }, `${n} citas`)));
  // "Cuántas" keeps its place while "Una sola vez" is chosen (invisible, not
  // removed), beside "Repetir" at every width: choosing a series moves nothing.
  const cf = el('div', { class: 'field invisible' }, el('label', { for: `${p}-count` }, 'Cuántas'), count);
  repeat.addEventListener('change', () => { cf.classList.toggle('invisible', !repeat.value); });
  return {
    box: el('div', { class: 'grid-2 pair' }, el('div', { class: 'field' }, el('label', { for: `${p}-repeat` }, 'Repetir'), repeat), cf),
    value: () => (repeat.value ? { every: repeat.value, count: Number(count.value) } : null),
  };
}

export const repeatText = (rep) => (rep ? `, y ${rep.every === 'WEEK' ? 'cada semana' : 'cada 2 semanas'} hasta completar ${rep.count} citas` : '');

// slotPicker opens a camello's free slots under a toggle button; onPick(slot, button, redraw).
// The slots open in a pane of fixed height, taken at the tap: however late
// they come and however many they are, nothing below the pane moves.
export function slotPicker(label, camelloId, onPick, verb, extra) {
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
    list.classList.toggle('slot-pane', on);
    list.replaceChildren(...(on ? [el('p', { class: 'muted' }, 'Cargando horarios…')] : []));
    if (on) await draw();
  });
  return el('div', { class: 'booking' }, open, list);
}

