import { useEffect, useState } from "react";
import { useBackend } from "../backend/context";
import type { JobBrief } from "../backend/types";

interface Props {
  /** Changes when the list may have changed (a run ended, the screen came back). */
  refreshKey: string;
  disabled: boolean;
  onOpen: (jobId: string) => void;
}

export function jobLabel(job: JobBrief): string {
  const when = new Date(job.createdAt).toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
  return `${job.schemaName} · ${job.documents} document${job.documents === 1 ? "" : "s"} · ${job.done} done${job.failed > 0 ? `, ${job.failed} failed` : ""} · ${when}`;
}

/** Reopen the table of an earlier job (its values, revisions and exports are kept). */
export function RecentJobs({ refreshKey, disabled, onOpen }: Props) {
  const backend = useBackend();
  const [jobs, setJobs] = useState<JobBrief[]>([]);
  const [chosen, setChosen] = useState("");

  useEffect(() => {
    let live = true;
    backend.recentJobs().then(
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
  }, [backend, refreshKey]);

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
