// Which files `netlify deploy` would upload: the deploy filter of the netlify-cli pinned in tests/netlify/dev,
// taken from its own source (it is not exported) and applied to every path below a folder.
// Usage: node tests/netlify/deploy_filter.cjs DEPLOY_JS FOLDER  Prints the kept paths (relative) as JSON.
const fs = require("fs");
const path = require("path");
const { basename } = path;

const [source, folder] = process.argv.slice(2);
const text = fs.readFileSync(source, "utf8");
const start = text.indexOf("const getDeployFilesFilter = ");
const end = text.indexOf("\n};\n", start);
if (start < 0 || end < 0) {
  console.error(`no getDeployFilesFilter in ${source}`);
  process.exit(2);
}
// eslint-disable-next-line no-eval
const getDeployFilesFilter = eval(`(() => { ${text.slice(start, end + 3)} return getDeployFilesFilter; })()`);
const filter = getDeployFilesFilter({ deployFolder: folder, site: { root: path.dirname(folder) } });
const kept = [];
const walk = (dir) => {
  for (const name of fs.readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (!filter(full)) continue;  // as the CLI's walker: a folder left out is not entered
    if (fs.statSync(full).isDirectory()) walk(full);
    else kept.push(path.relative(folder, full));
  }
};
walk(folder);
process.stdout.write(JSON.stringify(kept) + "\n");
