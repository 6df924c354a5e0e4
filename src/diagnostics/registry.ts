/**
 * Every warning and error code, defined once (DESIGN.md: "Warnings are data";
 * README: "Warnings and errors", whose tables `npm run readme:codes` generates
 * from this registry). A code's `level` says how it is raised: a `warning` is
 * recorded by `Diagnostics.warn` and never stops a build; an `error` is an
 * `InputError` (or a command's own error line) that stops it. `meaning` and
 * `remedy` are the README's "meaning" and "what to do" (Markdown).
 * This module imports nothing.
 */

/** How a code is raised: a recorded warning, or a fatal error. */
export type Level = "warning" | "error";

/** One code's entry: its level, what it means and what to do (Markdown, one line each). */
export interface CodeInfo {
  readonly level: Level;
  readonly meaning: string;
  readonly remedy: string;
}

/** Every code, by name. */
export const REGISTRY = {
  PVC_UNREADABLE_DIR: {
    level: "warning",
    meaning: "a live PVC directory (or an entry of it) that cannot be read: its entries are missing",
    remedy: "fix the permissions",
  },
  PVC_BAD_NAME: {
    level: "warning",
    meaning:
      "`snapshot-pvc`, `build --pvc`: a name a listing line cannot hold and read back — a line break (`\\n`, `\\r`, U+2028, U+2029), a tab, bytes that are not UTF-8 (or U+FFFD); not listed (a directory: nor anything below it; a `--as` root: nothing at all); `snapshot-pvc` exits 2",
    remedy: "rename the file or directory",
  },
  HUB_BAD_REPO_ID: {
    level: "warning",
    meaning: "the Hub listed an id that is not `owner/name`; skipped",
    remedy: "none",
  },
  PVC_DIR_MISSING: {
    level: "error",
    meaning: "a `--pvc` directory that is not a readable directory",
    remedy: "give the cell's PVC directory",
  },
  PVC_UNKNOWN_CELL: {
    level: "error",
    meaning: "a `--pvc` cell that is not in `cells.json` or is excluded",
    remedy: "name a cell of `cells.json`",
  },
  TRAJECTORY_DIR_MISSING: {
    level: "error",
    meaning: "a `build --trajectory` directory that is not a readable directory",
    remedy: "give the cell's trajectory directory",
  },
  TRAJECTORY_UNKNOWN_CELL: {
    level: "error",
    meaning:
      "a `build --trajectory` or `tokens --cell` cell that is not in `cells.json` (or, for `build`, is excluded)",
    remedy: "name a cell of `cells.json`",
  },
  HUB_UNREACHABLE: {
    level: "error",
    meaning:
      "no connection to the Hub (refused, unknown host, or a port `fetch` never connects to, such as 9: `BAD_PORT`), found anywhere in the error's cause chain, at once and not retried",
    remedy: "check the connection and the Hub URL",
  },
  HUB_UNAVAILABLE: {
    level: "error",
    meaning: "429/5xx/dropped on every attempt, or a `Retry-After` over 60 s",
    remedy: "try again later",
  },
  HUB_ACCESS_DENIED: { level: "error", meaning: "the Hub answered 401/403", remedy: "check `HF_TOKEN`" },
  HUB_ERROR: { level: "error", meaning: "any other Hub answer", remedy: "check the message" },
  HUB_BAD_URL: {
    level: "error",
    meaning:
      "a Hub URL that is not http(s), or that carries a user name or password (never shown; requests cannot send them)",
    remedy: "fix the URL; give a token with `HF_TOKEN`",
  },
  HUB_BAD_TOKEN: { level: "error", meaning: "an `HF_TOKEN` that does not start with `hf_`", remedy: "fix `HF_TOKEN`" },
  HUB_TOKEN_UNREADABLE: {
    level: "error",
    meaning:
      "the token file (`HF_TOKEN_PATH`, else `$HF_HOME/token`) exists but cannot be read (permissions, a folder); named. A missing file is no token",
    remedy: "fix the file's permissions, or set `HF_TOKEN`",
  },
  PVC_BAD_LINE: {
    level: "warning",
    meaning:
      "a listing line that does not parse (too few fields, binary garbage, a bad epoch, type or size, an mtime no date can hold)",
    remedy: "check the capture; the other lines are used",
  },
  PVC_CUT_LINE: {
    level: "warning",
    meaning: "the listing's last line has no line end (capture interrupted); not trusted",
    remedy: "re-capture if that checkpoint matters",
  },
  PVC_OUTSIDE_ROOT: {
    level: "warning",
    meaning: "a listing path not under the cell's `pvc_root`, or with `..`",
    remedy: "fix `pvc_root` or the listing",
  },
  PVC_TWO_LISTINGS: {
    level: "warning",
    meaning: "both `listing.tsv` and `ls-lR.txt`; the first is used",
    remedy: "keep one",
  },
  PVC_LISTING_EMPTY: {
    level: "warning",
    meaning:
      "the listing has no entries at all, so no checkpoint on the PVC can be seen (only janitor and Hub evidence is left)",
    remedy: "re-capture the listing",
  },
  PVC_BAD_STEP: {
    level: "warning",
    meaning:
      "a `weights/step_<N>/STABLE` whose `<N>` is not a step number (letters, or too large for an exact integer); skipped",
    remedy: "check the directory; rename it if it is a real checkpoint",
  },
  PVC_DUPLICATE_ENTRY: {
    level: "warning",
    meaning: "one `STABLE` listed twice with different mtimes; the first within the run is used",
    remedy: "re-capture the listing",
  },
  PVC_MTIME_AFTER_RUN_END: {
    level: "warning",
    meaning: "a STABLE mtime after the run ended: a copy-back, not a write time",
    remedy: "none: the janitor or a fit gives the hour",
  },
  PVC_MTIME_BEFORE_RUN_START: {
    level: "warning",
    meaning: "a STABLE mtime before `run_start`",
    remedy: "check the cell's `run_start`",
  },
  JANITOR_UNPARSED_LINE: {
    level: "warning",
    meaning:
      "a line that names a checkpoint or an action but fits neither janitor format, or a timed line that names one with an action the janitor never writes (v1 `INFO archived`, `Archived`, `archived:`; v2 `action=ARCHIVE`, an archive without `family=` or `step=`, a `family=` and `step=` without `action=`): skipped, so the checkpoint may lose its janitor hour (free-form startup lines and idle `action=skip` lines are skipped silently)",
    remedy: "check whether it held an archive",
  },
  JANITOR_CUT_LINE: {
    level: "warning",
    meaning:
      "the janitor log's last line has no line end (cut off while being written; a line split around a rotation is joined, not cut); skipped, since a cut path still parses (`step_210` → `step_21`)",
    remedy: "restore the full log if that checkpoint matters",
  },
  JANITOR_JUNK_LINE: {
    level: "warning",
    meaning: "binary or garbled bytes in the janitor log; skipped",
    remedy: "none",
  },
  JANITOR_BAD_FIELD: {
    level: "warning",
    meaning:
      'a janitor line with a bad step (not a number), time, path, `family=` (empty, `.` or `..` parts), `src_mtime` (not a number, or no date can hold it) or a v2 quoted value that is not well formed (`step="55"00`, a bad escape); that line is skipped, the lines after it are read',
    remedy: "check the line",
  },
  JANITOR_NONEXISTENT_LOCAL_TIME: {
    level: "warning",
    meaning: "an offset-less time in the hour skipped when DST starts",
    remedy: "check `janitor_tz`",
  },
  JANITOR_AMBIGUOUS_LOCAL_TIME: {
    level: "warning",
    meaning:
      "offset-less times in the hour repeated when DST ends that no later line of sure time (the clock set back, a v2 line, a time outside the hour) places, or all of the hour's where the log goes back in time there more than once (the clock is set back once), so the log's order cannot tell the two occurrences apart: none of those times is used (`time_in_doubt` in provenance.jsonl), never the first occurrence guessed; a checkpoint only they date loses that hour",
    remedy: "check those rows' hours by hand (`explain`)",
  },
  JANITOR_ARCHIVE_TIMES_DIFFER: {
    level: "warning",
    meaning:
      "a checkpoint archived again (a retry) whose v2 `src_mtime` differs from the first archive's by more than a second: a retry reads the same weights' mtime, so the weights were rewritten or a line is damaged. The first archive still counts (SOURCES.md: janitor), as the message says",
    remedy: "check the checkpoint's hour by hand (`explain`)",
  },
  JANITOR_OUT_OF_ORDER: {
    level: "warning",
    meaning:
      "a line earlier than the line before it (the janitor writes in time order): either of the two may be the wrong one, so neither v1 time is used (a v2 `src_mtime` is the weights' own and still is) (`time_in_doubt` in provenance.jsonl; a later archive of the same checkpoint does not stand in). The lines that copytruncate writes into both parts around a rotation (a part opening with the last lines of the part before) are not disorder: they are read once, without a warning",
    remedy: "check the log, or `janitor_tz`",
  },
  JANITOR_OUTSIDE_ROOT: { level: "warning", meaning: "a v1 path not under `pvc_root`", remedy: "check `pvc_root`" },
  JANITOR_UNREADABLE: {
    level: "warning",
    meaning:
      "a log part that cannot be read to its end (corrupt `.gz`, no permission, an I/O error), or a `janitor/` folder that cannot be listed; the lines before the fault and the other parts are used (checkpoints that only those lines time lose that hour)",
    remedy: "recover the part, or fix its permissions",
  },
  JANITOR_MISSING: {
    level: "warning",
    meaning:
      "a cell with no janitor log, or only empty parts: no janitor evidence, so checkpoints whose mtime is unusable lose their hour",
    remedy: "restore `janitor/ckpt-janitor.log`",
  },
  JANITOR_TIME_OUTSIDE_RUN: {
    level: "warning",
    meaning: "a janitor time outside the run",
    remedy: "check the zone and the run's events",
  },
  JANITOR_ZONE_MISMATCH: {
    level: "warning",
    meaning:
      "a cell whose v1 janitor times (no offset: read in `janitor_tz`) are off as a whole: the v1 janitor's startup line states a zone (`tz=...`) whose offset differs from `janitor_tz`'s, or those times come a median of more than 45 minutes after, or 15 minutes before, the STABLE mtimes of the same checkpoints (at least 3 with both; the janitor acts minutes after a write; the message gives the offset they fit). `janitor_tz` is probably wrong (or the janitor's clock was off), so none of the cell's v1 times is used (`zone_in_doubt` in provenance.jsonl); checkpoints that only a v1 time dates lose that hour (a cadence fit may extrapolate them)",
    remedy: "correct the cell's `janitor_tz` in cells.json",
  },
  HOUR_CONFLICT: {
    level: "warning",
    meaning: "mtime and janitor time of one checkpoint differ by more than the tolerance",
    remedy: "investigate with `provenance.jsonl`",
  },
  SUPERVISOR_BAD_LINE: {
    level: "warning",
    meaning: "a history line that is not a JSON object or has no valid `ts` (ISO time with an offset)",
    remedy: "check the line",
  },
  SUPERVISOR_MISSPELLED_EVENT: {
    level: "warning",
    meaning:
      "an event that is a known one spelt differently (`Submit`, `fall_back`, `run-end`), another form of one (`paused`, `resumed`, `submitted`, `run_ended`: the name and at most 3 more letters) or a typo of one (a letter added, dropped or changed, or two neighbours swapped, in names of 5 letters or more; other words such as `restart` or `phase` stay unknown events): ignored like any unknown event, so its pause, role or run end is lost (a pause missed moves every later hour by its length)",
    remedy: "fix the event name",
  },
  SUPERVISOR_DUPLICATE_RUN_START: {
    level: "warning",
    meaning: "a second `run_start`; the first is used",
    remedy: "check which run this is",
  },
  SUPERVISOR_DUPLICATE_RUN_END: {
    level: "warning",
    meaning: "a second `run_end`; the first is used",
    remedy: "check which end is right",
  },
  SUPERVISOR_BAD_RUN_END: {
    level: "warning",
    meaning: "a `run_end` before `run_start`; ignored, the run ends at 100 budget hours",
    remedy: "fix the event's time",
  },
  SUPERVISOR_RUN_END_LATE: {
    level: "warning",
    meaning:
      "a `run_end` more than 101 budget hours after `run_start`; kept, but a copy-back mtime before it now passes as a write time",
    remedy: "check the event's time (a typo in the year?)",
  },
  SUPERVISOR_OUT_OF_ORDER: {
    level: "warning",
    meaning:
      'an event earlier than one above it; the harness writes in time order, so "the last submit" and the pause pairs are in doubt (overlapping pauses are merged, never counted twice)',
    remedy: "check the history",
  },
  SUPERVISOR_UNPAIRED_PAUSE: {
    level: "warning",
    meaning:
      "a `resume` without `pause`, a `pause` while paused, a pause before `run_start`, or a pause never resumed (in a cell without `run_end` the clock stops there, and the run ends there; with a later `run_end`, see `HOUR_IN_UNRESUMED_PAUSE`)",
    remedy: "check the budget clock",
  },
  HOUR_IN_UNRESUMED_PAUSE: {
    level: "warning",
    meaning:
      "checkpoints written after a pause that is never resumed before `run_end` (their count, the first named): how much budget time passed there is unknown, so they get no hour (unrecoverable, with bounds; tokens null), and anchors there are not used",
    remedy: "restore the missing `resume` event",
  },
  SUPERVISOR_NO_SUBMIT: {
    level: "warning",
    meaning:
      "a cell whose history has no valid `submit` event (one per cell, SOURCES.md), so none of its rows is `SUBMITTED`; the events the builder does not read are named (a misspelt `submitted`?)",
    remedy: "fix or add the event",
  },
  SUPERVISOR_SUBMIT_UNREADABLE: {
    level: "warning",
    meaning:
      "a supervisor line after the last valid `submit` that may be a later submit but cannot be read (a submit with no valid `ts` or checkpoint path, a misspelt submit, or a line that is not JSON whose `event` may be submit, one cut off inside an event name that begins like submit too): a later submit replaces an earlier one (SOURCES.md), so which checkpoint was submitted is unknown and none of the cell's rows is `SUBMITTED`",
    remedy: "fix the line named in supervisor/history.jsonl",
  },
  SUPERVISOR_BAD_CHECKPOINT: {
    level: "warning",
    meaning: "a `submit`/`fallback` whose path is not `<pvc_root>/<family>/weights/step_<N>`",
    remedy: "check the event",
  },
  SUPERVISOR_UNKNOWN_CHECKPOINT: {
    level: "warning",
    meaning: "a role event naming a checkpoint that has no row",
    remedy: "check whether it was lost",
  },
  PVC_STABLE_MISSING: {
    level: "warning",
    meaning:
      "a checkpoint with a row (a spare or published repo holds it) whose weight shards the PVC lists without a `STABLE` (a step without it was never completed, SOURCES.md): a STABLE line lost from the listing, or an incomplete write that was archived; its write time is unknown, so its hour comes from the janitor, else it is unrecoverable",
    remedy: "check the listing against the volume (`snapshot-pvc`)",
  },
  CHECKPOINT_LOST: {
    level: "warning",
    meaning:
      "seen somewhere (file and line of the first evidence), but its weights survive nowhere: no row (listed under `lost`); also a janitor line for a family that never existed",
    remedy: "none, or recover the weights",
  },
  EXTRAPOLATION_CLAMPED: {
    level: "warning",
    meaning: "a prediction outside its step-order bounds, clamped to them",
    remedy: "check the family's fit",
  },
  CADENCE_NOT_VALIDATED: {
    level: "warning",
    meaning:
      "a family with anchors whose cadence fit does not validate (an anchor or the leave-one-out error beyond the tolerance, or too few exact points): its untimed checkpoints stay unrecoverable",
    remedy: "check the anchors (`validate` shows the residuals)",
  },
  ANCHOR_BAD_LINE: {
    level: "warning",
    meaning: "an `anchors.tsv` line that does not parse (a step that is not a number, a time without an offset)",
    remedy: "fix the line",
  },
  ANCHOR_BAD_HEADER: {
    level: "warning",
    meaning: "an `anchors.tsv` with an unexpected header",
    remedy: "fix the line",
  },
  ANCHOR_UNKNOWN_FAMILY: {
    level: "warning",
    meaning: "an anchor naming a family with no checkpoint (one warning a line; not used)",
    remedy: "fix the family id (after aliasing)",
  },
  ANCHOR_UNREADABLE: {
    level: "warning",
    meaning:
      "an `anchors.tsv` that cannot be read (no permission, a folder, an I/O error: none of its anchors is used)",
    remedy: "fix the file",
  },
  ANCHOR_UNKNOWN_STEP: {
    level: "warning",
    meaning:
      'an anchor naming a step of its family that no source shows (no row, no lost checkpoint: a typo); not used, so it validates no fit; `validate` lists it under "Anchors not used"',
    remedy: "fix the step",
  },
  ANCHOR_CUT_LINE: {
    level: "warning",
    meaning:
      "the `anchors.tsv`'s last line has no line end and ends in its time, which may be cut off (`+05:30` cut to `+05` still parses); skipped",
    remedy: "end the line with a line end if it is whole",
  },
  ANCHOR_NOT_TAB_SEPARATED: {
    level: "warning",
    meaning:
      "an `anchors.tsv` with no tab at all whose lines split on spaces: one warning for the file (at its first line), every line skipped",
    remedy: "separate the fields with tabs",
  },
  HUB_BAD_JSON: {
    level: "warning",
    meaning:
      "a Hub snapshot file that is not a JSON object: what it gives is unknown (a `generation_config.json` or `config.json`: the stop ids, `eos_ok` null with `HUB_NO_EOS`, never taken from a lower-priority file)",
    remedy: "re-download the repo",
  },
  HUB_BAD_EOS: {
    level: "warning",
    meaning:
      "an `eos_token_id` that is not token ids (ints ≥ 0): the stop ids are unknown (`eos_ok` null, with `HUB_NO_EOS`), never taken from a lower-priority place",
    remedy: "re-download the repo",
  },
  HUB_ID_MISMATCH: {
    level: "warning",
    meaning: "a `.hub.json` id that disagrees with its folder",
    remedy: "re-download the repo",
  },
  HUB_UNKNOWN_REPO: { level: "warning", meaning: "a Hub repo name of no known cell", remedy: "re-download the repo" },
  HUB_DUPLICATE_REPO: {
    level: "warning",
    meaning:
      "several published repos hold one checkpoint (whether their stop ids differ or not, which the message says); eos is read from the repo at the row's own id (else the newest)",
    remedy:
      "delete the stale copy (`publish` and `diff` list the rename onto an existing repo as a conflict, never plan it)",
  },
  HUB_UNREADABLE: {
    level: "warning",
    meaning:
      "a Hub repo folder, or one of its files (`.hub.json`, `generation_config.json`, `config.json`, ...), that cannot be read (no permission, an I/O error): the stop ids are unknown (`eos_ok` null, with `HUB_NO_EOS`), never taken from a lower-priority file",
    remedy: "fix the permissions, or re-download the repo",
  },
  HUB_NO_INFO: {
    level: "warning",
    meaning:
      "a Hub snapshot repo folder without `.hub.json` (the Hub's info that `snapshot-hub` writes with every repo: SOURCES.md, hub/): a folder made by hand or a partial copy. It is read as a repo, but its commit and `lastModified` are unknown, so it is never taken as the newest of two copies of a checkpoint by them",
    remedy: "take the snapshot again (`snapshot-hub`), or remove the folder",
  },
  HUB_NO_EOS: {
    level: "warning",
    meaning:
      "a published repo none of whose files gives usable `eos_token_id` (missing, unreadable or broken `config.json`, or a higher-priority file that cannot be used): `eos_ok` is unknown (null), not false",
    remedy: "re-download the repo's small files",
  },
  TRAJECTORY_BAD_JSON: {
    level: "warning",
    meaning: "a session line that is not valid JSON (a cut-off last line, a stray log message); skipped",
    remedy: "usually none",
  },
  TRAJECTORY_UNPLACED_CALLS: {
    level: "warning",
    meaning:
      "calls with no usable time (one per file, at its first such call): counted in totals, left out of `driver_tokens_at_hour`",
    remedy: "none: the log gives no time",
  },
  TRAJECTORY_OUTPUT_UNDERCOUNT: {
    level: "warning",
    meaning:
      "Claude Code responses whose output stayed at the streaming-start value (TRAJECTORIES.md): counted as logged, a known under-count",
    remedy: "none",
  },
  TRAJECTORY_SUBAGENT_OUTSIDE_SESSION: {
    level: "warning",
    meaning:
      "kimi-cli: calls of a wire file that a `SubagentEvent` of another session folder also forwards (the same `message_id` and usage, within 60 s): a sub-agent's file kept outside `<session>/subagents/<id>/`, so the session rule could not join them; each is counted once",
    remedy: "keep a sub-agent's wire.jsonl under its session's subagents/ folder",
  },
  TRAJECTORY_PARENT_ABSENT: {
    level: "warning",
    meaning:
      "a fork, branch or sub-agent whose parent file is not among the files (codex: its replayed prefix is not counted; pi, kimi-code: the copies are counted, being the only ones)",
    remedy: "check whether a session file is missing",
  },
  TRAJECTORY_FOREIGN_THREAD: {
    level: "warning",
    meaning: "codex: `token_count` lines of another thread inside a rollout; skipped",
    remedy: "none",
  },
  TRAJECTORY_INCONSISTENT_TOTAL: {
    level: "warning",
    meaning:
      "codex: a running total grew while one of its parts shrank (counted from `last_token_usage`); or a running total fell for one line and was back on the next, without the all-zero `last_token_usage` of a context reset (skipped as a glitch, so the history before it is not counted again)",
    remedy: "check the log line",
  },
  TRAJECTORY_UNKNOWN_FORMAT: {
    level: "error",
    meaning: "`tokens --format` or a cell's `trajectory_format` naming no known format",
    remedy: "use `codex`, `claude-code`, `pi`, `kimi-cli` or `kimi-code`",
  },
  TRAJECTORY_READ_ERROR: {
    level: "warning",
    meaning:
      "a session file that cannot be read to its end (a corrupt `.gz`, no permission, an I/O error, a link loop) or a folder under `trajectory/` that cannot be listed: the run's counts are incomplete, so every `driver_tokens_at_hour` of the cell is null (never a smaller count), and so are the counts `tokens` prints (the files it read give only a floor)",
    remedy: "fix the file or its permissions",
  },
  TRAJECTORY_TIME_NO_OFFSET: {
    level: "warning",
    meaning:
      "usage lines of a codex, claude-code or pi file whose `timestamp` has no `Z` or offset (these drivers write UTC with `Z`): read as UTC, one warning per file with the count and the first line",
    remedy: "check whether the file was rewritten in local time",
  },
  TRAJECTORY_BAD_USAGE: {
    level: "warning",
    meaning:
      "a usage count that is not a whole number a double holds exactly (negative, fractional, `1e20`, text); that call is skipped",
    remedy: "check the log line",
  },
  TRAJECTORY_UNREADABLE_USAGE: {
    level: "warning",
    meaning:
      "usage records (one warning per file: how many, the keys missing and present, the first line) that lack a count key their format always writes, e.g. kimi-code `inputOther` renamed `input_other`, a claude-code usage with only `output_tokens`, or one with the `cache_creation` breakdown but no `cache_read_input_tokens`/`cache_creation_input_tokens`; also (a second warning per file) records whose counts contradict the format, e.g. a codex `cached_input_tokens` above `input_tokens` (a gateway whose input excludes the cached part), or a growth of the running total with more cached than input. Their counts cannot be read (never clamped at 0), so the call is skipped, never counted as 0: the totals are short of it (codex: the next readable running total still holds its tokens, at that line's time). A trajectory left with no readable call has null tokens",
    remedy: 'check the logger\'s version; the keys each format must write are in "Usage keys" below',
  },
  TRAJECTORY_USAGE_TOTAL_MISMATCH: {
    level: "warning",
    meaning:
      "usage records (one warning per file: how many, the first line and its numbers) whose written total disagrees with its parts: codex `total_tokens` ≠ `input_tokens` + `output_tokens`, pi `totalTokens` ≠ the sum of its four counts, claude-code `cache_creation_input_tokens` ≠ the sum of `cache_creation.*`. Counted from the parts, as the format defines them; the keys may not mean what they should, so the count is in doubt",
    remedy: "check the logger's version or gateway; compare with the provider's bill",
  },
  TRAJECTORY_UNKNOWN_USAGE_KEY: {
    level: "warning",
    meaning:
      "usage records (one warning per file: how many, the keys, the first line) with a numeric key their format does not define: counted from the keys it defines, so whatever the new key counts is not included",
    remedy: "check what the key counts; the count may be short",
  },
  TRAJECTORY_DUPLICATE_PATH: {
    level: "warning",
    meaning: "a session file reached twice through links (or a link loop): it is counted once",
    remedy: "remove the copy or the link",
  },
  TRAJECTORY_IMPLAUSIBLE_TIME: {
    level: "warning",
    meaning:
      "calls (one warning per reading: how many, the first's file, line and time) timed before 2020 or from 2100 on: a time in the wrong unit (epoch seconds read as milliseconds lands in January 1970; milliseconds read as seconds thousands of years ahead). Such a call is treated as one without a time: counted in totals, left out of `tokens(t)` and `driver_tokens_at_hour` (as `TRAJECTORY_UNPLACED_CALLS`), never dropped from the counts in silence",
    remedy: "check the logger's time unit on that line",
  },
  TRAJECTORY_CALL_OUTSIDE_RUN: {
    level: "warning",
    meaning:
      "build, `tokens --cell`: calls (one warning per cell: how many, the first's file, line and time) dated more than 24 h before `run_start` or after the run's 100 budget hours while the cell's other calls are in the run (a wrong year or day on the line?). Such a call is treated as one without a time: counted in totals, left out of `driver_tokens_at_hour`",
    remedy: "check the line's timestamp",
  },
  TRAJECTORY_DUPLICATE_RECORDS: {
    level: "warning",
    meaning:
      "kimi-code: a session folder copied whole, or a usage record written twice in one file (the same time to the ms, model, scope and usage): each record is counted once. Records without a time (older files) are a copy only as a file's whole sequence: those of a file that are, in order, another file's",
    remedy: "remove the copy or the link",
  },
  TRAJECTORY_NO_CALLS: {
    level: "warning",
    meaning:
      "session files were found but none records a model call of the cell's format: the tokens are unknown, so every `driver_tokens_at_hour` of the cell is null (not 0)",
    remedy: "check `trajectory_format`",
  },
  TRAJECTORY_PATH_MISSING: {
    level: "error",
    meaning: "`tokens` given a path that does not exist",
    remedy: "give the session files",
  },
  TRAJECTORY_PATH_SPECIAL: {
    level: "error",
    meaning: "`tokens` given a pipe or a device instead of a file or folder",
    remedy: "give the session files",
  },
  TRAJECTORY_PATH_UNREADABLE: {
    level: "error",
    meaning: "`tokens` given a path that cannot be looked at (no permission on a folder above it)",
    remedy: "give the session files",
  },
  INPUT_UNREADABLE: {
    level: "warning",
    meaning:
      "a file or folder in the sources that no reader needs (a `RUNLOG.md`, ...) and that cannot be read: `build-report.json` lists it as `unreadable (CODE)` instead of its sha256 (unreadable inputs that a reader reports keep their own code and are listed the same way)",
    remedy: "fix its permissions",
  },
  INPUT_NOT_READ: {
    level: "warning",
    meaning:
      "files that no reader reads and that are not known (`build`; one warning per folder: the count and the first path). Every file under the sources folder is read by some reader, known and deliberately not read (`RUNLOG.md`, the marker `.ptb-manifest-outputs.json`, `.gitkeep`/`.keep`, the other files of a Hub repo folder that is read, a kimi session's `context.jsonl`/`context_N.jsonl`, an excluded cell's folder, what `--hub`/`--pvc`/`--trajectory` replaces), or one of these warnings",
    remedy: "move the file out of the sources, or give it the name its reader reads (SOURCES.md: Layout)",
  },
  HUB_OWNER_EMPTY: {
    level: "warning",
    meaning:
      "`cells.json`'s `org` or `spare_owner` has no repo on the Hub (its snapshot under `hub/<owner>/`, or the live listing): every published (or spare) repo goes unread, so ids, `eos_ok` and sources lose that evidence. A misspelt owner, private repos listed without a token, or the owner's folder missing from the snapshot",
    remedy:
      "fix `org`/`spare_owner` in `cells.json`, give `HF_TOKEN` for private repos, or restore the snapshot's folder",
  },
  HUB_UNKNOWN_OWNER: {
    level: "warning",
    meaning:
      'a `hub/<owner>/` folder (with `--hub`: a listed repo) of an owner that `cells.json` names neither as `org`, `spare_owner` nor the baseline\'s owner: its repos are not read (a typo in `spare_owner` drops every spare); with the closest of the three (`is cells.json\'s spare_owner "msr-spares" a typo of "msr-spare"?`)',
    remedy: "fix `org`/`spare_owner` in `cells.json`, or remove the folder",
  },
  CELL_NOT_REGISTERED: {
    level: "warning",
    meaning:
      "a top-level folder of the sources that is no cell of `cells.json` (a copied or renamed cell): nothing in it is read",
    remedy: "add the cell to `cells.json` (or rename the folder to its cell)",
  },
  TRAJECTORY_FILE_NOT_READ: {
    level: "warning",
    meaning:
      "files in `<cell>/trajectory/` that are not session files of the cell's format (kimi-cli, kimi-code: named `wire.jsonl[.gz]`; the others: ending in `.jsonl` or `.jsonl.gz`): their calls are not counted",
    remedy: "name it `wire.jsonl` (kimi) or `*.jsonl`, or move it out",
  },
  JANITOR_PART_MISSING: {
    level: "warning",
    meaning:
      "a janitor log whose parts skip a rotation number (`ckpt-janitor.log.2.gz` and `ckpt-janitor.log` without `.1`), or rotated parts without the current `ckpt-janitor.log` (copytruncate always leaves it): the lines the missing part held are lost, so the checkpoints only they time lose that hour",
    remedy: "restore the part from the volume or a backup",
  },
  JANITOR_PART_NOT_READ: {
    level: "warning",
    meaning:
      "files in `<cell>/janitor/` that are not `ckpt-janitor.log` or `ckpt-janitor.log.N[.gz]` (e.g. logrotate's `dateext` name `ckpt-janitor.log-20261003.gz`): its lines are no evidence",
    remedy: "rename the part `ckpt-janitor.log.N[.gz]` (N = 1 the newest rotated part, higher = older)",
  },
  SOURCES_NOT_FOUND: {
    level: "error",
    meaning: "`--sources` names no folder (or a file); checked before `--out`",
    remedy: "give the sources folder",
  },
  SOURCES_UNREADABLE: {
    level: "error",
    meaning: "`--sources` names a folder that cannot be read; checked before `--out`",
    remedy: "give the sources folder",
  },
  CELLS_MISSING: {
    level: "error",
    meaning: "`cells.json` missing (the folder is not a sources folder)",
    remedy: "fix `cells.json`",
  },
  CELLS_UNREADABLE: {
    level: "error",
    meaning: "`cells.json` unreadable (a folder, no permission)",
    remedy: "fix `cells.json`",
  },
  CELLS_BAD_JSON: {
    level: "error",
    meaning: "`cells.json` not JSON (with the line of the fault)",
    remedy: "fix `cells.json`",
  },
  CELLS_UNKNOWN_KEY: {
    level: "error",
    meaning:
      '`cells.json` with an unknown (misspelled) key (with its line and the closest known key: `did you mean "janitor_tz"?`)',
    remedy: "fix `cells.json`",
  },
  CELLS_INVALID: {
    level: "error",
    meaning:
      '`cells.json` with a wrong type or a missing key (named by its path, e.g. `cells[1] ("beta").plotted`), or a cell name that is not a Hub name part (`..`, `/`, ...: it names a folder)',
    remedy: "fix `cells.json`",
  },
  CELLS_DUPLICATE_CELL: { level: "error", meaning: "`cells.json` with a cell twice", remedy: "fix `cells.json`" },
  CELLS_BAD_TIME_ZONE: {
    level: "error",
    meaning:
      "a `janitor_tz` in `cells.json` that is not an IANA region name `Area/Location` (or `UTC`, `Etc/UTC`), with its line: abbreviations (`EST`, `PST`), `EST5EDT`, other `Etc/` zones and offsets (`+08:00`) are refused",
    remedy: "fix `cells.json`",
  },
  SUPERVISOR_MISSING: {
    level: "error",
    meaning: "no supervisor history: no hour can be computed",
    remedy: "restore the history",
  },
  SUPERVISOR_NO_RUN_START: {
    level: "error",
    meaning: "a history with no `run_start` (an empty file included): no hour can be computed",
    remedy: "restore the history",
  },
  SUPERVISOR_UNREADABLE: {
    level: "error",
    meaning: "a history that cannot be read (no permission, a folder, an I/O error): no hour can be computed",
    remedy: "restore the history",
  },
  SOURCES_LINK_OUTSIDE: {
    level: "error",
    meaning:
      "a symbolic link in the sources folder whose target is outside it (also a relative `../..` one): the build reads nothing it was not given",
    remedy: "copy the file into the sources folder",
  },
  TRAJECTORY_NO_FILES: {
    level: "warning",
    meaning:
      "the cell's `trajectory/` folder (or a `tokens` folder) holds no session file of the format: the tokens are unknown, so every `driver_tokens_at_hour` of the cell is null (never 0) and the report draws no token curve",
    remedy: "add the session logs, or check the folder",
  },
  TRAJECTORY_ENDS_BEFORE_CHECKPOINT: {
    level: "warning",
    meaning:
      "rows of a cell (one warning per cell, at its last placed call: the call's time, how many rows, the latest row's budget hour) written more than 1 budget hour after the last model call its trajectory holds: a running driver calls its model every few minutes (the longest quiet stretch on the embedded sources is 0.79 budget hours), so the logs probably stop early and the count there is a floor. Those rows' `driver_tokens_at_hour` is null; `tokens --sources --cell --at T` (or `--hour`) gives null with this warning for such a moment",
    remedy: "restore the missing session files (a rollout of the last days?), or check `run_start` and the pauses",
  },
  TRAJECTORY_GAP_BEFORE_CHECKPOINT: {
    level: "warning",
    meaning:
      "rows of a cell (one warning per cell, at the call that ends the stretch: its start and end, how many rows, the latest row's budget hour) written more than 1 budget hour after the start of a stretch of its run with no model call for more than 1 budget hour (from `run_start` to the first call, or between two calls): a running driver calls its model every few minutes, so a session is probably missing there and every count after it misses that session's calls. A stretch from `run_start` that calls logged without a time may fill (`TRAJECTORY_UNPLACED_CALLS`) nulls only the rows inside it. Those rows' `driver_tokens_at_hour` is null; `tokens --sources --cell --at T` (or `--hour`) gives null with this warning for such a moment",
    remedy: "restore the missing session file (a rollout of those hours?), or check `run_start` and the pauses",
  },
  TRAJECTORY_WINDOW_OUTSIDE_LOGS: {
    level: "warning",
    meaning:
      "`tokens --format` with `--at` before the logs' first placed call, or `--since` after their last: the logs do not reach the window, so its counts print as null (unknown), not 0. A window inside the logs with no call counts 0",
    remedy: "check the moment asked, or add the session files of that time",
  },
  TRAJECTORY_NO_SESSION_META: {
    level: "warning",
    meaning:
      "codex: a rollout holding calls whose first line is not its `session_meta` (codex writes it first; a line lost or damaged): whether the file is a fork or a sub-agent, whose replayed history of its parent would then be counted again, cannot be told. The cell's `driver_tokens_at_hour` is null, and so are the counts `tokens` prints (as for `TRAJECTORY_READ_ERROR`)",
    remedy: "restore the rollout's first line (its session_meta, e.g. from a backup of the file)",
  },
  TRAJECTORY_REQUEST_TIME: {
    level: "warning",
    meaning:
      "pi: usage entries without a valid `timestamp` of their own (when the response was saved, the time TRAJECTORIES.md says to use), placed at `message.timestamp`, when the request started: seconds to minutes early, so a count at an hour may include a call that completed just after it (one warning per file, at the first)",
    remedy: "check the file (a rewritten entry?); the counts are as logged",
  },
  TRAJECTORY_TOTAL_DROP: {
    level: "warning",
    meaning:
      "codex: a running total fell and stayed lower (not a one-line glitch) without the all-zero `last_token_usage` that marks a context reset: lines out of order, two sessions joined in one file, or a damaged total. Taken as a reset it counts calls again, and kept as a glitch it loses calls, so neither is stood behind: the cell's `driver_tokens_at_hour` is null, and so are the counts `tokens` prints (as for `TRAJECTORY_READ_ERROR`)",
    remedy: "restore the rollout from a backup, or split joined sessions into their own files",
  },
  TRAJECTORY_SUBAGENT_MISSING: {
    level: "warning",
    meaning:
      "claude-code: a session file forwards model responses of a sub-agent (`agent_progress` lines with its `agentId`) whose own file, `<session>/subagents/agent-<agentId>.jsonl`, is not among the files read (copied without its folder?). The forwarded copies are not all of its calls, so the cell's `driver_tokens_at_hour` is null, and so are the counts `tokens` prints (as for `TRAJECTORY_READ_ERROR`)",
    remedy: "copy the session's folder (its subagents/) with the session file",
  },
  TRAJECTORY_NO_CALLS_IN_RUN: {
    level: "warning",
    meaning:
      "every placed call of the cell's trajectory is before its `run_start`: not this run's logs, so the tokens are unknown (null), not 0",
    remedy: "check the folder and `run_start`",
  },
  SOURCES_SPECIAL_FILE: {
    level: "error",
    meaning: "a FIFO, socket or device file in the sources folder, which would block a reader or never end",
    remedy: "replace it with a regular file",
  },
  PVC_LISTING_MISSING: {
    level: "error",
    meaning: "a cell's PVC listing, which the layout requires, is absent",
    remedy: "restore it",
  },
  TRAJECTORY_MISSING: {
    level: "error",
    meaning: "a cell's `trajectory/` folder, which the layout requires, is absent",
    remedy: "restore it",
  },
  BASELINE_MISSING: {
    level: "error",
    meaning:
      "the baseline's Hub repo (`hub/<owner>/<name>/`, or on the live Hub), which the layout requires, is absent: the baseline row needs its eos files",
    remedy: "restore it",
  },
  PVC_LISTING_UNREADABLE: {
    level: "error",
    meaning: "a PVC listing (or its `pvc/` folder) that cannot be read: a part of it would drop checkpoints unseen",
    remedy: "fix the permissions",
  },
  HUB_FOLDER_UNREADABLE: {
    level: "error",
    meaning: "`hub/` or one of its owner folders that cannot be read: a part of it would drop repos unseen",
    remedy: "fix the permissions",
  },
  PVC_LS_NOT_FULL_TIME: {
    level: "error",
    meaning:
      "an `ls-lR.txt` captured without `--full-time` (`Oct 12 04:00`): no entry has a time to the second with its offset; one error at its first such entry",
    remedy: "re-capture with `ls -lR --full-time <pvc_root>`",
  },
  FILE_ERROR: {
    level: "error",
    meaning:
      "a file system error on a path that no more specific code covers (any command): named with the path and the reason, never an internal error",
    remedy: "check the path and its permissions",
  },
  FAMILY_INVALID_NAME: {
    level: "error",
    meaning: "a family directory whose name cannot stand in a Hub repo name",
    remedy: "add it to the cell's `family_aliases`",
  },
  DUPLICATE_CHECKPOINT: {
    level: "error",
    meaning: "two PVC directories give one family and step: two checkpoints would get one id",
    remedy: "fix the aliases",
  },
  DUPLICATE_MODEL_ID: {
    level: "error",
    meaning:
      "two checkpoints would get one id (or ids that differ only in case, which the Hub takes for one repo name)",
    remedy: "fix the aliases",
  },
  FAMILY_ALIAS_COLLISION: {
    level: "error",
    meaning:
      "two PVC directories with different names give one family id (through `family_aliases`, or an alias onto a name another directory has) and both hold the same step: two training runs would merge. Two directories without a shared step are one family (a renamed directory)",
    remedy: "fix `family_aliases`",
  },
  FAMILY_NOT_ON_PVC: {
    level: "warning",
    meaning:
      "a family that janitor lines or supervisor events name (at the first such line) but no PVC directory holds, while the PVC shows other families: a renamed directory whose old name is not mapped. Its rows are kept as the evidence gives them (often a second row of a checkpoint)",
    remedy: "add the old name to `family_aliases` (the message suggests the entry)",
  },
  FAMILY_DIRS_INTERLEAVED: {
    level: "warning",
    meaning:
      "two PVC directories of one family (through `family_aliases`, or one name at two paths) whose step ranges overlap without a shared step: a renamed directory continues where the old one stopped, so these look like two training runs merged",
    remedy: "check `family_aliases`; map one directory to its own family",
  },
  FAMILY_STEP_ORDER: {
    level: "warning",
    meaning:
      "exactly timed checkpoints (mtime or janitor) of one family whose hours contradict their steps (a higher step written earlier than a lower one), once per family with the first pairs: two training runs merged (a wrong `family_aliases` entry) or a wrong time; the same rule `validate` checks",
    remedy: "check `family_aliases`, then those rows with `explain`",
  },
  FAMILY_NAME_AMBIGUOUS: {
    level: "warning",
    meaning:
      'a `family_aliases` key that is also the id of another family of the cell (a swap `{"a": "b", "b": "a"}`, a chain): a Hub repo or anchor with that name goes to the alias\'s family only when its step is that family\'s and not the other\'s, else to the family whose id it is, which may be the wrong one',
    remedy: "give the families distinct names",
  },
  FAMILY_ALIAS_UNUSED: {
    level: "warning",
    meaning:
      "a `family_aliases` key that names no directory, janitor line, supervisor event, Hub repo or anchor of the cell (compared in NFC): it changes nothing, so an intended rename did not happen",
    remedy: "fix the key's spelling (the message lists the PVC's family directories) or remove it",
  },
  HUB_UNKNOWN_FAMILY: {
    level: "warning",
    meaning:
      "a checkpoint known only from the Hub (file: its repo's `.hub.json`) whose family no PVC directory, janitor line or supervisor event of the cell names: a family renamed after publishing. The row is kept",
    remedy: "add the repo's family name to `family_aliases` (the message suggests the entry), or delete the repo",
  },
  COST_BAD_SCORES: {
    level: "error",
    meaning:
      "`cost`: a scores file that cannot be read, a line without model_id, suite and a numeric score, or a CSV header that names a column twice",
    remedy: "fix the scores file",
  },
  COST_DUPLICATE_SCORE: {
    level: "error",
    meaning: "`cost`: one model scored twice on a suite",
    remedy: "fix the scores file",
  },
  COST_NO_BASELINE: {
    level: "error",
    meaning: "`cost`: a suite with no baseline score",
    remedy: "fix the scores file",
  },
  COST_BAD_MANIFEST: { level: "error", meaning: "`cost`: no manifest to join", remedy: "run `build` first" },
  COST_UNKNOWN_SUITE: {
    level: "error",
    meaning: "`cost`: a `--suite` that no score is on (the message lists the suites there are). Nothing written",
    remedy: "fix `--suite`",
  },
  COST_NO_MATCH: {
    level: "error",
    meaning: "`cost`: a scores file none of whose model ids is a row of the manifest. Nothing written",
    remedy: "give the manifest the scored models come from",
  },
  COST_MIXED_SCALE: {
    level: "warning",
    meaning:
      "`cost` (stderr): a suite whose scores include fractions between 0 and 1 and values above 1 (one warning per suite, at its first fraction, with one score of each kind): a fraction and a percentage mixed, so its gains compare them as they are",
    remedy: "put the suite's scores on one scale",
  },
  COST_UNMATCHED_SCORE: {
    level: "warning",
    meaning: "`cost` (stderr): scores whose model id has no row (count and first line); they are not in the figures",
    remedy: "check the ids (a model not in this index?)",
  },
  SOURCES_NOT_GIVEN: {
    level: "error",
    meaning:
      "`build`, `snapshot-hub` without `--sources` where the working folder has no `sources/` (run outside the clone)",
    remedy: "pass `--sources DIR`",
  },
  PUBLISH_NO_BUILD: { level: "error", meaning: "`publish`: no build in `--out`", remedy: "run `build`" },
  PUBLISH_NO_TOKEN: { level: "error", meaning: "`publish`: `--yes` without `HF_TOKEN`", remedy: "set `HF_TOKEN`" },
  PUBLISH_BAD_REPO: { level: "error", meaning: "`publish`: a `--repo` that is not OWNER/NAME", remedy: "fix `--repo`" },
  PROVENANCE_UNREADABLE: {
    level: "warning",
    meaning:
      "`diff`, `cost`, `publish` (on stderr): a build folder whose `provenance.jsonl` is missing, unreadable or has lines that are not JSON, so ids published under a family's earlier name (`family_aliases`) cannot be paired with their rows",
    remedy: "rebuild into that folder",
  },
  EXPLAIN_NOT_FOUND: {
    level: "error",
    meaning: "`explain` of an id with no row (lost and excluded ones are named as such)",
    remedy: "check the id",
  },
  DIFF_INPUT: {
    level: "error",
    meaning:
      "a `diff` side that is not a manifest (see [diff](#ptb-manifest-diff-old-new---json): not a regular file, empty, a row that fails the row schema, a line that is not an `owner/name` id, an id or a checkpoint twice), named with its row's line; `diff` exits 2 on it",
    remedy: "check the path",
  },
  PUBLISH_FILE_CHANGED: {
    level: "error",
    meaning:
      "`publish`: a file to upload (`README.md`, `manifest.json`, `manifest.csv`) or the `build-report.json` the release gate reads is not as `build` wrote it (the output marker has no record of it, another command wrote it, or it was edited since): nothing done",
    remedy: "run `ptb-manifest build` again (edit the sources, not the outputs)",
  },
  PUBLISH_NOT_RELEASE: {
    level: "error",
    meaning:
      "`publish --yes` of a build made without `--strict` or with warnings (the message gives their count per code); nothing done",
    remedy: "fix or accept each warning and rebuild with `build --strict`, or pass `--allow-warnings`",
  },
  PUBLISH_HUB_CHANGED: {
    level: "error",
    meaning:
      "the Hub changed since the plan: the dataset has a newer commit (the upload's parent is not its head: 412), or is not at `--parent-commit`; the repo to create exists; a repo to rename is gone or its new id taken. Nothing of it overwritten",
    remedy: "run `publish` again, check the new plan",
  },
  PUBLISH_CONFLICTS_LEFT: {
    level: "error",
    meaning:
      "`publish --yes` applied its plan but left renames to settle by hand (a second repo of one checkpoint, a cycle), listed; exit 2",
    remedy: "compare the two repos and delete one by hand, then run `publish` again",
  },
  OUT_BUILD_UNREADABLE: {
    level: "error",
    meaning:
      "`explain` or `validate`: the `--out` folder has a `build-report.json` that cannot be read, is not JSON or not a report of this tool, or its `manifest.json` and `provenance.jsonl` are missing, hold a row that is not a manifest row (named by its line, as `diff` reads a manifest), or do not describe the same rows, or one of them or of its other files with rows (`manifest.csv`, `model-ids.txt`) is not as the build wrote it (its sha256 is not the output marker's record: edited by hand), or the folder has no output marker to check them against (a copy made without its dotfiles, an earlier version's folder)",
    remedy:
      "rebuild into that folder, or give `--out` another one; copy an output folder whole, with its dotfiles (`cp -a`)",
  },
  OUT_NOT_A_FOLDER: {
    level: "error",
    meaning:
      "an output folder (`build --out`, `snapshot-hub --out`, the folder of `cost --html`) that is a file or a device or lies below one (`/dev/null`). Nothing is written",
    remedy: "give another `--out` (an empty one is a usage error, exit 64)",
  },
  CACHE_INSIDE_SOURCES: {
    level: "error",
    meaning:
      "the cache folder (`--cache-dir`, else `$XDG_CACHE_HOME/ptb-manifest`) is the sources folder or inside it, where a cache would be written (`build` with its cache on or with `--hub`, `snapshot-hub`): every run would write into its own inputs",
    remedy: "give a cache folder outside the sources",
  },
  CACHE_UNWRITABLE: {
    level: "warning",
    meaning:
      "`build --cache-dir` names a folder that is no folder or takes no files (`/proc/self`, a file, read-only): the build runs without its cache (as `--no-cache`). Printed on the terminal only: the outputs do not depend on the cache. With `--hub` (and for `snapshot-hub`), whose Hub files go through the cache, it is the error `OUT_UNWRITABLE` or `OUT_NOT_A_FOLDER` instead, before the Hub is asked",
    remedy: "give a cache folder you can write (`--cache-dir`), or `--no-cache`",
  },
  CACHE_FOREIGN_ENTRIES: {
    level: "warning",
    meaning:
      "entries of the build cache or the Hub cache (`--cache-dir`, a shared folder) that another user wrote: not used, the results are computed (or fetched) again, since anyone who can write an entry could change a result. Printed on the terminal only: the outputs do not depend on the cache",
    remedy: "give a cache folder of your own (`--cache-dir`), or leave the default (`~/.cache/ptb-manifest`)",
  },
  OUT_UNWRITABLE: {
    level: "error",
    meaning:
      "an output folder that cannot be written (`/proc/self`, read-only, no permission, or a write that fails). Nothing is written",
    remedy: "give another `--out` (an empty one is a usage error, exit 64)",
  },
  OUT_INSIDE_SOURCES: {
    level: "error",
    meaning: "`build`: an output folder that is the sources folder or inside it. Nothing is written",
    remedy: "give another `--out` (an empty one is a usage error, exit 64)",
  },
  OUT_NOT_A_FILE: {
    level: "error",
    meaning: "an output file whose name is taken by a folder or a device. Nothing is written",
    remedy: "give another `--out` (an empty one is a usage error, exit 64)",
  },
  OUT_FOREIGN_FILE: {
    level: "error",
    meaning:
      "an existing file at an output name (`build --out`, `cost --html`, any file in `snapshot-hub --out`) that this command did not write: not recorded in the folder's `.ptb-manifest-outputs.json` as this command's (`build`, `cost`, `snapshot-hub`: one never replaces another's file, e.g. `cost --html out/README.md`), changed since it was written, a symbolic link, or a marker this tool did not write. Without a record, a file is replaced only when it already holds the bytes to write. The message names them (the first five, then a count); for a folder that looks like an earlier version's output folder (a ptb-manifest `build-report.json` and no marker, a marker without writers, a hub snapshot without a marker) it says so. Nothing is written",
    remedy:
      "give another folder, move the files away, or pass `--force` to replace them; an earlier version's output folder: rerun once with `--force` (its files are then recorded)",
  },
  OUT_IS_INPUT: {
    level: "error",
    meaning:
      "an output at a path the same run reads: `cost --html` naming the `--manifest` file (or the `manifest.json` of a `--manifest` folder), the `provenance.jsonl` beside it or the `--scores` file; `build --out` inside a `--pvc` or `--trajectory` folder; `snapshot-hub --out` holding the `cells.json` of `--sources`; any output named `.ptb-manifest-outputs.json`. Checked after links in folders are resolved; `--force` does not override it. Nothing is written",
    remedy: "write the output elsewhere",
  },
} as const satisfies Record<string, CodeInfo>;

/** A registered code: an unknown one does not type-check. */
export type Code = keyof typeof REGISTRY;

/** The codes of one level. */
type CodeOf<L extends Level> = { [K in Code]: (typeof REGISTRY)[K]["level"] extends L ? K : never }[Code];

/** A code raised as a warning (`Diagnostics.warn`). */
export type WarningCode = CodeOf<"warning">;

/** A code raised as a fatal error (`InputError`, or a command's error line). */
export type ErrorCode = CodeOf<"error">;

/** True when `code` is registered. */
export function isCode(code: string): code is Code {
  return Object.hasOwn(REGISTRY, code);
}
