/**
 * Which recorded inputs a live source replaces (MANIFEST.md: build-report.json
 * `inputs`): the snapshot files under these prefixes are not inputs of a
 * build that read the same data live, so they are neither recorded
 * (`build`) nor compared (`explain`, `validate`).
 */

/** The live sources of a build: `--hub`, and the cells of `--pvc CELL=DIR` and `--trajectory CELL=DIR`. */
export interface LiveSources {
  hub?: boolean;
  pvc?: Record<string, unknown>;
  trajectory?: Record<string, unknown>;
}

/**
 * The input path prefixes a live source replaces: `hub/` with `--hub`,
 * `<cell>/pvc/` per `--pvc` cell, `<cell>/trajectory/` per `--trajectory`
 * cell, in that order.
 */
export function liveReplacedPrefixes(live: LiveSources): string[] {
  return [
    ...(live.hub ? ["hub/"] : []),
    ...Object.keys(live.pvc ?? {}).map((c) => `${c}/pvc/`),
    ...Object.keys(live.trajectory ?? {}).map((c) => `${c}/trajectory/`),
  ];
}

/** Whether the input path `key` (relative to the sources folder) lies under one of `prefixes`. */
export function isReplaced(key: string, prefixes: string[]): boolean {
  return prefixes.some((p) => key.startsWith(p));
}
