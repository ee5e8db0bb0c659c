// Legal pages: renders GET /api/legal/{slug}.
import { api, el, $, param, renderChrome, fmtShortDate } from './app.js';

async function main() {
  renderChrome();
  const slug = param('slug') === 'privacidad' ? 'privacidad' : 'terminos';
  const doc = $('#doc');
  try {
    const { document: d } = await api('GET', `/api/legal/${slug}`);
    document.title = `${d.title} · Camellos`;
    doc.replaceChildren(
      el('h1', {}, d.title),
      el('p', { class: 'muted' }, `Versión ${d.version}`, d.updatedAt ? ` · actualizado el ${fmtShortDate(d.updatedAt)}` : ''),
      ...(d.sections || []).map((s, i) => el('section', { 'aria-labelledby': `sec-${i}` },
        el('h2', { id: `sec-${i}` }, s.title), el('p', {}, s.content))));
  } catch (e) {
    doc.replaceChildren(el('h1', {}, slug === 'privacidad' ? 'Política de privacidad' : 'Términos y condiciones'),
      el('p', { class: 'muted' }, e.status === 404 ? 'Este documento aún no ha sido publicado.' : e.message));
  }
}

main();
