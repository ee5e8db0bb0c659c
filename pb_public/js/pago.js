// The payment of one job (?id=job, &pago=payment on the way back from
// Mercado Pago's checkout): the cancellation policy before paying, the pay
// button (a redirect to the checkout), every state of the payment, and the
// client's confirmation or dispute once the camello marked the work done.
import { api, el, $, param, requireSession, renderChrome, showAlert, busy, money, fmtDateTz, confirmDialog, toast } from './app.js';

const jobID = param('id') || '';
const path = (s = '') => `/api/jobs/${encodeURIComponent(jobID)}/payment${s}`;

const gatewayText = {
  pending: 'Tu pago está pendiente en Mercado Pago (PSE o Efecty): te avisamos apenas se acredite.',
  in_process: 'Mercado Pago está revisando tu pago: te avisamos apenas termine.',
  rejected: 'Mercado Pago rechazó el pago. Puedes intentarlo de nuevo con otro medio.',
  cancelled: 'El pago se canceló en Mercado Pago. Puedes intentarlo de nuevo.',
};

function stateView(p, isClient) {
  const out = [];
  const line = (t, kind) => out.push(el('p', { class: kind ? `alert ${kind}` : '' }, t));
  switch (p.status) {
    case 'INICIADO':
    case 'PENDIENTE':
      line(gatewayText[p.gatewayStatus] || 'Aún no has pagado este trabajo.', p.gatewayStatus === 'rejected' ? 'error' : '');
      if (isClient && p.checkoutUrl) out.push(el('p', {}, el('a', { class: 'btn', href: p.checkoutUrl }, 'Pagar ' + money(p.amount) + ' en Mercado Pago')));
      if (isClient) out.push(el('button', { class: 'btn secondary', type: 'button', id: 'check-btn' }, 'Consultar el estado del pago'));
      break;
    case 'RETENIDO':
      line('Pago recibido: Camellos guarda ' + money(p.heldAmount) + ' hasta que el trabajo esté hecho.', 'ok');
      break;
    case 'EN_DISPUTA':
      line('Pago en disputa: el dinero queda congelado hasta que un administrador la resuelva.');
      break;
    case 'LIBERADO':
      line('Pago liberado al camello' + (p.releasedAt ? ' el ' + fmtDateTz(p.releasedAt) : '') + '.', 'ok');
      break;
    case 'DIVIDIDO':
      line('Se devolvieron ' + money(p.refundAmount) + ' al cliente y el resto se liberó al camello.');
      break;
    case 'REEMBOLSADO':
      line('Pago reembolsado: ' + money(p.refundAmount || p.heldAmount) + (p.refundedAt ? ' devueltos por Mercado Pago.' : ' en camino por Mercado Pago.'));
      break;
  }
  if (p.dispute && p.dispute.reason) out.push(el('p', { class: 'muted' }, 'Motivo de la disputa: ' + p.dispute.reason));
  return out;
}

function showPolicy(c) {
  if (!c || !c.policy) return;
  $('#policy').hidden = false;
  $('#policy-text').textContent = c.policy.label + ': ' + c.policy.text;
  $('#policy-when').textContent = c.freeUntil
    ? (c.lateNow ? 'Ya estás dentro del plazo de cancelación con cargo: cancelar ahora cuesta ' + money(c.feeNow) + '.'
      : 'Puedes cancelar sin costo hasta el ' + fmtDateTz(c.freeUntil) + '.')
    : 'Aún no hay visita agendada: cancelar no tiene costo.';
}

