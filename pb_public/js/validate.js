// Client-side checks mirroring the interface's Limits table. The server
// checks again; these only spare a round trip.

/** chars counts Unicode code points, as the server does. */
export const chars = (s) => [...(s || '')].length;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** between adds an error when s is not within min..max characters. */
function between(errs, field, s, min, max, required) {
  const n = chars(s);
  if (!n && required) errs[field] = ['Este campo es obligatorio'];
  else if (n && n < min) errs[field] = [`Debe tener al menos ${min} caracteres`];
  else if (n > max) errs[field] = [`Debe tener como máximo ${max} caracteres`];
}

/** checkAccount validates the fields shared by both sign-up forms. */
export function checkAccount(d, camello) {
  const errs = {};
  between(errs, 'name', d.name.trim(), 2, 120, true);
  if (!d.email.trim()) errs.email = ['Este campo es obligatorio'];
  else if (!EMAIL.test(d.email.trim())) errs.email = ['Correo electrónico inválido'];
  between(errs, 'phone', d.phone.trim(), 7, 32, camello);
  between(errs, 'city', d.city.trim(), 2, 120, camello);
  between(errs, 'password', d.password, 8, 128, true);
  if (!errs.password && d.password !== d.confirmPassword) errs.confirmPassword = ['Las contraseñas no coinciden'];
  if (!d.acceptTerms) errs.acceptTerms = ['Debes aceptar los términos y condiciones'];
  return errs;
}

/** splitTrades turns "a, b, a" into ["a", "b"]. */
export function splitTrades(s) {
  const seen = new Set();
  return (s || '').split(',').map((t) => t.trim()).filter((t) => t && !seen.has(t.toLowerCase()) && seen.add(t.toLowerCase()));
}

/** checkCamello validates the provider-only fields. */
export function checkCamello(d, trades, serviceIds, file) {
  const errs = {};
  if (trades.length < 1) errs.trades = ['Indica al menos un oficio'];
  else if (trades.length > 20) errs.trades = ['Máximo 20 oficios'];
  else if (trades.some((t) => chars(t) > 120)) errs.trades = ['Cada oficio debe tener como máximo 120 caracteres'];
  if (chars(d.documentId) > 32) errs.documentId = ['Debe tener como máximo 32 caracteres'];
  if (chars(d.neighborhood) > 120) errs.neighborhood = ['Debe tener como máximo 120 caracteres'];
  if (chars(d.professionalCard) > 120) errs.professionalCard = ['Debe tener como máximo 120 caracteres'];
  if (serviceIds.length > 50) errs.serviceIds = ['Máximo 50 servicios'];
  if (chars(d.description) > 5000) errs.description = ['Debe tener como máximo 5000 caracteres'];
  if (file && file.size) {
    if (!['image/jpeg', 'image/png', 'image/webp'].includes(file.type)) errs.file = ['La foto debe ser JPEG, PNG o WebP'];
    else if (file.size > 5 * 1024 * 1024) errs.file = ['La foto no puede superar 5 MB'];
  }
  return errs;
}
