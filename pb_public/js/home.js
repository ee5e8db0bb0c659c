// Home: natural-language search turned into removable filter chips (the
// same thing said twice is one chip), the categories, and the list of
// active camellos with "Ver más". An understood date becomes a chip too:
// signed in, each camello says whether it has free slots that day.
import {
  api, el, $, me, renderChrome, showAlert, stars, ratingOf, avatar, fmtDay, renderMore, signInURL,
} from './app.js';

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

function readURL() {
  const p = new URLSearchParams(location.search);
  filters = {};
  for (const k of ['q', 'category', 'service', 'city', 'trade']) if (p.get(k)) filters[k] = p.get(k);
  query = p.get('buscar') || '';
  const f = p.get('from');
  const t = p.get('to');
  when = f && t && !Number.isNaN(Date.parse(f)) && !Number.isNaN(Date.parse(t)) ? { from: f, to: t } : null;
}

function writeURL() {
  const p = new URLSearchParams(query ? { buscar: query } : filters);
  if (when) { p.set('from', when.from); p.set('to', when.to); }
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

function removeChip(keys) {
  query = ''; // the chips left become the listing's filters
  notice = '';
  for (const k of keys) {
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
  const relaxed = notice ? [el('p', { class: 'hint relaxed', id: 'relaxed' }, notice)] : [];
  if (!groups.length) { box.replaceChildren(...relaxed); return; }
  box.replaceChildren(
    ...relaxed,
    el('p', { class: 'hint', id: 'chips-title' }, 'Entendimos:'),
    el('ul', { class: 'chips', id: 'chips', 'aria-labelledby': 'chips-title' }, groups.map((g) => {
      const name = g.keys.length > 1 ? g.label : `${chipNames[g.keys[0]]}: ${g.label}`;
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

function card(c, freeSlots) {
  const r = ratingOf(c);
  const href = '/camello.html?id=' + encodeURIComponent(c.id);
  return el('li', { class: 'card camello-card', 'data-id': c.id },
    avatar(c.photo, c.name, false, shown < 3),
    el('div', {},
      el('h3', {}, el('a', { href, class: 'stretch' }, c.name), ' ', c.premium ? el('span', { class: 'premium' }, 'Premium') : null),
      el('p', { class: 'trades' }, (c.trades || []).join(' · ')),
      el('div', { class: 'meta' },
        el('span', {}, [c.city, c.neighborhood].filter(Boolean).join(', ')),
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
  p.set('page', page);
  p.set('perPage', PER_PAGE);
  const list = $('#results');
  list.setAttribute('aria-busy', 'true');
  try {
    const r = pre || await api('GET', (query ? '/api/search?' : '/api/camellos?') + p);
    const found = query ? (r.results || []) : (r.camellos || []).map((c) => ({ camello: c, freeSlots: null }));
    const items = found.map((x) => x.camello);
    const total = r.total ?? items.length;
    if (!append && (notice || '') !== ((query && r.notice) || '')) {
      notice = (query && r.notice) || '';
      renderChips();
    }
    $('#results-count').textContent = total === 1 ? '1 camello encontrado' : `${total} camellos encontrados`;
    if (!append) { list.replaceChildren(); shown = 0; }
    for (const x of found) { list.append(card(x.camello, x.freeSlots)); shown++; }
    if (!shown) list.append(el('li', { class: 'empty card' }, 'No encontramos camellos con esos filtros. Quita alguno para ver más.'));
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
  for (const h of (it.when && it.when.holidays) || []) notes.push(h.label);
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
    r = await api('GET', '/api/search?' + new URLSearchParams({ query: text, page: 1, perPage: PER_PAGE }));
    applyAnswer(r);
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
