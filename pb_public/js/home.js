// Home: natural-language search turned into removable filter chips, the
// categories, and the paginated list of active camellos.
import { api, el, $, renderChrome, showAlert, stars, ratingOf, avatar, fmtDay, renderPager } from './app.js';

const PER_PAGE = 12;
// filters: {q, category, service, city, trade}; labels: what each chip shows.
let filters = {};
let labels = {};
let page = 1;
let categories = [];
// notes: what the search understood that is not a filter (when, urgency).
let notes = [];

function readURL() {
  const p = new URLSearchParams(location.search);
  filters = {};
  for (const k of ['q', 'category', 'service', 'city', 'trade']) if (p.get(k)) filters[k] = p.get(k);
  page = Math.max(1, parseInt(p.get('page') || '1', 10) || 1);
}

function writeURL() {
  const p = new URLSearchParams(filters);
  if (page > 1) p.set('page', page);
  const qs = p.toString();
  history.replaceState(null, '', qs ? '?' + qs : location.pathname);
}

const chipNames = { q: 'Palabras', category: 'Categoría', service: 'Servicio', city: 'Ciudad', trade: 'Oficio' };

function chipLabel(k) {
  if (labels[k]) return labels[k];
  if (k === 'category') {
    const c = categories.find((x) => x.id === filters.category);
    if (c) return c.name;
  }
  return filters[k];
}

function renderChips() {
  const box = $('#understood');
  const keys = Object.keys(filters);
  if (!keys.length) { box.replaceChildren(); notes = []; return; }
  box.replaceChildren(
    el('p', { class: 'hint', style: 'margin-top:.75rem' }, 'Entendimos:'),
    el('ul', { class: 'chips', id: 'chips' }, keys.map((k) => el('li', { class: 'chip', 'data-filter': k },
      el('span', {}, `${chipNames[k]}: ${chipLabel(k)}`),
      el('button', {
        type: 'button', 'aria-label': `Quitar filtro ${chipNames[k]}: ${chipLabel(k)}`,
        onclick: () => { delete filters[k]; delete labels[k]; page = 1; refresh(); $('#q').focus(); },
      }, '×')))),
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
        page = 1;
        refresh();
      },
    }, c.name))));
}

function card(c) {
  const r = ratingOf(c);
  const href = '/camello.html?id=' + encodeURIComponent(c.id);
  return el('li', { class: 'card camello-card' },
    avatar(c.photo, c.name),
    el('div', {},
      el('h3', {}, el('a', { href, class: 'stretch' }, c.name), ' ', c.premium ? el('span', { class: 'premium' }, 'Premium') : null),
      el('p', { class: 'trades' }, (c.trades || []).join(' · ')),
      el('div', { class: 'meta' },
        el('span', {}, [c.city, c.neighborhood].filter(Boolean).join(', ')),
        stars(r.average, r.count))));
}

function showPager(total) {
  renderPager($('#pager'), page, total, PER_PAGE, (p) => { page = p; refresh(); $('#results-title').scrollIntoView(); });
}

async function refresh() {
  writeURL();
  renderChips();
  renderCategories();
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
    list.replaceChildren(...items.map(card));
    if (!items.length) list.append(el('li', { class: 'empty card' }, 'No encontramos camellos con esos filtros. Quita alguno para ver más.'));
    showPager(total);
    showAlert($('#alert'), '');
  } catch (e) {
    showAlert($('#alert'), e.message);
  } finally {
    list.removeAttribute('aria-busy');
  }
}

async function search(ev) {
  ev.preventDefault();
  const query = $('#q').value.trim();
  if (!query) { filters = {}; labels = {}; page = 1; refresh(); return; }
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
    if (!Object.keys(filters).length) filters.q = query;
    if (filters.service) {
      api('GET', '/api/services?category=' + encodeURIComponent(filters.category || ''))
        .then((s) => {
          const found = (s.services || []).find((x) => x.id === filters.service);
          if (found) { labels.service = found.name; renderChips(); }
        }).catch(() => {});
    }
    notes = [];
    if (it.neighborhood) notes.push(`barrio ${it.neighborhood}`);
    if (it.when && it.when.from) notes.push(`para el ${fmtDay(it.when.from)}`);
    if (it.urgent) notes.push('urgente');
  } catch (e) {
    filters = { q: query }; labels = {}; notes = [];
  }
  page = 1;
  refresh();
}

async function main() {
  renderChrome();
  readURL();
  if (filters.q) $('#q').value = filters.q;
  $('#search-form').addEventListener('submit', search);
  try {
    const r = await api('GET', '/api/categories');
    categories = r.categories || [];
  } catch (e) { categories = []; }
  refresh();
}

main();
