/**
 * A local Hugging Face Hub for tests (issue 4): a `node:http` server on
 * 127.0.0.1 (random port) serving a `sources/hub/` folder through the routes
 * `@huggingface/hub` uses, so the real client can be driven without network:
 *
 * - `GET /api/models?author=&limit=&expand=&cursor=`: the owner's repos,
 *   sorted by id, `pageSize` a page, the next page in an absolute
 *   `Link: <...>; rel="next"` header; the expanded fields (`sha`,
 *   `createdAt`, `lastModified`, `siblings`, ...).
 * - `GET /api/models/<owner>/<name>/revision/<rev>`: model info.
 * - `GET /api/models/<owner>/<name>/tree/<rev>`: the file list.
 * - `GET|HEAD /<owner>/<name>/(resolve|raw)/<rev>/<path>`: the file, `ETag`,
 *   `Range: bytes=a-b` answered 206 with `Content-Range`; 404 with
 *   `X-Error-Code: EntryNotFound` / `RepoNotFound` / `RevisionNotFound`.
 *
 * Write routes, for `publish` (issue 6): `GET /api/datasets/<owner>/<name>`
 * and `GET /api/datasets/<owner>/<name>/revision/<rev>` (info with `sha`, the
 * head commit; a missing repo is 404 `RepoNotFound`, or, to a request without
 * a token, 401 `RepoNotFound` as on the real Hub),
 * `GET|HEAD /datasets/<owner>/<name>/resolve/<rev>/<path>`,
 * `POST /api/repos/create` (an initial commit, as on the real Hub),
 * `POST /api/datasets/<owner>/<name>/preupload/<rev>` (every file `regular`),
 * `POST /api/datasets/<owner>/<name>/commit/<rev>` (NDJSON; a header
 * `parentCommit` that is not the head is answered 412 "A commit has happened
 * since", as the real Hub does; the commits are kept in `server.commits`),
 * and `POST /api/repos/move` (renames a model repo; `server.failMoves` lists
 * `fromRepo` ids answered 500, to stop a publish mid-way).
 * `server.pushCommit` writes a dataset as another client would, and
 * `server.onRequest` runs before each answer (a change made mid-publish).
 * A refused token is 401 with `X-Error-Message: Invalid credentials in
 * Authorization header`, as on the real Hub.
 *
 * Switches (`server.faults`, changeable between requests): a fraction of
 * requests answered 429 (with `Retry-After`), 500 or 503, dropped (socket
 * destroyed, no answer) or slowed; at most `maxConsecutivePerUrl` faults in
 * a row for one method+URL, so a client with more attempts always gets
 * through. Pseudo-random but seeded. Every request is logged
 * (`server.log`), with the number in flight (`server.maxInFlight`).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createHash } from "node:crypto";
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { mulberry32 } from "../../scripts/make-sources/lib.js";

type FaultKind = "429" | "500" | "503" | "drop" | "slow";
type RouteKind =
  | "list"
  | "info"
  | "tree"
  | "resolve"
  | "raw"
  | "dataset"
  | "create"
  | "preupload"
  | "commit"
  | "move"
  | "other";

interface Faults {
  /** Fraction of requests faulted, 0..1. */
  rate: number;
  kinds: FaultKind[];
  /** Delay of a `slow` answer, ms. */
  slowMs: number;
  /** `Retry-After` seconds sent with 429 and 503 answers; null: none. */
  retryAfterS: number | null;
  /** Most faults in a row for one method+URL (Infinity: a Hub that stays down). */
  maxConsecutivePerUrl: number;
  /** Only requests for which this is true may be faulted. */
  match?: (r: { method: string; path: string; kind: RouteKind }) => boolean;
}

interface LoggedRequest {
  method: string;
  /** Path and query, as asked. */
  url: string;
  kind: RouteKind;
  /** 0 for a dropped connection. */
  status: number;
  fault: FaultKind | null;
  /** `X-Error-Code` of a 404. */
  errorCode: string | null;
  /** The `Authorization` header was the expected bearer token (or none was required and none sent). */
  authorized: boolean;
}

export interface HubServerOptions {
  /** A folder laid out as `sources/hub/` (`<owner>/<name>/.hub.json` + small files). */
  hubDir: string;
  /** Repos per listing page (the Hub's limit is larger; a small one exercises pagination). Default 100. */
  pageSize?: number;
  /** When set, every request must carry `Authorization: Bearer <token>` (else 401). */
  token?: string;
  /** Answer `expand=siblings` (file names) in listings and info. Default true. */
  siblings?: boolean;
  /** Seed of the fault generator. */
  seed?: number;
  /** Delay of every answer, ms (so that concurrent requests overlap and `maxInFlight` shows them). Default 0. */
  latencyMs?: number;
  /** Files (`<owner>/<name>:<path>`) the listings name but whose download answers 404 `EntryNotFound` (a lagging mirror). */
  unservedFiles?: string[];
  /** Give the next listing page as a relative `Link` (`</api/models?...>`), as a misconfigured proxy may. */
  relativeLinks?: boolean;
}

