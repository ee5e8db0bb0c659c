// Client sign-up (POST /api/auth/register), then sign-in.
import { api, $, renderChrome, showAlert, formError, clearFieldErrors } from './app.js';
import { safeNext } from './next.js';
import { checkAccount } from './validate.js';

const form = $('#form');

form.addEventListener('submit', async (ev) => {
  ev.preventDefault();
  clearFieldErrors(form);
  const fd = new FormData(form);
  const d = {
    name: (fd.get('name') || '').trim(), email: (fd.get('email') || '').trim(), phone: (fd.get('phone') || '').trim(),
    city: (fd.get('city') || '').trim(), password: fd.get('password') || '', confirmPassword: fd.get('confirmPassword') || '',
    acceptTerms: $('#acceptTerms').checked,
  };
  const errs = checkAccount(d, false);
  if (Object.keys(errs).length) { formError(form, $('#alert'), { fieldErrors: errs }); return; }
  const body = { ...d };
  if (!body.phone) delete body.phone;
  if (!body.city) delete body.city;
  try {
    await api('POST', '/api/auth/register', body);
    await api('POST', '/api/auth/login', { email: d.email, password: d.password });
    location.href = safeNext('/');
  } catch (e) {
    if (e.status === 409 && !e.fieldErrors.email) e.fieldErrors = { ...e.fieldErrors, email: [e.message] };
    formError(form, $('#alert'), e);
  }
});

renderChrome().then((s) => { if (s && s.user) showAlert($('#alert'), `Ya ingresaste como ${s.user.name}.`, 'ok'); });
