/**
 * Trajectory renderers: write each session's clean calls in the driver's own
 * format, with the messiness TRAJECTORIES.md documents.
 */
import { Rng, fmtTz, iso } from "./lib.js";
import type { Call, SessionCalls } from "./calls.js";
import type { CellModel } from "./model.js";
import type { Files } from "./render.js";

const J = JSON.stringify;

function _byName(ss: SessionCalls[], n: string | undefined): SessionCalls {
  const s = ss.find((x) => x.spec.name === n);
  if (!s) throw new Error(`no session ${n}`);
  return s;
}

const COMMANDS = [
  "tail -n 40 logs/attempt_0/trainer.log",
  "nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv",
  "python scripts/eval.py --ckpt latest --suite quick",
  "ls -la weights/",
  "cat configs/grpo.toml",
  "du -sh /pvc/ptb/*",
  "uv run prime-rl train --config configs/sft.toml",
  "grep -n loss logs/attempt_1/trainer.log | tail -5",
];

// ---------------------------------------------------------------- codex

interface CodexUsage {
  input_tokens: number;
  cached_input_tokens: number;
  cache_write_input_tokens?: number;
  output_tokens: number;
  reasoning_output_tokens: number;
  total_tokens: number;
}

function codexUsage(u: number, r: number, w: number, o: number, reasoning: number, newer: boolean): CodexUsage {
  const x: CodexUsage = {
    input_tokens: u + r + w,
    cached_input_tokens: r,
    output_tokens: o,
    reasoning_output_tokens: reasoning,
    total_tokens: u + r + w + o,
  };
  if (newer) {
    return {
      input_tokens: x.input_tokens,
      cached_input_tokens: r,
      cache_write_input_tokens: w,
      output_tokens: o,
      reasoning_output_tokens: reasoning,
      total_tokens: x.total_tokens,
    };
  }
  return x;
}

