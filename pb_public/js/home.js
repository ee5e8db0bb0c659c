// Home: natural-language search turned into removable filter chips (the
// same thing said twice is one chip), the categories, and the list of
// active camellos with "Ver más". An understood date becomes a chip too:
// signed in, each camello says whether it has free slots that day.
import {
  api, el, $, me, renderChrome, showAlert, stars, ratingOf, avatar, fmtDay, signInURL,
} from './app.js';
import { renderMore } from './more.js';

const PER_PAGE = 12;
// filters: {q, category, service, city, trade}; labels: what each chip shows.
let filters = {};
let labels = {};
let page = 1;
let shown = 0;
let categories = [];
// when: {from, to} understood from the search; notes: barrio, urgency.
let when = null;
let notes = [];
let session = null;
// query: the text searched with GET /api/search (ranked, relaxed filters);
// "" lists with GET /api/camellos and the chips' filters.
let query = '';
// near: the client's position for "cerca de mí" ({lat, lng} from the
// browser, or {barrio} from the gazetteer), sent with the listing and the
// search; each camello then shows its distance.
let near = null;

function readURL() {
  const p = new URLSearchParams(location.search);
  filters = {};
  for (const k of ['q', 'category', 'service', 'city', 'trade']) if (p.get(k)) filters[k] = p.get(k);
  query = p.get('buscar') || '';
  near = null;
  if (p.get('lat') && p.get('lng')) near = { lat: p.get('lat'), lng: p.get('lng') };
  else if (p.get('barrio')) near = { barrio: p.get('barrio') };
  const f = p.get('from');
  const t = p.get('to');
  when = f && t && !Number.isNaN(Date.parse(f)) && !Number.isNaN(Date.parse(t)) ? { from: f, to: t } : null;
}

function writeURL() {
  const p = new URLSearchParams(query ? { buscar: query } : filters);
  if (when) { p.set('from', when.from); p.set('to', when.to); }
  addNear(p);
  const qs = p.toString();
  history.replaceState(null, '', qs ? '?' + qs : location.pathname);
}

const chipNames = { q: 'Palabras', category: 'Categoría', service: 'Servicio', city: 'Ciudad', trade: 'Oficio', when: 'Fecha' };
const norm = (s) => String(s || '').normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().trim();

function chipLabel(k) {
  if (k === 'when') return fmtDay(when.from);
  if (labels[k]) return labels[k];
  if (k === 'category') {
    const c = categories.find((x) => x.id === filters.category);
    if (c) return c.name;
  }
  return filters[k];
}

// chips groups the filters whose labels say the same thing ("Plomería" as
// category and as trade): one chip removes them all.
function chips() {
  const groups = [];
  for (const k of [...Object.keys(filters), ...(when ? ['when'] : [])]) {
    const label = chipLabel(k);
    const stem = norm(label).replace(/(ero|era|eria|ia|es|s)$/, '');
    const g = groups.find((x) => x.stem === stem && stem.length > 2);
    if (g) g.keys.push(k); else groups.push({ stem, label, keys: [k] });
  }
  return groups;
}

// addNear puts the client's position in a query.
function addNear(p) {
  if (!near) return;
  if (near.barrio) p.set('barrio', near.barrio);
  else { p.set('lat', near.lat); p.set('lng', near.lng); }
}

function nearLabel() {
  return near.barrio ? `Cerca de ${near.label || near.barrio}` : 'Cerca de ti';
}

function removeChip(keys) {
  query = ''; // the chips left become the listing's filters
  notice = '';
  for (const k of keys) {
    if (k === 'near') near = null;
    if (k === 'when') when = null;
    delete filters[k];
    delete labels[k];
  }
  refresh();
  $('#q').focus();
}

function renderChips() {
  const box = $('#understood');
  const groups = chips();
  if (near) groups.push({ stem: 'near', label: nearLabel(), keys: ['near'] });
  const relaxed = notice ? [el('p', { class: 'hint relaxed', id: 'relaxed' }, notice)] : [];
  if (!groups.length) { box.replaceChildren(...relaxed); return; }
  box.replaceChildren(
    ...relaxed,
    el('p', { class: 'hint', id: 'chips-title' }, 'Entendimos:'),
    el('ul', { class: 'chips', id: 'chips', 'aria-labelledby': 'chips-title' }, groups.map((g) => {
      const name = g.keys.length > 1 || g.keys[0] === 'near' ? g.label : `${chipNames[g.keys[0]]}: ${g.label}`;
      return el('li', { class: 'chip', 'data-filter': g.keys.join(' ') },
        el('span', {}, name),
        el('button', { type: 'button', 'aria-label': `Quitar filtro ${name}`, onclick: () => removeChip(g.keys) }, '×'));
    })),
    ...(notes.length ? [el('p', { class: 'hint' }, 'También entendimos: ' + notes.join(', ') + '.')] : []));
}

