// The map of "Dónde trabajas" (issue 26). No tile server is reachable, so
// the map is drawn from our own gazetteer: the places of the camello's city
// (GET /api/places) as points of an SVG. A tap marks the starting point and
// names the nearest place; with the keyboard, the arrows move the point
// (Shift: farther) from the current one or the city's centre. The point is
// saved by the form through PUT /api/me/camello/area ({lat, lng}).
import { api, el } from './app.js';

const NS = 'http://www.w3.org/2000/svg';
const W = 320;
const H = 240; // the box is reserved in CSS (aspect-ratio 4 / 3) before this loads

function svg(tag, attrs = {}, ...kids) {
  const n = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
  n.append(...kids);
  return n;
}

/** distanceKm is the great-circle distance between two points. */
export function distanceKm(a, b) {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLng = (b.lng - a.lng) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.min(1, Math.sqrt(h)));
}

const round5 = (x) => Math.round(x * 1e5) / 1e5;
const fmtKm = (d) => (d < 10 ? d.toFixed(1).replace('.', ',') : String(Math.round(d))) + ' km';

/**
 * areaMap draws the map of city with the point start ({lat, lng} or null)
 * marked, calling onPick({lat, lng}) for every point marked. It resolves to
 * {node, clear} (clear forgets the mark: a barrio was chosen instead), or
 * null when the gazetteer has no place of that city.
 */
export async function areaMap(city, start, onPick) {
  const r = await api('GET', '/api/places?' + new URLSearchParams({ city, limit: 50 }));
  const places = r.places || [];
  if (!places.length) return null;
  const centre = places.find((p) => p.kind === 'CIUDAD') || places[0];
  // The places' box, padded, fitted into W×H at one scale (a degree of
  // longitude is cos(latitude) of a degree of latitude).
  let [s, n, w, e] = [Infinity, -Infinity, Infinity, -Infinity];
  for (const p of places) {
    s = Math.min(s, p.lat); n = Math.max(n, p.lat); w = Math.min(w, p.lng); e = Math.max(e, p.lng);
  }
  const pad = Math.max(0.02, (n - s) * 0.12, (e - w) * 0.12);
  s -= pad; n += pad; w -= pad; e += pad;
  const kx = Math.cos(((s + n) / 2) * Math.PI / 180);
  const scale = Math.min(W / ((e - w) * kx), H / (n - s)); // px per degree of latitude
  const x0 = (W - (e - w) * kx * scale) / 2;
  const y0 = (H - (n - s) * scale) / 2;
  const project = (p) => [x0 + (p.lng - w) * kx * scale, y0 + (n - p.lat) * scale];
  const unproject = (x, y) => ({ lat: round5(n - (y - y0) / scale), lng: round5(w + (x - x0) / (kx * scale)) });

  const map = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'area-map-svg', 'aria-hidden': 'true', focusable: 'false' },
    svg('rect', { x: 0, y: 0, width: W, height: H, class: 'area-map-ground' }));
  for (const p of places) {
    const [x, y] = project(p);
    const big = p.kind !== 'BARRIO';
    map.append(svg('circle', { cx: x.toFixed(1), cy: y.toFixed(1), r: big ? 3.5 : 2.5, class: 'area-map-place', 'data-place': p.name }));
    if (big) map.append(svg('text', { x: (x + 5).toFixed(1), y: (y + 3).toFixed(1), class: 'area-map-label' }, p.name));
  }
  const marker = svg('g', { class: 'area-map-marker', visibility: 'hidden' },
    svg('circle', { r: 9 }), svg('path', { d: 'M-14 0H-5M5 0H14M0 -14V-5M0 5V14' }));
  map.append(marker);

  const said = el('p', { class: 'hint area-map-said', id: 'area-map-said', 'aria-live': 'polite' },
    'Toca el mapa para marcar desde dónde sales, o usa las flechas del teclado sobre él.');
  const box = el('div', {
    class: 'area-map', id: 'area-map', tabindex: '0', role: 'application', 'aria-describedby': 'area-map-said',
    'aria-label': `Mapa de ${centre.city}: toca para marcar tu punto de partida; con el teclado, las flechas mueven el punto y con Mayús llegan más lejos.`,
  }, map);
  let point = null;
  const draw = (p, tell) => {
    point = p;
    const [x, y] = project(p);
    marker.setAttribute('transform', `translate(${x.toFixed(1)} ${y.toFixed(1)})`);
    marker.setAttribute('visibility', 'visible');
    if (!tell) return;
    let near = places[0];
    for (const q of places) if (distanceKm(p, q) < distanceKm(p, near)) near = q;
    said.textContent = `Punto marcado a ${fmtKm(distanceKm(p, near))} de ${near.name}. Guarda para confirmar.`;
    onPick({ ...p });
  };
  if (start && Number.isFinite(start.lat) && Number.isFinite(start.lng)) draw({ lat: start.lat, lng: start.lng }, false);

  map.addEventListener('click', (ev) => {
    const b = map.getBoundingClientRect();
    draw(unproject((ev.clientX - b.left) / b.width * W, (ev.clientY - b.top) / b.height * H), true);
  });
  const keys = { ArrowUp: [1, 0], ArrowDown: [-1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  box.addEventListener('keydown', (ev) => {
    const k = keys[ev.key];
    if (!k) return;
    ev.preventDefault();
    const step = ev.shiftKey ? 0.02 : 0.005; // about 2.2 km / 550 m
    const from = point || { lat: centre.lat, lng: centre.lng };
    draw({
      lat: round5(Math.min(n, Math.max(s, from.lat + k[0] * step))),
      lng: round5(Math.min(e, Math.max(w, from.lng + k[1] * step / kx))),
    }, true);
  });
  const clear = () => {
    point = null;
    marker.setAttribute('visibility', 'hidden');
    said.textContent = 'Toca el mapa para marcar desde dónde sales, o usa las flechas del teclado sobre él.';
  };
  return { node: el('div', { class: 'area-map-wrap' }, box, said), clear };
}
