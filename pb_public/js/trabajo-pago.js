// The job's payment in the job page's #pago (issue 24), loaded only when the
// job has a price and the viewer is a party: the cancellation policy before
// paying, the pay button (to Mercado Pago's checkout and back to this page
// with &pago=, checked at once), every state, and the client's confirmation
// or dispute once the camello marked the work done. The fixed parts are in
// trabajo.html; pago.html sends old links here.
import { api, el, $, param, busy, money, fmtDateTz, confirmDialog } from './app.js';
import { S, enc, isClient, say, reload } from './trabajo.js';

const path = (s = '') => `/api/jobs/${enc(S.id)}/payment${s}`;
const live = (p) => p && (p.status === 'INICIADO' || p.status === 'PENDIENTE');
const gateway = {
  pending: 'Tu pago está pendiente en Mercado Pago (PSE o Efecty): te avisamos apenas se acredite.',
  in_process: 'Mercado Pago está revisando tu pago: te avisamos apenas termine.',
  rejected: 'Mercado Pago rechazó el pago. Puedes intentarlo de nuevo con otro medio.',
  cancelled: 'El pago se canceló en Mercado Pago. Puedes intentarlo de nuevo.',
};
let checked;

// readPay reads the payment ({payment: null, cancellation} before the
// first); back from the checkout the client has a live one checked, once.
export async function readPay() {
  const r = await api('GET', path());
  if (param('pago') && !checked && isClient() && live(r.payment)) {
    checked = true;
    return api('POST', path('/check')).catch(() => r);
  }
  return r;
}

// act runs a party's step with its button busy; errors go to #pay-msg.
// tell answers under the state, brought into view (the tap was below it).
const tell = (text, kind) => { say($('#pay-msg'), text, kind); $('#pay-state').scrollIntoView({ block: 'nearest' }); };
const act = (btn, fn, label) => busy(btn, async () => {
  try { await fn(); } catch (e) { tell(e.message, 'error'); }
}, label);

function button(id, cls, text, fn, label) {
  const b = el('button', { class: cls, type: 'button', id }, text);
  b.addEventListener('click', () => act(b, fn, label));
  return b;
}

function state(p, client) {
  const line = (t, kind) => el('p', { class: kind ? `alert ${kind}` : '' }, t);
  const s = p.status;
  return [
    ...(live(p) ? [line(gateway[p.gatewayStatus] || 'Aún no has pagado este trabajo.', p.gatewayStatus === 'rejected' ? 'error' : ''),
      client && p.checkoutUrl ? el('p', {}, el('a', { class: 'btn', href: p.checkoutUrl }, 'Pagar ' + money(p.amount) + ' en Mercado Pago')) : null,
      client ? button('check-btn', 'btn secondary', 'Consultar el estado del pago', async () => { await api('POST', path('/check')); await reload(); }, 'Consultando…') : null] : []),
    s === 'RETENIDO' ? line('Pago recibido: Camellos guarda ' + money(p.heldAmount) + ' hasta que el trabajo esté hecho.', 'ok') : null,
    s === 'EN_DISPUTA' ? line('Pago en disputa: el dinero queda congelado hasta que un administrador la resuelva.') : null,
    s === 'LIBERADO' ? line('Pago liberado al camello' + (p.releasedAt ? ' el ' + fmtDateTz(p.releasedAt) : '') + '.', 'ok') : null,
    s === 'DIVIDIDO' ? line('Se devolvieron ' + money(p.refundAmount) + ' al cliente y el resto se liberó al camello.') : null,
    s === 'REEMBOLSADO' ? line('Pago reembolsado: ' + money(p.refundAmount || p.heldAmount) + (p.refundedAt ? ' devueltos por Mercado Pago.' : ' en camino por Mercado Pago.')) : null,
    p.dispute && p.dispute.reason ? el('p', { class: 'muted' }, 'Motivo de la disputa: ' + p.dispute.reason) : null,
  ];
}

// drawPay draws what readPay read.
export function drawPay(r) {
  const p = r.payment;
  const c = p ? p.cancellation : r.cancellation;
  const client = isClient();
  if (!($('#policy').hidden = !(c && c.policy))) {
    $('#policy-text').textContent = c.policy.label + ': ' + c.policy.text;
    $('#policy-when').textContent = c.freeUntil
      ? (c.lateNow ? 'Ya estás dentro del plazo de cancelación con cargo: cancelar ahora cuesta ' + money(c.feeNow) + '.'
        : 'Puedes cancelar sin costo hasta el ' + fmtDateTz(c.freeUntil) + '.')
      : 'Aún no hay visita agendada: cancelar no tiene costo.';
  }
  const payable = !p && client && ['ASIGNADO', 'EN_PROGRESO'].includes(S.job.status);
  const box = $('#pay-state');
  box.replaceChildren(el('div', {}, p ? [el('h3', {}, money(p.amount) + ' · ' + (p.method === 'EFECTIVO' ? 'en efectivo' : 'Mercado Pago')), ...state(p, client)]
    : [el('p', {}, payable ? 'Paga el precio acordado: Camellos guarda el dinero hasta que el trabajo esté hecho.' : 'Este trabajo aún no tiene pagos.'),
      payable ? button('pay-btn', 'btn', 'Pagar ' + money(S.job.price.amount) + ' con Mercado Pago', async () => {
        const n = await api('POST', path());
        if (n.payment.checkoutUrl) location.assign(n.payment.checkoutUrl); else await reload();
      }, 'Abriendo Mercado Pago…') : null]));
  box.removeAttribute('aria-busy');
  const settle = client && p && p.status === 'RETENIDO' && p.completedAt && p.method !== 'EFECTIVO';
  $('#settle').hidden = !settle;
  if (settle) $('#settle-until').textContent = 'El camello marcó el trabajo como terminado. Si no nos dices nada antes del ' + fmtDateTz(p.disputeUntil) + ', liberamos el pago.';
}

$('#confirm-btn').addEventListener('click', async (ev) => {
  if (!(await confirmDialog('¿Confirmas que el trabajo quedó bien? El pago se libera al camello.', 'Sí, confirmar'))) return;
  await act(ev.target, async () => { await api('POST', path('/confirm')); await reload(); tell('Pago liberado. ¡Gracias!'); });
});
$('#dispute-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const reason = $('#reason').value.trim();
  if (reason.length < 10) { $('#err-reason').textContent = 'Cuéntanos un poco más (mínimo 10 caracteres).'; $('#reason').focus(); return; }
  $('#err-reason').textContent = '';
  await act(ev.submitter || $('#dispute-form button'), async () => { await api('POST', path('/dispute'), { reason }); await reload(); tell('Abrimos la disputa: el pago queda congelado.'); });
});
