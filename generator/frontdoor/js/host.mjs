// The front door on a host that runs code: a request in, a Response out. The Netlify Edge Function and the
// Cloudflare Pages worker wrap this:
//
//   handler = frontDoor(readFile); response = await handler(request, passOn, {digests, limiter, address})
//
// `readFile(path, request)` returns the site's own Response for a published path (Netlify: fetch on the site,
// carrying the request's key, which the gate accepts; Cloudflare: env.ASSETS.fetch): the request it is given carries
// the asker's key only when the asked path needs one, and a public path is answered from public files alone, so a
// fresh isolate answers /api/openapi without a key. `passOn(request)` the site's answer to the request itself (the
// files, the landing page: context.next(), env.ASSETS.fetch). `digests` is the text of API_KEY_DIGESTS (keys are
// asked for when it holds anything: keys.mjs); `limiter`, a Workers rate limiting binding, if the host has one;
// `address`, the client's address for it.
//
// Before the gate, whatever the path's spelling: a preflight (OPTIONS) gets 204 with no body (the CORS headers on
// any spelling of a path under /api), never the site's answer; any method but GET and HEAD gets the 405 problem.
// A read of the site, or the site's answer, that fails at the network level is the 503 problem.
import {filePath, resolve} from "./frontdoor.mjs";
import {
  ALLOWED_METHODS, KEY_HEADER, METHOD_NOT_ALLOWED, PROBLEM_TYPE, PUBLIC_DOCUMENTS, REFUSED_CACHE_CONTROL,
  RETRY_AFTER_SECONDS, TOO_MANY_REQUESTS, UNAUTHORIZED, VARY,
  check, credential, digest, isApi, normalPath, parseDigests, verdictHeaders,
} from "./keys.mjs";

/** The [[headers]] of /api/* in netlify.toml and _headers (tests check they are the registry's). */
export const API_HEADERS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
  "Access-Control-Allow-Headers": "Authorization, X-API-Key",
  "Access-Control-Expose-Headers": "WWW-Authenticate, Retry-After, API-Version, Dataset-Snapshot, Deprecation, Sunset, Link",
  "Cache-Control": "public, max-age=300, stale-while-revalidate=86400",
  "X-Content-Type-Options": "nosniff",
  "API-Version": "1.1.0", // generator/api/versions.py API_VERSION
};
const SPACE = "/api/query-space.json";
// Files read for answers stay in memory, per isolate, up to KEPT_BYTES (the least recently used go first; none
// larger than KEPT_FILE_MAX, such as exports): a deploy's files never change under its functions, and a query
// index or a popular page read again costs neither a request to the site (which Netlify's rate limit counts)
// nor a copy.
export const KEPT_BYTES = 16 * 1024 * 1024; // with the indexes parsed from them, well within a Worker's 128 MB
export const KEPT_FILE_MAX = 4 * 1024 * 1024;

function fileCache() {
  const kept = new Map();
  let bytes = 0;
  return {
    get(path) {
      const found = kept.get(path);
      if (found !== undefined) { // most recently used last
        kept.delete(path);
        kept.set(path, found);
      }
      return found;
    },
    set(path, body) {
      if (body.byteLength > KEPT_FILE_MAX || kept.has(path)) return;
      kept.set(path, body);
      bytes += body.byteLength;
      for (const [old, oldBody] of kept) {
        if (bytes <= KEPT_BYTES) break;
        kept.delete(old);
        bytes -= oldBody.byteLength;
      }
    },
  };
}
// the description of a site whose public paths are answered without it: its documents only, any query ignored
const PUBLIC_SPACE = Object.freeze({version: 1, meta: {}, tracking: ["*"], routes: {}, details: {},
  documents: PUBLIC_DOCUMENTS, export: {path: null, formats: [], tables: []}});

/** A read of the site that failed at the network level (a thrown fetch): the 503 problem, like a refused read. */
async function networkSafe(read) {
  try {
    return await read();
  } catch (error) {
    if (error instanceof Unreadable) throw error;
    throw new Unreadable(0, null);
  }
}

class Unreadable extends Error {
  constructor(status, retryAfter) {
    super(`a read of the site answered ${status}`);
    this.status = status;
    this.retryAfter = retryAfter;
  }
}

function problemResponse(request, status, body, headers) {
  return new Response(request.method === "HEAD" ? null : body,
    {status, headers: {...API_HEADERS, "Content-Type": PROBLEM_TYPE, ...headers}});
}

function tooMany(request, seconds) {
  return problemResponse(request, 429, TOO_MANY_REQUESTS,
    {"Cache-Control": REFUSED_CACHE_CONTROL, "Vary": VARY, "Retry-After": String(seconds)});
}

/** A response of the site with the gate's headers over its own (a fetched response's headers cannot be changed). */
function withHeaders(response, extra) {
  if (!Object.keys(extra).length) return response;
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(extra)) headers.set(name, value);
  return new Response(response.body, {status: response.status, statusText: response.statusText, headers});
}