export interface HubServer {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  url: string;
  faults: Faults;
  log: LoggedRequest[];
  /** Most requests in flight at once since the last {@link HubServer.reset}. */
  maxInFlight: number;
  /** Requests logged, of one kind or all. */
  count(kind?: RouteKind): number;
  /** Dataset repos: id → files (written by commits). */
  datasets: Map<string, Map<string, Buffer>>;
  /** Every commit received: repo, title, files written, the `parentCommit` it named (null: none). */
  commits: { repo: string; title: string; files: string[]; parentCommit: string | null }[];
  /** Dataset repos: id → head commit of `main`. */
  datasetHeads: Map<string, string>;
  /** Writes files to a dataset as another client would (a new head commit; the repo is created if absent). */
  pushCommit(repo: string, files: Record<string, string>): string;
  /** Called before each request is answered (after faults), e.g. to change the Hub mid-publish. */
  onRequest: ((r: { method: string; path: string; kind: RouteKind }) => void) | null;
  /** `fromRepo` ids whose move is answered 500 (until removed). */
  failMoves: Set<string>;
  /** Model repo ids now on the server, sorted. */
  modelIds(): string[];
  /** Clears the log, the fault counters and `maxInFlight`; faults off. */
  reset(): void;
  close(): Promise<void>;
}

interface Repo {
  id: string;
  info: Record<string, unknown>;
  files: Map<string, Buffer>;
}

const NO_FAULTS: Faults = { rate: 0, kinds: [], slowMs: 0, retryAfterS: null, maxConsecutivePerUrl: 2 };

