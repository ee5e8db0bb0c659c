// One job, its whole life for each party: request, quotes ("Aceptar y
// agendar"), visits, start and completion, review, its payment (#pago, trabajo-pago.js) and
// the live conversation. Each part loads only when needed (docs/web.md).
// One pass per draw; then the blocks keep their height (hold).
import {
  api, el, $, param, requireSession, renderChrome, showAlert, statusLabel, fmtDate, fmtSpan,
  money, confirmDialog, toast, busy, msgBox, formError, clearFieldErrors, events, tzName,
} from './app.js';

// S is the page's state, shared with the sections' modules.
export const S = { id: param('id'), session: null, job: null, quotes: [], visits: [] };
export const enc = encodeURIComponent;
export const FINAL = ['COMPLETADO', 'CANCELADO'];

export const isClient = () => S.job && S.job.client && S.job.client.id === S.session.user.id;
export const isMine = () => S.session.camello && S.job.provider && S.job.provider.id === S.session.camello.id;
export const bookable = () => S.job.provider && (['ASIGNADO', 'EN_PROGRESO'].includes(S.job.status) || (S.job.status === 'PENDIENTE' && S.job.source === 'PERFIL'));

// say answers in the job's message line (a toast only when no line in view says it).
export function say(box, text, kind = 'ok') { showAlert(box, text, kind, false); toast(text, kind); }
// hush takes the job's message line at the tap; the answer fills it.
// tpl is a copy of one of trabajo.html's templates (markup costs no script).
export const tpl = (id) => $('#' + id).content.firstElementChild.cloneNode(true);
export const hush = () => showAlert($('#job-msg'), 'Un momento…', 'ok', false);

// nextStep says in one line what the job waits for, and from whom.
function nextStep() {
  const c = isClient();
  const s = S.job.status;
  if (s === 'PENDIENTE' && !S.job.provider) return c ? 'Compara las cotizaciones y acepta una eligiendo la hora de la primera cita.' : 'El cliente está comparando cotizaciones.';
  if (s === 'PENDIENTE') return c ? 'Esperando la respuesta del camello a tu solicitud.' : 'El cliente te pidió este trabajo: acéptalo o recházalo.';
  if (s === 'ASIGNADO') return c ? (S.visits.length ? 'El camello iniciará el trabajo en la cita.' : 'Agenda la primera cita.') : 'Inicia el trabajo cuando llegues.';
  if (s === 'EN_PROGRESO') return c ? 'El camello está haciendo el trabajo.' : 'Márcalo como completado cuando termines.';
  if (s === 'COMPLETADO') return c ? (S.job.reviewed ? 'Gracias por tu reseña.' : 'Califica el trabajo.') : 'Trabajo terminado.';
  return 'Este trabajo fue cancelado.';
}

export const drawNext = () => $('#next-step')?.replaceChildren(el('strong', {}, 'Qué sigue: '), nextStep());

// kept is the message line id drawn again with the answer it shows.
export function kept(id) {
  const msg = msgBox(id);
  const old = $('#' + id);
  if (old && old.textContent) {
    msg.className = old.className;
    if (old.dataset.base != null) msg.dataset.base = old.dataset.base;
    msg.setAttribute('role', old.getAttribute('role') || 'status');
    msg.textContent = old.textContent;
  }
  return msg;
}