export function renderCodex(m: CellModel, ss: SessionCalls[], files: Files, base: string): void {
  const rng = new Rng(`codex:${m.spec.cell}`);
  const fileOf = new Map<string, { path: string; lines: string[]; thread: string }>();
  // running totals per thread: [u, r, w, o, reasoning]
  const totals = new Map<string, number[]>();
  const tcLines = new Map<string, { ms: number; p: string; tot: number[] }[]>(); // thread -> token_count payloads (for replay)
  const rl = (t: number) => ({
    primary: {
      used_percent: Math.round(rng.uniform(2, 60)),
      window_minutes: 300,
      resets_at: Math.floor(t / 1000) + 9000,
    },
    secondary: null,
  });
  const line = (t: number, type: string, payload: unknown) => J({ timestamp: iso(t), type, payload });
  const ordered = ss.slice().sort((a, b) => a.spec.from - b.spec.from);
  for (const s of ordered) {
    const sp = s.spec;
    const newer = !!sp.extra?.newer;
    const startMs = s.calls[0] ? s.calls[0].ms - rng.int(30_000, 80_000) : m.clock.wallOf(sp.from);
    let f: { path: string; lines: string[]; thread: string };
    if (sp.kind === "resume") {
      f = fileOf.get(sp.parent!)!;
      fileOf.set(sp.name, f);
      f.lines.push(
        line(startMs, "turn_context", {
          cwd: "/workspace/ptb",
          approval_policy: "never",
          sandbox_policy: { type: "danger-full-access" },
          model: "gpt-5.6-sol",
          effort: m.spec.effort,
          summary: "auto",
        }),
      );
      f.lines.push(
        line(startMs, "event_msg", { type: "task_started", turn_id: rng.uuid(), model_context_window: 400000 }),
      );
    } else {
      const thread = rng.uuid7(startMs);
      const local = fmtTz(startMs, "Europe/Paris", "yyyy-MM-dd'T'HH-mm-ss");
      const day = fmtTz(startMs, "Europe/Paris", "yyyy/MM/dd");
      f = { path: `${base}/sessions/${day}/rollout-${local}-${thread}.jsonl`, lines: [], thread };
      fileOf.set(sp.name, f);
      const meta: Record<string, unknown> = {
        id: thread,
        timestamp: iso(startMs),
        cwd: "/workspace/ptb",
        originator: "codex_exec",
        cli_version: newer ? "0.61.0" : "0.48.0",
        instructions: null,
        source: "exec",
        model_provider: "openai",
        git: { commit_hash: rng.hex(40), branch: "main" },
      };
      let parentThread: string | null = null;
      if (sp.kind === "fork" || sp.kind === "subagent") {
        const pf = fileOf.get(sp.parent!)!;
        parentThread = pf.thread;
        if (sp.kind === "fork") meta.forked_from_id = parentThread;
        else meta.source = { subagent: { thread_spawn: { parent_thread_id: parentThread, depth: 1 } } };
      }
      f.lines.push(line(startMs, "session_meta", meta));
      if (parentThread) {
        // replay of the parent's history, all stamped at the child's creation time
        f.lines.push(
          line(startMs, "response_item", {
            type: "message",
            role: "user",
            content: [{ type: "input_text", text: "You are an autonomous post-training agent. Budget: 100 hours." }],
          }),
        );
        const prior = (tcLines.get(parentThread) ?? []).filter((x) => x.ms <= startMs);
        for (const x of prior) f.lines.push(`{"timestamp":"${iso(startMs)}","type":"event_msg","payload":${x.p}}`);
        totals.set(thread, (prior[prior.length - 1]?.tot ?? [0, 0, 0, 0, 0]).slice());
        tcLines.set(thread, prior.slice());
        f.lines.push(
          line(startMs + 5, "response_item", {
            type: "message",
            role: "user",
            content: [
              {
                type: "input_text",
                text:
                  sp.kind === "fork"
                    ? "Try the alternative LR schedule in a side branch."
                    : "Sub-task: summarise the eval results of the last three checkpoints.",
              },
            ],
          }),
        );
      } else {
        f.lines.push(
          line(startMs, "response_item", {
            type: "message",
            role: "developer",
            content: [
              {
                type: "input_text",
                text: "<permissions instructions>sandbox: danger-full-access</permissions instructions>",
              },
            ],
          }),
        );
        f.lines.push(
          line(startMs, "response_item", {
            type: "message",
            role: "user",
            content: [
              {
                type: "input_text",
                text: "You are an autonomous post-training agent. Budget: 100 hours. Improve Qwen/Qwen3.5-9B-Base.",
              },
            ],
          }),
        );
        totals.set(thread, [0, 0, 0, 0, 0]);
        tcLines.set(thread, []);
      }
      f.lines.push(
        line(startMs + 10, "turn_context", {
          cwd: "/workspace/ptb",
          approval_policy: "never",
          sandbox_policy: { type: "danger-full-access" },
          model: "gpt-5.6-sol",
          effort: m.spec.effort,
          summary: "auto",
        }),
      );
      f.lines.push(line(startMs + 20, "event_msg", { type: "token_count", info: null, rate_limits: rl(startMs) }));
    }
    const th = f.thread;
    const tot = totals.get(th)!;
    const tcs = tcLines.get(th)!;
    const resetAt = typeof sp.extra?.resetAt === "number" ? m.clock.wallOf(sp.extra.resetAt) : null;
    let resetDone = false;
    s.calls.forEach((c: Call, i) => {
      const t = c.ms;
      if (resetAt !== null && !resetDone && t > resetAt) {
        resetDone = true;
        // context-window reset: the running total drops, last usage all zero
        for (let k = 0; k < 5; k++) tot[k] = Math.floor(tot[k]! * 0.07);
        const rt = t - rng.int(40_000, 100_000);
        const info = {
          total_token_usage: codexUsage(tot[0]!, tot[1]!, tot[2]!, tot[3]!, tot[4]!, newer),
          last_token_usage: codexUsage(0, 0, 0, 0, 0, newer),
          model_context_window: 400000,
        };
        const p = J({ type: "token_count", info, rate_limits: rl(rt) });
        f.lines.push(line(rt - 500, "event_msg", { type: "context_compacted" }));
        f.lines.push(`{"timestamp":"${iso(rt)}","type":"event_msg","payload":${p}}`);
        tcs.push({ ms: rt, p, tot: tot.slice() });
      }
      const reasoning = Math.floor(c.o * rng.uniform(0.2, 0.8));
      tot[0] = tot[0]! + c.u;
      tot[1] = tot[1]! + c.r;
      tot[2] = tot[2]! + c.w;
      tot[3] = tot[3]! + c.o;
      tot[4] = tot[4]! + reasoning;
      if (i % 12 === 11)
        f.lines.push(
          line(t - 9000, "turn_context", {
            cwd: "/workspace/ptb",
            approval_policy: "never",
            sandbox_policy: { type: "danger-full-access" },
            model: "gpt-5.6-sol",
            effort: m.spec.effort,
            summary: "auto",
          }),
        );
      f.lines.push(
        line(t - 2500, "response_item", {
          type: "reasoning",
          summary: [{ type: "summary_text", text: "**Checking training progress**" }],
          content: null,
          encrypted_content: `gAAAAB${rng.alnum(24)}`,
        }),
      );
      const callId = `call_${rng.alnum(24)}`;
      f.lines.push(
        line(t - 400, "response_item", {
          type: "function_call",
          name: "shell",
          arguments: J({ command: ["bash", "-lc", rng.pick(COMMANDS)], workdir: "/workspace/ptb" }),
          call_id: callId,
        }),
      );
      const info = {
        total_token_usage: codexUsage(tot[0]!, tot[1]!, tot[2]!, tot[3]!, tot[4]!, newer),
        last_token_usage: codexUsage(c.u, c.r, c.w, c.o, reasoning, newer),
        model_context_window: 400000,
      };
      const p = J({ type: "token_count", info, rate_limits: rl(t) });
      f.lines.push(`{"timestamp":"${iso(t)}","type":"event_msg","payload":${p}}`);
      tcs.push({ ms: t, p, tot: tot.slice() });
      if (newer)
        f.lines.push(
          line(t + 4, "token_usage_record", {
            model: "gpt-5.6-sol",
            turn_id: rng.uuid(),
            info: { total_token_usage: info.total_token_usage, last_token_usage: info.last_token_usage },
          }),
        );
      f.lines.push(
        line(t + rng.int(300, 5000), "response_item", {
          type: "function_call_output",
          call_id: callId,
          output: J({
            output: "step 1200 | loss 0.8123 | lr 1.0e-05\n",
            metadata: { exit_code: 0, duration_seconds: 0.4 },
          }),
        }),
      );
      if (rng.chance(0.6)) {
        const rt = t + rng.int(6000, 40_000);
        f.lines.push(
          `{"timestamp":"${iso(rt)}","type":"event_msg","payload":${J({ type: "token_count", info, rate_limits: rl(rt) })}}`,
        );
      }
      if (rng.chance(0.05))
        f.lines.push(line(t + 45_000, "event_msg", { type: "token_count", info: null, rate_limits: rl(t + 45_000) }));
    });
    if (sp.extra?.cutLast) {
      const last = s.calls[s.calls.length - 1];
      const t = (last?.ms ?? startMs) + 50_000;
      const full = line(t, "response_item", {
        type: "message",
        role: "assistant",
        content: [
          {
            type: "output_text",
            text: "The GRPO run is still going; I will check the next checkpoint and then run the full eval suite.",
          },
        ],
      });
      f.lines.push(`\u0000CUT${full.slice(0, 95)}`);
    }
  }
  const seen = new Set<string>();
  for (const f of fileOf.values()) {
    if (seen.has(f.path)) continue;
    seen.add(f.path);
    let text = "";
    for (const l of f.lines) {
      if (l.startsWith("\u0000CUT"))
        text += l.slice(4); // cut-off last line: no newline
      else text += `${l}\n`;
    }
    files.set(f.path, text);
  }
}

