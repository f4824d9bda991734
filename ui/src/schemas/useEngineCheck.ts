import { useEffect, useState } from "react";
import { describeError } from "../format";
import type { SchemaProblem } from "../ipc";
import type { SchemaSource } from "./source";

export type EngineCheck = { state: "idle" | "checking" } | { state: "done"; problems: SchemaProblem[] } | { state: "failed"; error: string };

/** The engine's answer-schema rules for `text`, asked again (debounced) whenever it changes; skipped while `skip`. */
export function useEngineCheck(source: SchemaSource, text: string, skip: boolean): EngineCheck {
  const [check, setCheck] = useState<EngineCheck>({ state: "idle" });
  useEffect(() => {
    if (skip) {
      setCheck({ state: "idle" });
      return;
    }
    let live = true;
    setCheck({ state: "checking" });
    const timer = window.setTimeout(() => {
      source.checkSchema(text).then(
        (problems) => live && setCheck({ state: "done", problems }),
        (error: unknown) => live && setCheck({ state: "failed", error: describeError(error) }),
      );
    }, 300);
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [text, skip, source]);
  return check;
}
