// One job: its details (address and price for those who may see them), the
// quotes (side by side for the client, with accept / reject; the camello's
// own with withdraw or a form to send one) and the conversation, live
// through /api/events.
import {
  api, el, $, param, requireSession, renderChrome, showAlert, statusLabel, fmtDate, fmtDateTz, avatar, money,
  confirmDialog, toast, busy, msgBox, formError, clearFieldErrors, events,
} from './app.js';

const id = param('id');
let session = null;
let job = null;
let quotes = [];
const seen = new Set();
const FINAL = ['COMPLETADO', 'CANCELADO'];

const isClient = () => job && job.client && job.client.id === session.user.id;
const isMyJob = () => session.camello && job.provider && job.provider.id === session.camello.id;

function details() {
  const box = $('#job');
  const parts = [
    el('div', { class: 'row' }, el('h1', {}, job.title), el('span', { class: `status ${job.status}`, id: 'job-status' }, statusLabel(job.status))),
    el('div', { class: 'card' },
      el('dl', { class: 'kv' },
        el('dt', {}, 'Servicio'), el('dd', {}, job.service ? job.service.name : '—'),
        el('dt', {}, 'Lugar'), el('dd', {}, [job.neighborhood, job.city].filter(Boolean).join(', ') || '—'),
        job.address !== undefined && job.address !== null ? [el('dt', {}, 'Dirección'), el('dd', { id: 'job-address' }, job.address || 'Sin dirección')] : null,
        el('dt', {}, 'Precio'), el('dd', { id: 'job-price' }, job.price ? money(job.price.amount) : 'Por acordar'),
        job.provider ? [el('dt', {}, 'Camello'), el('dd', {}, el('a', { href: '/camello.html?id=' + encodeURIComponent(job.provider.id) }, job.provider.name))] : null,
        job.client && !isClient() ? [el('dt', {}, 'Cliente'), el('dd', {}, job.client.name || '')] : null,
        el('dt', {}, 'Creado'), el('dd', {}, fmtDate(job.createdAt))),
      job.description ? el('p', { style: 'white-space:pre-line' }, job.description) : null,
      isClient() && !FINAL.includes(job.status) ? editForm() : null,
      el('p', {}, el('a', { href: '/trabajos.html?id=' + encodeURIComponent(job.id) }, 'Citas y acciones en Mis trabajos'))),
  ];
  box.replaceChildren(...parts);
  box.removeAttribute('aria-busy');
  document.title = `${job.title} · Camellos`;
}

function editForm() {
  const msg = msgBox('edit-msg');
  const f = el('form', { id: 'edit-form', method: 'post', action: location.pathname + location.search, novalidate: true },
    el('div', { class: 'field' }, el('label', { for: 'address' }, 'Dirección'),
      el('input', { id: 'address', name: 'address', type: 'text', maxlength: 200, value: job.address || '', autocomplete: 'street-address', 'aria-describedby': 'hint-address err-address' }),
      el('p', { class: 'hint', id: 'hint-address' }, 'Solo la ven tú y el camello asignado.'),
      el('p', { class: 'field-error', id: 'err-address' })),
    el('div', { class: 'field' }, el('label', { for: 'description' }, 'Detalles'),
      el('textarea', { id: 'description', name: 'description', maxlength: 5000, 'aria-describedby': 'err-description' }, job.description || ''),
      el('p', { class: 'field-error', id: 'err-description' })),
    el('div', { class: 'save-row' }, el('button', { class: 'btn secondary', type: 'submit' }, 'Guardar cambios'), msg));
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFieldErrors(f);
    const d = Object.fromEntries(new FormData(f));
    try {
      const r = await busy(f.querySelector('button'), () => api('PATCH', `/api/jobs/${encodeURIComponent(id)}`, { address: d.address.trim(), description: d.description }));
      job = r.job || job;
      $('#job-address') && ($('#job-address').textContent = job.address || 'Sin dirección');
      showAlert(msg, 'Cambios guardados.', 'ok');
      toast('Cambios guardados.');
    } catch (e) { formError(f, msg, e); }
  });
  return el('details', { class: 'review-box' }, el('summary', {}, 'Editar dirección y detalles'), f);
}

