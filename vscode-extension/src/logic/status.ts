// The status bar text for fslens's readiness (`fslens.status` and `fslens/status`).

export type ReadinessState = "absent" | "starting" | "loading" | "ready" | "crashed";

export interface StatusLike {
  state?: string;
  reason?: string | null;
  unresponsive?: boolean;
  generation?: number;
  workspaceRoot?: string;
  projectsLoaded?: string[];
  projectsLoading?: string[];
  projectErrors?: { project?: string; code?: number; message?: string }[];
  fsac?: { command?: string | null; source?: string | null; stderrTail?: string | null } | null;
}

export type StatusSeverity = "ok" | "busy" | "warning" | "error";

export interface StatusPresentation {
  /** The readiness in words: loading, ready, syntax only, crashed, starting. */
  label: string;
  /** The status bar text, with a codicon. */
  text: string;
  tooltip: string;
  severity: StatusSeverity;
}

const LABELS: Record<string, { label: string; icon: string; severity: StatusSeverity }> = {
  absent: { label: "syntax only", icon: "$(warning)", severity: "warning" },
  starting: { label: "starting", icon: "$(sync~spin)", severity: "busy" },
  loading: { label: "loading", icon: "$(sync~spin)", severity: "busy" },
  ready: { label: "ready", icon: "$(check)", severity: "ok" },
  crashed: { label: "crashed", icon: "$(error)", severity: "error" },
};

/** What the status bar shows for a status answer or notification (undefined: not started). */
export function statusPresentation(status: StatusLike | undefined | null): StatusPresentation {
  if (!status || !status.state) {
    return { label: "not started", text: "$(circle-slash) F#", tooltip: "fslens is not running", severity: "warning" };
  }
  const known = LABELS[status.state] ?? { label: status.state, icon: "$(question)", severity: "warning" as const };
  let label = known.label;
  let severity = known.severity;
  if (status.unresponsive) {
    label += " (unresponsive)";
    severity = severity === "error" ? "error" : "warning";
  }
  const lines = [`fslens: ${label}`];
  if (status.reason) {
    lines.push(status.reason);
  }
  if (status.state === "absent") {
    lines.push("No FsAutoComplete: fslens answers from its syntax layer only. Set fslens.fsac.command.");
  }
  if (status.workspaceRoot) {
    lines.push(`Workspace: ${status.workspaceRoot}`);
  }
  if (status.projectsLoaded && status.projectsLoaded.length > 0) {
    lines.push(`Projects loaded: ${status.projectsLoaded.length}`);
  }
  if (status.projectErrors && status.projectErrors.length > 0) {
    lines.push(`Project errors: ${status.projectErrors.length}`);
  }
  if (status.fsac?.command) {
    lines.push(`FSAC: ${status.fsac.command}`);
  }
  return { label, text: `${known.icon} F# ${label}`, tooltip: lines.join("\n"), severity };
}

/** Merges a `fslens/status` notification into the last full status answer. */
export function mergeStatus(previous: StatusLike | undefined, notification: StatusLike): StatusLike {
  return { ...(previous ?? {}), ...notification };
}

/**
 * Whether a notification calls for a full `fslens.status`: it says ready but carries no project
 * list (an fslens older than the `projectsLoaded` field), so the list cached while the
 * workspace was loading would stay empty.
 */
export function needsFullStatus(notification: StatusLike): boolean {
  return notification.state === "ready" && !Array.isArray(notification.projectsLoaded);
}

/** Project names (file names without `.fsproj`) of the loaded projects, sorted. */
export function projectNames(status: StatusLike | undefined): string[] {
  const names = new Set<string>();
  for (const path of status?.projectsLoaded ?? []) {
    const file = path.split(/[\\/]/).pop() ?? path;
    names.add(file.replace(/\.fsproj$/i, ""));
  }
  return [...names].sort();
}

/**
 * The latest status from two sources that can cross: `fslens/status` notifications and answers
 * to `fslens.status` requests. An answer describes the moment fslens wrote it, so a notification
 * that arrived after the request went out may be newer: what it said is laid back over the
 * answer (a `loading` answer never hides the `ready` notification that followed it).
 */
export class StatusTracker {
  private status: StatusLike | undefined;
  private sequence = 0;
  private resetAt = 0;
  private notifications: { sequence: number; status: StatusLike }[] = [];

  get current(): StatusLike | undefined {
    return this.status;
  }

  /** A status the extension knows for itself (starting, stopped, could not start): a fresh start. */
  reset(status: StatusLike | undefined) {
    this.status = status;
    this.notifications = [];
    this.sequence += 1;
    this.resetAt = this.sequence;
  }

  notified(notification: StatusLike) {
    this.sequence += 1;
    this.status = mergeStatus(this.status, notification);
    this.notifications.push({ sequence: this.sequence, status: notification });
    if (this.notifications.length > 64) {
      this.notifications.shift();
    }
  }

  /** The mark to hand to `answered` for a request sent now. */
  requested(): number {
    return this.sequence;
  }

  /** An answer to a request sent at `since`; dropped when a reset came after it was sent. */
  answered(since: number, answer: StatusLike) {
    if (since < this.resetAt) {
      return;
    }
    let merged = mergeStatus(this.status, answer);
    for (const notification of this.notifications) {
      if (notification.sequence > since) {
        merged = mergeStatus(merged, notification.status);
      }
    }
    this.status = merged;
  }
}
