// Admin console (role ADMIN): camellos waiting for review with their
// documents (approve / reject), open jobs to assign, broadcasts and the
// legal texts. PocketBase's dashboard (/_/) is a different thing: its
// superusers edit raw records; this page speaks only to /api/admin.
import {
  api, el, $, requireSession, renderChrome, showAlert, formError, clearFieldErrors, fmtDate, avatar,
  confirmDialog, toast, busy, msgBox, field,
} from './app.js';
import { renderMore } from './more.js';

const PER = 20;
let pendPage = 1;
let pendShown = 0;
let openPage = 1;
let openShown = 0;

function say(box, text, kind = 'ok') { showAlert(box, text, kind, false); toast(text, kind); }

// rejectFormOf asks the reason of a rejection (required: it is mailed to
// the camello) and rejects with it.
function rejectFormOf(c, decide, msg) {
  const reason = el('textarea', { maxlength: 1000, rows: 3, required: true });
  const f = el('form', { method: 'post', action: '/admin.html', class: 'reject-form', id: `reject-${c.id}`, hidden: true, novalidate: true },
    field(`reject-${c.id}`, 'reason', 'Motivo del rechazo', reason, 'Se le enviará al camello por correo. Entre 5 y 1000 caracteres.'),
    el('div', { class: 'actions' }, el('button', { class: 'btn danger small', type: 'submit' }, 'Confirmar rechazo')));
  f.addEventListener('submit', (ev) => {
    ev.preventDefault();
    clearFieldErrors(f);
    const text = reason.value.trim();
    if (text.length < 5) {
      formError(f, msg, { fieldErrors: { reason: ['Escribe el motivo del rechazo (al menos 5 caracteres): se le enviará al camello'] } });
      return;
    }
    decide(f.querySelector('button'), 'RECHAZADO', `${c.name} quedó rechazado. Le enviamos el motivo.`, text);
  });
  return f;
}

function pendingItem(c) {
  const msg = msgBox(`pend-msg-${c.id}`);
  let rejectForm = null;
  const decide = async (btn, status, text, reason) => {
    btn.disabled = true;
    // The answer's line is taken now, while the tap is fresh: a late answer
    // moves nothing below (issue 24: no layout jump on a busy machine).
    showAlert(msg, 'Guardando la decisión…', 'ok', false);
    try {
      await api('PATCH', `/api/admin/camellos/${encodeURIComponent(c.id)}`, reason ? { status, reason } : { status });
      // The reason's form stays where it is, read-only: a late answer
      // that folded it would pull the cards below up.
      li.querySelectorAll('button, textarea').forEach((b) => { b.disabled = true; });
      li.dataset.status = status;
      say(msg, text);
    } catch (e) {
      btn.disabled = false;
      if (reason && e.fieldErrors && e.fieldErrors.reason) formError(rejectForm, msg, e);
      else say(msg, e.message, 'error');
    }
  };
  rejectForm = rejectFormOf(c, decide, msg);
  const li = el('li', { class: 'card', 'data-id': c.id, 'data-status': c.status },
    el('div', { class: 'row', style: 'justify-content:flex-start' }, avatar(c.photo, c.name),
      el('div', {}, el('h3', {}, c.name), el('p', { class: 'muted', style: 'margin:0' }, (c.trades || []).join(' · ')))),
    el('dl', { class: 'kv' },
      el('dt', {}, 'Documento'), el('dd', {}, c.documentId || 'No lo indicó'),
      el('dt', {}, 'Tarjeta profesional'), el('dd', {}, c.professionalCard || 'No la indicó'),
      el('dt', {}, 'Teléfono'), el('dd', {}, c.phone || '—'),
      el('dt', {}, 'Ciudad'), el('dd', {}, [c.city, c.neighborhood].filter(Boolean).join(', ') || '—'),
      el('dt', {}, 'Servicios'), el('dd', {}, (c.services || []).map((s) => s.name).join(', ') || '—'),
      el('dt', {}, 'Registrado'), el('dd', {}, fmtDate(c.createdAt))),
    c.description ? el('p', { class: 'doc-list' }, c.description) : null,
    // The photos of the document and professional card (private files:
    // admins and the camello only), at a fixed size, opened whole on click.
    el('div', { class: 'doc-photos' }, (c.documents || []).length
      ? c.documents.map((u, i) => el('a', { href: u, target: '_blank', rel: 'noopener' },
        el('img', { src: u, alt: `Foto ${i + 1} de los documentos de ${c.name}`, width: 240, height: 160, loading: 'lazy' })))
      : el('p', { class: 'muted' }, 'No subió fotos de sus documentos.')),
    el('div', { class: 'actions' },
      el('button', { class: 'btn small', type: 'button', onclick: (ev) => decide(ev.currentTarget, 'ACTIVO', `${c.name} quedó aprobado y publicado.`) }, 'Aprobar'),
      el('button', {
        class: 'btn danger small', type: 'button', 'aria-expanded': 'false', 'aria-controls': `reject-${c.id}`,
        onclick: (ev) => {
          const b = ev.currentTarget;
          const open = b.getAttribute('aria-expanded') !== 'true';
          b.setAttribute('aria-expanded', String(open));
          rejectForm.hidden = !open;
          if (open) rejectForm.querySelector('textarea').focus();
        },
      }, 'Rechazar')),
    rejectForm,
    msg);
  return li;
}

