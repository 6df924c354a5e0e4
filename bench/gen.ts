/**
 * Deterministic generators of large benchmark inputs: driver session
 * logs of the five formats, a PVC `listing.tsv`, a materialised PVC tree, a
 * rotated janitor log, and the embedded sweep with its trajectories padded.
 *
 * Everything is derived from a seeded PRNG: the same arguments give the same
 * bytes. The session logs follow the shape of the real samples in
 * `../shared/samples/trajectories/` (line types and their share of the
 * bytes; see bench/notes.md) and every generator returns the totals the
 * counters must find, so a benchmark also checks the result.
 */
import { createWriteStream, mkdirSync, writeFileSync, type WriteStream } from "node:fs";
import { dirname, join } from "node:path";
import { createGzip } from "node:zlib";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import { mulberry32 } from "../scripts/make-sources/lib.js";

/** The generators' seeded PRNG: the sample-sources generator's mulberry32. */
export const prng = mulberry32;

/** Integer in [lo, hi]. */
function int(r: () => number, lo: number, hi: number): number {
  return lo + Math.floor(r() * (hi - lo + 1));
}

function hex(r: () => number, n: number): string {
  let s = "";
  for (let i = 0; i < n; i += 1) s += "0123456789abcdef"[Math.floor(r() * 16)];
  return s;
}

/** A version-4-looking UUID. */
export function uuid(r: () => number): string {
  return `${hex(r, 8)}-${hex(r, 4)}-4${hex(r, 3)}-a${hex(r, 3)}-${hex(r, 12)}`;
}

const WORDS = (
  "const let def return import from class self this await async for while if else elif try except raise " +
  "print(loss) torch.cuda tokenizer model.train() optimizer.step() lr=3e-5 batch_size=8 grad_accum=4 " +
  "epoch step=1200 eval/accuracy 0.4213 checkpoint saved to /pvc/ptb/weights/step_1200 rollouts/ " +
  'Traceback (most recent call last): File "train.py", line 214, in <module> RuntimeError: CUDA out of memory. ' +
  "def main(): parser = argparse.ArgumentParser() args = parser.parse_args() { } [ ] ( ) => \"value\" 'quoted' " +
  "INFO WARNING DEBUG 2026-10-03 14:22:07 | GPU 0: 79.2 GiB used | throughput 1843 tok/s | ü é 中文 "
).split(" ");

/**
 * A pool of JSON-encoded text blobs (each a JSON string literal, quotes
 * included) with sizes spread log-uniformly between `minBytes` and
 * `maxBytes`: code, logs and prose with newlines, quotes and some non-ASCII.
 */
export function blobPool(seed: number, count: number, minBytes: number, maxBytes: number): string[] {
  const r = prng(seed);
  const out: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const target = Math.round(Math.exp(Math.log(minBytes) + r() * (Math.log(maxBytes) - Math.log(minBytes))));
    let s = "";
    while (s.length < target) {
      s += WORDS[Math.floor(r() * WORDS.length)]!;
      s += r() < 0.12 ? "\n" : r() < 0.05 ? "\t" : " ";
    }
    out.push(JSON.stringify(s));
  }
  return out;
}

/** Buffered writer of text lines to a file. */
export class LineWriter {
  private readonly out: WriteStream;
  private buf: string[] = [];
  private bufLen = 0;
  bytes = 0;
  constructor(path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.out = createWriteStream(path);
  }
  /** Appends `line` and a `\n`. */
  async line(line: string): Promise<void> {
    this.buf.push(line, "\n");
    const n = Buffer.byteLength(line) + 1;
    this.bufLen += n;
    this.bytes += n;
    if (this.bufLen >= 1 << 20) await this.flush();
  }
  private async flush(): Promise<void> {
    const text = this.buf.join("");
    this.buf = [];
    this.bufLen = 0;
    if (!this.out.write(text)) await new Promise<void>((res) => this.out.once("drain", () => res()));
  }
  /** Flushes and closes the file. */
  async close(): Promise<void> {
    await this.flush();
    await new Promise<void>((res, rej) => this.out.end((err?: Error | null) => (err ? rej(err) : res())));
  }
}

