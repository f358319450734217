import { createHash } from "node:crypto";
import {
  code,
  details,
  emphasis,
  heading,
  issueRef,
  lines,
  link,
  neutralize,
  paragraph,
  raw,
  renderMarkdown,
  safeUrl,
  strong,
  table,
  type Block,
  type InlineLike,
} from "../core/markdown/comment.js";
import type { PlaybookBundle } from "../core/steps/types.js";
import type { Coordination, LockOptions } from "./coordination.js";
import { selectPlaybook, type Selection } from "../core/alerts/select.js";
import type { NormalizedAlert } from "../core/alerts/types.js";

/** The label every triage issue carries: how issues are found again without the search index. */
export const ALERT_LABEL = "alert";
const MAX_BODY = 60_000;

export interface AlertIssue {
  number: number;
  url: string;
  title: string;
  body: string;
  state: "open" | "closed";
  stateReason?: string | null;
  closedAt?: string | null;
}

/** The GitHub operations triage needs, for one repository. */
export interface AlertIssuesPort {
  /**
   * The issues this app opened with the alert label, open and closed (a strongly consistent
   * listing, not search): anyone who can label an issue could copy a marker into one of theirs.
   */
  listAlertIssues(): Promise<AlertIssue[]>;
  getIssue(number: number): Promise<AlertIssue>;
  createIssue(title: string, body: string, labels: string[]): Promise<AlertIssue>;
  comment(issue: number, body: string): Promise<string>;
  updateComment(id: string, body: string): Promise<void>;
  reopen(issue: number): Promise<void>;
  close(issue: number, reason: "completed" | "not_planned"): Promise<void>;
}

export interface TriageDeps {
  issues(repo: string): AlertIssuesPort;
  playbooks(repo: string): Promise<PlaybookBundle[]>;
  startRun(
    repo: string,
    issue: AlertIssue,
    bundle: PlaybookBundle,
    alert: NormalizedAlert,
  ): Promise<void>;
  now(): number;
  reopenWindowMs: number;
  issuesPerMinute(source: string): number;
  /** Shared with the app's other replicas. */
  coordination: Coordination;
  /** How long an alert waits for the work on its key elsewhere, and the locks' lease. */
  lock?: LockOptions;
  /** Told each alert's outcome (its action, or `failed`): the app's metrics. */
  observe?: (source: string, outcome: TriageAction | "failed") => void;
}

export type TriageAction =
  "opened" | "repeat" | "refired" | "reopened" | "resolved" | "closed" | "ignored" | "digest";

export interface TriageOutcome {
  key: string;
  action: TriageAction;
  issue?: number;
  playbook?: string;
}

/** What is remembered of an alert key: its issue, and how it last fired (no alert text). */
interface AlertRecord {
  issue: number;
  url: string;
  lastStatus: "firing" | "resolved";
  lastStartsAt?: string;
  fired: number;
  refireComment?: string;
  playbook?: string;
  /** The issue is open but its playbook has not started yet (the start failed): a retry starts it. */
  startPending?: boolean;
}

/** The hidden marker that names an issue's alert: a hash of the key, so alert text never reaches it. */
export function alertMarker(key: string): string {
  return `<!-- playbook-bot:alert ${createHash("sha256").update(key).digest("hex")} -->`;
}

/** The storm digest of a repository: its issue and comment, and the latest alerts it lists. */
interface DigestRecord {
  issue: number;
  comment: string;
  entries: string[][];
  /** All the alerts listed since the digest opened (only the last DIGEST_ROWS are kept). */
  total: number;
  until: number;
}

/** How long an alert key's record is kept (then it is found again from its issue's marker). */
const RECORD_TTL_MS = 30 * 24 * 3_600_000;
const DIGEST_HOUR_MS = 3_600_000;
const DIGEST_ROWS = 300;

/** Labels or annotations as a two-column table; values are cut to 500 characters. */
function entriesTable(entries: Record<string, string>, max: number): Block[] {
  const all = Object.entries(entries);
  if (all.length === 0) return [paragraph(emphasis("none"))];
  const shown = all.slice(0, max);
  const out: Block[] = [
    table(
      ["name", "value"],
      shown.map(([k, v]) => [code(k), safeUrl(v) ? link(v) : v.slice(0, 500)]),
    ),
  ];
  if (shown.length < all.length)
    out.push(paragraph(emphasis(`${all.length - shown.length} more not shown.`)));
  return out;
}