async function loadPending(append) {
  const ul = $('#pending');
  try {
    const r = await api('GET', `/api/admin/camellos?status=PENDIENTE&page=${pendPage}&perPage=${PER}`);
    if (!append) { ul.replaceChildren(); pendShown = 0; }
    for (const c of r.camellos || []) { ul.append(pendingItem(c)); pendShown++; }
    if (!pendShown) ul.append(el('li', { class: 'empty' }, 'No hay camellos pendientes.'));
    renderMore($('#pending-more'), pendShown, r.total, async () => { pendPage++; await loadPending(true); });
  } catch (e) { ul.replaceChildren(el('li', { class: 'muted' }, e.message)); } finally { ul.removeAttribute('aria-busy'); }
}

// candidatesOf reads a page of the job's candidates: its city and service,
// soonest free first, then by rating (GET /api/admin/jobs/{id}/candidates).
function candidatesOf(job, page) {
  return api('GET', `/api/admin/jobs/${encodeURIComponent(job.id)}/candidates?page=${page}&perPage=${PER}`);
}

function candidateLabel(c) {
  const free = c.nextFree ? `libre ${fmtDate(c.nextFree)}` : 'sin horarios en 14 días';
  const r = c.rating && c.rating.count ? `★ ${c.rating.average.toFixed(1)}` : 'sin reseñas';
  return `${c.name} — ${c.city || ''} — ${free} — ${r}`;
}

function openItem(job) {
  const msg = msgBox(`open-msg-${job.id}`);
  const slot = el('div', {});
  const li = el('li', { class: 'card', 'data-id': job.id },
    el('h3', {}, job.title),
    el('p', { class: 'meta' }, el('span', {}, job.service ? job.service.name : ''), el('span', {}, [job.city, job.neighborhood].filter(Boolean).join(', ')),
      el('span', {}, 'Creado ' + fmtDate(job.createdAt)), job.client ? el('span', {}, 'Cliente: ' + job.client.name) : null),
    job.description ? el('p', {}, job.description) : null,
    el('button', {
      class: 'btn secondary small', type: 'button', 'aria-expanded': 'false',
      onclick: async (ev) => {
        const b = ev.currentTarget;
        if (b.getAttribute('aria-expanded') === 'true') { b.setAttribute('aria-expanded', 'false'); slot.replaceChildren(); return; }
        b.setAttribute('aria-expanded', 'true');
        // The form is drawn at once, empty, in the size it keeps: the
        // candidates fill it when they come, nothing below moves.
        let page = 1;
        const list = [];
        const sel = el('select', { id: `assign-${job.id}`, name: 'camelloId', 'aria-describedby': `assign-hint-${job.id}`, disabled: true });
        const hint = el('p', { class: 'hint assign-hint', id: `assign-hint-${job.id}` }, `Buscando camellos de este servicio en ${job.city}…`);
        const more = el('button', { class: 'btn secondary small', type: 'button', style: 'visibility:hidden' }, 'Más candidatos');
        const submit = el('button', { class: 'btn small', type: 'submit', disabled: true }, 'Asignar');
        more.addEventListener('click', async () => {
          try {
            const r = await busy(more, () => candidatesOf(job, page + 1));
            page++;
            for (const c of r.camellos || []) { sel.append(el('option', { value: c.id }, candidateLabel(c))); list.push(c); }
            more.style.visibility = list.length >= r.total ? 'hidden' : '';
          } catch (e) { say(msg, e.message, 'error'); }
        });
        const f = el('form', { method: 'post', action: '/admin.html', class: 'save-row' },
          el('div', { class: 'field', style: 'flex:1 1 16rem;margin:0' }, el('label', { for: `assign-${job.id}` }, 'Camello'), sel, hint),
          submit, more);
        f.addEventListener('submit', async (e2) => {
          e2.preventDefault();
          li.style.minHeight = `${li.offsetHeight}px`; // the card keeps its height after the answer
          try {
            await busy(submit, () => api('POST', `/api/admin/jobs/${encodeURIComponent(job.id)}/assign`, { camelloId: sel.value }));
            const name = sel.selectedOptions[0].textContent.split(' — ')[0];
            slot.replaceChildren();
            b.remove();
            li.dataset.assigned = sel.value;
            say(msg, `Trabajo asignado a ${name}. Les avisamos a ambos.`);
          } catch (err) { say(msg, err.message, 'error'); }
        });
        slot.replaceChildren(f);
        let answer;
        try { answer = await candidatesOf(job, page); } catch (e) { slot.replaceChildren(); say(msg, e.message, 'error'); return; }
        list.push(...(answer.camellos || []));
        sel.append(...list.map((c) => el('option', { value: c.id }, candidateLabel(c))));
        hint.textContent = `${answer.total} ${answer.total === 1 ? 'camello ofrece' : 'camellos ofrecen'} este servicio en ${job.city}; primero quien tiene horario libre más pronto, luego por calificación.`;
        more.style.visibility = list.length >= answer.total ? 'hidden' : '';
        sel.disabled = false;
        submit.disabled = false;
        if (!list.length) hint.textContent = `Ningún camello activo ofrece este servicio en ${job.city}.`;
        sel.focus();
      },
    }, 'Asignar camello'),
    slot, msg);
  return li;
}