/** The four parts the counters report, their total and the calls, summed over a generated run (as `tokens --json` prints them). */
export interface Totals {
  uncached_input: number;
  cache_read: number;
  cache_write: number;
  output: number;
  total: number;
  calls: number;
}

function zeroTotals(): Totals {
  return { uncached_input: 0, cache_read: 0, cache_write: 0, output: 0, total: 0, calls: 0 };
}

function addCall(t: Totals, uncached: number, cacheRead: number, cacheWrite: number, output: number): void {
  t.uncached_input += uncached;
  t.cache_read += cacheRead;
  t.cache_write += cacheWrite;
  t.output += output;
  t.total += uncached + cacheRead + cacheWrite + output;
  t.calls += 1;
}

/** What a format generator writes: files (paths relative to the root), the totals, and how many lines carry usage numbers. */
export interface GeneratedRun {
  files: string[];
  bytes: number;
  totals: Totals;
  /** Lines that carry usage numbers (each a time to parse): repeats, partial responses and `step.end` copies included. */
  usageLines: number;
}

/** Lines carrying usage written so far by the session writers (read and reset by {@link generateSessions}). */
let usageLines = 0;

/** The five formats. */
export const FORMATS = ["codex", "claude-code", "pi", "kimi-cli", "kimi-code"] as const;
export type Format = (typeof FORMATS)[number];

const T0 = Date.UTC(2026, 9, 2, 8, 0, 0);
const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * Writes `fileCount` session files of `format` under `root`, about
 * `totalBytes` in all (equal sizes); see {@link generateSessions}.
 */
export async function generateRun(
  format: Format,
  root: string,
  totalBytes: number,
  fileCount: number,
  seed = 7,
): Promise<GeneratedRun> {
  return generateSessions(
    format,
    root,
    Array.from({ length: fileCount }, () => totalBytes / fileCount),
    seed,
  );
}

/**
 * Writes one session file of `format` per entry of `sizes` (about that many
 * bytes each) under `root`, laid out as the driver lays them out (and as
 * ccusage looks for them: `sessions/YYYY/MM/DD/rollout-*.jsonl` for codex,
 * `projects/<project>/<session>.jsonl` for claude-code, `sessions/<cwd>/...`
 * for pi, `sessions/<hash>/<session>/wire.jsonl` for kimi-cli and
 * `sessions/<hash>/<session>/agents/main/wire.jsonl` for kimi-code).
 * Sessions are independent (their own ids, one after the other in time).
 */
export async function generateSessions(format: Format, root: string, sizes: number[], seed = 7): Promise<GeneratedRun> {
  const r = prng(seed * 1000 + FORMATS.indexOf(format));
  const big = blobPool(seed + 1, 400, 300, 24_000);
  const small = blobPool(seed + 2, 400, 40, 1_500);
  const totals = zeroTotals();
  const files: string[] = [];
  let bytes = 0;
  usageLines = 0;
  let clock = T0;
  for (const perFile of sizes) {
    const id = uuid(r);
    const day = new Date(clock);
    const ymd = [
      day.getUTCFullYear(),
      String(day.getUTCMonth() + 1).padStart(2, "0"),
      String(day.getUTCDate()).padStart(2, "0"),
    ];
    let rel: string;
    switch (format) {
      case "codex":
        rel = `sessions/${ymd.join("/")}/rollout-${iso(clock).slice(0, 19).replace(/:/g, "-")}-${id}.jsonl`;
        break;
      case "claude-code":
        rel = `projects/-workspace-ptb/${id}.jsonl`;
        break;
      case "pi":
        rel = `sessions/--workspace-ptb--/${iso(clock).replace(/[:.]/g, "-")}_${id}.jsonl`;
        break;
      case "kimi-cli":
        rel = `sessions/268c12529e18b9d36e1b371c1776f795/${id}/wire.jsonl`;
        break;
      case "kimi-code":
        rel = `sessions/268c12529e18b9d36e1b371c1776f795/${id}/agents/main/wire.jsonl`;
        break;
    }
    const w = new LineWriter(join(root, rel));
    clock = await SESSION[format](w, r, perFile, clock, id, big, small, totals);
    await w.close();
    bytes += w.bytes;
    files.push(rel);
    clock += 60_000;
  }
  return { files, bytes, totals, usageLines };
}

