/**
 * `npm run bench:startup`: the CLI's start-up time, for the lazy loading of
 * commands (DESIGN.md, "Layers": cli.ts lazy-imports the ONE command it runs).
 *
 * Runs `node <bin> --help` and `node <bin> tokens --help` as child processes,
 * `--runs N` times each (default 20), interleaved with a bare `node -e ""` so
 * that the three see the same load, and prints the best and the median wall
 * time of each in ms (and the CPU time, user + system), with the load average (1 min) before and after and the
 * core count: on a shared machine only the best of N is comparable between
 * two runs. `--bin PATH` measures another checkout's `bin/ptb-manifest.js`
 * (default this one's; run `npm run build` first, which the npm script does).
 */
import { spawnSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { resolve } from "node:path";

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const runs = Number(opt("--runs") ?? 20);
const bin = resolve(opt("--bin") ?? resolve(import.meta.dirname, "..", "bin", "ptb-manifest.js"));

const cases: [string, string[]][] = [
  ["node -e ''", ["-e", ""]],
  ["--help", [bin, "--help"]],
  ["tokens --help", [bin, "tokens", "--help"]],
];

/**
 * Wall time and CPU time (user + system, from `/usr/bin/time`, which a busy
 * machine inflates far less than the wall time) of one run of `node ...argv`,
 * in ms; throws when it fails.
 */
function timeOnce(argv: string[]): { wall: number; cpu: number } {
  const r = spawnSync("/usr/bin/time", ["-f", "TIME %e %U %S", process.execPath, ...argv], {
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
  });
  const m = /TIME ([\d.]+) ([\d.]+) ([\d.]+)\s*$/.exec(r.stderr);
  if (r.status !== 0 || !m) throw new Error(`node ${argv.join(" ")}: exit ${r.status}\n${r.stderr}`);
  return { wall: Number(m[1]) * 1000, cpu: (Number(m[2]) + Number(m[3])) * 1000 };
}

const times = new Map<string, { wall: number; cpu: number }[]>(cases.map(([name]) => [name, []]));
const loadBefore = loadavg()[0]!;
for (const [, argv] of cases) timeOnce(argv); // warm the page cache
for (let i = 0; i < runs; i += 1) for (const [name, argv] of cases) times.get(name)!.push(timeOnce(argv));
const loadAfter = loadavg()[0]!;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const out = [
  `start-up of ${bin} (node ${process.version}, ${cpus().length} cores, load average ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after; ${runs} runs each)`,
  "",
  "| command | wall ms, best | wall ms, median | CPU ms (user + sys), best | CPU ms, median |",
  "|---|---:|---:|---:|---:|",
  ...cases.map(([name]) => {
    const wall = times.get(name)!.map((t) => t.wall);
    const cpu = times.get(name)!.map((t) => t.cpu);
    const f = (x: number) => x.toFixed(0);
    return `| \`${name}\` | ${f(Math.min(...wall))} | ${f(median(wall))} | ${f(Math.min(...cpu))} | ${f(median(cpu))} |`;
  }),
];
process.stdout.write(`${out.join("\n")}\n`);
