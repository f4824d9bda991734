// What the Usage screen needs from the app; `ui/src/backend/evaluateSource.ts`
// implements it over ui/src/ipc.ts.
import type { UsageReport, UsageRequest } from "../ipc";

export interface UsageSource {
  usage(request: UsageRequest): Promise<UsageReport>;
}