// ---------------------------------------------------------------- claude code

export function renderClaude(m: CellModel, ss: SessionCalls[], files: Files, base: string): void {
  const rng = new Rng(`claude:${m.spec.cell}`);
  const proj = `${base}/projects/-workspace-ptb`;
  const sid = new Map<string, string>();
  const out = new Map<string, { ms: number; l: string }[]>(); // session name -> lines
  const pathOf = new Map<string, string>();
  const progressFor = new Map<string, { ms: number; l: string }[]>(); // parent session -> agent_progress lines
  const ordered = ss.slice().sort((a, b) => a.spec.from - b.spec.from);
  for (const s of ordered) {
    const sp = s.spec;
    const noReq = !!sp.extra?.noRequestId;
    const isAgent = sp.kind === "subagent";
    const parentSid = sp.parent ? sid.get(sp.parent) : undefined;
    const mySid = isAgent ? parentSid! : rng.uuid();
    sid.set(sp.name, mySid);
    const agentId = isAgent ? rng.hex(7) : undefined;
    if (isAgent) pathOf.set(sp.name, `${proj}/${parentSid}/subagents/agent-${agentId}.jsonl`);
    else pathOf.set(sp.name, `${proj}/${mySid}.jsonl`);
    const lines: { ms: number; l: string }[] = [];
    const env = (o: Record<string, unknown>) => {
      const e: Record<string, unknown> = {
        parentUuid: o.parentUuid ?? null,
        isSidechain: isAgent,
        userType: "external",
        cwd: "/workspace/ptb",
        sessionId: mySid,
        version: "2.1.80",
        gitBranch: "main",
      };
      if (agentId) e.agentId = agentId;
      return { ...e, ...o };
    };
    let prev: string | null = null;
    const startMs = s.calls[0] ? s.calls[0].ms - rng.int(20_000, 60_000) : m.clock.wallOf(sp.from);
    {
      const u = rng.uuid();
      lines.push({
        ms: startMs,
        l: J(
          env({
            parentUuid: null,
            type: "user",
            message: {
              role: "user",
              content: isAgent
                ? "Check the eval logs of the last three checkpoints and report pass@1 per suite."
                : "You are the driver of an AgentPTB cell. Post-train Qwen/Qwen3.5-9B-Base within 100 hours.",
            },
            uuid: u,
            timestamp: iso(startMs),
          }),
        ),
      });
      prev = u;
    }
    const isResume = sp.kind === "resume";
    s.calls.forEach((c, i) => {
      const msgId = `msg_01${rng.alnum(22)}`;
      const req = `req_011C${rng.alnum(20)}`;
      const nBlocks = rng.int(1, 3);
      const blocks: unknown[] = [];
      if (nBlocks >= 2)
        blocks.push({
          type: "thinking",
          thinking: "Let me look at the trainer log before deciding.",
          signature: rng.alnum(40),
        });
      if (nBlocks >= 3) blocks.push({ type: "text", text: "Checking the latest checkpoint." });
      const toolId = `toolu_01${rng.alnum(22)}`;
      blocks.push({
        type: "tool_use",
        id: toolId,
        name: "Bash",
        input: { command: rng.pick(COMMANDS), description: "inspect" },
      });
      let lastU = prev;
      blocks.forEach((b, k) => {
        const last = k === blocks.length - 1;
        const t = c.ms - (blocks.length - 1 - k) * rng.int(200, 700);
        const outTok = last ? c.o : rng.int(1, Math.min(9, c.o));
        const u = rng.uuid();
        const o: Record<string, unknown> = {
          parentUuid: lastU,
          message: {
            model: "claude-opus-5",
            id: msgId,
            type: "message",
            role: "assistant",
            content: [b],
            stop_reason: last ? "tool_use" : null,
            stop_sequence: null,
            usage: {
              input_tokens: c.u,
              cache_creation_input_tokens: c.w,
              cache_read_input_tokens: c.r,
              cache_creation: { ephemeral_5m_input_tokens: c.w, ephemeral_1h_input_tokens: 0 },
              output_tokens: outTok,
              service_tier: "standard",
            },
          },
        };
        if (!noReq) o.requestId = req;
        o.type = "assistant";
        o.uuid = u;
        o.timestamp = iso(t);
        const l = J(env(o));
        lines.push({ ms: t, l });
        if (isAgent && sp.parent && sp.extra?.progress) {
          const pl = progressFor.get(sp.parent) ?? [];
          const msg: Record<string, unknown> = {
            type: "assistant",
            message: (o as { message: unknown }).message,
            uuid: u,
            timestamp: iso(t),
          };
          if (!noReq) msg.requestId = req;
          pl.push({
            ms: t + 30,
            l:
              "" +
              J({
                parentUuid: null,
                isSidechain: false,
                userType: "external",
                cwd: "/workspace/ptb",
                sessionId: mySid,
                version: "2.1.80",
                gitBranch: "main",
                type: "progress",
                data: {
                  type: "agent_progress",
                  message: msg,
                  normalizedMessages: [],
                  prompt: "Check the eval logs",
                  agentId,
                },
                toolUseID: "toolu_01agentspawn",
                parentToolUseID: "toolu_01agentspawn",
                uuid: rng.uuid(),
                timestamp: iso(t + 30),
              }),
          });
          progressFor.set(sp.parent, pl);
        }
        lastU = u;
      });
      const tr = c.ms + rng.int(500, 8000);
      const u2 = rng.uuid();
      lines.push({
        ms: tr,
        l: J(
          env({
            parentUuid: lastU,
            type: "user",
            message: {
              role: "user",
              content: [
                { tool_use_id: toolId, type: "tool_result", content: "loss 0.7741 at step 1400", is_error: false },
              ],
            },
            uuid: u2,
            timestamp: iso(tr),
            toolUseResult: { stdout: "loss 0.7741 at step 1400", stderr: "", interrupted: false, isImage: false },
          }),
        ),
      });
      prev = u2;
      if (!isAgent && (i === 7 || i === Math.floor(s.calls.length / 2))) {
        const ts = tr + rng.int(5000, 20_000);
        const api = i !== 7;
        const o: Record<string, unknown> = {
          parentUuid: prev,
          type: "assistant",
          message: {
            id: rng.uuid(),
            container: null,
            model: "<synthetic>",
            role: "assistant",
            stop_reason: "stop_sequence",
            stop_sequence: "",
            type: "message",
            usage: {
              input_tokens: 0,
              output_tokens: 0,
              cache_creation_input_tokens: 0,
              cache_read_input_tokens: 0,
              server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
              service_tier: null,
            },
            content: [
              {
                type: "text",
                text: api
                  ? 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
                  : "No response requested.",
              },
            ],
          },
          uuid: rng.uuid(),
          timestamp: iso(ts),
        };
        if (api) o.isApiErrorMessage = true;
        lines.push({ ms: ts, l: J(env(o)) });
      }
    });
    if (!isResume) lines.sort((a, b) => a.ms - b.ms);
    out.set(sp.name, lines);
    if (isResume) {
      // a resumed session copies earlier lines of its parent (same uuids and ids) into the new file
      const parentLines = out.get(sp.parent!)!;
      const copied = parentLines.slice(-12).map((x) => ({ ms: x.ms, l: x.l }));
      lines.sort((a, b) => a.ms - b.ms);
      out.set(sp.name, copied.concat(lines));
    }
  }
  for (const [parent, pl] of progressFor) {
    const ls = out.get(parent)!;
    ls.push(...pl);
    ls.sort((a, b) => a.ms - b.ms);
  }
  for (const [name, ls] of out) files.set(pathOf.get(name)!, ls.map((x) => `${x.l}\n`).join(""));
}

