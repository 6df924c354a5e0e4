// Registers a module resolve hook that appends every URL the process resolves to the file named by
// PTB_IMPORTS_LOG (node --import ./test/helpers/record-imports.mjs): what a command loads at start-up.
import { register } from "node:module";

register(new URL("./record-imports-hooks.mjs", import.meta.url));
