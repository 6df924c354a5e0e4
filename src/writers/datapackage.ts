import { createHash } from "node:crypto";
import { z } from "zod";
import { HOUR_SOURCES, ROLES, RowSchema, ROW_KEYS } from "../schema.js";

/**
 * `manifest.schema.json`: the JSON Schema of `manifest.json`, generated from
 * the zod row schema (never written by hand), draft 2020-12.
 */
export function manifestJsonSchema(): string {
  const schema = z.toJSONSchema(z.array(RowSchema), { target: "draft-2020-12" }) as Record<string, unknown>;
  return `${JSON.stringify({ ...schema, $id: "manifest.schema.json", title: "AgentPTB checkpoint index manifest" }, null, 2)}\n`;
}

type FieldType = "string" | "number" | "integer" | "boolean" | "array";

/** Table Schema type of each column, as `manifest.csv` writes it. */
const FIELD_TYPES: Record<(typeof ROW_KEYS)[number], FieldType> = {
  model_id: "string",
  cell: "string",
  driver: "string",
  effort: "string",
  hour: "number",
  hour_source: "string",
  hour_upper_bound: "number",
  driver_tokens_at_hour: "integer",
  role: "string",
  eos_ok: "boolean",
  eos_token_id: "array",
  source: "string",
  family: "string",
  step: "integer",
  hour_lower_bound: "number",
  hour_error_h: "number",
};

/** Whether a column can be null (from the zod schema). */
function nullable(key: (typeof ROW_KEYS)[number]): boolean {
  return RowSchema.shape[key].safeParse(null).success;
}

/**
 * `datapackage.json` (Frictionless Data Package v2): one tabular resource,
 * `manifest.csv`, with its Table Schema (field types, `hour_source` and
 * `role` categories, primary key `model_id`, empty field as missing value),
 * byte size and sha256 hash.
 */
export function dataPackage(csv: string, opts: { name: string; title: string }): string {
  const bytes = Buffer.byteLength(csv);
  const fields = ROW_KEYS.map((key) => {
    const field: Record<string, unknown> = { name: key, type: FIELD_TYPES[key] };
    if (key === "eos_ok") Object.assign(field, { trueValues: ["true"], falseValues: ["false"] });
    const constraints: Record<string, unknown> = {};
    if (!nullable(key)) constraints.required = true;
    if (key === "model_id") constraints.unique = true;
    if (key === "hour_source") {
      field.categories = [...HOUR_SOURCES];
      constraints.enum = [...HOUR_SOURCES];
    }
    if (key === "role") {
      field.categories = [...ROLES];
      constraints.enum = [...ROLES];
    }
    if (Object.keys(constraints).length) field.constraints = constraints;
    return field;
  });
  const pkg = {
    $schema: "https://datapackage.org/profiles/2.0/datapackage.json",
    name: opts.name,
    title: opts.title,
    resources: [
      {
        name: "manifest",
        path: "manifest.csv",
        type: "table",
        format: "csv",
        mediatype: "text/csv",
        encoding: "utf-8",
        bytes,
        hash: `sha256:${createHash("sha256").update(csv).digest("hex")}`,
        dialect: {
          $schema: "https://datapackage.org/profiles/2.0/tabledialect.json",
          header: true,
          delimiter: ",",
          lineTerminator: "\n",
          quoteChar: '"',
          doubleQuote: true,
        },
        schema: {
          $schema: "https://datapackage.org/profiles/2.0/tableschema.json",
          fields,
          primaryKey: ["model_id"],
          missingValues: [""],
        },
      },
    ],
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}