// ---------------------------------------------------------------- pi

export function renderPi(m: CellModel, ss: SessionCalls[], files: Files, base: string): void {
  const rng = new Rng(`pi:${m.spec.cell}`);
  const dir = `${base}/sessions/--workspace-ptb--`;
  const provider =
    m.spec.cell === "grok"
      ? { provider: "xai", model: "grok-4.6", api: "openai-responses" }
      : { provider: "deepseek", model: "deepseek-v4-flash", api: "openai-completions" };
  const entriesOf = new Map<string, { ms: number; l: string; call: boolean }[]>();
  const fileName = (ms: number, id: string) => `${iso(ms).replace(/[:.]/g, "-")}_${id}.jsonl`;
  const pathOf = new Map<string, string>();
  const ordered = ss.slice().sort((a, b) => a.spec.from - b.spec.from);
  for (const s of ordered) {
    const sp = s.spec;
    const v1 = sp.kind === "v1";
    const headerMs =
      sp.kind === "orphan-branch"
        ? m.clock.wallOf(Number(sp.extra!.headerAt))
        : s.calls[0]
          ? s.calls[0].ms - rng.int(20_000, 60_000)
          : m.clock.wallOf(sp.from);
    const id = rng.uuid();
    const fname = fileName(headerMs, id);
    pathOf.set(sp.name, `${dir}/${fname}`);
    const header: Record<string, unknown> = v1
      ? {
          type: "session",
          id,
          timestamp: iso(headerMs),
          cwd: "/workspace/ptb",
          provider: provider.provider,
          modelId: provider.model,
          thinkingLevel: m.spec.effort === "xhigh" ? "xhigh" : "high",
        }
      : {
          type: "session",
          version: sp.kind === "orphan-branch" ? 2 : 3,
          id,
          timestamp: iso(headerMs),
          cwd: "/workspace/ptb",
        };
    const lines: { ms: number; l: string; call: boolean }[] = [];
    if (sp.kind === "fork") {
      const pp = pathOf.get(sp.parent!)!;
      header.parentSession = `/root/.pi/agent/sessions/--workspace-ptb--/${pp.split("/").pop()}`;
      // the fork copies the parent's entries (same ids, original timestamps)
      const pe = entriesOf.get(sp.parent!)!.filter((e) => e.ms <= headerMs);
      for (const e of pe.slice(-40)) lines.push({ ...e });
    }
    if (sp.kind === "orphan-branch")
      header.branchedFrom = `/root/.pi/agent/sessions/--workspace-ptb--/${fileName(m.clock.wallOf(79.5), rng.uuid())}`;
    let prevId: string | null = lines.length ? (JSON.parse(lines[lines.length - 1]!.l) as { id: string }).id : null;
    const ent = (ms: number, msg: Record<string, unknown>, call: boolean) => {
      const o: Record<string, unknown> = { type: "message" };
      if (!v1) {
        const eid = rng.hex(8);
        o.id = eid;
        o.parentId = prevId;
        prevId = eid;
      }
      o.timestamp = iso(ms);
      o.message = msg;
      lines.push({ ms, l: J(o), call });
    };
    if (!v1 && sp.kind !== "fork") {
      const a = rng.hex(8);
      lines.push({
        ms: headerMs + 1,
        l: J({
          type: "model_change",
          id: a,
          parentId: prevId,
          timestamp: iso(headerMs + 1),
          provider: provider.provider,
          modelId: provider.model,
        }),
        call: false,
      });
      prevId = a;
    }
    ent(
      headerMs + 500,
      {
        role: "user",
        content: [
          {
            type: "text",
            text:
              sp.kind === "fork"
                ? "Branch: try a shorter warmup."
                : "You drive an AgentPTB cell: post-train Qwen/Qwen3.5-9B-Base in 100 hours.",
          },
        ],
        timestamp: headerMs + 400,
      },
      false,
    );
    const costOf = (n: number, rate: number) => Math.round(n * rate * 1e6) / 1e12;
    s.calls.forEach((c, i) => {
      let stop = "toolUse";
      let err: string | undefined;
      if (sp.extra?.aborted && i > 0 && i % 37 === 5) {
        stop = "aborted";
        err = "Request was aborted";
      } else if (sp.extra?.aborted && i > 0 && i % 53 === 9) {
        stop = "error";
        err = "500 Internal Server Error: upstream connect error";
      }
      const usage: Record<string, unknown> = { input: c.u, output: c.o, cacheRead: c.r, cacheWrite: c.w };
      if (!v1) usage.totalTokens = c.u + c.o + c.r + c.w;
      usage.cost = {
        input: costOf(c.u, 0.3),
        output: costOf(c.o, 1.2),
        cacheRead: costOf(c.r, 0.03),
        cacheWrite: 0,
        total: costOf(c.u, 0.3) + costOf(c.o, 1.2) + costOf(c.r, 0.03),
      };
      const callId = `call_${rng.alnum(24)}`;
      const content: unknown[] = [{ type: "thinking", thinking: "Check the trainer first.", thinkingSignature: "" }];
      if (stop === "toolUse")
        content.push({ type: "toolCall", id: callId, name: "bash", arguments: { command: rng.pick(COMMANDS) } });
      const msg: Record<string, unknown> = {
        role: "assistant",
        content,
        api: provider.api,
        provider: provider.provider,
        model: provider.model,
        usage,
        stopReason: stop,
        timestamp: c.ms - rng.int(2000, 50_000),
      };
      if (err) msg.errorMessage = err;
      ent(c.ms, msg, true);
      if (stop === "toolUse") {
        const tr = c.ms + rng.int(400, 6000);
        ent(
          tr,
          {
            role: "toolResult",
            toolCallId: callId,
            toolName: "bash",
            content: [{ type: "text", text: "step 400 loss 0.91" }],
            isError: false,
            timestamp: tr,
          },
          false,
        );
      } else {
        const tr = c.ms + rng.int(5000, 20_000);
        ent(tr, { role: "user", content: [{ type: "text", text: "continue" }], timestamp: tr }, false);
      }
      if (sp.extra?.aborted && i === 20) {
        // an aborted request with no tokens at all
        const ta = c.ms + 60_000;
        ent(
          ta,
          {
            role: "assistant",
            content: [],
            api: provider.api,
            provider: provider.provider,
            model: provider.model,
            usage: {
              input: 0,
              output: 0,
              cacheRead: 0,
              cacheWrite: 0,
              totalTokens: 0,
              cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
            },
            stopReason: "aborted",
            timestamp: ta - 1000,
            errorMessage: "Request was aborted",
          },
          false,
        );
      }
    });
    entriesOf.set(sp.name, lines);
    files.set(`${dir}/${fname}`, `${J(header)}\n${lines.map((x) => `${x.l}\n`).join("")}`);
  }
}