function quoteCard(q) {
  const msg = msgBox(`q-msg-${q.id}`);
  const c = q.camello || {};
  const card = el('li', { class: `card quote ${q.status}`, 'data-id': q.id, 'data-status': q.status },
    el('div', { class: 'row', style: 'justify-content:flex-start' }, avatar(c.photo, c.name),
      el('div', {}, el('h3', {}, c.id ? el('a', { href: '/camello.html?id=' + encodeURIComponent(c.id) }, c.name) : c.name),
        c.ratingAvg ? el('span', { class: 'stars', role: 'img', 'aria-label': `Calificación ${Number(c.ratingAvg).toFixed(1)} de 5` }, '★ ' + Number(c.ratingAvg).toFixed(1)) : null, el('p', { class: 'muted', style: 'margin:0' }, (c.trades || []).join(' · ')))),
    el('p', { class: 'amount' }, money(q.amount)),
    el('p', {}, el('span', { class: `status ${q.status}` }, statusLabel(q.status)), ' ',
      q.status === 'PENDIENTE' ? el('span', { class: 'muted' }, `válida hasta el ${fmtDateTz(q.expiresAt)}`) : null),
    q.message ? el('p', { style: 'white-space:pre-line' }, q.message) : null);
  const actions = el('div', { class: 'actions' });
  if (q.status === 'PENDIENTE' && isClient()) {
    actions.append(
      el('button', {
        class: 'btn small', type: 'button',
        onclick: async (ev) => {
          const b = ev.currentTarget;
          if (!await confirmDialog(`¿Aceptar la cotización de ${c.name} por ${money(q.amount)}? Las demás se rechazan.`, 'Sí, aceptar')) return;
          try {
            await busy(b, () => api('POST', `/api/quotes/${encodeURIComponent(q.id)}/accept`));
            await reload();
            const again = document.querySelector(`.quote[data-id="${CSS.escape(q.id)}"] .alert`);
            showAlert(again, `Aceptaste la cotización de ${c.name}. El trabajo quedó asignado.`, 'ok', false);
            toast('Cotización aceptada.');
          } catch (e) { showAlert(msg, e.message, 'error', false); }
        },
      }, 'Aceptar'),
      el('button', {
        class: 'btn danger small', type: 'button',
        onclick: async (ev) => {
          const b = ev.currentTarget;
          if (!await confirmDialog(`¿Rechazar la cotización de ${c.name}?`, 'Sí, rechazar')) return;
          try {
            await busy(b, () => api('POST', `/api/quotes/${encodeURIComponent(q.id)}/reject`));
            await reload();
            showAlert(document.querySelector(`.quote[data-id="${CSS.escape(q.id)}"] .alert`), 'Cotización rechazada.', 'ok', false);
            toast('Cotización rechazada.');
          } catch (e) { showAlert(msg, e.message, 'error', false); }
        },
      }, 'Rechazar'));
  }
  if (q.status === 'PENDIENTE' && session.camello && c.id === session.camello.id) {
    actions.append(el('button', {
      class: 'btn danger small', type: 'button',
      onclick: async (ev) => {
        const b = ev.currentTarget;
        if (!await confirmDialog('¿Retirar tu cotización? El cliente ya no podrá aceptarla.', 'Sí, retirar')) return;
        try {
          await busy(b, () => api('POST', `/api/quotes/${encodeURIComponent(q.id)}/withdraw`));
          await reload();
          toast('Cotización retirada.');
        } catch (e) { showAlert(msg, e.message, 'error', false); }
      },
    }, 'Retirar'));
  }
  card.append(actions, msg);
  return card;
}

function sendQuoteForm() {
  const msg = msgBox('send-msg');
  const f = el('form', { id: 'quote-form', method: 'post', action: location.pathname + location.search, novalidate: true },
    el('h3', {}, 'Enviar una cotización'),
    el('div', { class: 'grid-2' },
      el('div', { class: 'field' }, el('label', { for: 'amount' }, 'Precio total (COP)'),
        el('input', { id: 'amount', name: 'amount', type: 'number', inputmode: 'numeric', min: 10000, max: 100000000, step: 1000, 'aria-describedby': 'err-amount' }),
        el('p', { class: 'field-error', id: 'err-amount' })),
      el('div', { class: 'field' }, el('label', { for: 'validDays' }, 'Válida por'),
        el('select', { id: 'validDays', name: 'validDays' }, [3, 7, 15, 30].map((d) => el('option', { value: d, selected: d === 7 }, `${d} días`))))),
    el('div', { class: 'field' }, el('label', { for: 'qmessage' }, 'Mensaje (opcional)'),
      el('textarea', { id: 'qmessage', name: 'message', maxlength: 1000, 'aria-describedby': 'err-message' }),
      el('p', { class: 'field-error', id: 'err-message' })),
    el('div', { class: 'save-row' }, el('button', { class: 'btn', type: 'submit' }, 'Enviar cotización'), msg));
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFieldErrors(f);
    const d = Object.fromEntries(new FormData(f));
    const amount = Number(d.amount);
    if (!Number.isInteger(amount) || amount < 10000 || amount > 100000000) { formError(f, msg, { fieldErrors: { amount: ['Entre $10.000 y $100.000.000, sin decimales'] } }); return; }
    try {
      await busy(f.querySelector('button'), () => api('POST', `/api/jobs/${encodeURIComponent(id)}/quotes`, { amount, message: d.message.trim(), validDays: Number(d.validDays) }));
      await reload();
      toast(`Cotización enviada por ${money(amount)}.`);
    } catch (e) { formError(f, msg, e); }
  });
  return f;
}

