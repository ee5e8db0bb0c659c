// Admins: open disputes (with the job's conversation, resolved as release,
// refund or split) and payouts to camellos (a batch, its bank file, each
// payout marked paid).
import { api, el, $, requireSession, renderChrome, showAlert, busy, money, fmtDateTz, param } from './app.js';

function disputeItem(d) {
  const msg = el('p', { class: 'alert', role: 'status', 'aria-live': 'polite', tabindex: '-1' });
  const talk = el('div', { class: 'muted' });
  const outcome = el('select', { name: 'outcome', 'aria-label': 'Resultado' },
    el('option', { value: 'LIBERAR' }, 'Liberar al camello'), el('option', { value: 'REEMBOLSAR' }, 'Reembolsar al cliente'),
    el('option', { value: 'DIVIDIR' }, 'Dividir'));
  const amount = el('input', { type: 'number', name: 'refundAmount', min: 1, max: d.heldAmount - 1, inputmode: 'numeric', 'aria-label': 'Pesos que vuelven al cliente al dividir' });
  const note = el('input', { type: 'text', name: 'note', maxlength: 1000, 'aria-label': 'Nota para las partes' });
  const form = el('form', { method: 'post', action: '/admin-pagos.html' }, outcome, ' ', amount, ' ', note, ' ',
    el('button', { class: 'btn', type: 'submit' }, 'Resolver'));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const body = { outcome: outcome.value, note: note.value };
    if (outcome.value === 'DIVIDIR') body.refundAmount = Number(amount.value);
    await busy(form.querySelector('button'), async () => {
      try { await api('POST', `/api/admin/disputes/${d.id}/resolve`, body); showAlert(msg, 'Disputa resuelta.', 'ok'); form.remove(); } catch (e) { showAlert(msg, e.message); }
    });
  });
  const more = el('button', { class: 'btn secondary', type: 'button' }, 'Ver la conversación');
  more.addEventListener('click', () => busy(more, async () => {
    try {
      const r = await api('GET', `/api/admin/disputes/${d.id}`);
      talk.replaceChildren(...(r.dispute.messages || []).map((m) => el('p', {}, el('strong', {}, m.author.name + ': '), m.body,
        ...(m.attachments || []).map((u, i) => [' ', el('a', { href: u, target: '_blank', rel: 'noopener' }, 'foto ' + (i + 1))]))));
      if (!talk.childNodes.length) talk.textContent = 'Sin mensajes.';
    } catch (e) { showAlert(msg, e.message); }
  }));
  return el('li', { class: 'card', id: 'd-' + d.id },
    el('h3', {}, el('a', { href: '/trabajo.html?id=' + d.job.id }, d.job.title), ' · ', money(d.heldAmount)),
    el('p', {}, (d.client.name || 'Cliente') + ' contra ' + (d.camello.name || 'camello') + ', abierta el ' + fmtDateTz(d.dispute.openedAt)),
    el('p', {}, '«' + d.dispute.reason + '»'), more, talk, form, msg);
}

async function loadPayouts() {
  const list = $('#payouts');
  const r = await api('GET', '/api/admin/payouts?status=PENDIENTE&perPage=100');
  list.removeAttribute('aria-busy');
  if (!r.payouts.length) { list.replaceChildren(el('li', {}, 'No hay pagos pendientes.')); return; }
  list.replaceChildren(...r.payouts.map((p) => {
    const btn = el('button', { class: 'btn secondary', type: 'button' }, 'Marcar pagado');
    btn.addEventListener('click', () => busy(btn, async () => {
      try { await api('POST', `/api/admin/payouts/${p.id}/paid`, {}); loadPayouts(); } catch (e) { showAlert($('#batch-msg'), e.message); }
    }));
    return el('li', { class: 'card' }, el('p', {}, (p.name || p.camelloId) + ' · ' + money(p.amount) + ' · ',
      el('a', { href: `/api/admin/payouts/batches/${p.batch}/csv` }, 'archivo del lote')), btn);
  }));
}

async function main() {
  renderChrome();
  const s = await requireSession();
  if (s.user.role !== 'ADMIN') { showAlert($('#alert'), 'Esta página es para administradores.'); return; }
  try {
    const r = await api('GET', '/api/admin/disputes?perPage=50');
    const list = $('#disputes');
    list.removeAttribute('aria-busy');
    list.replaceChildren(...(r.disputes.length ? r.disputes.map(disputeItem) : [el('li', {}, 'No hay disputas abiertas.')]));
    const focus = param('disputa') && $('#d-' + param('disputa'));
    if (focus) focus.scrollIntoView();
    await loadPayouts();
  } catch (e) { showAlert($('#alert'), e.message); }
  $('#batch-btn').addEventListener('click', (ev) => busy(ev.target, async () => {
    try {
      const b = await api('POST', '/api/admin/payouts/batches');
      showAlert($('#batch-msg'), `Lote de ${b.payouts.length} pagos por ${money(b.total)}.`, 'ok');
      $('#batch-msg').append(' ', el('a', { href: b.csvUrl }, 'Descargar el archivo para el banco'));
      loadPayouts();
    } catch (e) { showAlert($('#batch-msg'), e.message); }
  }, 'Generando…'));
}

main();
