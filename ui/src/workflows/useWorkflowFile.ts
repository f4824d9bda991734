import { useCallback, useEffect, useRef, useState } from "react";
import type { WorkflowFile, WorkflowSource } from "./source";

export interface FileState {
  files: WorkflowFile[];
  path: string | null;
  /** The text being edited: the source of truth for the canvas. */
  text: string;
  /** The text as last read from or written to disk. */
  saved: string;
  /** The file changed on disk while there were unsaved edits. */
  diskChanged: boolean;
  error: string | null;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The open folder's files, the open file's text, saving, and reloads when the folder watch reports a change. */
export function useWorkflowFile(source: WorkflowSource) {
  const [state, setState] = useState<FileState>({ files: [], path: null, text: "", saved: "", diskChanged: false, error: null });
  const current = useRef(state);
  current.current = state;

  const refresh = useCallback(async () => {
    try {
      const files = await source.listFolder();
      setState((s) => ({ ...s, files }));
      return files;
    } catch (error) {
      setState((s) => ({ ...s, error: `Could not list the folder: ${message(error)}` }));
      return [];
    }
  }, [source]);

  const open = useCallback(
    async (path: string) => {
      try {
        const text = await source.readFile(path);
        setState((s) => ({ ...s, path, text, saved: text, diskChanged: false, error: null }));
      } catch (error) {
        setState((s) => ({ ...s, error: `Could not open ${path}: ${message(error)}` }));
      }
    },
    [source],
  );

  useEffect(() => {
    void refresh().then((files) => {
      const first = files[0];
      if (current.current.path === null && first !== undefined) void open(first.path);
    });
    return source.onFileChanged((path) => {
      void refresh();
      const s = current.current;
      if (path !== s.path) return;
      source.readFile(path).then(
        (text) => {
          setState((now) => {
            if (now.path !== path || text === now.saved) return now;
            // Unsaved edits are not thrown away: the user chooses.
            if (now.text !== now.saved) return { ...now, diskChanged: true };
            return { ...now, text, saved: text, diskChanged: false };
          });
        },
        (error) => setState((now) => (now.path === path ? { ...now, error: `${path} could not be read again (deleted or renamed?): ${message(error)}` } : now)),
      );
    });
  }, [source, refresh, open]);

  const setText = useCallback((text: string) => setState((s) => ({ ...s, text })), []);

  const save = useCallback(async (): Promise<boolean> => {
    const s = current.current;
    if (s.path === null) return false;
    try {
      await source.writeFile(s.path, s.text);
      setState((now) => ({ ...now, saved: s.text, diskChanged: false, error: null }));
      return true;
    } catch (error) {
      setState((now) => ({ ...now, error: `Could not save ${s.path}: ${message(error)}` }));
      return false;
    }
  }, [source]);

  const reloadFromDisk = useCallback(async () => {
    const s = current.current;
    if (s.path !== null) await open(s.path);
  }, [open]);

  /** Writes a new, empty workflow and opens it. */
  const create = useCallback(
    async (path: string) => {
      try {
        await source.writeFile(path, "steps:\n");
        await refresh();
        await open(path);
      } catch (error) {
        setState((s) => ({ ...s, error: `Could not create ${path}: ${message(error)}` }));
      }
    },
    [source, refresh, open],
  );

  const keepMine = useCallback(() => setState((s) => ({ ...s, diskChanged: false })), []);

  return { ...state, dirty: state.text !== state.saved, open, create, setText, save, reloadFromDisk, keepMine, refresh };
}
