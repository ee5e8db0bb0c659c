// Password reset from the mailed link (?token=).
import { api, el, $, param, renderChrome, showAlert, formError, clearFieldErrors, busy } from './app.js';

const form = $('#form');
const token = param('token') || '';

function invalid(message) {
  const box = $('#alert');
  showAlert(box, message, 'error');
  box.append(' ', el('a', { href: '/olvide.html' }, 'Pide un enlace nuevo'), '.');
}

form.addEventListener('submit', async (ev) => {
  ev.preventDefault();
  clearFieldErrors(form);
  showAlert($('#alert'), '');
  const password = $('#password').value;
  const confirmPassword = $('#confirmPassword').value;
  const n = [...password].length;
  if (n < 8 || n > 128) { formError(form, $('#alert'), { fieldErrors: { password: ['Debe tener entre 8 y 128 caracteres'] } }); return; }
  if (password !== confirmPassword) { formError(form, $('#alert'), { fieldErrors: { confirmPassword: ['Las contraseñas no coinciden'] } }); return; }
  try {
    await busy(form.querySelector('button[type=submit]'), () => api('POST', '/api/auth/password/reset', { token, password, confirmPassword }), 'Guardando…');
    const done = el('div', { class: 'card narrow alert ok', role: 'status', tabindex: '-1' },
      'Tu contraseña quedó guardada y cerramos las sesiones abiertas. ', el('a', { href: '/ingresar.html' }, 'Ingresa con tu contraseña nueva'), '.');
    form.replaceWith(done);
    done.focus();
  } catch (e) {
    if (Object.keys(e.fieldErrors).some((k) => k !== 'token')) formError(form, $('#alert'), e);
    else invalid(e.message);
  }
});

renderChrome();
if (!token) invalid('Este enlace no es válido: le falta el código.');