/** Loads `hubDir` and starts the server on 127.0.0.1 at a random port. */
export async function startHubServer(opts: HubServerOptions): Promise<HubServer> {
  const repos = await loadHub(opts.hubDir);
  const pageSize = opts.pageSize ?? 100;
  const siblingsOn = opts.siblings ?? true;
  const unserved = new Set(opts.unservedFiles ?? []);
  let rng = mulberry32(opts.seed ?? 1);
  const consecutive = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  let inFlight = 0;
  let commitCount = 0;

  const state: HubServer = {
    url: "",
    faults: { ...NO_FAULTS },
    log: [],
    maxInFlight: 0,
    datasets: new Map(),
    commits: [],
    datasetHeads: new Map(),
    pushCommit: (repo, files) => {
      if (!state.datasets.has(repo)) state.datasets.set(repo, new Map());
      for (const [path, text] of Object.entries(files)) state.datasets.get(repo)!.set(path, Buffer.from(text));
      const oid = createHash("sha1").update(`${repo}:foreign:${++commitCount}`).digest("hex");
      state.datasetHeads.set(repo, oid);
      return oid;
    },
    onRequest: null,
    failMoves: new Set(),
    modelIds: () => [...repos.keys()].sort(),
    count: (kind) => (kind ? state.log.filter((r) => r.kind === kind).length : state.log.length),
    reset: () => {
      state.log.length = 0;
      state.maxInFlight = 0;
      state.faults = { ...NO_FAULTS };
      consecutive.clear();
      rng = mulberry32(opts.seed ?? 1);
    },
    close: async () => {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };

  const server = createServer((req, res) => {
    inFlight += 1;
    state.maxInFlight = Math.max(state.maxInFlight, inFlight);
    let counted = true;
    const leave = (): void => {
      if (counted) inFlight -= 1;
      counted = false;
    };
    res.on("close", leave);
    const method = req.method ?? "GET";
    const url = req.url ?? "/";
    const path = url.split("?")[0]!;
    const kind = routeKind(method, path);
    const authorized = opts.token
      ? req.headers.authorization === `Bearer ${opts.token}`
      : req.headers.authorization === undefined;
    const entry: LoggedRequest = { method, url, kind, status: 0, fault: null, errorCode: null, authorized };
    state.log.push(entry);

    const key = `${method} ${url}`;
    const f = state.faults;
    const may =
      f.rate > 0 &&
      f.kinds.length > 0 &&
      (consecutive.get(key) ?? 0) < f.maxConsecutivePerUrl &&
      (f.match?.({ method, path, kind }) ?? true);
    const fault = may && rng() < f.rate ? f.kinds[Math.floor(rng() * f.kinds.length)]! : null;
    consecutive.set(key, fault ? (consecutive.get(key) ?? 0) + 1 : 0); // a slow answer is a fault too: a client may time out
    entry.fault = fault;
    if (fault === "drop") {
      req.socket.destroy();
      return;
    }
    if (fault === "429" || fault === "500" || fault === "503") {
      entry.status = Number(fault);
      const headers: Record<string, string> = { "Content-Type": "application/json" };
      if (f.retryAfterS !== null && fault !== "500") headers["Retry-After"] = String(f.retryAfterS);
      res
        .writeHead(entry.status, headers)
        .end(JSON.stringify({ error: fault === "429" ? "Too many requests" : "Internal error" }));
      return;
    }
    const answer = (): void => {
      if (opts.token && !authorized) {
        send(
          res,
          entry,
          401,
          { error: "Invalid credentials in Authorization header" },
          { "X-Error-Message": "Invalid credentials in Authorization header" },
        );
        return;
      }
      state.onRequest?.({ method, path, kind });
      serve(req, res, entry, path, new URLSearchParams(url.includes("?") ? url.slice(url.indexOf("?") + 1) : ""));
    };
    const delayMs = fault === "slow" ? f.slowMs : (opts.latencyMs ?? 0);
    if (delayMs > 0) {
      const t = setTimeout(() => {
        timers.delete(t);
        if (!res.destroyed) answer();
      }, delayMs);
      timers.add(t);
    } else {
      answer();
    }
  });

  const byOwner = (owner: string): Repo[] =>
    // Owners are matched without case, as on the Hub.
    [...repos.values()]
      .filter((r) => r.id.split("/")[0]!.toLowerCase() === owner.toLowerCase())
      .sort((a, b) => (a.id < b.id ? -1 : 1));

  function modelJson(repo: Repo, expand: string[]): Record<string, unknown> {
    const out: Record<string, unknown> = {
      _id: createHash("sha1").update(repo.id).digest("hex").slice(0, 24),
      id: repo.id,
    };
    const values: Record<string, unknown> = {
      sha: repo.info.sha,
      createdAt: repo.info.createdAt,
      lastModified: repo.info.lastModified,
      private: false,
      gated: false,
      downloads: 0,
      likes: 0,
      pipeline_tag: "text-generation",
      siblings: [".gitattributes", ...repo.files.keys(), "model.safetensors"]
        .sort()
        .map((rfilename) => ({ rfilename })),
    };
    for (const k of expand) {
      if (k === "siblings" && !siblingsOn) continue;
      if (k in values && values[k] !== undefined) out[k] = values[k];
    }
    return out;
  }

  function serve(
    req: IncomingMessage,
    res: ServerResponse,
    entry: LoggedRequest,
    path: string,
    q: URLSearchParams,
  ): void {
    const seg = path.split("/").slice(1).map(decodeURIComponent);
    if (["dataset", "create", "preupload", "commit", "move"].includes(entry.kind)) {
      serveWrite(req, res, entry, seg);
      return;
    }
    if (entry.kind === "list") {
      const all = byOwner(q.get("author") ?? "");
      const limit = Math.min(Number(q.get("limit") ?? pageSize) || pageSize, pageSize);
      const from = Number(q.get("cursor") ?? "0");
      const page = all.slice(from, from + limit);
      const headers: Record<string, string> = {};
      if (from + limit < all.length) {
        const next = new URLSearchParams(q);
        next.set("cursor", String(from + limit));
        headers.Link = `<${opts.relativeLinks ? "" : state.url}/api/models?${next.toString()}>; rel="next"`;
      }
      send(
        res,
        entry,
        200,
        page.map((r) => modelJson(r, q.getAll("expand"))),
        headers,
      );
      return;
    }
    if (entry.kind === "info" || entry.kind === "tree") {
      // /api/models/<owner>/<name>/(revision|tree)/<rev>
      const repo = repos.get(`${seg[2]}/${seg[3]}`);
      if (!repo) return send(res, entry, 404, { error: "Repository not found" }, { "X-Error-Code": "RepoNotFound" });
      if (!revisionOk(repo, seg[5] ?? ""))
        return send(res, entry, 404, { error: "Invalid rev id" }, { "X-Error-Code": "RevisionNotFound" });
      if (entry.kind === "info") return send(res, entry, 200, modelJson(repo, q.getAll("expand")));
      return send(
        res,
        entry,
        200,
        [...repo.files.entries()]
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([p, b]) => ({ type: "file", path: p, size: b.length, oid: etagOf(b) })),
      );
    }
    if (entry.kind === "resolve" || entry.kind === "raw") {
      // /<owner>/<name>/(resolve|raw)/<rev>/<path...>
      const repo = repos.get(`${seg[0]}/${seg[1]}`);
      if (!repo) return send(res, entry, 404, { error: "Repository not found" }, { "X-Error-Code": "RepoNotFound" });
      if (!revisionOk(repo, seg[3] ?? ""))
        return send(res, entry, 404, { error: "Invalid rev id" }, { "X-Error-Code": "RevisionNotFound" });
      const path = seg.slice(4).join("/");
      const file = unserved.has(`${seg[0]}/${seg[1]}:${path}`) ? undefined : repo.files.get(path);
      if (!file) return send(res, entry, 404, { error: "Entry not found" }, { "X-Error-Code": "EntryNotFound" });
      const headers: Record<string, string> = {
        ETag: `"${etagOf(file)}"`,
        "Accept-Ranges": "bytes",
        "Content-Type": "application/octet-stream",
      };
      const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "");
      let status = 200;
      let body = file;
      if (range) {
        status = 206;
        const start = Number(range[1]);
        const end = Math.min(range[2] ? Number(range[2]) : file.length - 1, file.length - 1);
        body = file.subarray(start, end + 1);
        headers["Content-Range"] = file.length === 0 ? "bytes */0" : `bytes ${start}-${end}/${file.length}`;
      }
      entry.status = status;
      headers["Content-Length"] = String(body.length);
      res.writeHead(status, headers);
      res.end(req.method === "HEAD" ? undefined : body);
      return;
    }
    send(res, entry, 404, { error: "Not found" });
  }

  function serveWrite(req: IncomingMessage, res: ServerResponse, entry: LoggedRequest, seg: string[]): void {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      if (entry.kind === "dataset") {
        const apiInfo = seg[0] === "api";
        const id = apiInfo ? `${seg[2]}/${seg[3]}` : `${seg[1]}/${seg[2]}`;
        const files = state.datasets.get(id);
        if (!files && req.headers.authorization === undefined) {
          return send(
            res,
            entry,
            401,
            { error: "Repository not found" },
            { "X-Error-Code": "RepoNotFound", "X-Error-Message": "Repository not found" },
          );
        }
        if (!files) return send(res, entry, 404, { error: "Repository not found" }, { "X-Error-Code": "RepoNotFound" });
        if (apiInfo) return send(res, entry, 200, { id, likes: 0, sha: state.datasetHeads.get(id) });
        const file = files.get(seg.slice(5).join("/"));
        if (!file) return send(res, entry, 404, { error: "Entry not found" }, { "X-Error-Code": "EntryNotFound" });
        const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "");
        const headers: Record<string, string> = {
          ETag: `"${etagOf(file)}"`,
          "Content-Type": "application/octet-stream",
        };
        let out = file;
        entry.status = 200;
        if (range) {
          entry.status = 206;
          const start = Number(range[1]);
          const end = Math.min(range[2] ? Number(range[2]) : file.length - 1, file.length - 1);
          out = file.subarray(start, end + 1);
          headers["Content-Range"] = file.length === 0 ? "bytes */0" : `bytes ${start}-${end}/${file.length}`;
        }
        headers["Content-Length"] = String(out.length);
        res.writeHead(entry.status, headers);
        res.end(req.method === "HEAD" ? undefined : out);
        return;
      }
      if (entry.kind === "create") {
        const b = JSON.parse(body) as { name: string; organization: string; type: string };
        const id = `${b.organization}/${b.name}`;
        if (b.type !== "dataset") return send(res, entry, 400, { error: "only datasets here" });
        if (state.datasets.has(id)) return send(res, entry, 409, { error: "You already created this dataset repo" });
        state.datasets.set(id, new Map());
        state.datasetHeads.set(id, createHash("sha1").update(`${id}:initial:${++commitCount}`).digest("hex"));
        return send(res, entry, 200, { url: `${state.url}/datasets/${id}`, id });
      }
      if (entry.kind === "preupload") {
        const b = JSON.parse(body) as { files: { path: string }[] };
        return send(res, entry, 200, {
          files: b.files.map((f) => ({ path: f.path, uploadMode: "regular", shouldIgnore: false })),
        });
      }
      if (entry.kind === "commit") {
        const id = `${seg[2]}/${seg[3]}`;
        const files = state.datasets.get(id);
        if (!files) return send(res, entry, 404, { error: "Repository not found" }, { "X-Error-Code": "RepoNotFound" });
        const lines = body
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { key: string; value: Record<string, string> });
        const header = lines.find((l) => l.key === "header")?.value ?? {};
        if (header.parentCommit !== undefined && header.parentCommit !== state.datasetHeads.get(id)) {
          return send(res, entry, 412, { error: "A commit has happened since. Please refresh and try again." });
        }
        const title = String(header.summary ?? "");
        const written: string[] = [];
        for (const l of lines.filter((x) => x.key === "file")) {
          files.set(l.value.path!, Buffer.from(l.value.content!, "base64"));
          written.push(l.value.path!);
        }
        state.commits.push({ repo: id, title, files: written, parentCommit: header.parentCommit ?? null });
        const oid = createHash("sha1").update(`${id}:${state.commits.length}:${++commitCount}`).digest("hex");
        state.datasetHeads.set(id, oid);
        return send(res, entry, 200, {
          success: true,
          commitOid: oid,
          commitUrl: `${state.url}/datasets/${id}/commit/${oid}`,
        });
      }
      // move
      const b = JSON.parse(body) as { fromRepo: string; toRepo: string; type: string };
      if (state.failMoves.has(b.fromRepo)) return send(res, entry, 500, { error: "Internal error" });
      const repo = repos.get(b.fromRepo);
      if (!repo) return send(res, entry, 404, { error: "Repository not found" }, { "X-Error-Code": "RepoNotFound" });
      if (repos.has(b.toRepo)) return send(res, entry, 409, { error: "A repo with this name already exists" });
      repos.delete(b.fromRepo);
      repo.id = b.toRepo;
      repo.info = { ...repo.info, id: b.toRepo };
      repos.set(b.toRepo, repo);
      return send(res, entry, 200, {});
    });
  }

  await new Promise<void>((done) => server.listen(0, "127.0.0.1", () => done()));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