async function load(session, job) {
  const box = $('#state');
  const isClient = job.client === session.user.id || (job.client && job.client.id === session.user.id);
  let p = null;
  try {
    p = (await api('GET', path())).payment;
  } catch (e) {
    if (e.status !== 404) throw e;
  }
  if (p && param('pago') && isClient && (p.status === 'INICIADO' || p.status === 'PENDIENTE')) {
    p = (await api('POST', path('/check')).catch(() => ({ payment: p }))).payment;
  }
  box.removeAttribute('aria-busy');
  if (!p) {
    const terms = await api('GET', path('/policy')).catch(() => null);
    showPolicy(terms && terms.cancellation);
    const payable = isClient && (job.status === 'ASIGNADO' || job.status === 'EN_PROGRESO') && job.price;
    box.replaceChildren(el('p', {}, payable ? 'Paga el precio acordado: Camellos guarda el dinero hasta que el trabajo esté hecho.' : 'Este trabajo aún no tiene pagos.'));
    if (payable) {
      const btn = el('button', { class: 'btn', type: 'button', id: 'pay-btn' }, 'Pagar ' + money(job.price.amount) + ' con Mercado Pago');
      btn.addEventListener('click', () => busy(btn, async () => {
        try {
          const r = await api('POST', path());
          if (r.payment.checkoutUrl) location.assign(r.payment.checkoutUrl);
          else load(session, job);
        } catch (e) { showAlert($('#alert'), e.message); }
      }, 'Abriendo Mercado Pago…'));
      box.append(btn);
    }
    return;
  }
  showPolicy(p.cancellation);
  box.replaceChildren(el('h2', {}, money(p.amount) + ' · ' + (p.method === 'EFECTIVO' ? 'en efectivo' : 'Mercado Pago')), ...stateView(p, isClient));
  const check = $('#check-btn');
  if (check) check.addEventListener('click', () => busy(check, async () => {
    try { await api('POST', path('/check')); load(session, job); } catch (e) { showAlert($('#alert'), e.message); }
  }, 'Consultando…'));
  const canSettle = isClient && p.status === 'RETENIDO' && p.completedAt && p.method !== 'EFECTIVO';
  $('#settle').hidden = !canSettle;
  if (canSettle) $('#settle-until').textContent = 'El camello marcó el trabajo como terminado. Si no nos dices nada antes del ' + fmtDateTz(p.disputeUntil) + ', liberamos el pago.';
}

// hold keeps the page's height once the client settled: the answer often
// comes after the tap's input window, and the footer pulled up by the
// confirmation block going away was a layout shift (CLS 0.073 at 1366×900).
// The way back to the job sits above the blocks that change.
function hold() { const m = $('main'); m.style.minHeight = `${m.offsetHeight}px`; }
// shown brings the new state into view (a scroll, not a shift): on a phone
// the tap was far below it.
function shown() { $('#state').scrollIntoView({ block: 'nearest' }); }

async function main() {
  renderChrome();
  const session = await requireSession();
  if (!jobID) { showAlert($('#alert'), 'Falta el trabajo.'); return; }
  $('#job-link').href = '/trabajo.html?id=' + encodeURIComponent(jobID);
  let job;
  try {
    job = (await api('GET', '/api/jobs/' + encodeURIComponent(jobID))).job;
  } catch (e) { showAlert($('#alert'), e.message); $('#state').removeAttribute('aria-busy'); return; }
  $('#job-title').textContent = job.title;
  $('#confirm-btn').addEventListener('click', async (ev) => {
    if (!(await confirmDialog('¿Confirmas que el trabajo quedó bien? El pago se libera al camello.', 'Sí, confirmar'))) return;
    await busy(ev.target, async () => {
      try { await api('POST', path('/confirm')); toast('Pago liberado. ¡Gracias!'); hold(); await load(session, job); shown(); } catch (e) { showAlert($('#alert'), e.message); }
    });
  });
  $('#dispute-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const reason = $('#reason').value.trim();
    if (reason.length < 10) { $('#err-reason').textContent = 'Cuéntanos un poco más (mínimo 10 caracteres).'; $('#reason').focus(); return; }
    $('#err-reason').textContent = '';
    await busy(ev.submitter || $('#dispute-form button'), async () => {
      try { await api('POST', path('/dispute'), { reason }); toast('Abrimos la disputa: el pago queda congelado.'); hold(); await load(session, job); shown(); } catch (e) { showAlert($('#alert'), e.message); }
    });
  });
  try { await load(session, job); } catch (e) { showAlert($('#alert'), e.message); $('#state').removeAttribute('aria-busy'); }
}

main();