function renderCategories() {
  const ul = $('#cats');
  ul.replaceChildren(...[{ id: '', name: 'Todas' }, ...categories].map((c) => el('li', {},
    el('button', {
      type: 'button', 'aria-pressed': String((filters.category || '') === c.id),
      onclick: () => {
        query = '';
        if (c.id) filters.category = c.id; else delete filters.category;
        delete labels.category;
        refresh();
      },
    }, c.name))));
}

// km writes a distance the Colombian way ("3,2 km").
const km = (d) => `${String(d).replace('.', ',')} km`;

function card(c, freeSlots, distanceKm) {
  const r = ratingOf(c);
  const href = '/camello.html?id=' + encodeURIComponent(c.id);
  return el('li', { class: 'card camello-card', 'data-id': c.id },
    avatar(c.photo, c.name, false, shown < 3),
    el('div', {},
      el('h3', {}, el('a', { href, class: 'stretch' }, c.name), ' ', c.premium ? el('span', { class: 'premium' }, 'Premium') : null),
      el('p', { class: 'trades' }, (c.trades || []).join(' · ')),
      el('div', { class: 'meta' },
        el('span', {}, [c.city, c.neighborhood].filter(Boolean).join(', ')),
        distanceKm != null ? el('span', { class: 'distance', 'data-distance': String(distanceKm) }, `a ${km(distanceKm)}`) : null,
        stars(r.average, r.count)),
      freeSlots != null
        ? el('p', { class: 'when-note' }, el('span', { class: 'free-badge' }, `${freeSlots} ${freeSlots === 1 ? 'horario libre' : 'horarios libres'}`))
        : when ? el('p', { class: 'when-note', 'data-when': c.id }, session ? el('span', { class: 'muted' }, 'Consultando horarios…') : null) : null));
}

// markFree says on each card whether the camello has free slots in the
// understood time (signed in: the slots need a session).
async function markFree(items) {
  if (!when || !session) return;
  const q = new URLSearchParams({ from: new Date(Math.max(Date.parse(when.from), Date.now())).toISOString(), to: when.to });
  await Promise.all(items.map(async (c) => {
    const box = document.querySelector(`[data-when="${CSS.escape(c.id)}"]`);
    if (!box) return;
    try {
      const r = await api('GET', `/api/camellos/${encodeURIComponent(c.id)}/slots?${q}`);
      const n = (r.slots || []).length;
      box.replaceChildren(el('span', { class: n ? 'free-badge' : 'free-badge none' },
        n ? `${n} ${n === 1 ? 'horario libre' : 'horarios libres'} ese día` : 'Sin horarios libres ese día'));
    } catch (e) {
      box.replaceChildren();
    }
  }));
}

// notice: which filters the last search relaxed ("Sin resultados para el
// sábado; mostramos los disponibles el domingo."), shown with the chips.
let notice = '';

// load shows a page of the search (query) or of the listing; pre is a
// search answer already fetched.
async function load(append, pre) {
  const p = new URLSearchParams(query ? { query } : filters);
  addNear(p);
  p.set('page', page);
  p.set('perPage', PER_PAGE);
  const list = $('#results');
  list.setAttribute('aria-busy', 'true');
  try {
    const r = pre || await api('GET', (query ? '/api/search?' : '/api/camellos?') + p);
    const found = query ? (r.results || []) : (r.camellos || []).map((c) => ({ camello: c, freeSlots: null, distanceKm: c.distanceKm }));
    const items = found.map((x) => x.camello);
    const total = r.total ?? items.length;
    if (!append && (notice || '') !== ((query && r.notice) || '')) {
      notice = (query && r.notice) || '';
      renderChips();
    }
    $('#results-count').textContent = total === 1 ? '1 camello encontrado' : `${total} camellos encontrados`;
    if (!append) { list.replaceChildren(); shown = 0; }
    for (const x of found) { list.append(card(x.camello, x.freeSlots, x.distanceKm)); shown++; }
    if (!shown) {
      list.append(el('li', { class: 'empty card' }, near
        ? 'Ningún camello llega hasta tu ubicación con esos filtros. Quita alguno o prueba con otro barrio.'
        : 'No encontramos camellos con esos filtros. Quita alguno para ver más.'));
    }
    if (when && !session && !append && !query) {
      list.before(el('p', { class: 'hint when-hint' }, el('a', { href: signInURL() }, 'Ingresa'), ` para ver quién tiene horarios libres el ${fmtDay(when.from)}.`));
    }
    renderMore($('#more'), shown, total, async () => { page++; await load(true); });
    showAlert($('#alert'), '');
    if (!query) markFree(items);
  } catch (e) {
    showAlert($('#alert'), e.message);
  } finally {
    list.removeAttribute('aria-busy');
  }
}

