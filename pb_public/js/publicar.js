// Post an open job (no camello named): the camellos of that service see it
// on their board and send quotes.
import {
  api, el, $, requireSession, renderChrome, showAlert, formError, clearFieldErrors, busy, toast,
} from './app.js';
import { chars } from './validate.js';

const form = $('#form');

async function loadServices() {
  const sel = $('#serviceId');
  try {
    const [cats, svc] = await Promise.all([api('GET', '/api/categories'), api('GET', '/api/services?perPage=100')]);
    const names = new Map((cats.categories || []).map((c) => [c.id, c.name]));
    const groups = new Map();
    for (const s of svc.services || []) {
      const cid = s.categoryId || (s.category && (s.category.id || s.category)) || '';
      if (!groups.has(cid)) groups.set(cid, []);
      groups.get(cid).push(s);
    }
    sel.replaceChildren(el('option', { value: '' }, 'Elige un servicio'),
      ...[...groups].map(([cid, list]) => el('optgroup', { label: names.get(cid) || 'Otros' }, list.map((s) => el('option', { value: s.id }, s.name)))));
  } catch (e) {
    sel.replaceChildren(el('option', { value: '' }, 'No se pudieron cargar los servicios'));
  }
}

form.addEventListener('submit', async (ev) => {
  ev.preventDefault();
  clearFieldErrors(form);
  showAlert($('#alert'), '');
  const d = Object.fromEntries(new FormData(form));
  for (const k of Object.keys(d)) d[k] = String(d[k]).trim();
  const errs = {};
  if (chars(d.title) < 3 || chars(d.title) > 120) errs.title = ['Escribe entre 3 y 120 caracteres'];
  if (!d.serviceId) errs.serviceId = ['Elige un servicio'];
  if (chars(d.city) < 2) errs.city = ['Escribe tu ciudad'];
  if (chars(d.address) > 200) errs.address = ['Debe tener como máximo 200 caracteres'];
  if (Object.keys(errs).length) { formError(form, $('#alert'), { fieldErrors: errs }); return; }
  const body = { title: d.title, serviceId: d.serviceId, city: d.city, description: d.description };
  if (d.neighborhood) body.neighborhood = d.neighborhood;
  if (d.address) body.address = d.address;
  try {
    const r = await busy($('#submit'), () => api('POST', '/api/jobs', body), 'Publicando…');
    const id = r.job && r.job.id;
    const done = el('div', { class: 'card alert ok', role: 'status', tabindex: '-1', id: 'done' },
      el('h2', {}, 'Trabajo publicado'),
      el('p', {}, 'Los camellos de ese servicio ya pueden verlo y enviarte cotizaciones. Te avisaremos cuando llegue cada una.'),
      el('p', {}, el('a', { class: 'btn', href: '/trabajo.html?id=' + encodeURIComponent(id) }, 'Ver el trabajo y sus cotizaciones')));
    form.replaceWith(done);
    done.focus();
    toast('Trabajo publicado.');
  } catch (e) {
    formError(form, $('#alert'), e);
  }
});

async function main() {
  renderChrome();
  const s = await requireSession();
  if (s.user.role !== 'CLIENTE') {
    form.replaceWith(el('p', { class: 'card' }, 'Solo los clientes publican trabajos.'));
    return;
  }
  if (s.user.city) $('#city').value = s.user.city;
  loadServices();
}

main();