function details() {
  const msg = kept('job-msg');
  msg.classList.add('card-msg');
  const bar = el('div', { class: 'actions job-actions' });
  const act = (label, fn, cls = 'btn small') => bar.append(el('button', { class: cls, type: 'button', onclick: (ev) => fn(ev.currentTarget, msg) }, label));
  if (isMine()) {
    if (S.job.status === 'PENDIENTE') act('Aceptar', (b) => step(b, msg, 'accept', 'Trabajo aceptado.', '¿Aceptar este trabajo?'));
    if (S.job.status === 'ASIGNADO') act('Iniciar', (b) => step(b, msg, 'start', 'Trabajo iniciado.', '¿Iniciar el trabajo ahora?'));
    if (S.job.status === 'EN_PROGRESO') act('Completar', complete);
  }
  if (!FINAL.includes(S.job.status) && S.session.user.role !== 'ADMIN') {
    act(isMine() && S.job.status === 'PENDIENTE' ? 'Rechazar' : 'Cancelar trabajo',
      (b) => step(b, msg, 'cancel', 'Trabajo cancelado.', `¿Cancelar el trabajo «${S.job.title}»? Sus citas futuras también se cancelan.`, 'Sí, cancelar el trabajo'), 'btn danger small');
  }
  const card = el('div', { class: 'card job', id: `job-${S.job.id}`, 'data-status': S.job.status },
    el('dl', { class: 'kv' },
      el('dt', {}, 'Servicio'), el('dd', {}, S.job.service ? S.job.service.name : '—'),
      el('dt', {}, 'Lugar'), el('dd', {}, [S.job.neighborhood, S.job.city].filter(Boolean).join(', ') || '—'),
      S.job.address != null ? [el('dt', {}, 'Dirección'), el('dd', { id: 'job-address' }, S.job.address || 'Sin dirección')] : null,
      el('dt', {}, 'Precio'), el('dd', { id: 'job-price' }, S.job.price ? money(S.job.price.amount) : 'Por acordar'),
      S.job.provider ? [el('dt', {}, 'Camello'), el('dd', {}, el('a', { href: '/camello.html?id=' + enc(S.job.provider.id) }, S.job.provider.name))] : null,
      S.job.client && !isClient() ? [el('dt', {}, 'Cliente'), el('dd', {}, S.job.client.name || '')] : null,
      el('dt', {}, 'Creado'), el('dd', {}, fmtDate(S.job.createdAt))),
    S.job.description ? el('p', { class: 'pre' }, S.job.description) : null,
    el('p', { class: 'next', id: 'next-step' }, el('strong', {}, 'Qué sigue: '), nextStep()),
    isClient() && !FINAL.includes(S.job.status) ? editForm() : null,
    isClient() && S.job.status === 'COMPLETADO' && !S.job.reviewed ? reviewForm(msg) : null,
    rv ? rv.m.drawReviews(rv.r, msg) : null,
    bar, msg);
  $('#job').replaceChildren(el('div', { class: 'row' }, el('h1', {}, S.job.title),
    el('span', { class: `status ${S.job.status}`, id: 'job-status' }, statusLabel(S.job.status))), card);
  $('#job').removeAttribute('aria-busy');
  document.title = `${S.job.title} · Camellos`;
}

async function step(btn, msg, action, okText, question, okLabel = 'Sí, continuar') {
  if (!await confirmDialog(question, okLabel)) return;
  hush();
  try {
    await busy(btn, () => api('POST', `/api/jobs/${enc(S.id)}/${action}`));
    await reload();
    say($('#job-msg'), okText);
  } catch (e) { say(msg, e.message, 'error'); }
}

// complete spells out which future visits completion ends before asking;
// the server's 409 lists any this page missed, asked again.
async function complete(btn, msg) {
  let future = S.visits.filter((a) => Date.parse(a.start) > Date.now());
  const ask = (list) => confirmDialog(list.length
    ? `Completar cancela ${list.length === 1 ? 'esta cita futura' : `estas ${list.length} citas futuras`}: ${list.map((a) => fmtSpan(a.start, a.end)).join('; ')} (${tzName()}). Se avisará al cliente. ¿Completar y cancelarlas?`
    : '¿Marcar el trabajo como completado? No tiene citas futuras.', list.length ? 'Sí, completar y cancelar citas' : 'Sí, completar');
  if (!await ask(future)) return;
  hush();
  for (;;) {
    try {
      const r = await busy(btn, () => api('POST', `/api/jobs/${enc(S.id)}/complete`, { endFutureVisits: future.length > 0 }));
      const n = (r.cancelledAppointments || []).length;
      await reload();
      say($('#job-msg'), n ? `Trabajo completado; ${n === 1 ? 'se canceló 1 cita' : `se cancelaron ${n} citas`} y se avisó al cliente.` : 'Trabajo completado.');
      return;
    } catch (e) {
      const more = e.status === 409 && e.issues.conflicts;
      if (more && more.length && !future.length && await ask(more)) { future = more; continue; }
      say(msg, e.message, 'error');
      return;
    }
  }
}

function editForm() {
  const box = tpl('t-edit');
  const f = box.querySelector('form');
  const msg = $('#edit-msg', f);
  f.address.value = S.job.address || '';
  f.description.value = S.job.description || '';
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFieldErrors(f);
    const d = Object.fromEntries(new FormData(f));
    try {
      const r = await busy(f.querySelector('button'), () => api('PATCH', `/api/jobs/${enc(S.id)}`, { address: d.address.trim(), description: d.description }));
      S.job = r.job || S.job;
      if ($('#job-address')) $('#job-address').textContent = S.job.address || 'Sin dirección';
      showAlert(msg, 'Cambios guardados.', 'ok');
    } catch (e) { formError(f, msg, e); }
  });
  return box;
}

function reviewForm(msg) {
  const box = tpl('t-review');
  const f = box.querySelector('form');
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const fd = new FormData(f);
    try {
      await busy(f.querySelector('button'), () => api('POST', `/api/jobs/${enc(S.id)}/review`, { rating: Number(fd.get('rating')), comment: fd.get('comment') }));
      await reload();
      say($('#job-msg'), '¡Gracias por tu reseña!');
    } catch (e) { say(msg, e.message, 'error'); }
  });
  return box;
}