async function loadOpen(append) {
  const ul = $('#open-jobs');
  try {
    const r = await api('GET', `/api/admin/jobs?status=PENDIENTE&page=${openPage}&perPage=${PER}`);
    if (!append) { ul.replaceChildren(); openShown = 0; }
    const jobs = r.jobs || [];
    for (const j of jobs) { openShown++; if (!j.provider) ul.append(openItem(j)); }
    if (!ul.children.length) ul.append(el('li', { class: 'empty' }, 'No hay trabajos abiertos sin camello.'));
    renderMore($('#open-more'), openShown, r.total, async () => { openPage++; await loadOpen(true); });
  } catch (e) { ul.replaceChildren(el('li', { class: 'muted' }, e.message)); } finally { ul.removeAttribute('aria-busy'); }
}

function broadcast() {
  const f = $('#bc-form');
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFieldErrors(f);
    const msg = $('#bc-msg');
    const d = Object.fromEntries(new FormData(f));
    const errs = {};
    if (!d.title.trim()) errs.title = ['Escribe un título'];
    if (!d.body.trim()) errs.body = ['Escribe el mensaje'];
    if (Object.keys(errs).length) { formError(f, msg, { fieldErrors: errs }); return; }
    const body = { title: d.title.trim(), body: d.body.trim() };
    if (d.url.trim()) body.url = d.url.trim();
    // The service sends to one role at a time: "Todos" is the three.
    const roles = d.role ? [d.role] : ['CLIENTE', 'CAMELLOS', 'ADMIN'];
    const who = d.role ? $('#bc-role').selectedOptions[0].textContent.toLowerCase() : 'todos';
    if (!await confirmDialog(`¿Enviar «${body.title}» a ${who}?`, 'Sí, enviar')) return;
    try {
      const answers = await busy(f.querySelector('button[type=submit]'), () => Promise.all(roles.map((role) => api('POST', '/api/admin/notifications', { ...body, role }))));
      const queued = answers.reduce((n, r) => n + (r.queued || 0), 0);
      say(msg, `Aviso en camino a ${queued} ${queued === 1 ? 'persona' : 'personas'}.`);
      f.reset();
    } catch (e) { formError(f, msg, e); }
  });
}