/** The issue title: plain text (not Markdown), neutralised, on one line. */
export function triageTitle(alert: NormalizedAlert): string {
  const sev = alert.severity !== "unknown" ? `[${alert.severity}] ` : "";
  return neutralize(`${sev}${alert.title}`)
    .replace(/[\r\n]+/g, " ")
    .slice(0, 256);
}

/** The triage issue's body: severity, summary, links, labels and annotations, and why this playbook. */
export function triageBody(alert: NormalizedAlert, selection: Selection): string {
  // Shorter forms until the body fits; the marker and the closing tags always stay.
  for (const [summaryMax, rowsMax, linksMax] of [
    [20_000, Infinity, Infinity],
    [5_000, 20, 20],
    [1_000, 5, 5],
  ] as const) {
    const body = triageMarkdown(alert, selection, summaryMax, rowsMax, linksMax);
    if (body.length <= MAX_BODY) return body;
  }
  return renderMarkdown(
    triageHead(alert),
    paragraph(emphasis("…truncated: the alert was too long for an issue.")),
    raw(alertMarker("")),
  );
}

function triageHead(alert: NormalizedAlert): Block {
  return lines([
    strong("Severity:"),
    ` ${alert.severity} · `,
    strong("Source:"),
    ` ${alert.source} · `,
    strong("Status:"),
    ` ${alert.status}`,
    alert.startsAt ? [" · ", strong("Since:"), ` ${alert.startsAt.slice(0, 100)}`] : [],
  ]);
}

function triageMarkdown(
  alert: NormalizedAlert,
  selection: Selection,
  summaryMax: number,
  rowsMax: number,
  linksMax: number,
): string {
  const blocks: Block[] = [triageHead(alert)];
  const summary = alert.summary.slice(0, summaryMax);
  blocks.push(summary ? paragraph(summary) : paragraph(emphasis("No summary.")));
  const truncated =
    alert.summary.length > summary.length ||
    Object.keys(alert.labels).length > rowsMax ||
    Object.keys(alert.annotations).length > rowsMax ||
    alert.links.length > linksMax;
  if (alert.links.length)
    blocks.push(
      paragraph(
        alert.links
          .slice(0, linksMax)
          .map((l, i): InlineLike => [i ? " · " : "", link(l.url, l.text.slice(0, 200))]),
      ),
    );
  blocks.push(
    heading(4, "Labels"),
    ...entriesTable(alert.labels, rowsMax),
    heading(4, "Annotations"),
    ...entriesTable(alert.annotations, rowsMax),
  );
  const chosen = selection.chosen;
  const why: Block[] = [
    chosen
      ? paragraph(
          strong(chosen.playbook),
          ` (score ${chosen.score}): ${chosen.reasons.join(", ") || "its selector fits"}.`,
        )
      : paragraph("No playbook fits this alert, and the default triage playbook is not available."),
  ];
  const others = selection.candidates.filter((c) => c.playbook !== chosen?.playbook).slice(0, 3);
  if (others.length)
    why.push(
      paragraph(`Also considered: ${others.map((c) => `${c.playbook} (${c.score})`).join(", ")}.`),
    );
  blocks.push(...details("Why this playbook", why));
  if (truncated)
    blocks.push(paragraph(emphasis("…truncated: the alert was too long for an issue.")));
  blocks.push(raw(alertMarker("")));
  return renderMarkdown(...blocks);
}

/**
 * Alerts to triage issues: one issue per alert key, found again through its hidden marker (never
 * the search index); work for one key is serialised, so concurrent alerts with one key make one
 * issue. Repeats change nothing, re-fires add one comment that counts them, a re-fire soon after a
 * close reopens (never an issue a person closed as not planned), a resolve comments and closes when
 * the playbook says so. Beyond a source's rate, new alerts go to one digest issue.
 */
