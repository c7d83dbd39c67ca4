// Cloudflare Pages advanced mode (_worker.js): the front door for /api/*, the static assets for the rest, behind the
// key gate when the project has the secret API_KEY_DIGESTS (keys.mjs).
// `python -m generator cloudflare-worker --out dist/_worker.js` writes this with the front door inlined.
import {frontDoor} from "./host.mjs";

let handler = null;

export default {
  async fetch(request, env) {
    handler ??= frontDoor((path, asked) => env.ASSETS.fetch(new URL(path, asked.url)));
    // env.ASSETS reads the files inside the worker, past the gate; a Workers rate limiting binding named
    // API_RATE_LIMITER, where the deployment can declare one (Pages cannot), limits per key, else per address
    return handler(request, (asked) => env.ASSETS.fetch(asked), {
      digests: env.API_KEY_DIGESTS ?? null,
      limiter: env.API_RATE_LIMITER ?? null,
      address: request.headers.get("CF-Connecting-IP"),
    });
  },
};