// The sections' modules, each loaded once, when first needed.
const mods = {};
const load = {
  quotes: () => (mods.quotes ||= import('./trabajo-quotes.js')),
  visits: () => (mods.visits ||= import('./trabajo-visits.js')),
  chat: () => (mods.chat ||= import('./trabajo-chat.js')),
  reviews: () => (mods.reviews ||= import('./trabajo-reviews.js')),
  pay: () => (mods.pay ||= import('./trabajo-pago.js')),
};
// rv is a completed job's reviews and the module drawing them (or null).
let rv = null;

// hold keeps the blocks' height: a redraw never pulls up what follows.
function hold() {
  for (const n of [$('#life'), $('#job'), $('#chat-box')]) {
    if (n && !n.hidden) n.style.minHeight = `${Math.max(n.offsetHeight, parseFloat(n.style.minHeight) || 0)}px`;
  }
}

// reload reads the job, its quotes and visits and draws them in one pass;
// reloads run one after the other.
let queue = Promise.resolve();
export function reload(held = true) {
  const next = queue.catch(() => {}).then(() => draw(held));
  queue = next;
  return next;
}

async function draw(held) {
  if (held) hold();
  // The first pass draws the conversation too.
  const talk = held ? null : load.chat().then((m) => m.readChat());
  // A camello who quoted an open job reads it through its quotes (the job
  // itself is its client's until assigned).
  const q = S.session.camello ? ((await api('GET', `/api/me/quotes?job=${enc(S.id)}&perPage=1`).catch(() => ({}))).quotes || []) : [];
  if (q.length && q[0].job && q[0].job.status === 'PENDIENTE') S.job = { ...q[0].job, price: null, provider: null };
  else S.job = (await api('GET', `/api/jobs/${enc(S.id)}`)).job;
  const cam = S.session.camello && S.session.camello.status === 'ACTIVO' && !isClient();
  const withVisits = S.job.provider && S.session.user.role !== 'ADMIN';
  const rev = S.job.status === 'COMPLETADO' && (isClient() || isMine());
  // #pago: the payment, for the parties of a job with a price (trabajo-pago.js).
  const pays = (isClient() || isMine()) && S.job.price && !['PENDIENTE', 'CANCELADO'].includes(S.job.status);
  const [quotes, visits, , , reviews, chat, pay] = await Promise.all([
    api('GET', `/api/jobs/${enc(S.id)}/quotes`).then((r) => r.quotes || [], () => []),
    withVisits ? api('GET', `/api/agenda/appointments?job=${enc(S.id)}&from=${enc(new Date(Date.now() - 864e5).toISOString())}&perPage=100`)
      .then((r) => r.appointments || [], () => []) : [],
    cam || isClient() ? load.quotes() : null,
    withVisits ? load.visits() : null,
    rev ? load.reviews().then((m) => m.readReviews()) : null,
    talk,
    pays ? load.pay().then((m) => m.readPay()) : null,
  ]);
  rv = rev ? { m: await load.reviews(), r: reviews } : null;
  S.quotes = quotes;
  S.visits = visits.filter((a) => a.status === 'PROGRAMADA');
  // A visit cancelled here stays in place, marked.
  S.kept = visits.filter((a) => a.status === 'CANCELADA' && S.gone && S.gone.has(a.id));
  const canSend = cam && S.job.status === 'PENDIENTE' && !quotes.some((x) => x.status === 'PENDIENTE' && x.camello && x.camello.id === S.session.camello.id);
  const qm = quotes.length || canSend ? await load.quotes() : null;
  const vm = withVisits ? await load.visits() : null;
  details();
  if (qm) qm.drawQuotes(canSend); else $('#quotes-box').hidden = true;
  if (vm) vm.drawVisits(); else { $('#visits-box').hidden = true; S.visits = []; }
  drawNext();
  $('#pago').hidden = !pays;
  if (pays) (await load.pay()).drawPay(pay);
  const c = await mods.chat;
  if (!held) live = c.drawChat(chat); else if (c) c.redrawForm();
}
let live = false;

// fail says why the page has no job, with the way to the others.
function fail(title, why) {
  $('#job').replaceChildren(el('h1', {}, title), why ? el('p', {}, why) : '', el('p', {}, el('a', { href: '/trabajos.html' }, 'Ver mis trabajos')));
  $('#job').removeAttribute('aria-busy');
}

async function main() {
  renderChrome();
  S.session = await requireSession();
  if (!S.id) {
    return fail('Falta el trabajo');
  }
  try {
    await reload(false);
  } catch (e) {
    return fail(e.status === 404 || e.status === 403 ? 'Trabajo no encontrado' : 'No se pudo cargar el trabajo', e.message);
  }
  if (live) {
    const chat = await load.chat();
    events((type, data) => {
      if (type === 'message') chat.addMessage(data.message || data);
      if (type === 'job' && ((data.job || data).id === S.id)) reload().catch(() => {});
    });
  }
}

main();
