import { runCli } from "./cli/main.js";

/** Process entry: `node dist/main.js <command>`, also behind the package's `collabd` bin. */
runCli(process.argv.slice(2));