type SessionWriter = (
  w: LineWriter,
  r: () => number,
  bytes: number,
  clock: number,
  id: string,
  big: string[],
  small: string[],
  totals: Totals,
) => Promise<number>;

const pick = (r: () => number, a: string[]): string => a[Math.floor(r() * a.length)]!;

const SESSION: Record<Format, SessionWriter> = {
  // codex: running totals in token_count lines (some repeated, some heartbeats), response items around them.
  async codex(w, r, bytes, clock, id, big, small, totals) {
    await w.line(
      `{"timestamp":"${iso(clock)}","type":"session_meta","payload":{"id":"${id}","timestamp":"${iso(clock)}","cwd":"/workspace/ptb","originator":"codex_exec","cli_version":"0.104.0","source":"exec","model_provider":"openai","git":{"commit_hash":"${hex(r, 40)}","branch":"main"}}}`,
    );
    let inTot = 0;
    let cachedTot = 0;
    let outTot = 0;
    let reasonTot = 0;
    let turn = 0;
    while (w.bytes < bytes) {
      clock += int(r, 2_000, 40_000);
      if (turn % 8 === 0) {
        await w.line(
          `{"timestamp":"${iso(clock)}","type":"turn_context","payload":{"turn_id":"${uuid(r)}","cwd":"/workspace/ptb","approval_policy":"never","sandbox_policy":{"type":"danger-full-access"},"model":"gpt-5.6-sol","effort":"high","summary":"auto","user_instructions":${pick(r, small)}}}`,
        );
      }
      turn += 1;
      const callId = `call_${hex(r, 24)}`;
      await w.line(
        `{"timestamp":"${iso(clock)}","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":${pick(r, small)}}],"content":null,"encrypted_content":"gAAAAB${hex(r, 200)}"}}`,
      );
      await w.line(
        `{"timestamp":"${iso(clock)}","type":"event_msg","payload":{"type":"agent_reasoning","text":${pick(r, small)}}}`,
      );
      await w.line(
        `{"timestamp":"${iso(clock)}","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":${pick(r, small)},"call_id":"${callId}"}}`,
      );
      const input = int(r, 20_000, 200_000);
      const cached = Math.floor(input * (0.8 + r() * 0.15));
      const output = int(r, 40, 3_000);
      const reasoning = Math.floor(output * r() * 0.6);
      inTot += input;
      cachedTot += cached;
      outTot += output;
      reasonTot += reasoning;
      addCall(totals, input - cached, cached, 0, output);
      const tc =
        `{"timestamp":"${iso(clock)}","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":${inTot},"cached_input_tokens":${cachedTot},"output_tokens":${outTot},"reasoning_output_tokens":${reasonTot},"total_tokens":${inTot + outTot}},` +
        `"last_token_usage":{"input_tokens":${input},"cached_input_tokens":${cached},"output_tokens":${output},"reasoning_output_tokens":${reasoning},"total_tokens":${input + output}},"model_context_window":258400},` +
        `"rate_limits":{"limit_id":"codex","limit_name":null,"primary":{"used_percent":${int(r, 1, 90)}.0,"window_minutes":300,"resets_at":${Math.floor(clock / 1000) + 9000}},"secondary":{"used_percent":${int(r, 1, 60)}.0,"window_minutes":10080,"resets_at":${Math.floor(clock / 1000) + 400000}},"credits":{"has_credits":false,"unlimited":false,"balance":null},"plan_type":null}}}`;
      await w.line(tc);
      usageLines += 1;
      if (r() < 0.3) {
        await w.line(tc.replace(`"timestamp":"${iso(clock)}"`, `"timestamp":"${iso(clock + 3)}"`)); // the same totals again
        usageLines += 1;
      }
      if (r() < 0.1)
        await w.line(
          `{"timestamp":"${iso(clock + 5)}","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{"limit_id":"codex","primary":{"used_percent":3.0,"window_minutes":300}}}}`,
        );
      clock += int(r, 500, 20_000);
      await w.line(
        `{"timestamp":"${iso(clock)}","type":"response_item","payload":{"type":"function_call_output","call_id":"${callId}","output":${pick(r, big)}}}`,
      );
      if (r() < 0.3)
        await w.line(
          `{"timestamp":"${iso(clock)}","type":"response_item","payload":{"type":"function_call_output","call_id":"${callId}","output":${pick(r, big)}}}`,
        );
      if (r() < 0.2)
        await w.line(
          `{"timestamp":"${iso(clock)}","type":"event_msg","payload":{"type":"agent_message","message":${pick(r, small)}}}`,
        );
    }
    return clock;
  },

  // claude-code: each response written as 1-3 lines repeating id, requestId and usage (partial output first).
  async "claude-code"(w, r, bytes, clock, id, big, small, totals) {
    let parent = uuid(r);
    const head = `"isSidechain":false,"userType":"external","cwd":"/workspace/ptb","sessionId":"${id}","version":"2.1.39","gitBranch":"main"`;
    while (w.bytes < bytes) {
      clock += int(r, 2_000, 40_000);
      const msgId = `msg_01${hex(r, 22)}`;
      const reqId = `req_011${hex(r, 21)}`;
      const input = int(r, 1, 30);
      const cacheWrite = int(r, 0, 20_000);
      const cacheRead = int(r, 10_000, 180_000);
      const output = int(r, 20, 4_000);
      addCall(totals, input, cacheRead, cacheWrite, output);
      const blocks = int(r, 1, 3);
      for (let b = 0; b < blocks; b += 1) {
        const last = b === blocks - 1;
        const out = last ? output : int(r, 1, 9);
        const content =
          b === 0 && blocks > 1
            ? `[{"type":"thinking","thinking":${pick(r, small)},"signature":"${hex(r, 120)}"}]`
            : last
              ? `[{"type":"tool_use","id":"toolu_${hex(r, 24)}","name":"Bash","input":{"command":${pick(r, small)}}}]`
              : `[{"type":"text","text":${pick(r, small)}}]`;
        const u = uuid(r);
        await w.line(
          `{"parentUuid":"${parent}",${head},"message":{"model":"claude-opus-5","id":"${msgId}","type":"message","role":"assistant","content":${content},"stop_reason":${last ? '"tool_use"' : "null"},"stop_sequence":null,` +
            `"usage":{"input_tokens":${input},"cache_creation_input_tokens":${cacheWrite},"cache_read_input_tokens":${cacheRead},"cache_creation":{"ephemeral_5m_input_tokens":${cacheWrite},"ephemeral_1h_input_tokens":0},"output_tokens":${out},"service_tier":"standard"}},` +
            `"requestId":"${reqId}","type":"assistant","uuid":"${u}","timestamp":"${iso(clock + b * 40)}"}`,
        );
        usageLines += 1;
        parent = u;
      }
      clock += int(r, 500, 20_000);
      const u = uuid(r);
      await w.line(
        `{"parentUuid":"${parent}",${head},"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_${hex(r, 24)}","type":"tool_result","content":${pick(r, big)},"is_error":false}]},"uuid":"${u}","timestamp":"${iso(clock)}","toolUseResult":{"stdout":${pick(r, big)},"stderr":"","interrupted":false}}`,
      );
      parent = u;
      if (r() < 0.15) {
        await w.line(
          `{"parentUuid":"${parent}",${head},"type":"progress","data":{"type":"hook_progress","hookEvent":"PostToolUse","hookName":"PostToolUse:Bash","command":"true"},"timestamp":"${iso(clock)}","uuid":"${uuid(r)}"}`,
        );
      }
    }
    return clock;
  },

  // pi: a session header, then assistant entries with usage and tool results.
  async pi(w, r, bytes, clock, id, big, small, totals) {
    await w.line(`{"type":"session","version":3,"id":"${id}","timestamp":"${iso(clock)}","cwd":"/workspace/ptb"}`);
    let parent: string | null = null;
    while (w.bytes < bytes) {
      clock += int(r, 2_000, 40_000);
      const input = int(r, 100, 8_000);
      const cacheRead = int(r, 10_000, 180_000);
      const cacheWrite = int(r, 0, 5_000);
      const output = int(r, 20, 4_000);
      addCall(totals, input, cacheRead, cacheWrite, output);
      const eid = hex(r, 8);
      await w.line(
        `{"type":"message","id":"${eid}","parentId":${parent === null ? "null" : `"${parent}"`},"timestamp":"${iso(clock)}","message":{"role":"assistant","content":[{"type":"thinking","thinking":${pick(r, small)}},{"type":"toolCall","id":"call_${hex(r, 20)}","name":"bash","arguments":{"command":${pick(r, small)}}}],` +
          `"api":"openai-completions","provider":"xai","model":"grok-4.6","usage":{"input":${input},"output":${output},"cacheRead":${cacheRead},"cacheWrite":${cacheWrite},"totalTokens":${input + output + cacheRead + cacheWrite},"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":${clock - 3000}}}`,
      );
      usageLines += 1;
      parent = eid;
      clock += int(r, 500, 20_000);
      const tid = hex(r, 8);
      await w.line(
        `{"type":"message","id":"${tid}","parentId":"${parent}","timestamp":"${iso(clock)}","message":{"role":"toolResult","toolCallId":"call_${hex(r, 20)}","toolName":"bash","content":[{"type":"text","text":${pick(r, big)}}],"isError":false,"timestamp":${clock}}}`,
      );
      parent = tid;
    }
    return clock;
  },

  // kimi-cli: Python-style JSON (spaces after separators), StatusUpdate usage per step, big ToolResults.
  async "kimi-cli"(w, r, bytes, clock, id, big, small, totals) {
    await w.line(`{"type": "metadata", "protocol_version": "1.4"}`);
    let n = 0;
    const ts = (): string => (clock / 1000 + r() * 0.001).toFixed(7);
    while (w.bytes < bytes) {
      clock += int(r, 2_000, 40_000);
      n += 1;
      await w.line(`{"timestamp": ${ts()}, "message": {"type": "StepBegin", "payload": {"n": ${n}}}}`);
      await w.line(
        `{"timestamp": ${ts()}, "message": {"type": "ContentPart", "payload": {"type": "think", "think": ${pick(r, small)}}}}`,
      );
      const callId = `tool_${hex(r, 24)}`;
      await w.line(
        `{"timestamp": ${ts()}, "message": {"type": "ToolCall", "payload": {"type": "function", "id": "${callId}", "function": {"name": "Shell", "arguments": ${pick(r, small)}}}}}`,
      );
      const input = int(r, 100, 8_000);
      const cacheRead = int(r, 10_000, 180_000);
      const output = int(r, 20, 4_000);
      addCall(totals, input, cacheRead, 0, output);
      await w.line(
        `{"timestamp": ${ts()}, "message": {"type": "StatusUpdate", "payload": {"context_usage": 0.${int(r, 10, 99)}, "context_tokens": ${input + cacheRead}, "max_context_tokens": 262144, "token_usage": {"input_other": ${input}, "output": ${output}, "input_cache_read": ${cacheRead}, "input_cache_creation": 0}, "message_id": "chatcmpl-${id.slice(0, 8)}-${n}", "plan_mode": false}}}`,
      );
      usageLines += 1;
      clock += int(r, 500, 20_000);
      await w.line(
        `{"timestamp": ${ts()}, "message": {"type": "ToolResult", "payload": {"tool_call_id": "${callId}", "return_value": {"is_error": false, "output": ${pick(r, big)}, "message": "", "display": []}}}}`,
      );
    }
    return clock;
  },

  // kimi-code: usage.record per request, repeated in step.end (not counted), content in loop events.
  async "kimi-code"(w, r, bytes, clock, _id, big, small, totals) {
    await w.line(`{"type":"metadata","protocol_version":"1.4","created_at":${clock}}`);
    let step = 0;
    while (w.bytes < bytes) {
      clock += int(r, 2_000, 40_000);
      step += 1;
      await w.line(
        `{"type":"llm.request","kind":"loop","provider":"moonshot","model":"kimi-k3","thinkingEffort":"high","maxTokens":262044,"messageCount":${step * 2},"turnStep":"0.${step}","time":${clock - 4000}}`,
      );
      await w.line(
        `{"type":"context.append_loop_event","event":{"type":"content.part","uuid":"${uuid(r)}","turnId":"0","step":${step},"part":{"type":"think","think":${pick(r, small)}}},"time":${clock - 1000}}`,
      );
      const input = int(r, 100, 8_000);
      const cacheRead = int(r, 10_000, 180_000);
      const output = int(r, 20, 4_000);
      addCall(totals, input, cacheRead, 0, output);
      const usage = `{"inputOther":${input},"output":${output},"inputCacheRead":${cacheRead},"inputCacheCreation":0}`;
      await w.line(`{"type":"usage.record","model":"kimi-k3","usage":${usage},"usageScope":"turn","time":${clock}}`);
      await w.line(
        `{"type":"context.append_loop_event","event":{"type":"step.end","uuid":"${uuid(r)}","turnId":"0","step":${step},"finishReason":"tool_use","usage":${usage},"messageId":"${uuid(r)}"},"time":${clock + 4}}`,
      );
      usageLines += 2; // usage.record and its step.end copy
      clock += int(r, 500, 20_000);
      await w.line(
        `{"type":"context.append_loop_event","event":{"type":"tool.result","uuid":"${uuid(r)}","toolCallId":"tool_${hex(r, 24)}","output":${pick(r, big)}},"time":${clock}}`,
      );
    }
    return clock;
  },
};