export function frontDoor(readFile, {rewrite = null} = {}) {
  let space = null; // loaded once per isolate, on the first request that gets this far
  const kept = fileCache();
  return async (request, passOn, {digests = null, limiter = null, address = null} = {}) => {
    const url = new URL(request.url);
    if (request.method === "OPTIONS") {
      // a CORS preflight never carries the key, and never gets a body or the site's answer
      const headers = isApi(url.pathname) ? {...API_HEADERS, Allow: ALLOWED_METHODS} : {Allow: ALLOWED_METHODS};
      return new Response(null, {status: 204, headers});
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      return problemResponse(request, 405, METHOD_NOT_ALLOWED, {Allow: ALLOWED_METHODS});
    }
    const authorization = request.headers.get("Authorization");
    const held = parseDigests(digests);
    const verdict = await check(held, url.pathname, authorization, request.headers.get(KEY_HEADER));
    if (limiter !== null) {
      const key = verdict.keyed && verdict.allowed
        ? "key:" + await digest(credential(authorization, request.headers.get(KEY_HEADER)))
        : "address:" + (address ?? "unknown");
      if (!(await limiter.limit({key})).success) return tooMany(request, RETRY_AFTER_SECONDS);
    }
    const gate = verdictHeaders(verdict);
    if (!verdict.allowed) return problemResponse(request, 401, UNAUTHORIZED, gate);
    let response;
    try {
      response = (await answer(request, url, verdict.keyed, held !== null && !verdict.keyed))
        ?? (await networkSafe(() => passOn(request)));
    } catch (error) {
      if (!(error instanceof Unreadable)) throw error;
      response = unreadable(request, error);
    }
    if (response instanceof URL) return response; // a rewrite: the host serves the file with its own headers
    // an answer no cache may keep (a 429, a 503) stays so; any other given to a key is private to it
    const kept = response.headers.get("Cache-Control") === REFUSED_CACHE_CONTROL;
    return withHeaders(response, kept ? {...gate, "Cache-Control": REFUSED_CACHE_CONTROL} : gate);
  };

  // keyed: the path needs a key (the reads carry the asker's); public: keys are on and the path is public
  async function answer(request, url, keyed, publicOnly) {
    const reader = keyed ? request : new Request(request.url, {method: "GET"});
    const fetchFile = async (path) => {
      const found = kept.get(path);
      if (found !== undefined) return found; // a Response copies the bytes it is given: the kept ones stay whole
      const response = await networkSafe(() => readFile(filePath(path), reader));
      if (response.status === 200) {
        const body = new Uint8Array(await networkSafe(() => response.arrayBuffer()));
        kept.set(path, body);
        return body;
      }
      await response.body?.cancel().catch(() => {});
      if (response.status === 404) return null;
      // a read the host refused (its rate limit, an error) is not a missing file: the answer would be wrong
      throw new Unreadable(response.status, response.headers.get("Retry-After"));
    };
    if (!isApi(url.pathname)) return null;
    // a file's path (its last segment has a dot or an equals sign) is never the front door's (resolve answers
    // null): pass it on before reading the description, which the host may fetch through this very handler
    if (/[.=]/.test(url.pathname.replace(/\/+$/, "").split("/").pop())) return null;
    if (publicOnly && !Object.hasOwn(PUBLIC_DOCUMENTS, (normalPath(url.pathname) ?? "").replace(/\/+$/, ""))) {
      return null; // a public file: the site's own
    }
    if (space === null && !publicOnly) {
      const found = await fetchFile(SPACE);
      if (found === null) return null; // a build without the description: the rewrite rules answer
      space = JSON.parse(new TextDecoder().decode(found));
    }
    const described = publicOnly ? PUBLIC_SPACE : space;
    const found = await resolve(described, url.pathname, url.search.slice(1), fetchFile, {serveExports: true});
    if (found === null) return null;
    const headers = answerHeaders(described, found);
    if (found.served) {
      const response = await served(found.file, headers, headers["Content-Disposition"] !== undefined && !keyed);
      if (response !== null) return response;
      // a file the description names but the site lacks: the front door's own 404, as when it read the files
      const missing = await resolve(described, url.pathname, url.search.slice(1), fetchFile);
      return new Response(request.method === "HEAD" ? null : missing.body,
        {status: missing.status, headers: answerHeaders(described, missing)});
    }
    return new Response(request.method === "HEAD" ? null : found.body, {status: found.status, headers});

    // An export's file (up to the whole dataset) is never read here. A download whose headers the site declares
    // for its file (netlify.toml [[headers]], _headers: the same type, name, API headers and snapshot), asked
    // without a key, is a rewrite where the host has one (Netlify: a URL returned); any other is the host's
    // response to a read of the file, its body passed on as it streams, under this answer's headers.
    async function served(file, headers, declared) {
      if (declared && rewrite !== null) return rewrite(filePath(file), request);
      const response = await networkSafe(() => readFile(filePath(file), reader));
      if (response.status === 200 && request.method !== "HEAD") {
        return new Response(response.body, {status: 200, headers});
      }
      await response.body?.cancel().catch(() => {});
      if (response.status === 200) return new Response(null, {status: 200, headers});
      if (response.status === 404) return null;
      throw new Unreadable(response.status, response.headers.get("Retry-After"));
    }
  }

  function answerHeaders(described, found) {
    const headers = {...API_HEADERS, "Content-Type": found.contentType};
    if (space?.snapshot) headers["Dataset-Snapshot"] = space.snapshot.id; // the build's: versions.py SNAPSHOT_HEADER
    // a download's file name (the query form's URL names none): the registry's, as the files' headers give it
    const attachment = found.file === null ? undefined : described.export.attachments?.[found.file];
    if (attachment !== undefined) headers["Content-Disposition"] = attachment;
    return headers;
  }
}

/** The answer to a read of the site that failed: the host's 429 passed on, anything else the 503 problem. */
function unreadable(request, error) {
  if (error.status === 429) {
    const seconds = /^[0-9]+$/.test(error.retryAfter ?? "") ? Number(error.retryAfter) : RETRY_AFTER_SECONDS;
    return tooMany(request, seconds);
  }
  return problemResponse(request, 503, UNAVAILABLE, {"Cache-Control": REFUSED_CACHE_CONTROL});
}

const UNAVAILABLE = JSON.stringify({type: "about:blank", title: "Service Unavailable", status: 503,
  detail: "The published files could not be read just now; try again."}) + "\n";
