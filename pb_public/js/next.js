// The ?next= target after sign-in and sign-up (ingresar.js, registro.js):
// apart from app.js, which every page loads.

// sameOriginPath returns next as a path of this origin ("/x", with its query
// and fragment), or null: never "//host", "/\host", control or format
// characters (browsers drop tabs and newlines, "/\t/host" becomes "//host")
// nor another origin. The answer is the parsed URL's, never the raw string,
// and its path starts with one slash only: "/.//evil.test" parses to the
// path "//evil.test", which a browser would read as another host.
export function sameOriginPath(next) {
  if (typeof next !== 'string' || !next.startsWith('/') || next.startsWith('//')) return null;
  if (/[\\\p{Cc}\p{Cf}]/u.test(next)) return null;
  let u;
  try { u = new URL(next, location.origin); } catch { return null; }
  return u.origin === location.origin ? u.pathname.replace(/^\/+/, '/') + u.search + u.hash : null;
}

// safeNext returns a same-origin path from ?next=, or fallback.
export function safeNext(fallback = '/') {
  return sameOriginPath(new URLSearchParams(location.search).get('next')) ?? fallback;
}