function refresh() {
  page = 1;
  document.querySelector('.when-hint')?.remove();
  writeURL();
  renderChips();
  renderCategories();
  return load(false);
}

// applyAnswer shows what a search understood and applied as chips (a chip
// removed lists with the filters left).
function applyAnswer(r) {
  const a = r.applied || {};
  const it = r.interpretation || {};
  filters = {}; labels = {};
  notice = r.notice || '';
  if (a.city) filters.city = a.city;
  if (a.trades && a.trades.length) filters.trade = a.trades[0];
  when = a.when && a.when.from && a.when.to ? { from: a.when.from, to: a.when.to } : null;
  notes = [];
  if (it.keywords && it.keywords.length) notes.push('ordenamos por «' + it.keywords.join(' ') + '»');
  if (it.neighborhood) notes.push(`barrio ${it.neighborhood}`);
  if (it.urgent) notes.push('urgente');
  if (a.near && !near) near = it.place ? { barrio: it.place.id, label: it.place.name } : { lat: String(a.near.lat), lng: String(a.near.lng) };
  for (const h of (it.when && it.when.holidays) || []) notes.push(h.label);
}

// askPosition asks the browser for the client's position, inside the
// tap; refused or unavailable, the barrio form is the fallback.
function askPosition() {
  const btn = $('#near-me');
  if (!navigator.geolocation) { showBarrio('Tu navegador no comparte la ubicación.'); return; }
  btn.setAttribute('aria-busy', 'true');
  btn.disabled = true;
  navigator.geolocation.getCurrentPosition((pos) => {
    btn.removeAttribute('aria-busy');
    btn.disabled = false;
    near = { lat: pos.coords.latitude.toFixed(5), lng: pos.coords.longitude.toFixed(5) };
    $('#barrio-form').hidden = true;
    refresh();
  }, () => {
    btn.removeAttribute('aria-busy');
    btn.disabled = false;
    showBarrio('No pudimos usar tu ubicación. Escribe tu barrio y te mostramos quién llega hasta allí.');
  }, { enableHighAccuracy: false, timeout: 15000, maximumAge: 300000 });
}

function showBarrio(why) {
  const form = $('#barrio-form');
  form.hidden = false;
  $('#barrio-why').textContent = why;
  $('#barrio').focus();
}

// suggest fills the barrio picker from the gazetteer as the client types.
let suggestTimer = 0;
function suggest() {
  clearTimeout(suggestTimer);
  const q = $('#barrio').value.trim();
  if (q.length < 2) return;
  suggestTimer = setTimeout(async () => {
    try {
      const r = await api('GET', '/api/places?' + new URLSearchParams({ q, limit: 8 }));
      $('#barrios').replaceChildren(...(r.places || []).map((pl) => el('option', { value: pl.name }, `${pl.name} (${pl.city})`)));
    } catch (e) { /* the picker is a help, the search still works */ }
  }, 200);
}

function searchBarrio(ev) {
  ev.preventDefault();
  const b = $('#barrio').value.trim();
  if (!b) { $('#barrio').focus(); return; }
  near = { barrio: b };
  refresh();
}

async function search(ev) {
  ev.preventDefault();
  const text = $('#q').value.trim();
  notes = [];
  query = text;
  filters = {}; labels = {}; when = null;
  page = 1;
  document.querySelector('.when-hint')?.remove();
  writeURL();
  if (!text) { refresh(); return; }
  let r;
  try {
    const p = new URLSearchParams({ query: text, page: 1, perPage: PER_PAGE });
    addNear(p);
    r = await api('GET', '/api/search?' + p);
    applyAnswer(r);
    // "cerca de mí" without a position: ask for it (inside the tap on "Buscar").
    if (r.interpretation && r.interpretation.near && r.interpretation.near.needsPosition && !near) {
      renderChips();
      askPosition();
      return;
    }
  } catch (e) {
    /* load asks again and shows the error */
  }
  renderChips();
  renderCategories();
  await load(false, r);
}

async function main() {
  readURL();
  if (query) $('#q').value = query;
  else if (filters.q) $('#q').value = filters.q;
  $('#search-form').addEventListener('submit', search);
  $('#near-me').addEventListener('click', askPosition);
  $('#barrio-form').addEventListener('submit', searchBarrio);
  $('#barrio').addEventListener('input', suggest);
  renderChrome();
  api('GET', '/api/categories').then((r) => {
    categories = r.categories || [];
    renderCategories();
    renderChips();
  }).catch(() => {});
  session = await me().catch(() => null);
  if (query) {
    $('#search-form').requestSubmit();
    return;
  }
  refresh();
}

main();
