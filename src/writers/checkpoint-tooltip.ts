/**
 * The text a page shows for one checkpoint (hover, keyboard focus): the
 * manifest row's fields a reader needs to trust a point, in MANIFEST.md's
 * terms. Shared by report.html and cost.html so both say the same.
 */
import type { Row } from "../schema.js";

/** An hour (budget hours) as written on the pages: two decimals, or "null". */
function hourText(h: number | null): string {
  return h === null ? "null" : h.toFixed(2);
}

/**
 * What bounds the hour of `row` (MANIFEST.md, "hour_lower_bound",
 * "hour_upper_bound", "hour_error_h"): the ± error of an extrapolated hour,
 * the interval of an unrecoverable one (an open side is "open"), "exact" for
 * mtime and janitor hours, "" for the baseline.
 */
function hourBoundsText(row: Row): string {
  if (row.hour_source === "extrapolated") {
    return row.hour_error_h === null ? "error unknown" : `± ${row.hour_error_h.toFixed(2)} h`;
  }
  if (row.hour_source === "unrecoverable") {
    const lo = row.hour_lower_bound === null ? "open" : hourText(row.hour_lower_bound);
    const hi = row.hour_upper_bound === null ? "open" : hourText(row.hour_upper_bound);
    return `between ${lo} and ${hi}`;
  }
  if (row.hour_source === "baseline") return "";
  return "exact";
}

/** `eos_ok` as a reader sees it: "ok", "BROKEN" or "unknown", with the ids. */
function eosText(row: Row): string {
  const ids = row.eos_token_id === null ? "ids unknown" : `ids ${row.eos_token_id.join(", ")}`;
  const ok = row.eos_ok === null ? "unknown" : row.eos_ok ? "ok" : "BROKEN";
  return `${ok} (${ids})`;
}

/**
 * The tooltip lines of one checkpoint, in a fixed order: model id; hour and
 * hour_source with its bounds or error; driver tokens at that hour (or
 * "unknown" when null); role; eos; source. Plain text (the page escapes it).
 */
export function checkpointTooltip(row: Row): string[] {
  const bounds = hourBoundsText(row);
  const tokens = row.driver_tokens_at_hour === null ? "unknown" : row.driver_tokens_at_hour.toLocaleString("en-US");
  return [
    row.model_id,
    `hour ${hourText(row.hour)} (${row.hour_source}${bounds ? `, ${bounds}` : ""})`,
    `driver tokens at hour: ${tokens}`,
    `role: ${row.role}`,
    `eos: ${eosText(row)}`,
    `source: ${row.source}`,
  ];
}