/**
 * Writes a `find -printf '%T@\t%y\t%s\t%p\n'` listing of about `lines` lines
 * for `pvcRoot`: families with `weights/step_N` (STABLE, config, shards),
 * `checkpoints/`, `rollouts/` and many log files. Returns its byte size.
 */
export async function generateListing(
  path: string,
  lines: number,
  pvcRoot = "/pvc/ptb/bench",
  seed = 11,
): Promise<number> {
  const r = prng(seed);
  const w = new LineWriter(path);
  let t = T0 / 1000;
  let n = 0;
  const entry = async (type: string, size: number, p: string): Promise<void> => {
    t += r() * 2;
    const frac = String(int(r, 0, 999_999_999)).padStart(9, "0");
    await w.line(`${Math.floor(t)}.${frac}0\t${type}\t${size}\t${p}`);
    n += 1;
  };
  await entry("d", 4096, pvcRoot);
  let fam = 0;
  while (n < lines) {
    const family = `${pvcRoot}/${fam % 3 === 0 ? "runs/" : ""}sft-${fam}`;
    fam += 1;
    await entry("d", 4096, family);
    for (let step = 100; step <= 6000 && n < lines; step += 100) {
      for (const sub of ["weights", "checkpoints", "rollouts"]) {
        const dir = `${family}/${sub}/step_${step}`;
        await entry("d", 4096, dir);
        if (sub === "weights") {
          await entry("f", 0, `${dir}/STABLE`);
          await entry("f", 1234, `${dir}/config.json`);
          for (let s = 1; s <= 4; s += 1) await entry("f", 4_900_000_000, `${dir}/model-0000${s}-of-00004.safetensors`);
        } else {
          const files = sub === "rollouts" ? 40 : 6;
          for (let k = 0; k < files; k += 1)
            await entry("f", int(r, 100, 9_000_000), `${dir}/part ${k}.${sub === "rollouts" ? "jsonl" : "pt"}`);
        }
      }
      for (let k = 0; k < 20; k += 1)
        await entry(
          "f",
          int(r, 100, 900_000),
          `${family}/logs/attempt_${Math.floor(step / 2000)}/rank_${k}/step_${step}.log`,
        );
    }
  }
  await w.close();
  return w.bytes;
}

