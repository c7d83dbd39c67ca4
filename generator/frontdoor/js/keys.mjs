// The key gate of the edge functions: a line-by-line translation of generator/frontdoor/keys.py (the scheme:
// generator/api/access.py). The tests run both on the same cases, and check these constants against Python's.
//
// A site holds the SHA-256 digests of its valid keys in API_KEY_DIGESTS (64-digit hex, separated by commas, spaces
// or lines, `#` starting a comment). Keys are on as soon as the variable holds anything; an entry that is not a
// digest is never matched. A key is checked by comparing its digest with every digest held, in constant time.
// A path is public only as its percent-decoded spelling is one of PUBLIC_PATH; every host answers a preflight
// (OPTIONS) with 204 and no body, and any other method but GET and HEAD with the 405 problem, before the gate.

export const KEY_HEADER = "X-API-Key";
export const DIGESTS_VARIABLE = "API_KEY_DIGESTS";
export const REALM = "company-ipo-api";
export const PUBLIC_PATH = /^(\/|\/index\.html|\/404\.html|\/api\/openapi\/?|\/api\/openapi\.json|\/api\/errors\/[a-z0-9-]+\.json)$/;
export const KEYED_CACHE_CONTROL = "private, max-age=300";
export const REFUSED_CACHE_CONTROL = "no-store";
export const VARY = "Authorization, X-API-Key";
export const RETRY_AFTER_SECONDS = 60;
export const PROBLEM_TYPE = "application/problem+json; charset=utf-8";
export const UNAUTHORIZED = '{"type":"/#problem-unauthorized","title":"Unauthorized","status":401,"detail":"This site asks for an API key on every path under /api/ but /api/openapi and /api/errors/: send it as `Authorization: Bearer KEY` (or `X-API-Key: KEY`). A key in the query string is not accepted. No key, or a key this site does not know, gets this answer."}\n';
export const TOO_MANY_REQUESTS = '{"type":"/#problem-too-many-requests","title":"Too Many Requests","status":429,"detail":"Too many requests in a short time (counted per key, or per address without one): wait the number of seconds `Retry-After` gives, then send the request again."}\n';
export const ALLOWED_METHODS = "GET, HEAD, OPTIONS";
export const METHOD_NOT_ALLOWED = '{"type":"/#problem-method-not-allowed","title":"Method Not Allowed","status":405,"detail":"The API is read-only: use GET (or HEAD, OPTIONS)."}\n';
/** The public paths answered with a file: an edge function reads that public file alone (not the description). */
export const PUBLIC_DOCUMENTS = Object.freeze({"/api/openapi": "/api/openapi.json"});
const DIGEST = /^[0-9a-fA-F]{64}$/;
const stripBlanks = (text) => text.replace(/^[ \t]+|[ \t]+$/g, ""); // ASCII spaces and tabs only, as in Python

export async function digest(key) {
  const bytes = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key));
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

export function parseDigests(text) {
  if (text === null || text === undefined || !text.replace(/[ \t\r\n,]/g, "")) return null;
  const found = new Set();
  for (const line of text.split(/\r\n|\r|\n/)) {
    for (const token of line.split("#")[0].split(/[ \t,]+/)) {
      if (DIGEST.test(token)) found.add(token.toLowerCase());
    }
  }
  return found;
}

export function credential(authorization, apiKey) {
  const text = stripBlanks(authorization ?? "");
  const at = text.indexOf(" ");
  const [scheme, token] = at < 0 ? [text, ""] : [text.slice(0, at), text.slice(at + 1)];
  if (scheme.toLowerCase() === "bearer" && stripBlanks(token)) return stripBlanks(token);
  return apiKey && stripBlanks(apiKey) ? stripBlanks(apiKey) : null;
}

export function isPublic(path) {
  let decoded;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return false; // not a path any public file has
  }
  return PUBLIC_PATH.test(decoded);
}

/** A request path as a host reads it: decoded once, `//` collapsed, dot segments resolved; null if undecodable. */
export function normalPath(path) {
  let decoded;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return null;
  }
  const segments = [];
  const parts = decoded.split("/");
  for (const part of parts) {
    if (part === "..") segments.pop();
    else if (part !== "" && part !== ".") segments.push(part);
  }
  const trailing = segments.length > 0 && ["", ".", ".."].includes(parts[parts.length - 1]);
  return "/" + segments.join("/") + (trailing ? "/" : "");
}

/** Whether a request path, in any spelling and any case, is under /api. */
export function isApi(path) {
  const normal = (normalPath(path) ?? "").toLowerCase();
  return normal === "/api" || normal.startsWith("/api/");
}

function sameDigest(a, b) {
  // both are 64 hex digits: every character is compared, whatever the first difference
  let difference = a.length ^ b.length;
  for (let i = 0; i < a.length && i < b.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

export async function known(digests, key) {
  let found = false;
  const asked = await digest(key);
  for (const held of [...digests].sort()) found = sameDigest(asked, held) || found;
  return found;
}

export const OPEN = Object.freeze({allowed: true, keyed: false, presented: false});

export async function check(digests, path, authorization, apiKey) {
  if (digests === null || isPublic(path)) return OPEN;
  const key = credential(authorization, apiKey);
  if (key === null) return {allowed: false, keyed: true, presented: false};
  return {allowed: await known(digests, key), keyed: true, presented: true};
}

export function wwwAuthenticate(presented) {
  return `Bearer realm="${REALM}"` + (presented ? ', error="invalid_token"' : "");
}

export function verdictHeaders(verdict) {
  if (!verdict.keyed) return {};
  if (verdict.allowed) return {"Cache-Control": KEYED_CACHE_CONTROL, "Vary": VARY};
  return {"Cache-Control": REFUSED_CACHE_CONTROL, "Vary": VARY, "WWW-Authenticate": wwwAuthenticate(verdict.presented)};
}

/** The headers an internal read of the site carries: the asking request's own key, which the gate accepts. */
export function forwarded(request) {
  const out = {};
  for (const name of ["Authorization", KEY_HEADER]) {
    const value = request.headers.get(name);
    if (value !== null) out[name] = value;
  }
  return out;
}
