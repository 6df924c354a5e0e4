/**
 * Roles (MANIFEST.md: role; SOURCES.md: supervisor): the last `submit` is the
 * SUBMITTED checkpoint; every `fallback` is a fallback; every other row is
 * intermediate. Events give the role, never the hour.
 */
import type { Role } from "../schema.js";
import type { Diagnostics } from "../diagnostics.js";
import type { Observation } from "../observations.js";
import { candidateKey } from "./decision.js";

/** A checkpoint's role and the event that gives it. */
export interface RoleOf {
  role: Role;
  event: Observation;
}

/**
 * The role of each checkpoint named by a role event, keyed by
 * {@link candidateKey}: every fallback, then the last submit (which wins).
 * Warns `SUPERVISOR_UNKNOWN_CHECKPOINT` for an event naming a checkpoint no
 * other source shows (`known` lacks its key); one naming a lost checkpoint was
 * reported with it.
 */
export function rolesOf(
  roleEvents: readonly Observation[],
  known: ReadonlySet<string>,
  diag: Diagnostics,
): Map<string, RoleOf> {
  const roleOf = new Map<string, RoleOf>();
  const events = [...roleEvents].sort((a, b) => a.seq - b.seq);
  for (const ev of events.filter((e) => e.detail.role === "fallback"))
    roleOf.set(candidateKey(ev.family, ev.step), { role: "fallback", event: ev });
  // A submit that a later, unreadable one may replace gives no role (SUPERVISOR_SUBMIT_UNREADABLE).
  const submits = events.filter((e) => e.detail.role === "SUBMITTED" && e.detail.inDoubtFromLine === undefined);
  const lastSubmit = submits[submits.length - 1];
  if (lastSubmit)
    roleOf.set(candidateKey(lastSubmit.family, lastSubmit.step), { role: "SUBMITTED", event: lastSubmit });
  for (const ev of events) {
    if (!known.has(candidateKey(ev.family, ev.step))) warnUnknownCheckpoint(ev, diag);
  }
  return roleOf;
}

/**
 * Warns `SUPERVISOR_UNKNOWN_CHECKPOINT` (SOURCES.md: supervisor/history.jsonl) for a
 * `supervisor_role` observation whose checkpoint has no row: "<role> names
 * <path>, which has no row", at the supervisor line it came from.
 */
export function warnUnknownCheckpoint(ev: Observation, diag: Diagnostics): void {
  diag.warn(
    "SUPERVISOR_UNKNOWN_CHECKPOINT",
    `${ev.detail.role} names ${ev.detail.path}, which has no row`,
    ev.origin.file,
    ev.origin.line,
  );
}