function send(
  res: ServerResponse,
  entry: LoggedRequest,
  status: number,
  json: unknown,
  headers: Record<string, string> = {},
): void {
  entry.status = status;
  entry.errorCode = headers["X-Error-Code"] ?? null;
  const body = Buffer.from(JSON.stringify(json));
  res.writeHead(status, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": String(body.length),
    ...headers,
  });
  res.end(body);
}

function routeKind(method: string, path: string): RouteKind {
  if (method === "GET" && /^\/api\/datasets\/[^/]+\/[^/]+(\/revision\/[^/]+)?$/.test(path)) return "dataset";
  if ((method === "GET" || method === "HEAD") && /^\/datasets\/[^/]+\/[^/]+\/resolve\/[^/]+\/.+/.test(path))
    return "dataset";
  if (method === "POST" && path === "/api/repos/create") return "create";
  if (method === "POST" && /^\/api\/datasets\/[^/]+\/[^/]+\/preupload\/[^/]+$/.test(path)) return "preupload";
  if (method === "POST" && /^\/api\/datasets\/[^/]+\/[^/]+\/commit\/[^/]+$/.test(path)) return "commit";
  if (method === "POST" && path === "/api/repos/move") return "move";
  if (method === "GET" && path === "/api/models") return "list";
  if (method === "GET" && /^\/api\/models\/[^/]+\/[^/]+\/revision\/[^/]+$/.test(path)) return "info";
  if (method === "GET" && /^\/api\/models\/[^/]+\/[^/]+\/tree\/[^/]+/.test(path)) return "tree";
  if ((method === "GET" || method === "HEAD") && /^\/[^/]+\/[^/]+\/resolve\/[^/]+\/.+/.test(path)) return "resolve";
  if ((method === "GET" || method === "HEAD") && /^\/[^/]+\/[^/]+\/raw\/[^/]+\/.+/.test(path)) return "raw";
  return "other";
}

function revisionOk(repo: Repo, rev: string): boolean {
  return rev === "main" || rev === "HEAD" || rev === repo.info.sha;
}

function etagOf(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

async function loadHub(hubDir: string): Promise<Map<string, Repo>> {
  const repos = new Map<string, Repo>();
  for (const owner of await readdir(hubDir)) {
    for (const name of await readdir(join(hubDir, owner))) {
      const id = `${owner}/${name}`;
      const files = new Map<string, Buffer>();
      let info: Record<string, unknown> = { id };
      for (const f of await readdir(join(hubDir, owner, name))) {
        const bytes = await readFile(join(hubDir, owner, name, f));
        if (f === ".hub.json") info = JSON.parse(bytes.toString("utf8")) as Record<string, unknown>;
        else files.set(f, bytes);
      }
      repos.set(id, { id, info, files });
    }
  }
  return repos;
}