function sectionRow(s, i) {
  const n = Math.random().toString(36).slice(2, 8);
  const box = el('div', { class: 'legal-section', role: 'group', 'aria-label': `Sección ${i + 1}` },
    el('div', { class: 'field' }, el('label', { for: `st-${n}` }, `Título de la sección ${i + 1}`),
      el('input', { id: `st-${n}`, type: 'text', 'data-k': 'title', value: s.title || '', maxlength: 200 })),
    el('div', { class: 'field' }, el('label', { for: `sc-${n}` }, 'Texto'),
      el('textarea', { id: `sc-${n}`, 'data-k': 'content', maxlength: 20000, rows: 6 }, s.content || '')),
    el('button', { class: 'btn danger small', type: 'button', onclick: () => box.remove() }, 'Quitar sección'));
  return box;
}

async function loadLegal() {
  const slug = $('#legal-slug').value;
  const box = $('#legal-sections');
  try {
    const { document: d } = await api('GET', `/api/legal/${slug}`);
    $('#legal-version').textContent = `Versión publicada: ${d.version} (${fmtDate(d.updatedAt)}).`;
    $('#legal-doc-title').value = d.title;
    box.replaceChildren(...(d.sections || []).map(sectionRow));
  } catch (e) {
    $('#legal-version').textContent = e.status === 404 ? 'Aún no publicado.' : e.message;
    $('#legal-doc-title').value = '';
    box.replaceChildren(sectionRow({}, 0));
  }
}

function legal() {
  $('#legal-slug').addEventListener('change', loadLegal);
  $('#legal-add').addEventListener('click', () => {
    const box = $('#legal-sections');
    const row = sectionRow({}, box.children.length);
    box.append(row);
    row.querySelector('input').focus();
  });
  const f = $('#legal-form');
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFieldErrors(f);
    const msg = $('#legal-msg');
    const sections = [...document.querySelectorAll('#legal-sections .legal-section')].map((s) => ({
      title: s.querySelector('[data-k=title]').value.trim(), content: s.querySelector('[data-k=content]').value.trim(),
    }));
    const title = $('#legal-doc-title').value.trim();
    const errs = {};
    if (!title) errs.title = ['Escribe el título'];
    if (!sections.length || sections.some((s) => !s.title || !s.content)) errs.sections = ['Cada sección necesita título y texto'];
    if (Object.keys(errs).length) { formError(f, msg, { fieldErrors: errs }); return; }
    if (!await confirmDialog('¿Publicar una nueva versión? Las personas verán el texto nuevo desde ya.', 'Sí, publicar')) return;
    try {
      const { document: d } = await busy(f.querySelector('button[type=submit]'), () => api('PUT', `/api/admin/legal-documents/${$('#legal-slug').value}`, { title, sections }), 'Publicando…');
      $('#legal-version').textContent = `Versión publicada: ${d.version} (${fmtDate(d.updatedAt)}).`;
      say(msg, `Publicada la versión ${d.version}.`);
    } catch (e) {
      const fe = {};
      for (const [k, v] of Object.entries(e.fieldErrors)) fe[k.startsWith('sections') ? 'sections' : k] = v;
      formError(f, msg, { ...e, message: e.message, fieldErrors: fe });
    }
  });
  return loadLegal();
}

// places: the gazetteer (GET/POST /api/admin/places, PATCH/DELETE
// /api/admin/places/{id}): search, add, correct, remove; every row says
// where its point comes from.
let placesPage = 1;
let placesShown = 0;
let editing = null; // the place being corrected, null when adding

// keep: the list, with its «more» bar, keeps at least the height it has
// (after a save: the form below it never moves up when the list shrinks to
// the saved place; a search the admin asks for sizes it anew).
async function loadPlaces(append, keep) {
  const ul = $('#places-list');
  const more = $('#places-more');
  const box = keep ? ul.offsetHeight + more.offsetHeight : 0;
  // Pinned while redrawn: a list collapsing for a moment shortens the page,
  // and a page scrolled to its bottom (the form, at 1366×900) is clamped
  // up by hundreds of pixels for good, the answer out of view.
  if (keep) ul.style.minHeight = `${box}px`;
  const q = $('#places-q').value.trim();
  try {
    const r = await api('GET', '/api/admin/places?' + new URLSearchParams({ q, page: placesPage, perPage: 10 }));
    if (!append) { ul.replaceChildren(); placesShown = 0; if (!keep) ul.style.minHeight = ''; }
    for (const p of r.places || []) {
      ul.append(el('li', { class: 'row', 'data-id': p.id },
        el('div', {}, el('strong', {}, p.name), ` · ${p.kind.toLowerCase()} de ${p.city}`,
          el('p', { class: 'muted' }, `${p.lat}, ${p.lng} — ${p.source}`)),
        el('button', { class: 'btn secondary small', type: 'button', 'aria-label': `Corregir ${p.name} (${p.city})`, onclick: () => editPlace(p) }, 'Corregir')));
      placesShown++;
    }
    if (!placesShown) ul.append(el('li', { class: 'empty' }, 'Ningún lugar con ese nombre.'));
    renderMore(more, placesShown, r.total, async () => { placesPage++; await loadPlaces(true); });
  } catch (e) { ul.replaceChildren(el('li', { class: 'muted' }, e.message)); }
  if (keep) ul.style.minHeight = `${Math.max(0, box - more.offsetHeight)}px`;
}