export class AlertTriage {
  private readonly store: Coordination;
  private readonly lock: LockOptions;

  constructor(private readonly deps: TriageDeps) {
    this.store = deps.coordination;
    this.lock = deps.lock ?? {};
  }

  /** An alert key's name in the shared store: its repository and a hash (no alert text). */
  private keyOf(repo: string, key: string): string {
    return `alert:${repo}:${createHash("sha256").update(key).digest("hex")}`;
  }

  handle(alert: NormalizedAlert, repo: string): Promise<TriageOutcome> {
    const handled = this.store.withLock(
      this.keyOf(repo, alert.key),
      () => this.handleNow(alert, repo),
      this.lock,
    );
    const observe = this.deps.observe;
    if (observe)
      handled.then(
        (o) => observe(alert.source, o.action),
        () => observe(alert.source, "failed"),
      );
    return handled;
  }

  private save(repo: string, key: string, rec: AlertRecord): Promise<void> {
    return this.store.put(this.keyOf(repo, key), rec, RECORD_TTL_MS);
  }

  /** Markers of a repository's alert issues (newest issue per marker), listed once per repository. */
  private readonly indexes = new Map<string, Promise<Map<string, AlertIssue>>>();

  private index(repo: string): Promise<Map<string, AlertIssue>> {
    let index = this.indexes.get(repo);
    if (!index) {
      index = this.deps
        .issues(repo)
        .listAlertIssues()
        .then((issues) => {
          const byMarker = new Map<string, AlertIssue>();
          for (const i of issues)
            for (const m of i.body.match(/<!-- playbook-bot:alert [0-9a-f]{64} -->/g) ?? []) {
              const known = byMarker.get(m);
              if (!known || known.number < i.number) byMarker.set(m, i);
            }
          return byMarker;
        });
      this.indexes.set(repo, index);
      // A failed listing is not remembered: the next alert lists again.
      index.catch(() => {
        if (this.indexes.get(repo) === index) this.indexes.delete(repo);
      });
    }
    return index;
  }

  /**
   * A key's record, or (on first contact with a repository, after a restart or once the record
   * expired) one rebuilt from issue markers: one listing per repository, not per key.
   */
  private async record(repo: string, key: string): Promise<AlertRecord | undefined> {
    const known = await this.store.get<AlertRecord>(this.keyOf(repo, key));
    if (known) return known;
    // The newest issue of the key (a later firing opens a new issue linking the old one).
    const found = (await this.index(repo)).get(alertMarker(key));
    if (!found) return undefined;
    const rec: AlertRecord = {
      issue: found.number,
      url: found.url,
      lastStatus: found.state === "open" ? "firing" : "resolved",
      fired: 1,
    };
    await this.save(repo, key, rec);
    return rec;
  }

  private async handleNow(alert: NormalizedAlert, repo: string): Promise<TriageOutcome> {
    const rec = await this.record(repo, alert.key);
    if (!rec) {
      if (alert.status === "resolved") return outcome(alert, "ignored");
      return this.open(alert, repo, undefined);
    }
    const issue = await this.deps.issues(repo).getIssue(rec.issue);
    if (rec.startPending && rec.playbook && alert.status === "firing" && issue.state === "open") {
      // The sender retries an alert whose playbook did not start: this stage resumes.
      const bundle = (await this.deps.playbooks(repo)).find((b) => b.playbook.id === rec.playbook);
      if (bundle) await this.deps.startRun(repo, issue, bundle, alert);
      delete rec.startPending;
      await this.save(repo, alert.key, rec);
      return outcome(alert, "opened", rec.issue, rec.playbook);
    }
    if (alert.status === "resolved") return this.resolved(alert, repo, rec, issue);
    // Firing. The same firing again (same start) is a repeat: nothing changes.
    const sameCycle =
      rec.lastStatus === "firing" &&
      (alert.startsAt === undefined || alert.startsAt === rec.lastStartsAt);
    if (sameCycle && issue.state === "open") return outcome(alert, "repeat", rec.issue);
    if (issue.state === "closed") return this.firedOnClosed(alert, repo, rec, issue);
    return this.firedAgain(alert, repo, rec);
  }

