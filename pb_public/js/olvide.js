// Forgotten password: asks for a reset link (the answer is the same for
// every well-formed address, so it never tells whether an account exists).
import { api, $, renderChrome, showAlert, formError, clearFieldErrors, busy } from './app.js';

const form = $('#form');

form.addEventListener('submit', async (ev) => {
  ev.preventDefault();
  clearFieldErrors(form);
  showAlert($('#alert'), '');
  const email = $('#email').value.trim();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
    formError(form, $('#alert'), { fieldErrors: { email: ['Escribe un correo electrónico válido'] } });
    return;
  }
  try {
    await busy(form.querySelector('button[type=submit]'), () => api('POST', '/api/auth/password/forgot', { email }));
    showAlert($('#alert'), `Si ${email} tiene una cuenta, te enviamos un enlace para crear una contraseña nueva. Revisa tu correo (y la carpeta de spam). El enlace vence en una hora.`, 'ok');
  } catch (e) {
    formError(form, $('#alert'), e);
  }
});

renderChrome();
