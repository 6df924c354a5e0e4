/**
 * Whose a file is (DESIGN.md: Trust). A cache entry is a result the tool
 * takes without recomputing it; one written by another user could hold any
 * number, so only this user's own entries are used.
 */

/**
 * True when a file with these stats belongs to the user running the tool
 * (any owner where there are no uids) and no one else may write it (no group
 * or other write bit: a group member could edit it in place, keeping its
 * owner).
 */
export function isOwnFile(st: { uid: number; mode: number }): boolean {
  const uid = process.getuid?.();
  return (uid === undefined || st.uid === uid) && (st.mode & 0o022) === 0;
}