// focus: the name field takes the focus (a correction asked from the
// list); after a save the focus stays by the answer's line.
function editPlace(p, focus = true) {
  editing = p;
  const f = $('#place-form');
  clearFieldErrors(f);
  for (const k of ['name', 'kind', 'city', 'department', 'lat', 'lng', 'source']) f.elements[k].value = p ? p[k] : '';
  if (!p) f.elements.kind.value = 'BARRIO';
  $('#place-form-title').textContent = p ? `Corregir ${p.name}` : 'Agregar un lugar';
  $('#place-delete').hidden = !p;
  $('#place-new').hidden = !p;
  if (p && focus) f.elements.name.focus();
}

function places() {
  $('#places-search').addEventListener('submit', (ev) => { ev.preventDefault(); placesPage = 1; loadPlaces(false); });
  $('#place-new').addEventListener('click', () => editPlace(null));
  const f = $('#place-form');
  const msg = $('#place-msg');
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFieldErrors(f);
    const d = Object.fromEntries(new FormData(f));
    const num = (s) => (String(s).trim() === '' ? NaN : Number(String(s).replace(',', '.')));
    const errs = {};
    if (Number.isNaN(num(d.lat))) errs.lat = ['Debe ser una latitud entre -90 y 90'];
    if (Number.isNaN(num(d.lng))) errs.lng = ['Debe ser una longitud entre -180 y 180'];
    if (Object.keys(errs).length) { formError(f, msg, { fieldErrors: errs }); return; }
    const body = { name: d.name, kind: d.kind, city: d.city, department: d.department, lat: num(d.lat), lng: num(d.lng), source: d.source };
    try {
      const r = await busy(f.querySelector('button[type=submit]'), () => (editing
        ? api('PATCH', `/api/admin/places/${encodeURIComponent(editing.id)}`, body)
        : api('POST', '/api/admin/places', body)), 'Guardando…');
      say(msg, editing ? `${r.place.name} corregido.` : `${r.place.name} agregado.`);
      editPlace(r.place, false);
      $('#places-q').value = r.place.name;
      placesPage = 1;
      await loadPlaces(false, true);
    } catch (e) { formError(f, msg, e); }
  });
  $('#place-delete').addEventListener('click', async () => {
    if (!editing || !(await confirmDialog(`¿Eliminar ${editing.name} (${editing.city})? Los camellos que lo eligieron conservan su punto.`, 'Eliminar'))) return;
    try {
      await api('DELETE', `/api/admin/places/${encodeURIComponent(editing.id)}`);
      say(msg, `${editing.name} eliminado.`);
      editPlace(null);
      placesPage = 1;
      await loadPlaces(false, true);
    } catch (e) { say(msg, e.message, 'error'); }
  });
  return loadPlaces(false);
}

async function main() {
  renderChrome();
  const s = await requireSession();
  if (s.user.role !== 'ADMIN') {
    document.querySelectorAll('main > :not(h1)').forEach((n) => n.remove());
    $('main').append(el('p', { class: 'card' }, 'Esta página es solo para administradores.'));
    return;
  }
  // Loaded together, shown in reading order: a section appears once the
  // one above it is drawn, so nothing jumps.
  const pending = loadPending(false);
  const open = loadOpen(false);
  const texts = legal();
  const gazetteer = places();
  broadcast();
  await pending;
  $('#abiertos').hidden = false;
  await open;
  $('#avisos').hidden = false;
  await texts;
  $('#legales').hidden = false;
  await gazetteer;
  $('#lugares').hidden = false;
}

main();
