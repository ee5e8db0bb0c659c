// My jobs: a list with state filters, each job linking to its page
// (trabajo.html?id=), where everything about it happens. Camellos also see
// "Mis cotizaciones": the quotes they sent, by state, each linking to its
// job. An old link /trabajos.html?id=<job> (notifications) opens the job.
import { api, el, $, param, requireSession, renderChrome, showAlert, statusLabel, fmtDate, avatar, money } from './app.js';
import { renderMore } from './more.js';

const PER_PAGE = 20;
const enc = encodeURIComponent;
let session = null;
let page = 1;
let shown = 0;
let status = '';
// Each list draws only its latest request's answer: a filter tapped while
// the first page loads must not be overwritten by that older answer.
let seq = 0;
let qSeq = 0;

const jobURL = (id) => '/trabajo.html?id=' + enc(id);

function jobItem(job) {
  const mine = session.camello && job.provider && job.provider.id === session.camello.id;
  return el('li', { class: 'card job', id: `job-${job.id}`, 'data-status': job.status },
    el('div', { class: 'row' },
      el('h2', { class: 'job-title' }, el('a', { href: jobURL(job.id) }, job.title)),
      el('span', { class: `status ${job.status}` }, statusLabel(job.status))),
    el('p', { class: 'meta' },
      el('span', {}, job.service ? job.service.name : ''),
      el('span', {}, [job.neighborhood, job.city].filter(Boolean).join(', ')),
      job.price ? el('span', {}, 'Precio: ', el('strong', {}, money(job.price.amount))) : null,
      el('span', {}, 'Creado ' + fmtDate(job.createdAt))),
    job.provider && !mine
      ? el('p', { class: 'row start' }, avatar(job.provider.photo, job.provider.name), el('span', {}, 'Camello: ', job.provider.name))
      : (!job.provider ? el('p', { class: 'muted' }, 'Aún sin camello asignado.') : null),
    mine && job.client ? el('p', {}, 'Cliente: ', job.client.name || '') : null,
    el('p', { class: 'actions' }, el('a', { class: 'btn small', href: jobURL(job.id) },
      !job.provider && job.status === 'PENDIENTE' ? 'Ver cotizaciones' : 'Ver trabajo')));
}

function filters() {
  $('#filters').replaceChildren(...['', 'PENDIENTE', 'ASIGNADO', 'EN_PROGRESO', 'COMPLETADO', 'CANCELADO'].map((s) => el('button', {
    class: 'btn small ' + (status === s ? '' : 'secondary'), type: 'button', 'aria-pressed': String(status === s),
    onclick: () => { status = s; refresh(); },
  }, s ? statusLabel(s) : 'Todos')));
}

async function load(append) {
  const q = new URLSearchParams({ page, perPage: PER_PAGE });
  if (status) q.set('status', status);
  const list = $('#jobs');
  const my = ++seq;
  try {
    const r = await api('GET', '/api/jobs?' + q);
    if (my !== seq) return;
    if (!append) { list.replaceChildren(); shown = 0; }
    for (const j of r.jobs || []) { list.append(jobItem(j)); shown++; }
    if (!shown) {
      list.append(el('li', { class: 'card empty' }, session.user.role === 'CLIENTE'
        ? el('span', {}, 'Aún no tienes trabajos. ', el('a', { href: '/publicar.html' }, 'Publica uno'), ' o ', el('a', { href: '/' }, 'busca un camello'), '.')
        : 'Aún no tienes trabajos.'));
    }
    renderMore($('#more'), shown, r.total ?? shown, async () => { page++; await load(true); });
  } catch (e) {
    if (my === seq) showAlert($('#alert'), e.message);
  } finally {
    if (my === seq) list.removeAttribute('aria-busy');
  }
}

function refresh() {
  page = 1;
  filters();
  return load(false);
}

// Mis cotizaciones: the camello's quotes by state.
let qStatus = '';
let qPage = 1;
let qShown = 0;
async function loadQuotes(append) {
  const box = $('#my-quotes');
  const q = new URLSearchParams({ page: qPage, perPage: PER_PAGE });
  if (qStatus) q.set('status', qStatus);
  const my = ++qSeq;
  try {
    const r = await api('GET', '/api/me/quotes?' + q);
    if (my !== qSeq) return;
    if (!append) { box.replaceChildren(); qShown = 0; }
    for (const x of r.quotes || []) {
      const j = x.job || {};
      box.append(el('li', { class: 'card quote-row', 'data-status': x.status, 'data-job': x.jobId },
        el('div', { class: 'row' }, el('h3', { class: 'job-title' }, el('a', { href: jobURL(x.jobId) }, j.title || 'Trabajo')),
          el('span', { class: `status ${x.status}` }, statusLabel(x.status))),
        el('p', { class: 'meta' }, el('span', {}, j.service ? j.service.name : ''), el('span', {}, [j.neighborhood, j.city].filter(Boolean).join(', ')),
          el('span', {}, 'Tu precio: ', el('strong', {}, money(x.amount))), el('span', {}, 'Enviada ' + fmtDate(x.createdAt)))));
      qShown++;
    }
    if (!qShown) box.append(el('li', { class: 'card empty' }, qStatus ? 'Ninguna cotización en este estado.' : 'Aún no has enviado cotizaciones. Búscalas en el ', el('a', { href: '/tablero.html' }, 'tablero'), '.'));
    renderMore($('#more-quotes'), qShown, r.total ?? qShown, async () => { qPage++; await loadQuotes(true); });
  } catch (e) {
    if (my === qSeq) showAlert($('#alert'), e.message);
  } finally {
    if (my === qSeq) box.removeAttribute('aria-busy');
  }
}

function quoteFilters() {
  $('#quote-filters').replaceChildren(...['', 'PENDIENTE', 'ACEPTADA', 'RECHAZADA', 'RETIRADA', 'VENCIDA'].map((s) => el('button', {
    class: 'btn small ' + (qStatus === s ? '' : 'secondary'), type: 'button', 'aria-pressed': String(qStatus === s),
    onclick: () => { qStatus = s; qPage = 1; quoteFilters(); loadQuotes(false); },
  }, s ? statusLabel(s) : 'Todas')));
}

async function main() {
  const wanted = param('id');
  // Every parameter goes along (a payment's return adds &pago=).
  if (wanted) { location.replace('/trabajo.html' + location.search + location.hash); return; }
  renderChrome();
  session = await requireSession();
  if (session.user.role === 'ADMIN') {
    $('#filters').replaceWith(el('p', { class: 'card' }, 'Como administrador no tienes trabajos propios. Los trabajos de todos, las asignaciones y las aprobaciones están en ',
      el('a', { href: '/admin.html' }, 'Administración'), '.'));
    $('#jobs').replaceChildren();
    $('#jobs').removeAttribute('aria-busy');
    return;
  }
  if (session.user.role === 'CLIENTE') $('#new-job').hidden = false;
  const jobs = refresh();
  if (session.camello) {
    await jobs;
    $('#quotes-section').hidden = false;
    quoteFilters();
    loadQuotes(false);
  }
}

main();
