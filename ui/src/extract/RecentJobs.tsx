import { useEffect, useState } from "react";
import type { JobSummary } from "../ipc";
import type { ExtractSource } from "./source";

interface Props {
  source: Pick<ExtractSource, "recentJobs">;
  /** Changes when the list may have changed (a run ended, the screen came back). */
  refreshKey: string;
  disabled: boolean;
  onOpen: (jobId: string) => void;
}

export function jobLabel(job: JobSummary): string {
  const when = new Date(job.createdAt).toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
  const interrupted = job.status === "interrupted" ? " · interrupted" : "";
  return `${job.schemaName} · ${job.documents} document${job.documents === 1 ? "" : "s"} · ${job.totals.done} done${job.totals.failed > 0 ? `, ${job.totals.failed} failed` : ""}${interrupted} · ${when}`;
}

/** Reopen the table of an earlier job (its values, revisions and exports are kept). */
export function RecentJobs({ source, refreshKey, disabled, onOpen }: Props) {
  const [jobs, setJobs] = useState<JobSummary[]>([]);
  const [chosen, setChosen] = useState("");

  useEffect(() => {
    let live = true;
    source.recentJobs().then(
      (list) => {
        if (!live) return;
        setJobs(list);
        setChosen((c) => (list.some((j) => j.jobId === c) ? c : (list[0]?.jobId ?? "")));
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [source, refreshKey]);

  if (jobs.length === 0) return null;
  return (
    <div className="row recent-jobs small">
      <label htmlFor="recent-jobs">Recent jobs</label>
      <select id="recent-jobs" value={chosen} onChange={(e) => setChosen(e.target.value)} disabled={disabled} data-testid="recent-jobs">
        {jobs.map((j) => (
          <option key={j.jobId} value={j.jobId}>{jobLabel(j)}</option>
        ))}
      </select>
      <button type="button" onClick={() => onOpen(chosen)} disabled={disabled || chosen === ""} data-testid="open-job">
        Open
      </button>
    </div>
  );
}
