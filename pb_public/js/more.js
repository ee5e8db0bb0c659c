// renderMore, the "Ver más" of a paged list (admin, search, notifications,
// board, my jobs): out of app.js, which every page loads (the job page's
// JavaScript budget, docs/web.md).
import { el, busy } from './app.js';

// renderMore fills nav with a "Ver más" button while fewer than total items
// are shown; onMore loads the next page and appends it.
export function renderMore(nav, shown, total, onMore) {
  nav.replaceChildren();
  if (shown >= (total || 0)) return;
  const btn = el('button', { class: 'btn secondary', type: 'button' }, `Ver más (${total - shown} más)`);
  btn.addEventListener('click', () => busy(btn, onMore, 'Cargando…'));
  nav.append(btn);
}
