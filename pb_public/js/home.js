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

function readURL() {
  const p = new URLSearchParams(location.search);
  filters = {};
  for (const k of ['q', 'category', 'service', 'city', 'trade']) if (p.get(k)) filters[k] = p.get(k);
  const f = p.get('from');
  const t = p.get('to');
  when = f && t && !Number.isNaN(Date.parse(f)) && !Number.isNaN(Date.parse(t)) ? { from: f, to: t } : null;
}

function writeURL() {
  const p = new URLSearchParams(filters);
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
  if (!groups.length) { box.replaceChildren(); return; }
  box.replaceChildren(
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
        if (c.id) filters.category = c.id; else delete filters.category;
        delete labels.category;
        refresh();
      },
    }, c.name))));
}

function card(c) {
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
      when ? el('p', { class: 'when-note', 'data-when': c.id }, session ? el('span', { class: 'muted' }, 'Consultando horarios…') : null) : null));
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

async function load(append) {
  const p = new URLSearchParams(filters);
  p.set('page', page);
  p.set('perPage', PER_PAGE);
  const list = $('#results');
  list.setAttribute('aria-busy', 'true');
  try {
    const r = await api('GET', '/api/camellos?' + p);
    const items = r.camellos || [];
    const total = r.total ?? items.length;
    $('#results-count').textContent = total === 1 ? '1 camello encontrado' : `${total} camellos encontrados`;
    if (!append) { list.replaceChildren(); shown = 0; }
    for (const c of items) { list.append(card(c)); shown++; }
    if (!shown) list.append(el('li', { class: 'empty card' }, 'No encontramos camellos con esos filtros. Quita alguno para ver más.'));
    if (when && !session && !append) {
      list.before(el('p', { class: 'hint when-hint' }, el('a', { href: signInURL() }, 'Ingresa'), ` para ver quién tiene horarios libres el ${fmtDay(when.from)}.`));
    }
    renderMore($('#more'), shown, total, async () => { page++; await load(true); });
    showAlert($('#alert'), '');
    markFree(items);
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

async function search(ev) {
  ev.preventDefault();
  const query = $('#q').value.trim();
  notes = [];
  if (!query) { filters = {}; labels = {}; when = null; refresh(); return; }
  try {
    const { interpretation: it } = await api('POST', '/api/search/interpret', { query });
    filters = {}; labels = {};
    if (it.categoryId) filters.category = it.categoryId;
    // A category already covers its services: the service narrows only
    // when no category was understood.
    if (!it.categoryId && it.serviceIds && it.serviceIds.length) filters.service = it.serviceIds[0];
    if (it.city) filters.city = it.city;
    if (it.trades && it.trades.length) filters.trade = it.trades[0];
    if (it.keywords && it.keywords.length) filters.q = it.keywords.join(' ');
    if (!Object.keys(filters).length && !(it.when && it.when.from)) filters.q = query;
    when = it.when && it.when.from && it.when.to ? { from: it.when.from, to: it.when.to } : null;
    if (filters.service) {
      api('GET', '/api/services?category=' + encodeURIComponent(filters.category || ''))
        .then((s) => {
          const found = (s.services || []).find((x) => x.id === filters.service);
          if (found) { labels.service = found.name; renderChips(); }
        }).catch(() => {});
    }
    if (it.neighborhood) notes.push(`barrio ${it.neighborhood}`);
    if (it.urgent) notes.push('urgente');
    for (const h of (it.when && it.when.holidays) || []) notes.push(h.label);
  } catch (e) {
    filters = { q: query }; labels = {}; when = null;
  }
  refresh();
}

async function main() {
  readURL();
  if (filters.q) $('#q').value = filters.q;
  $('#search-form').addEventListener('submit', search);
  renderChrome();
  api('GET', '/api/categories').then((r) => {
    categories = r.categories || [];
    renderCategories();
    renderChips();
  }).catch(() => {});
  session = await me().catch(() => null);
  refresh();
}

main();
