// Sign-in (POST /api/auth/login sets the session cookie).
import { api, $, renderChrome, showAlert, formError, clearFieldErrors, busy } from './app.js';
import { safeNext } from './next.js';

const form = $('#form');

form.addEventListener('submit', async (ev) => {
  ev.preventDefault();
  clearFieldErrors(form);
  showAlert($('#alert'), '');
  const email = $('#email').value.trim();
  const password = $('#password').value;
  const errs = {};
  if (!email) errs.email = ['Escribe tu correo electrónico'];
  if (!password) errs.password = ['Escribe tu contraseña'];
  if (Object.keys(errs).length) { formError(form, $('#alert'), { fieldErrors: errs }); return; }
  try {
    await busy(form.querySelector('button[type=submit]'), () => api('POST', '/api/auth/login', { email, password }), 'Ingresando…');
    location.href = safeNext('/');
  } catch (e) {
    formError(form, $('#alert'), e);
  }
});

renderChrome().then((s) => { if (s && s.user) showAlert($('#alert'), `Ya ingresaste como ${s.user.name}.`, 'ok'); });
