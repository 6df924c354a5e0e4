/**
 * Whose a file is (DESIGN.md: Trust). A cache entry is a result the tool
 * takes without recomputing it; one written by another user could hold any
 * number, so only this user's own entries are used.
 */

/** True when a file with these stats belongs to the user running the tool (always true where there are no uids). */
export function isOwnFile(st: { uid: number }): boolean {
  const uid = process.getuid?.();
  return uid === undefined || st.uid === uid;
}
