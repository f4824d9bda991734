// The frame's source over the Tauri commands (ui/src/ipc.ts).
import * as ipc from "../ipc";
import type { FrameSource } from "../frame/source";

export function tauriFrameSource(): FrameSource {
  return {
    async appVersion() {
      if (!ipc.isDesktopApp()) return null;
      const info = await ipc.appInfo();
      return `${info.name} ${info.version}`;
    },
    localServer: () => ipc.localServerStatus(),
  };
}
