// The quotes of the job page: side by side for the client ("Aceptar y
// agendar", "Aceptar sin agendar", "Rechazar"), the camello's own (Retirar)
// or the form to send one. Loaded only when the job has quotes or the
// reader may quote it.
import {
  api, el, $, statusLabel, fmtDateTz, fmtSpanTz, avatar, money, confirmDialog, busy, msgBox, formError, clearFieldErrors, showAlert,
} from './app.js';
import { conflictsText } from './slots.js';
import { S, enc, isClient, say, reload, hush, tpl } from './trabajo.js';
import { repeatFields, repeatText, slotPicker } from './trabajo-book.js';

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
    hush();
    await api('POST', path, body).catch((e) => { showAlert($('#job-msg'), ''); throw e; });
    await reload();
    say($('#job-msg'), text);
  };
  // act is a confirmed step on the quote (accept, reject, withdraw).
  const act = (label, cls, question, ok, step, text) => el('button', {
    class: `btn ${cls} small`, type: 'button',
    onclick: async (ev) => {
      const b = ev.currentTarget;
      if (!await confirmDialog(question, ok)) return;
      try { await busy(b, () => decided(`/api/quotes/${enc(q.id)}/${step}`, undefined, text)); } catch (e) { say(msg, e.message, 'error'); }
    },
  }, label);
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
      act('Aceptar sin agendar', 'secondary', `¿Aceptar la cotización de ${c.name} por ${money(q.amount)} sin agendar todavía? Las demás se rechazan.`, 'Sí, aceptar', 'accept', `Aceptaste la cotización de ${c.name}. Agenda la primera cita en «Citas».`),
      act('Rechazar', 'danger', `¿Rechazar la cotización de ${c.name}?`, 'Sí, rechazar', 'reject', 'Cotización rechazada.'));
  }
  if (q.status === 'PENDIENTE' && S.session.camello && c.id === S.session.camello.id) {
    actions.append(act('Retirar', 'danger', '¿Retirar tu cotización? El cliente ya no podrá aceptarla.', 'Sí, retirar', 'withdraw', 'Cotización retirada.'));
  }
  card.append(actions, msg);
  return card;
}

function sendQuoteForm() {
  const f = tpl('t-quote');
  const msg = $('#send-msg', f);
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFieldErrors(f);
    const d = Object.fromEntries(new FormData(f));
    const amount = Number(d.amount);
    if (!Number.isInteger(amount) || amount < 10000 || amount > 100000000) { formError(f, msg, { fieldErrors: { amount: ['Entre $10.000 y $100.000.000, sin decimales'] } }); return; }
    try {
      await busy(f.querySelector('button'), () => api('POST', `/api/jobs/${enc(S.id)}/quotes`, { amount, message: d.message.trim(), validDays: Number(d.validDays) }));
      await reload();
      say($('#job-msg'), `Cotización enviada por ${money(amount)}.`);
    } catch (e) { formError(f, msg, e); }
  });
  return f;
}

// drawQuotes draws the quotes S.quotes holds (canSend: the form to send one).
export function drawQuotes(canSend) {
  const section = $('#quotes-box');
  section.hidden = !S.quotes.length && !canSend;
  if (section.hidden) return;
  const open = S.quotes.filter((q) => q.status === 'PENDIENTE').length;
  $('#quotes').replaceChildren(...[
    isClient() && S.quotes.length ? el('p', { class: 'muted' }, open ? `${open} ${open === 1 ? 'cotización espera' : 'cotizaciones esperan'} tu respuesta. Compáralas; «Aceptar y agendar» elige también la hora de la primera cita.` : 'Ninguna cotización espera respuesta.') : null,
    S.quotes.length ? el('ul', { class: 'quotes list' }, S.quotes.map(quoteCard)) : el('p', { class: 'muted' }, 'Aún no has cotizado este trabajo.'),
    canSend ? sendQuoteForm() : null].filter(Boolean));
}
