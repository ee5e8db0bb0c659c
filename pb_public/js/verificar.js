// E-mail verification from the mailed link (?token=).
import { api, el, $, param, me, renderChrome } from './app.js';

async function main() {
  renderChrome();
  const box = $('#result');
  const token = param('token');
  if (!token) {
    box.replaceChildren(el('p', {}, 'Este enlace no es válido: le falta el código.'));
    return;
  }
  try {
    await api('POST', '/api/auth/verify', { token });
    box.replaceChildren(el('p', { class: 'alert ok' }, '¡Listo! Tu correo quedó verificado.'),
      el('p', {}, el('a', { href: '/' }, 'Ir al inicio')));
  } catch (e) {
    const s = await me().catch(() => null);
    box.replaceChildren(el('p', { class: 'alert error' }, e.message),
      el('p', {}, s && s.user ? el('a', { href: '/cuenta.html' }, 'Pide un enlace nuevo desde tu cuenta') : el('a', { href: '/ingresar.html?next=%2Fcuenta.html' }, 'Ingresa para pedir un enlace nuevo'), '.'));
  }
}

main();