/**
 * Writes a rotated janitor log of about `totalBytes` (uncompressed) under
 * `dir`: `ckpt-janitor.log.4.gz` … `.2.gz`, `.1` and `ckpt-janitor.log`,
 * oldest first, v1 and v2 lines mixed, tracebacks and verbose scan lines, a
 * line split across each rotation. Returns the part names and sizes.
 */
export async function generateJanitor(
  dir: string,
  totalBytes: number,
  pvcRoot = "/pvc/ptb/bench",
  seed = 13,
): Promise<{ parts: string[]; bytes: number }> {
  const r = prng(seed);
  mkdirSync(dir, { recursive: true });
  const names = [
    "ckpt-janitor.log.4.gz",
    "ckpt-janitor.log.3.gz",
    "ckpt-janitor.log.2.gz",
    "ckpt-janitor.log.1",
    "ckpt-janitor.log",
  ];
  const per = totalBytes / names.length;
  let t = T0;
  let step = 0;
  let bytes = 0;
  let carry = "";
  for (let i = 0; i < names.length; i += 1) {
    const chunks: string[] = [];
    let size = 0;
    const push = (line: string): void => {
      chunks.push(line, "\n");
      size += line.length + 1;
    };
    if (carry) push(carry);
    while (size < per) {
      t += int(r, 1_000, 20_000);
      const v2 = new Date(t).toISOString().replace("Z", "+00:00");
      // Mostly verbose scan lines, as a 1 GB log would be; lines naming a checkpoint are
      // rare (a run archives a few thousand checkpoints, whatever its log's verbosity).
      const k = r();
      if (k < 0.9965) {
        if (k < 0.99)
          push(
            `${v2} level=debug msg=scan dir=${pvcRoot}/sft-${int(r, 0, 9)}/weights entries=${int(r, 10, 90)} free_gib=${int(r, 100, 900)}.${int(r, 0, 9)} took_ms=${int(r, 3, 900)}`,
          );
        else push(`janitor starting: pvc_root=${pvcRoot} interval=600s keep_last=3`);
      } else if (k < 0.9975) {
        step += 100;
        push(
          `${v2} level=info action=archive family=sft-${step % 7} step=${step} src_mtime=${((t - 400_000) / 1000).toFixed(3)} dest=msr-spare/bench.sft-${step % 7}.step_${step}`,
        );
      } else if (k < 0.998) {
        const d = new Date(t).toISOString();
        push(
          `${d.slice(0, 10)} ${d.slice(11, 19)} archived ${pvcRoot}/sft-${step % 7}/weights/step_${step} -> msr-spare/bench.sft-${step % 7}.step_${step}`,
        );
      } else if (k < 0.9995) {
        push(`${v2} level=info action=skip family=sft-${step % 7} step=${step} reason=recent`);
      } else {
        push(`${v2} level=error action=error family=sft-${step % 7} step=${step} msg="upload failed"`);
        push("Traceback (most recent call last):");
        push('  File "/app/janitor.py", line 88, in archive');
        push("    api.upload_folder(folder_path=path, repo_id=dest)");
        push(
          "requests.exceptions.ConnectionError: ('Connection aborted.', RemoteDisconnected('Remote end closed connection'))",
        );
      }
    }
    // Split the last line across the rotation (copytruncate).
    let text = chunks.join("");
    carry = "";
    if (i < names.length - 1) {
      const lastStart = text.lastIndexOf("\n", text.length - 2) + 1;
      const cut = lastStart + Math.floor((text.length - 1 - lastStart) / 2);
      carry = text.slice(cut, text.length - 1);
      text = text.slice(0, cut);
    }
    const path = join(dir, names[i]!);
    if (names[i]!.endsWith(".gz"))
      await pipeline(Readable.from([Buffer.from(text)]), createGzip({ level: 1 }), createWriteStream(path));
    else writeFileSync(path, text);
    bytes += Buffer.byteLength(text);
  }
  return { parts: names, bytes };
}

