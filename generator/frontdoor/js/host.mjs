// The front door on a host that runs code: a request in, a Response out (or null: the static files answer).
// The Netlify Edge Function and the Cloudflare Pages worker wrap this; `readFile(path, request)` returns the site's own
// Response for a published path (Netlify: fetch on the site; Cloudflare: env.ASSETS.fetch).
import {filePath, resolve} from "./frontdoor.mjs";

/** The [[headers]] of /api/* in netlify.toml and _headers (tests check they are the registry's). */
export const API_HEADERS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
  "Cache-Control": "public, max-age=300, stale-while-revalidate=86400",
  "X-Content-Type-Options": "nosniff",
};
const SPACE = "/api/query-space.json";

export function frontDoor(readFile) {
  let space = null; // loaded once per isolate, on the first request
  return async (request) => {
    const fetchFile = async (path) => {
      const response = await readFile(filePath(path), request);
      if (response.status !== 200) {
        await response.body?.cancel();
        return null;
      }
      return new Uint8Array(await response.arrayBuffer());
    };
    if (request.method !== "GET" && request.method !== "HEAD") return null;
    const url = new URL(request.url);
    if (!url.pathname.toLowerCase().startsWith("/api")) return null;
    // a file's path (its last segment has a dot or an equals sign) is never the front door's (resolve answers
    // null): pass it on before reading the description, which the host may fetch through this very handler
    if (/[.=]/.test(url.pathname.replace(/\/+$/, "").split("/").pop())) return null;
    if (space === null) {
      const found = await fetchFile(SPACE);
      if (found === null) return null; // a build without the description: the rewrite rules answer
      space = JSON.parse(new TextDecoder().decode(found));
    }
    const answer = await resolve(space, url.pathname, url.search.slice(1), fetchFile);
    if (answer === null) return null;
    const headers = {...API_HEADERS, "Content-Type": answer.contentType};
    return new Response(request.method === "HEAD" ? null : answer.body, {status: answer.status, headers});
  };
}