  /** A resolved alert: said on its open issue, which its playbook may ask to close. */
  private async resolved(
    alert: NormalizedAlert,
    repo: string,
    rec: AlertRecord,
    issue: AlertIssue,
  ): Promise<TriageOutcome> {
    const port = this.deps.issues(repo);
    if (rec.lastStatus === "resolved") return outcome(alert, "repeat", rec.issue);
    rec.lastStatus = "resolved";
    await this.save(repo, alert.key, rec);
    if (issue.state === "closed") return outcome(alert, "resolved", rec.issue);
    await port.comment(
      rec.issue,
      renderMarkdown(
        paragraph(
          `✅ Resolved${alert.notPlanned ? " (dismissed)" : ""} at ${new Date(this.deps.now()).toISOString()}.`,
        ),
      ),
    );
    const bundle = rec.playbook
      ? (await this.deps.playbooks(repo)).find((b) => b.playbook.id === rec.playbook)
      : undefined;
    const closeOnResolve =
      bundle?.playbook.on?.alerts?.resolve === "close" ||
      (alert.source === "github" && alert.notPlanned === true);
    if (!closeOnResolve) return outcome(alert, "resolved", rec.issue);
    await port.close(rec.issue, alert.notPlanned ? "not_planned" : "completed");
    return outcome(alert, "closed", rec.issue);
  }

  /** An alert firing again on a closed issue: counted, reopened, or a new issue after the window. */
  private async firedOnClosed(
    alert: NormalizedAlert,
    repo: string,
    rec: AlertRecord,
    issue: AlertIssue,
  ): Promise<TriageOutcome> {
    if (issue.stateReason !== "not_planned") {
      const closedAt = issue.closedAt ? Date.parse(issue.closedAt) : 0;
      if (this.deps.now() - closedAt > this.deps.reopenWindowMs) return this.open(alert, repo, rec);
      await this.deps.issues(repo).reopen(rec.issue);
    }
    rec.fired++;
    rec.lastStatus = "firing";
    if (alert.startsAt !== undefined) rec.lastStartsAt = alert.startsAt;
    await this.save(repo, alert.key, rec);
    // A person decided this needs no work: never reopened, only counted.
    if (issue.stateReason === "not_planned") return outcome(alert, "repeat", rec.issue);
    await this.deps
      .issues(repo)
      .comment(
        rec.issue,
        renderMarkdown(
          paragraph(
            `🔁 Fired again at ${new Date(this.deps.now()).toISOString()}; reopened (fired ${rec.fired} times).`,
          ),
        ),
      );
    return outcome(alert, "reopened", rec.issue);
  }

  /** An alert firing again on its open issue: one comment of its own counts the firings. */
  private async firedAgain(
    alert: NormalizedAlert,
    repo: string,
    rec: AlertRecord,
  ): Promise<TriageOutcome> {
    const port = this.deps.issues(repo);
    rec.fired++;
    rec.lastStatus = "firing";
    if (alert.startsAt !== undefined) rec.lastStartsAt = alert.startsAt;
    await this.save(repo, alert.key, rec);
    const text = renderMarkdown(
      paragraph(
        `🔁 Fired again, ${rec.fired - 1} ${rec.fired - 1 === 1 ? "time" : "times"} (last at ${new Date(this.deps.now()).toISOString()}).`,
      ),
    );
    if (rec.refireComment) await port.updateComment(rec.refireComment, text);
    else {
      rec.refireComment = await port.comment(rec.issue, text);
      await this.save(repo, alert.key, rec);
    }
    return outcome(alert, "refired", rec.issue);
  }

