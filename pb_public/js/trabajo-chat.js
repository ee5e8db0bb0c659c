// The conversation of the job page (text and up to 3 photos), live
// through /api/events. Read with the job, drawn in its first pass.
import { api, el, $, fmtDate, showAlert, busy, formError, clearFieldErrors } from './app.js';
import { S, enc, isClient, tpl } from './trabajo.js';

const seen = new Set();

function messageItem(m) {
  const mine = m.author && m.author.id === S.session.user.id;
  return el('li', { class: 'msg' + (mine ? ' mine' : ''), 'data-id': m.id },
    el('p', { class: 'who' }, `${mine ? 'Tú' : (m.author && m.author.name) || ''} · ${fmtDate(m.createdAt)}`),
    m.body ? el('p', {}, m.body) : null,
    (m.attachments || []).map((u, i) => el('a', { href: u, target: '_blank', rel: 'noopener' },
      el('img', { src: u, alt: `Foto ${i + 1} del mensaje`, loading: 'lazy', width: 200, height: 150 }))));
}

export function addMessage(m) {
  if (!m || seen.has(m.id) || (m.jobId && m.jobId !== S.id)) return;
  seen.add(m.id);
  const ul = $('#messages');
  if (!ul) return;
  ul.querySelector('.empty')?.remove();
  const item = messageItem(m);
  const sent = m.author && m.author.id === S.session.user.id && ul.querySelector('.msg[inert]');
  if (sent) sent.replaceWith(item); else ul.append(item);
  ul.scrollTop = ul.scrollHeight;
}

// readChat reads the conversation's last page (an error is returned).
export async function readChat() {
  const get = (p = 1) => api('GET', `/api/jobs/${enc(S.id)}/messages?perPage=100&page=${p}`);
  try { const r = await get(); return r.total > 100 ? await get(Math.ceil(r.total / 100)) : r; } catch (e) { return e; }
}

// drawChat draws what readChat read, in the job's first pass: a late
// conversation never pushes the footer under a tap (issue 24).
export function drawChat(r) {
  const section = $('#chat-box');
  if (r instanceof Error) {
    section.hidden = r.status !== 403;
    if (r.status === 403) $('#chat').replaceChildren(el('p', { class: 'muted' }, 'Podrás escribir aquí cuando cotices o te asignen este trabajo.'));
    return false;
  }
  section.hidden = false;
  const ul = el('ul', { class: 'messages', id: 'messages', 'aria-live': 'polite', 'aria-label': 'Mensajes' });
  $('#chat').replaceChildren(ul);
  seen.clear();
  for (const m of r.messages || []) addMessage(m);
  if (!(r.messages || []).length) ul.append(el('li', { class: 'empty muted' }, 'Aún no hay mensajes.'));
  if (S.job.status !== 'CANCELADO' && S.session.user.role !== 'ADMIN') $('#chat').append(chatForm());
  return true;
}

function chatForm() {
  const quoting = isClient() && S.job.status === 'PENDIENTE'
    ? [...new Map(S.quotes.filter((q) => q.camello).map((q) => [q.camello.id, q.camello])).values()] : [];
  if (isClient() && S.job.status === 'PENDIENTE' && !S.job.provider && !quoting.length) {
    return tpl('t-chat-wait');
  }
  const f = tpl('t-chat');
  const msg = $('#chat-msg', f);
  if (quoting.length) f.prepend(el('div', { class: 'field' }, el('label', { for: 'toCamelloId' }, 'Para'),
    el('select', { id: 'toCamelloId', name: 'toCamelloId' }, quoting.map((c) => el('option', { value: c.id }, c.name)))));
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
    let payload = { body };
    if (files.length) {
      payload = new FormData();
      payload.set('body', body);
      for (const x of files) payload.append('files', x);
    }
    if (to) payload instanceof FormData ? payload.set('toCamelloId', to.value) : (payload.toCamelloId = to.value);
    // The message takes its place at the tap (inert until the answer).
    const ul = $('#messages');
    const soon = messageItem({ author: S.session.user, body, createdAt: new Date().toISOString(), attachments: files.map((x) => URL.createObjectURL(x)) });
    soon.inert = true;
    ul.querySelector('.empty')?.remove();
    ul.append(soon);
    ul.scrollTop = ul.scrollHeight;
    try {
      const r = await busy(f.querySelector('button'), () => api('POST', `/api/jobs/${enc(S.id)}/messages`, payload));
      addMessage(r.message);
      f.reset();
      showAlert(msg, 'Mensaje enviado.', 'ok');
      f.querySelector('#body').focus();
    } catch (e) { soon.remove(); formError(f, msg, e); }
  });
  return f;
}


// redrawForm draws the form again for the job's new state, keeping what
// was typed.
export function redrawForm() {
  const old = $('#chat-form');
  if (!old) return;
  const typed = old.querySelector('#body')?.value;
  const f = chatForm();
  old.replaceWith(f);
  if (typed && f.querySelector('#body')) f.querySelector('#body').value = typed;
}