async function drawQuotes() {
  const section = $('#quotes-box');
  try {
    const r = await api('GET', `/api/jobs/${encodeURIComponent(id)}/quotes`);
    quotes = r.quotes || [];
  } catch (e) {
    quotes = [];
    section.hidden = true;
    return;
  }
  const mineCamello = session.camello && session.camello.status === 'ACTIVO' && !isClient();
  const canSend = mineCamello && job.status === 'PENDIENTE' && !quotes.some((q) => q.status === 'PENDIENTE' && q.camello && q.camello.id === session.camello.id);
  if (!quotes.length && !canSend) { section.hidden = true; return; }
  section.hidden = false;
  const open = quotes.filter((q) => q.status === 'PENDIENTE').length;
  $('#quotes').replaceChildren(...[
    isClient() && quotes.length ? el('p', { class: 'muted' }, open ? `${open} ${open === 1 ? 'cotización espera' : 'cotizaciones esperan'} tu respuesta. Compáralas y acepta una.` : 'Ninguna cotización espera respuesta.') : null,
    quotes.length ? el('ul', { class: 'quotes list' }, quotes.map(quoteCard)) : el('p', { class: 'muted' }, 'Aún no has cotizado este trabajo.'),
    canSend ? sendQuoteForm() : null].filter(Boolean));
}

function messageItem(m) {
  const mine = m.author && m.author.id === session.user.id;
  return el('li', { class: 'msg' + (mine ? ' mine' : ''), 'data-id': m.id },
    el('p', { class: 'who' }, `${mine ? 'Tú' : (m.author && m.author.name) || ''} · ${fmtDate(m.createdAt)}`),
    m.body ? el('p', {}, m.body) : null,
    (m.attachments || []).map((u, i) => el('a', { href: u, target: '_blank', rel: 'noopener' },
      el('img', { src: u, alt: `Foto ${i + 1} del mensaje`, loading: 'lazy', width: 200, height: 150 }))));
}

function addMessage(m) {
  if (!m || seen.has(m.id) || (m.jobId && m.jobId !== id)) return;
  seen.add(m.id);
  const ul = $('#messages');
  if (!ul) return;
  ul.querySelector('.empty')?.remove();
  ul.append(messageItem(m));
  ul.scrollTop = ul.scrollHeight;
}

async function drawChat() {
  const section = $('#chat-box');
  let r;
  try {
    r = await api('GET', `/api/jobs/${encodeURIComponent(id)}/messages?perPage=100`);
    if (r.total > 100) r = await api('GET', `/api/jobs/${encodeURIComponent(id)}/messages?perPage=100&page=${Math.ceil(r.total / 100)}`);
  } catch (e) {
    section.hidden = e.status !== 403;
    if (e.status === 403) $('#chat').replaceChildren(el('p', { class: 'muted' }, 'Podrás escribir aquí cuando cotices o te asignen este trabajo.'));
    return false;
  }
  section.hidden = false;
  const ul = el('ul', { class: 'messages', id: 'messages', 'aria-live': 'polite', 'aria-label': 'Mensajes' });
  $('#chat').replaceChildren(ul);
  seen.clear();
  for (const m of r.messages || []) addMessage(m);
  if (!(r.messages || []).length) ul.append(el('li', { class: 'empty muted' }, 'Aún no hay mensajes.'));
  const closed = job.status === 'CANCELADO' || session.user.role === 'ADMIN';
  if (!closed) $('#chat').append(chatForm());
  return true;
}

