// The camello's money: balance, funds held, earnings by month, and the
// cancellation policy its clients see before paying.
import { api, el, $, requireSession, renderChrome, showAlert, busy, money, MONTHS } from './app.js';

// monthName spells "2026-11" as es-CO does ("noviembre de 2026"), without Intl (app.js).
const monthName = (m) => `${MONTHS[Number(m.slice(5, 7)) - 1]} de ${m.slice(0, 4)}`;

async function main() {
  renderChrome();
  const s = await requireSession();
  if (!s.camello) { showAlert($('#alert'), 'Esta página es para camellos.'); $('#months').removeAttribute('aria-busy'); return; }
  try {
    const m = await api('GET', '/api/me/earnings/monthly');
    $('#balance').textContent = money(m.balance);
    $('#pending').textContent = money(m.pending);
    const box = $('#months');
    box.removeAttribute('aria-busy');
    if (!m.months.length) box.replaceChildren(el('p', {}, 'Aún no tienes movimientos.'));
    else box.replaceChildren(el('table', { class: 'table' },
      el('thead', {}, el('tr', {}, ['Mes', 'Ganado', 'Comisión', 'Pagado a ti'].map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', {}, m.months.map((r) => el('tr', {}, el('th', { scope: 'row' }, monthName(r.month)),
        el('td', {}, money(r.earned)), el('td', {}, money(r.commission)), el('td', {}, money(r.paidOut)))))));
  } catch (e) { showAlert($('#alert'), e.message); $('#months').removeAttribute('aria-busy'); }
  try {
    // The three policies are drawn by the page; the service says which is chosen.
    const p = await api('GET', '/api/me/cancellation-policy');
    const mine = $(`input[name=policy][value="${p.policy.name}"]`);
    if (mine) mine.checked = true;
  } catch (e) { showAlert($('#alert'), e.message); }
  $('#policy-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const picked = $('input[name=policy]:checked');
    if (!picked) return;
    await busy(ev.submitter || $('#policy-form button'), async () => {
      try { await api('PUT', '/api/me/cancellation-policy', { policy: picked.value }); showAlert($('#policy-msg'), 'Política guardada.', 'ok'); } catch (e) { showAlert($('#policy-msg'), e.message); }
    });
  });
}

main();
