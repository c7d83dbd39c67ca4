// Netlify Edge Function (declared in netlify.toml: path = "/*"): the key gate and the query front door in front of
// the files and the rewrite rules. It answers listings, profiles, exports and documents as a person writes them;
// every other path (the files themselves, the landing page) goes on to the site with context.next(). Keys are asked
// for when the site's environment variable API_KEY_DIGESTS holds anything (generator/frontdoor/js/keys.mjs).
import {frontDoor} from "../../generator/frontdoor/js/host.mjs";
import {forwarded} from "../../generator/frontdoor/js/keys.mjs";

// the site's own files, fetched over the site: such a read runs this function again, so it carries the key of the
// request host.mjs gives it (the asker's, only for a path that needs one; the gate accepts it), and Netlify's rate
// limit counts it. A download asked without a key is a rewrite (a URL returned): Netlify serves the file itself.
const handler = frontDoor((path, request) => fetch(new URL(path, request.url), {headers: forwarded(request)}),
  {rewrite: (path, request) => new URL(path, request.url)});

const environment = (name) => globalThis.Netlify?.env.get(name) ?? globalThis.Deno?.env.get(name) ?? null;

export default async (request, context) => {
  return handler(request, () => context.next(), {digests: environment("API_KEY_DIGESTS")});
};

// Netlify's code-based rate limit (no path: the route stays netlify.toml's): 600 requests a minute per address and
// domain, this function's own reads of files included. Netlify answers a request over it with its own 429.
export const config = {
  rateLimit: {windowLimit: 600, windowSize: 60, aggregateBy: ["ip", "domain"]},
};