function chatForm() {
  const msg = msgBox('chat-msg');
  // The client of a job still open answers one of the camellos who quoted.
  const quoting = isClient() && job.status === 'PENDIENTE'
    ? [...new Map(quotes.filter((q) => q.camello).map((q) => [q.camello.id, q.camello])).values()] : [];
  // A client's open job nobody quoted has nobody to write to yet.
  if (isClient() && job.status === 'PENDIENTE' && !job.provider && !quoting.length) {
    return el('p', { class: 'muted', id: 'chat-form' }, 'Podrás escribir aquí cuando un camello cotice tu trabajo o lo asignes.');
  }
  const f = el('form', { id: 'chat-form', method: 'post', action: location.pathname + location.search, enctype: 'multipart/form-data', novalidate: true },
    quoting.length ? el('div', { class: 'field' }, el('label', { for: 'toCamelloId' }, 'Para'),
      el('select', { id: 'toCamelloId', name: 'toCamelloId' }, quoting.map((c) => el('option', { value: c.id }, c.name)))) : null,
    el('div', { class: 'field' }, el('label', { for: 'body' }, 'Mensaje'),
      el('textarea', { id: 'body', name: 'body', maxlength: 2000, rows: 3, 'aria-describedby': 'err-body' }),
      el('p', { class: 'field-error', id: 'err-body' })),
    el('div', { class: 'field' }, el('label', { for: 'files' }, 'Fotos (opcional, hasta 3)'),
      el('input', { id: 'files', name: 'files', type: 'file', multiple: true, accept: 'image/jpeg,image/png,image/webp', 'aria-describedby': 'hint-files err-files' }),
      el('p', { class: 'hint', id: 'hint-files' }, 'JPEG, PNG o WebP, máximo 5 MB cada una.'),
      el('p', { class: 'field-error', id: 'err-files' })),
    el('div', { class: 'save-row' }, el('button', { class: 'btn', type: 'submit' }, 'Enviar mensaje'), msg));
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFieldErrors(f);
    showAlert(msg, '');
    const body = f.querySelector('#body').value.trim();
    const files = [...f.querySelector('#files').files];
    const errs = {};
    if (!body && !files.length) errs.body = ['Escribe un mensaje o adjunta una foto'];
    if ([...body].length > 2000) errs.body = ['Máximo 2000 caracteres'];
    if (files.length > 3) errs.files = ['Máximo 3 fotos'];
    else if (files.some((x) => !['image/jpeg', 'image/png', 'image/webp'].includes(x.type) || x.size > 5 * 1024 * 1024)) errs.files = ['Cada foto debe ser JPEG, PNG o WebP de máximo 5 MB'];
    if (Object.keys(errs).length) { formError(f, msg, { fieldErrors: errs }); return; }
    const to = f.querySelector('#toCamelloId');
    let payload;
    if (files.length) {
      payload = new FormData();
      payload.set('body', body);
      for (const x of files) payload.append('files', x);
      if (to) payload.set('toCamelloId', to.value);
    } else {
      payload = { body };
      if (to) payload.toCamelloId = to.value;
    }
    try {
      const r = await busy(f.querySelector('button'), () => api('POST', `/api/jobs/${encodeURIComponent(id)}/messages`, payload));
      addMessage(r.message);
      f.reset();
      showAlert(msg, 'Mensaje enviado.', 'ok');
      f.querySelector('#body').focus();
    } catch (e) { formError(f, msg, e); }
  });
  return f;
}

async function reload() {
  try {
    const r = await api('GET', `/api/jobs/${encodeURIComponent(id)}`);
    job = r.job;
  } catch (e) {
    // A camello who quoted an open job reads its quote and the
    // conversation, not the job: what the board showed stands in.
    if (e.status !== 404 || !session.camello) throw e;
    const q = await api('GET', `/api/jobs/${encodeURIComponent(id)}/quotes`).catch(() => ({ quotes: [] }));
    if (!(q.quotes || []).length) throw e;
    let seenOnBoard = null;
    try { seenOnBoard = JSON.parse(sessionStorage.getItem('job:' + id) || 'null'); } catch (x) { seenOnBoard = null; }
    const last = q.quotes[0];
    job = { ...(seenOnBoard || { title: 'Trabajo que cotizaste' }), id, status: last.status === 'ACEPTADA' ? 'ASIGNADO' : 'PENDIENTE', price: null };
  }
  details();
  await drawQuotes();
  // The conversation's form depends on the job (whom the client answers);
  // what was being typed stays.
  const old = $('#chat-form');
  if (old) {
    const typed = old.querySelector('#body')?.value;
    const f = chatForm();
    old.replaceWith(f);
    if (typed && f.querySelector('#body')) f.querySelector('#body').value = typed;
  }
}

async function main() {
  renderChrome();
  session = await requireSession();
  if (!id) {
    $('#job').replaceChildren(el('h1', {}, 'Falta el trabajo'), el('p', {}, el('a', { href: '/trabajos.html' }, 'Ver mis trabajos')));
    return;
  }
  try {
    await reload();
  } catch (e) {
    $('#job').replaceChildren(el('h1', {}, e.status === 404 || e.status === 403 ? 'Trabajo no encontrado' : 'No se pudo cargar el trabajo'),
      el('p', {}, e.message), el('p', {}, el('a', { href: '/trabajos.html' }, 'Ver mis trabajos')));
    $('#job').removeAttribute('aria-busy');
    return;
  }
  const live = await drawChat();
  if (live) {
    events((type, data) => {
      if (type === 'message') addMessage(data.message || data);
      if (type === 'job' && ((data.job || data).id === id)) reload().catch(() => {});
    });
  }
}

main();
