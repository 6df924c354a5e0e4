import type { Command } from "commander";
import { registerTokens } from "./tokens.js";
import { registerBuild } from "./build.js";
import { registerExplain } from "./explain.js";
import { registerValidate } from "./validate.js";
import { registerDiff } from "./diff.js";
import { registerCost } from "./cost.js";
import { registerPublish } from "./publish.js";
import { registerSnapshot } from "./snapshot.js";

/** Registers every subcommand on the root program. */
export function register(program: Command): void {
  registerBuild(program);
  registerExplain(program);
  registerValidate(program);
  registerDiff(program);
  registerCost(program);
  registerPublish(program);
  registerTokens(program);
  registerSnapshot(program);
}
