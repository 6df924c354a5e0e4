/**
 * The layers of DESIGN.md ("Layers"), checked by `npm test` (`npm run deps`).
 * Arrows only point down:
 *
 *   cli.ts
 *   commands/            one file per command; no command imports another
 *   library              pipeline/ audit/ cost/ diff/ publish/ manifest/ writers/ cache/ options.ts model.ts
 *   resolve/             pure steps
 *   extractors/          bytes/lines -> observations
 *   sources/             the layout; snapshot | live PVC | live Hub behind one interface
 *   hub/                 the Hub client (live sources, publish)
 *   util/                generic helpers
 *   bottom               errors.ts diagnostics/ diagnostics.ts schema.ts trajectory-formats.ts observations.ts version.ts
 */
const LIBRARY = "^src/(pipeline|audit|cost|diff|publish|manifest|writers|cache)/|^src/(options|build|model)\\.ts$";
const BOTTOM = "^src/(errors|diagnostics|schema|trajectory-formats|observations|version)\\.ts$|^src/diagnostics/";
const layer = (name, from, allowed) => ({
  name,
  severity: "error",
  comment: `${name}: may import only ${allowed}`,
  from: { path: from },
  to: { path: "^src/", pathNot: allowed },
});

module.exports = {
  forbidden: [
    { name: "no-circular", severity: "error", from: {}, to: { circular: true } },
    {
      name: "not-to-cli",
      severity: "error",
      comment: "nothing imports the CLI entry",
      from: { path: "^src/" },
      to: { path: "^src/cli\\.ts$" },
    },
    {
      name: "not-to-commands",
      severity: "error",
      comment: "only the CLI imports a command",
      from: { path: "^src/", pathNot: "^src/cli\\.ts$" },
      to: { path: "^src/commands/" },
    },
    layer("library", LIBRARY, `${LIBRARY}|^src/(resolve|extractors|sources|hub|util)/|${BOTTOM}`),
    {
      name: "writers-not-pipeline",
      severity: "error",
      comment: "writers render; they do not import the pipeline",
      from: { path: "^src/writers/" },
      to: { path: "^src/(pipeline/|build\\.ts$|cache/)" },
    },
    layer("resolve", "^src/resolve/", `^src/(resolve|extractors|sources|hub|util)/|${BOTTOM}`),
    layer("extractors", "^src/extractors/", `^src/(extractors|sources|hub|util)/|${BOTTOM}`),
    layer("sources", "^src/sources/", `^src/(sources|hub|util)/|${BOTTOM}`),
    layer("hub", "^src/hub/", `^src/(hub|util)/|${BOTTOM}`),
    layer("util", "^src/util/", `^src/util/|${BOTTOM}`),
    layer("bottom", BOTTOM, BOTTOM),
    {
      name: "no-orphans",
      severity: "error",
      comment: "a module nothing imports is dead code (knip says which exports)",
      from: { orphan: true, path: "^src/", pathNot: "^src/(cli|version)\\.ts$|\\.d\\.ts$" },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
  },
};
