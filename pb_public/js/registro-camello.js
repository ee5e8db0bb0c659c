// Provider registration (POST /api/register/camello, multipart with the
// photo and the photos of the document and professional card).
import { api, el, $, renderChrome, showAlert, formError, showFieldErrors, clearFieldErrors } from './app.js';
import { chars, checkAccount, checkCamello, splitTrades } from './validate.js';

const form = $('#form');
const alertBox = $('#alert');

async function loadServices() {
  const box = $('#services');
  try {
    const [cats, svc] = await Promise.all([api('GET', '/api/categories'), api('GET', '/api/services?perPage=100')]);
    const services = svc.services || [];
    const groups = new Map((cats.categories || []).map((c) => [c.id, { name: c.name, items: [] }]));
    const other = { name: 'Otros', items: [] };
    for (const s of services) {
      const cid = s.categoryId || (s.category && (s.category.id || s.category));
      (groups.get(cid) || other).items.push(s);
    }
    const sets = [...groups.values(), other].filter((g) => g.items.length).map((g) => el('fieldset', {},
      el('legend', {}, g.name),
      g.items.map((s) => el('label', { class: 'check' },
        el('input', { type: 'checkbox', name: 'serviceIds', value: s.id }), el('span', {}, s.name)))));
    box.replaceChildren(...(sets.length ? sets : [el('p', { class: 'muted' }, 'Aún no hay servicios publicados.')]));
  } catch (e) {
    box.replaceChildren(el('p', { class: 'muted' }, 'No se pudieron cargar los servicios.'));
  }
}

function preview() {
  const file = $('#file').files[0];
  const img = $('#preview');
  $('#err-file').textContent = '';
  $('#file').removeAttribute('aria-invalid');
  if (!file) { img.hidden = true; img.removeAttribute('src'); return; }
  const errs = checkCamello({}, ['x'], [], file);
  if (errs.file) {
    showFieldErrors(form, errs);
    img.hidden = true;
    return;
  }
  if (img.src) URL.revokeObjectURL(img.src);
  img.src = URL.createObjectURL(file);
  img.hidden = false;
}

const drawable = (f) => createImageBitmap(f).then((b) => { b.close(); return true; }, () => false);

async function submit(ev) {
  ev.preventDefault();
  clearFieldErrors(form);
  showAlert(alertBox, '');
  const fd = new FormData(form);
  const d = {
    name: fd.get('name') || '', email: fd.get('email') || '', phone: fd.get('phone') || '',
    password: fd.get('password') || '', confirmPassword: fd.get('confirmPassword') || '',
    acceptTerms: $('#acceptTerms').checked, city: fd.get('city') || '', neighborhood: fd.get('neighborhood') || '',
    documentId: fd.get('documentId') || '', professionalCard: fd.get('professionalCard') || '',
    description: fd.get('description') || '',
  };
  const trades = splitTrades(fd.get('trades'));
  const serviceIds = fd.getAll('serviceIds');
  const file = $('#file').files[0];
  const docs = [...$('#documents').files];
  const errs = { ...checkAccount(d, true), ...checkCamello(d, trades, serviceIds, file) };
  if (docs.length > 2) errs.documents = ['Máximo 2 fotos de documentos'];
  else if (docs.some((x) => !['image/jpeg', 'image/png', 'image/webp'].includes(x.type))) errs.documents = ['Cada foto debe ser JPEG, PNG o WebP'];
  else if (docs.some((x) => x.size > 5 * 1024 * 1024)) errs.documents = ['Cada foto puede pesar máximo 5 MB'];
  else if (docs.reduce((n, x) => n + x.size, file ? file.size : 0) > 6 * 1024 * 1024 - 65536) errs.documents = ['La foto de perfil y los documentos juntos pueden pesar máximo 6 MB'];
  // A file the browser cannot draw is no image: said beside its field at
  // the tap, not after the upload's answer (which would push the form down).
  if (file && !errs.file && !await drawable(file)) errs.file = ['La foto debe ser una imagen JPEG, PNG o WebP'];
  if (docs.length && !errs.documents && !(await Promise.all(docs.map(drawable))).every(Boolean)) errs.documents = ['Cada foto debe ser una imagen JPEG, PNG o WebP'];
  if (Object.keys(errs).length) {
    formError(form, alertBox, { fieldErrors: errs });
    return;
  }
  const body = new FormData();
  for (const k of ['name', 'email', 'phone', 'password', 'confirmPassword', 'city', 'neighborhood', 'documentId', 'professionalCard', 'description']) {
    body.set(k, k.includes('assword') ? d[k] : d[k].trim());
  }
  body.set('acceptTerms', 'true');
  body.set('trades', JSON.stringify(trades));
  body.set('serviceIds', JSON.stringify(serviceIds));
  if (file) body.set('file', file);
  for (const x of docs) body.append('documents', x);
  const btn = $('#submit');
  btn.disabled = true;
  btn.textContent = 'Enviando…';
  try {
    const r = await api('POST', '/api/register/camello', body);
    let signedIn = false;
    try { await api('POST', '/api/auth/login', { email: d.email.trim(), password: d.password }); signedIn = true; } catch (e) { /* sign in later */ }
    form.hidden = true;
    const done = $('#done');
    done.hidden = false;
    done.replaceChildren(
      el('h2', { style: 'margin-top:0' }, '¡Registro recibido!'),
      el('p', {}, `Gracias, ${r.camello ? r.camello.name : d.name}. Tu perfil está pendiente de revisión; te avisaremos cuando esté activo.`),
      signedIn ? el('p', {}, 'Mientras tanto puedes preparar tu ', el('a', { href: '/agenda.html' }, 'agenda'), '.')
        : el('p', {}, el('a', { href: '/ingresar.html' }, 'Ingresar')));
    done.focus();
  } catch (e) {
    const fe = { ...e.fieldErrors };
    if (e.status === 409 && !fe.email) fe.email = [e.message];
    if (fe.photo && !fe.file) fe.file = fe.photo;
    formError(form, alertBox, { ...e, message: e.message, fieldErrors: fe });
  } finally {
    btn.disabled = false;
    btn.textContent = 'Enviar registro';
  }
}

renderChrome();
loadServices();
$('#file').addEventListener('change', preview);
// A file the browser cannot draw gets no preview (the server says why).
$('#preview').addEventListener('error', () => { $('#preview').hidden = true; });
$('#description').addEventListener('input', (ev) => { $('#desc-count').textContent = chars(ev.target.value); });
form.addEventListener('submit', submit);
