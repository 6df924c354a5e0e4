import { z } from "zod";
import { TRAJECTORY_FORMATS } from "./trajectory-formats.js";

/**
 * The zod schemas: the one definition of a cell registry and of a manifest
 * row (DESIGN.md: schema.ts). `.strict()` objects reject unknown keys
 * (SOURCES.md: cells.json, "Unknown keys must be rejected").
 */

export type { TrajectoryFormat } from "./trajectory-formats.js";

/** One cell of `cells.json` (SOURCES.md: cells.json). */
export const CellSchema = z
  .object({
    // The cell names a folder of the sources and starts every model id: a Hub name part, so never `..` or `/`.
    cell: z.string().superRefine((name, ctx) => {
      const problem =
        hubNameProblem(name) ?? (/^[A-Za-z0-9]/.test(name) ? null : "does not start with a letter or digit");
      if (problem)
        ctx.addIssue({
          code: "custom",
          message: `cell name ${JSON.stringify(name)} ${problem}: it names a sources folder and starts every model id, so it must be a Hub repo name part`,
        });
    }),
    driver: z.string().min(1),
    effort: z.string().min(1),
    trajectory_format: z.enum(TRAJECTORY_FORMATS),
    pvc_root: z.string().startsWith("/"),
    janitor_tz: z.string().min(1),
    plotted: z.boolean().optional(),
    excluded: z.string().min(1).optional(),
    family_aliases: z.record(z.string(), z.string()).optional(),
  })
  .strict();
export type Cell = z.infer<typeof CellSchema>;

/** The whole `cells.json` (SOURCES.md: cells.json). */
export const CellsFileSchema = z
  .object({
    // Hub owner names: they stand before the "/" of every model id.
    org: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, "must be a Hub owner name (letters, digits, -, _, .; no /)"),
    spare_owner: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, "must be a Hub owner name (letters, digits, -, _, .; no /)"),
    baseline: z.string().min(1),
    required_eos_token_id: z.number().int().nonnegative(),
    cells: z.array(CellSchema).min(1),
  })
  .strict();
export type CellsFile = z.infer<typeof CellsFileSchema>;

/** How a row's hour was recovered (MANIFEST.md: hour_source). */
export const HOUR_SOURCES = ["mtime", "janitor", "extrapolated", "unrecoverable", "baseline"] as const;
export type HourSource = (typeof HOUR_SOURCES)[number];

/** A row's role (MANIFEST.md: role). */
export const ROLES = ["SUBMITTED", "fallback", "intermediate", "baseline"] as const;
export type Role = (typeof ROLES)[number];

/**
 * One manifest row, keys in the order MANIFEST.md gives ("Fields"). The
 * writers serialise rows in this key order, so JSON and CSV agree.
 */
export const RowSchema = z
  .object({
    model_id: z.string(),
    cell: z.string(),
    driver: z.string().nullable(),
    effort: z.string().nullable(),
    hour: z.number().nullable(),
    hour_source: z.enum(HOUR_SOURCES),
    hour_upper_bound: z.number().nullable(),
    driver_tokens_at_hour: z.number().int().nonnegative().nullable(),
    role: z.enum(ROLES),
    eos_ok: z.boolean().nullable(),
    eos_token_id: z.array(z.number().int()).nullable(),
    source: z.string(),
    family: z.string().nullable(),
    step: z.number().int().nonnegative().nullable(),
    hour_lower_bound: z.number().nullable(),
    hour_error_h: z.number().nullable(),
  })
  .strict();
export type Row = z.infer<typeof RowSchema>;

/** The manifest's column names, in order. */
export const ROW_KEYS = Object.keys(RowSchema.shape) as (keyof Row)[];

/**
 * Why a repo name part is not valid on the Hub, or null when it is
 * (MANIFEST.md: letters, digits, `-`, `_`, `.`; no `--` or `..`; not starting
 * or ending with `-` or `.`; at most 96 characters).
 */
export function hubNameProblem(name: string): string | null {
  if (name.length === 0) return "is empty";
  if (name.length > 96) return `is ${name.length} characters long (at most 96)`;
  const bad = name.match(/[^A-Za-z0-9._-]/);
  if (bad) return `contains ${JSON.stringify(bad[0])}`;
  if (name.includes("--")) return 'contains "--"';
  if (name.includes("..")) return 'contains ".."';
  if (/^[-.]/.test(name) || /[-.]$/.test(name)) return "starts or ends with - or .";
  return null;
}

/** Why a family id cannot stand inside a model id, or null (checked on its own, before any hour is known). */
export function familyNameProblem(family: string): string | null {
  if (family.length === 0) return "is empty";
  const bad = family.match(/[^A-Za-z0-9._-]/);
  if (bad) return `contains ${JSON.stringify(bad[0])}`;
  if (family.includes("--")) return 'contains "--"';
  if (family.includes("..")) return 'contains ".."';
  if (/^[-.]/.test(family) || /[-.]$/.test(family)) return "starts or ends with - or .";
  return null;
}
