/** The tool's version, recorded in build-report.json. Keep in step with package.json. */
export const VERSION = "0.1.0";
