// Removes the bundles of the @lenml/tokenizer-<family> packages after
// install (npm's postinstall): each ships its tokenizer.json three times
// more as JavaScript bundles and source maps (dist/, ~850 MB for the
// eleven), and the reference reads only models/tokenizer.json, through
// @lenml/tokenizers. Safe to run again.
import { readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const scope = join(dirname(fileURLToPath(import.meta.url)), "node_modules", "@lenml");
for (const name of readdirSync(scope)) {
  if (name.startsWith("tokenizer-")) rmSync(join(scope, name, "dist"), { recursive: true, force: true });
}
