// The front door for hosts that run no code (S3, GitHub Pages, a copied folder): the same answers, resolved in
// the client over the path-style files with fetch().
//
//   const api = createClient("https://example.org");
//   const {status, body} = await api.get("/api/companies?sector=Fintech&minValuation=1.5e9");
//   const rows = (await api.getJSON("/api/companies?q=open ai")).data;
//   for await (const row of api.rows("/api/funding?sector=AI&stage=seriesA")) ...  // every page, via links.next
import {filePath, resolve} from "./frontdoor.mjs";

export function createClient(baseUrl, {fetch: fetcher = globalThis.fetch} = {}) {
  const base = baseUrl.replace(/\/+$/, "");
  let space = null; // the query-space description, read once
  const fetchFile = async (path) => {
    const response = await fetcher(base + filePath(path));
    if (response.status !== 200) {
      await response.body?.cancel();
      return null;
    }
    return new Uint8Array(await response.arrayBuffer());
  };
  const text = (body) => typeof body === "string" ? body : new TextDecoder().decode(body);

  async function get(pathAndQuery) {
    const at = pathAndQuery.indexOf("?");
    const [path, query] = at < 0 ? [pathAndQuery, ""] : [pathAndQuery.slice(0, at), pathAndQuery.slice(at + 1)];
    if (space === null) {
      const found = await fetchFile("/api/query-space.json");
      if (found === null) throw new Error(`${base}: no /api/query-space.json (not a build of this API)`);
      space = JSON.parse(text(found));
    }
    const answer = await resolve(space, path, query, fetchFile);
    if (answer !== null) {
      return {status: answer.status, contentType: answer.contentType, body: answer.body, file: answer.file,
        fetches: answer.fetches, text: () => text(answer.body), json: () => JSON.parse(text(answer.body))};
    }
    const response = await fetcher(base + pathAndQuery); // not the front door's: the file itself
    const body = new Uint8Array(await response.arrayBuffer());
    return {status: response.status, contentType: response.headers.get("content-type"), body, file: path,
      fetches: [path], text: () => text(body), json: () => JSON.parse(text(body))};
  }

  // every row of a listing, page after page (links.next); a problem (400, 404) throws with its detail
  async function* rows(pathAndQuery) {
    let url = pathAndQuery;
    while (url) {
      const answer = await get(url);
      const body = answer.json();
      if (answer.status !== 200) throw new Error(`${url}: ${answer.status} ${body.detail ?? ""}`);
      yield* body.data;
      url = body.links.next;
    }
  }

  return {get, getJSON: async (pathAndQuery) => (await get(pathAndQuery)).json(), rows};
}