// ---------------------------------------------------------------- kimi-code

export function renderKimiCode(m: CellModel, ss: SessionCalls[], files: Files, base: string): void {
  const rng = new Rng(`kimi:${m.spec.cell}`);
  const hash = rng.hex(32);
  const sidOf = new Map<string, string>();
  const usageLines = new Map<string, string[]>(); // session -> its llm.request/usage.record lines, for fork rewrites
  const ordered = ss.slice().sort((a, b) => a.spec.from - b.spec.from);
  for (const s of ordered) {
    const sp = s.spec;
    const notime = sp.kind === "notime";
    const isSub = sp.kind === "subagent";
    const sid = isSub ? sidOf.get(sp.parent!)! : rng.uuid();
    sidOf.set(sp.name, sid);
    const agent = isSub ? `agent-${rng.hex(8)}` : "main";
    const path = `${base}/sessions/${hash}/${sid}/agents/${agent}/wire.jsonl`;
    const createdMs = s.calls[0] ? s.calls[0].ms - rng.int(20_000, 60_000) : m.clock.wallOf(sp.from);
    const out: string[] = [];
    const w = (o: Record<string, unknown>, t: number) => {
      if (!notime) o.time = Math.floor(t);
      out.push(J(o));
    };
    out.push(J({ type: "metadata", protocol_version: notime ? "1.2" : "1.4", created_at: Math.floor(createdMs) }));
    w({ type: "config.update", modelAlias: "kimi-k3", thinkingEffort: m.spec.effort }, createdMs);
    w({ type: "permission.set_mode", mode: "yolo" }, createdMs);
    if (sp.kind === "fork") {
      for (const l of usageLines.get(sp.parent!) ?? []) {
        const o = JSON.parse(l) as { time: number };
        if (o.time <= createdMs) out.push(l);
      }
      w(
        { type: "forked", fromSession: sidOf.get(sp.parent!), fromAgent: "main", atTime: Math.floor(createdMs) },
        createdMs,
      );
    }
    const mine: string[] = [];
    w(
      {
        type: "turn.prompt",
        input: [{ type: "text", text: isSub ? "Summarise eval logs" : "Drive the AgentPTB cell" }],
        origin: { kind: "user" },
      },
      createdMs + 100,
    );
    const compactAt = typeof sp.extra?.compactAt === "number" ? m.clock.wallOf(sp.extra.compactAt) : null;
    const cancelAt = typeof sp.extra?.cancelAt === "number" ? m.clock.wallOf(sp.extra.cancelAt) : null;
    let compactDone = false;
    let cancelDone = false;
    let turn = 0;
    let step = 0;
    s.calls.forEach((c, i) => {
      const t = c.ms;
      const t0 = t - rng.int(3000, 40_000);
      if (cancelAt !== null && !cancelDone && t > cancelAt) {
        cancelDone = true;
        const tc = t - 120_000;
        w(
          {
            type: "llm.request",
            kind: "loop",
            provider: "moonshot",
            model: "kimi-k3",
            modelAlias: "kimi-k3",
            thinkingEffort: "high",
            maxTokens: 262144,
            messageCount: 40 + i,
            turnStep: `${turn}.${step + 1}`,
          },
          tc,
        );
        w({ type: "turn.cancelled", turnId: String(turn), reason: "user_interrupt" }, tc + 4000);
        turn++;
        step = 0;
      }
      const compaction = compactAt !== null && !compactDone && t > compactAt;
      if (compaction) {
        compactDone = true;
        c.flag = "compaction";
        w({ type: "full_compaction.begin", source: "auto" }, t0 - 10);
        const rq = J({
          type: "llm.request",
          kind: "compaction",
          provider: "moonshot",
          model: "kimi-k3",
          modelAlias: "kimi-k3",
          messageCount: 120,
          time: Math.floor(t0),
        });
        out.push(rq);
        const ur = J({
          type: "usage.record",
          model: "kimi-k3",
          usage: { inputOther: c.u, output: c.o, inputCacheRead: c.r, inputCacheCreation: c.w },
          usageScope: "session",
          time: Math.floor(t),
        });
        out.push(ur);
        mine.push(rq, ur);
        w({ type: "full_compaction.complete" }, t + 5);
        return;
      }
      if (i % 9 === 0) {
        turn++;
        step = 0;
        w({ type: "turn.prompt", input: [{ type: "text", text: "continue" }], origin: { kind: "system" } }, t0 - 500);
      }
      step++;
      const su = `uuid_${rng.hex(8)}`;
      w(
        { type: "context.append_loop_event", event: { type: "step.begin", uuid: su, turnId: String(turn), step } },
        t0 - 2,
      );
      const reqO: Record<string, unknown> = {
        type: "llm.request",
        kind: "loop",
        provider: "moonshot",
        model: "kimi-k3",
        modelAlias: "kimi-k3",
        thinkingEffort: "high",
        thinkingKeep: "all",
        maxTokens: 262144,
        toolSelect: false,
        messageCount: 2 + 2 * i,
        turnStep: `${turn}.${step}`,
      };
      if (!notime) reqO.time = Math.floor(t0);
      const rq = J(reqO);
      out.push(rq);
      const usage = { inputOther: c.u, output: c.o, inputCacheRead: c.r, inputCacheCreation: c.w };
      const urO: Record<string, unknown> = { type: "usage.record", model: "kimi-k3", usage, usageScope: "turn" };
      if (!notime) urO.time = Math.floor(t);
      const ur = J(urO);
      const toolId = `tool_${rng.alnum(24)}`;
      const stepEnd = () =>
        w(
          {
            type: "context.append_loop_event",
            event: {
              type: "step.end",
              uuid: su,
              turnId: String(turn),
              step,
              finishReason: "tool_use",
              usage,
              llmFirstTokenLatencyMs: rng.int(400, 6000),
              messageId: `uuid_${rng.hex(8)}`,
            },
          },
          t,
        );
      const before = rng.chance(0.5);
      if (before) out.push(ur);
      w(
        {
          type: "context.append_loop_event",
          event: {
            type: "tool.call",
            uuid: `uuid_${rng.hex(8)}`,
            turnId: String(turn),
            step,
            stepUuid: su,
            toolCallId: toolId,
            name: "Bash",
            args: { command: rng.pick(COMMANDS) },
          },
        },
        t,
      );
      w(
        {
          type: "context.append_loop_event",
          event: { type: "tool.result", parentUuid: su, toolCallId: toolId, result: { output: "ok" } },
        },
        t + 200,
      );
      stepEnd();
      if (!before) out.push(ur);
      mine.push(rq, ur);
    });
    if (sp.extra?.cutLast) {
      const last = s.calls[s.calls.length - 1]!;
      out.push(
        `${J({
          type: "context.append_loop_event",
          event: {
            type: "content.part",
            uuid: `uuid_${rng.hex(8)}`,
            turnId: String(turn),
            step,
            part: { type: "text", text: "The dpo run looks stable; next I will" },
          },
          time: last.ms + 30_000,
        }).slice(0, 80)}\u0000NONL`,
      );
    }
    usageLines.set(sp.name, mine);
    let text = "";
    for (const l of out) text += l.endsWith("\u0000NONL") ? l.slice(0, -5) : `${l}\n`;
    files.set(path, text);
  }
}
