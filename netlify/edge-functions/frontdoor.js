// Netlify Edge Function (declared in netlify.toml: path = "/api/*"): the query front door in front of the files
// and the rewrite rules. It answers listings, profiles, exports and documents as a person writes them; every
// other path (the files themselves) goes on to the site with context.next().
import {frontDoor} from "../../generator/frontdoor/js/host.mjs";

// the site's own files, fetched over the site (file paths are not the front door's: they pass straight on)
const handler = frontDoor((path, request) => fetch(new URL(path, request.url)));

export default async (request, context) => {
  return (await handler(request)) ?? context.next();
};