  private async open(
    alert: NormalizedAlert,
    repo: string,
    previous: AlertRecord | undefined,
  ): Promise<TriageOutcome> {
    // At most issuesPerMinute new issues in any minute, counted across replicas.
    const withinRate = await this.store.spend(
      `alert-rate:${repo}:${alert.source}`,
      { count: this.deps.issuesPerMinute(alert.source), windowMs: 60_000 },
      this.deps.now(),
    );
    if (!withinRate) return this.digest(alert, repo);
    const playbooks = await this.deps.playbooks(repo);
    const selection = selectPlaybook(alert, playbooks);
    let body = triageBody(alert, selection).replace(alertMarker(""), alertMarker(alert.key));
    if (previous)
      body = `${renderMarkdown(
        paragraph(
          "Fired again after ",
          link(previous.url, issueRef(previous.issue)),
          " was closed.",
        ),
      )}\n\n${body}`;
    const labels = [ALERT_LABEL, `source:${alert.source}`, `severity:${alert.severity}`];
    const port = this.deps.issues(repo);
    const issue = await port.createIssue(triageTitle(alert), body, labels);
    void this.indexes
      .get(repo)
      ?.then((m) => m.set(alertMarker(alert.key), issue))
      .catch(() => undefined);
    const rec: AlertRecord = {
      issue: issue.number,
      url: issue.url,
      lastStatus: "firing",
      fired: 1,
    };
    if (alert.startsAt !== undefined) rec.lastStartsAt = alert.startsAt;
    const bundle = selection.chosen
      ? playbooks.find((b) => b.playbook.id === selection.chosen?.playbook)
      : undefined;
    if (bundle) {
      rec.playbook = bundle.playbook.id;
      rec.startPending = true;
    }
    await this.save(repo, alert.key, rec);
    if (bundle) {
      // Done only once started; a failure leaves the stage for the sender's retry.
      await this.deps.startRun(repo, issue, bundle, alert);
      delete rec.startPending;
      await this.save(repo, alert.key, rec);
    }
    const o: TriageOutcome = { key: alert.key, action: "opened", issue: issue.number };
    if (bundle) o.playbook = bundle.playbook.id;
    return o;
  }

  /** Beyond the rate: one digest issue per repository and hour, its one comment listing the alerts. */
  private digest(alert: NormalizedAlert, repo: string): Promise<TriageOutcome> {
    const key = `alert-digest:${repo}`;
    return this.store.withLock(
      key,
      async () => {
        const port = this.deps.issues(repo);
        const now = this.deps.now();
        let d = await this.store.get<DigestRecord>(key);
        const line = [
          new Date(now).toISOString().slice(11, 19),
          alert.severity,
          alert.title.slice(0, 200),
        ];
        if (!d || now > d.until) {
          const issue = await port.createIssue(
            "Alert storm: alerts beyond the rate limit",
            renderMarkdown(
              paragraph(
                `More alerts arrived than the rate allows (${this.deps.issuesPerMinute(alert.source)} new issues a minute from ${alert.source}). They are listed here instead of one issue each.`,
              ),
              raw(alertMarker(`digest:${repo}:${now}`)),
            ),
            [ALERT_LABEL, "alert-storm"],
          );
          const comment = await port.comment(issue.number, digestTable([line], 0));
          d = {
            issue: issue.number,
            comment,
            entries: [line],
            total: 1,
            until: now + DIGEST_HOUR_MS,
          };
          await this.store.put(key, d, 2 * DIGEST_HOUR_MS);
          return { key: alert.key, action: "digest", issue: issue.number };
        }
        d.entries = [...d.entries, line].slice(-DIGEST_ROWS);
        d.total++;
        await this.store.put(key, d, 2 * DIGEST_HOUR_MS);
        await port.updateComment(d.comment, digestTable(d.entries, d.total - d.entries.length));
        return { key: alert.key, action: "digest", issue: d.issue };
      },
      this.lock,
    );
  }
}

/** The digest's table of alerts (time, severity, title), and how many earlier ones it leaves out. */
function digestTable(rows: string[][], omitted: number): string {
  const blocks: Block[] = [table(["time", "severity", "alert"], rows)];
  if (omitted > 0) blocks.push(paragraph(emphasis(`${omitted} earlier alerts not shown.`)));
  return renderMarkdown(...blocks);
}

/** What became of an alert: its action, and the issue and playbook where there are. */
function outcome(
  alert: NormalizedAlert,
  action: TriageAction,
  issue?: number,
  playbook?: string,
): TriageOutcome {
  const o: TriageOutcome = { key: alert.key, action };
  if (issue !== undefined) o.issue = issue;
  if (playbook !== undefined) o.playbook = playbook;
  return o;
}
