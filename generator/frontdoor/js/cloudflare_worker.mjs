// Cloudflare Pages advanced mode (_worker.js): the front door for /api/*, the static assets for the rest.
// `python -m generator cloudflare-worker --out dist/_worker.js` writes this with the front door inlined.
import {frontDoor} from "./host.mjs";

let handler = null;

export default {
  async fetch(request, env) {
    handler ??= frontDoor((path, asked) => env.ASSETS.fetch(new URL(path, asked.url)));
    return (await handler(request)) ?? env.ASSETS.fetch(request);
  },
};