/**
 * Materialises a PVC tree of about `entries` entries (directories and empty
 * files, with set mtimes) under `root`, shaped like the listing above.
 * Returns the number of entries made (the root included).
 */
export async function generateTree(root: string, entries: number, seed = 17): Promise<number> {
  const { mkdir, writeFile, utimes } = await import("node:fs/promises");
  const r = prng(seed);
  let n = 1;
  await mkdir(root, { recursive: true });
  let fam = 0;
  const pending: Promise<void>[] = [];
  const flush = async (): Promise<void> => {
    await Promise.all(pending.splice(0));
  };
  while (n < entries) {
    const family = join(root, fam % 3 === 0 ? "runs" : "", `sft-${fam}`);
    fam += 1;
    for (let step = 100; step <= 6000 && n < entries; step += 100) {
      for (const sub of ["weights", "checkpoints", "rollouts"]) {
        const dir = join(family, sub, `step_${step}`);
        await mkdir(dir, { recursive: true });
        n += 1;
        const names =
          sub === "weights"
            ? ["STABLE", "config.json", "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]
            : Array.from({ length: sub === "rollouts" ? 30 : 5 }, (_, k) => `part ${k}.bin`);
        for (const name of names) {
          const p = join(dir, name);
          const t = (T0 + step * 60_000 + r() * 1000) / 1000;
          pending.push(writeFile(p, "").then(() => utimes(p, t, t)));
          n += 1;
        }
        if (pending.length >= 256) await flush();
      }
    }
    await flush();
  }
  await flush();
  return n;
}

/** Padding lines that carry no usage, per format, as `(previous line, blob) => line`. */
const PAD: Record<Format, (prev: string, blob: string, k: number) => string | null> = {
  codex(prev, blob) {
    const m = /^\{"timestamp":"([^"]+)"/.exec(prev);
    return m
      ? `{"timestamp":"${m[1]}","type":"response_item","payload":{"type":"function_call_output","call_id":"call_pad","output":${blob}}}`
      : null;
  },
  "claude-code"(prev, blob, k) {
    const m = /"timestamp":"([^"]+)"/.exec(prev);
    return `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_pad","content":${blob}}]},"uuid":"pad-${k}"${m ? `,"timestamp":"${m[1]}"` : ""}}`;
  },
  pi(prev, blob, k) {
    const m = /"timestamp":"([^"]+)"/.exec(prev);
    return `{"type":"message","id":"pad${k}","timestamp":"${m ? m[1] : "2026-10-02T08:00:00.000Z"}","message":{"role":"toolResult","toolCallId":"pad","toolName":"bash","content":[{"type":"text","text":${blob}}],"isError":false}}`;
  },
  "kimi-cli"(_prev, blob) {
    return `{"message": {"type": "ToolResult", "payload": {"tool_call_id": "pad", "return_value": {"is_error": false, "output": ${blob}}}}}`;
  },
  "kimi-code"(_prev, blob) {
    return `{"type":"context.append_loop_event","event":{"type":"tool.result","toolCallId":"pad","output":${blob}}}`;
  },
};

