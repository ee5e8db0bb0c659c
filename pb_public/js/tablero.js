// Open-job board for active camellos: PENDIENTE jobs of their services
// without a camello, newest first, each with a quote form.
import {
  api, el, $, requireSession, renderChrome, showAlert, fmtDate, toast, money, busy, clearFieldErrors, formError,
} from './app.js';
import { renderMore } from './more.js';

const PER_PAGE = 20;
let page = 1;
let shown = 0;
let city = '';

function quoteForm(job, card) {
  const id = job.id;
  const msg = card.querySelector('.card-msg');
  const f = el('form', { class: 'quote-form', method: 'post', action: '/tablero.html', novalidate: true },
    el('div', { class: 'grid-3' },
      el('div', { class: 'field' }, el('label', { for: `amount-${id}` }, 'Precio total (COP)'),
        el('input', { id: `amount-${id}`, name: 'amount', type: 'number', inputmode: 'numeric', min: 10000, max: 100000000, step: 1000, required: true, 'aria-describedby': `err-amount-${id}` }),
        el('p', { class: 'field-error', id: `err-amount-${id}`, 'data-err': 'amount' })),
      el('div', { class: 'field' }, el('label', { for: `valid-${id}` }, 'Válida por'),
        el('select', { id: `valid-${id}`, name: 'validDays' }, [3, 7, 15, 30].map((d) => el('option', { value: d, selected: d === 7 }, `${d} días`)))),
      el('div', { class: 'field' })),
    el('div', { class: 'field' }, el('label', { for: `qmsg-${id}` }, 'Mensaje para el cliente (opcional)'),
      el('textarea', { id: `qmsg-${id}`, name: 'message', maxlength: 1000, 'aria-describedby': `err-message-${id}` }),
      el('p', { class: 'field-error', id: `err-message-${id}`, 'data-err': 'message' })),
    el('button', { class: 'btn', type: 'submit' }, 'Enviar cotización'));
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFieldErrors(f);
    const d = Object.fromEntries(new FormData(f));
    const amount = Number(d.amount);
    if (!Number.isInteger(amount) || amount < 10000 || amount > 100000000) {
      formError(f, msg, { fieldErrors: { amount: ['Entre $10.000 y $100.000.000, sin decimales'] } });
      return;
    }
    // The card keeps its height and the answer's line is taken at the tap:
    // a late answer moves no card below (issue 24).
    card.style.minHeight = `${card.offsetHeight}px`;
    showAlert(msg, 'Enviando la cotización…', 'ok', false);
    try {
      await busy(f.querySelector('button'), () => api('POST', `/api/jobs/${encodeURIComponent(id)}/quotes`, { amount, message: d.message.trim(), validDays: Number(d.validDays) }));
      f.replaceWith(el('p', {}, el('a', { href: '/trabajo.html?id=' + encodeURIComponent(id) }, 'Ver tu cotización y escribir al cliente')));
      card.dataset.quoted = 'true';
      showAlert(msg, `Cotización enviada por ${money(amount)}. Te avisaremos si el cliente la acepta.`, 'ok');
      toast('Cotización enviada.');
    } catch (e) {
      formError(f, msg, e);
    }
  });
  return f;
}

// quoted maps a job id to the caller's live quote on it (PENDIENTE): such
// a job is marked, with a link to the quote instead of "Cotizar".
let quoted = new Map();
async function loadQuoted() {
  try {
    const r = await api('GET', '/api/me/quotes?status=PENDIENTE&perPage=100');
    quoted = new Map((r.quotes || []).map((q) => [q.jobId, q]));
  } catch (e) { quoted = new Map(); }
}

function item(job) {
  const mine = quoted.get(job.id);
  const card = el('li', { class: 'card job', id: `job-${job.id}`, 'data-quoted': mine ? 'true' : null },
    el('h2', { class: 'job-title' }, job.title),
    el('p', { class: 'meta' }, el('span', {}, job.service ? job.service.name : ''),
      el('span', {}, [job.city, job.neighborhood].filter(Boolean).join(', ')), el('span', {}, 'Publicado ' + fmtDate(job.createdAt))),
    job.description ? el('p', {}, job.description) : null);
  const msg = el('p', { class: 'alert card-msg', role: 'status', 'aria-live': 'polite', tabindex: '-1' });
  if (mine) {
    card.append(el('p', { class: 'quoted' }, el('span', { class: 'status PENDIENTE' }, 'Ya cotizaste'), ` ${money(mine.amount)} · `,
      el('a', { href: '/trabajo.html?id=' + encodeURIComponent(job.id) }, 'Ver tu cotización')));
    return card;
  }
  const toggle = el('button', {
    class: 'btn small', type: 'button', 'aria-expanded': 'false',
    onclick: () => {
      const open = toggle.getAttribute('aria-expanded') === 'true';
      toggle.setAttribute('aria-expanded', String(!open));
      if (open) { card.querySelector('.quote-form')?.remove(); return; }
      // The form goes below the card's message line: the line the answer
      // is said in never moves when the form gives way to the link.
      const f = quoteForm(job, card);
      msg.after(f);
      f.querySelector('input').focus();
    },
  }, 'Cotizar');
  card.append(toggle, msg);
  return card;
}

async function load(append) {
  const ul = $('#board');
  const q = new URLSearchParams({ page, perPage: PER_PAGE });
  if (city) q.set('city', city);
  try {
    const [r] = await Promise.all([api('GET', '/api/jobs/open?' + q), append ? null : loadQuoted()]);
    if (!append) { ul.replaceChildren(); shown = 0; }
    for (const j of r.jobs || []) { ul.append(item(j)); shown++; }
    if (!shown) ul.append(el('li', { class: 'card empty' }, city ? `No hay trabajos abiertos en ${city} por ahora.` : 'No hay trabajos abiertos de tus servicios por ahora.'));
    renderMore($('#more'), shown, r.total, async () => { page++; await load(true); });
  } catch (e) {
    ul.replaceChildren();
    showAlert($('#alert'), e.status === 403 ? 'Solo los camellos con perfil activo ven los trabajos abiertos.' : e.message);
  } finally {
    ul.removeAttribute('aria-busy');
  }
}

async function main() {
  renderChrome();
  await requireSession();
  $('#filter').addEventListener('submit', (ev) => {
    ev.preventDefault();
    city = $('#f-city').value.trim();
    page = 1;
    load(false);
  });
  load(false);
}

main();
