// A completed job's reviews (docs/api/reviews.md): the state of the
// double-blind rule for both parties, the other side's published review and
// the camello's form to review the client. Loaded only for a COMPLETADO job.
import { api, el, busy, fmtDateTz } from './app.js';
import { S, enc, isClient, say, reload, tpl } from './trabajo.js';

export const readReviews = () => api('GET', `/api/jobs/${enc(S.id)}/reviews`).then((r) => r.reviews, () => null);

// drawReviews is the block drawn in the job's card, in the same pass.
export function drawReviews(r, msg) {
  if (!r) return null;
  const c = isClient();
  const mine = r[c ? 'client' : 'camello'];
  const other = r[c ? 'camello' : 'client'];
  const done = mine.published || other.published;
  const o = other.published && other.review;
  return el('div', { id: 'job-reviews' },
    r.blind ? el('p', { class: 'muted', id: 'reviews-state' }, done ? 'Reseñas publicadas'
      : `${mine.written ? 'Tu reseña queda oculta hasta que la otra parte califique' : 'Las reseñas quedan ocultas hasta que ambas partes califiquen'} o pasen 7 días${r.windowEndsAt ? ` (hasta el ${fmtDateTz(r.windowEndsAt)})` : ''}.`) : null,
    o ? el('div', { class: 'review', id: 'other-review' },
      el('p', {}, c ? 'Reseña del camello: ' : 'Reseña del cliente: ', `${'★'.repeat(o.rating)} (${o.rating})`),
      o.comment ? el('p', { class: 'pre' }, o.comment) : null) : null,
    !c && r.canReview ? form(msg) : null);
}

function form(msg) {
  const box = tpl('t-client-review');
  const f = box.querySelector('form');
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const fd = new FormData(f);
    try {
      await busy(f.querySelector('button'), () => api('POST', `/api/jobs/${enc(S.id)}/client-review`, { rating: Number(fd.get('rating')), comment: fd.get('comment') }));
      await reload();
      say(document.getElementById('job-msg'), '¡Gracias por calificar al cliente!');
    } catch (e) { say(msg, e.message, 'error'); }
  });
  return box;
}