/**
 * Writes `text` (a session file of `format`) to `path` with padding lines that
 * carry no usage inserted after its complete lines (never before a pi header,
 * never after a last line without a line end), until it is about `factor`
 * times as large. The counted calls, their times and the totals do not
 * change. Returns the bytes written.
 */
export async function padSession(
  format: Format,
  text: string,
  factor: number,
  blobs: string[],
  r: () => number,
  path: string,
): Promise<number> {
  const lines = text.split("\n");
  const out = createWriteStream(path);
  let pending: string[] = [];
  let pendingLen = 0;
  let written = 0;
  const put = async (piece: string): Promise<void> => {
    pending.push(piece);
    pendingLen += piece.length;
    written += Buffer.byteLength(piece);
    if (pendingLen >= 1 << 20) {
      const chunk = pending.join("");
      pending = [];
      pendingLen = 0;
      if (!out.write(chunk)) await new Promise<void>((res) => out.once("drain", () => res()));
    }
  };
  const want = text.length * factor;
  let size = 0;
  let k = 0;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i]!;
    const complete = i < lines.length - 1;
    await put(complete ? `${line}\n` : line);
    size += line.length + 1;
    if (!complete || line.trim() === "") continue;
    const target = (want * (i + 1)) / lines.length;
    while (size < target) {
      const pad = PAD[format](line, pick(r, blobs), k++);
      if (pad === null) break;
      await put(`${pad}\n`);
      size += pad.length + 1;
    }
  }
  out.write(pending.join(""));
  await new Promise<void>((res, rej) => out.end((err?: Error | null) => (err ? rej(err) : res())));
  return written;
}
