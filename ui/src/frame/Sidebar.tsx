import { SCREENS, type ScreenId } from "./screens";
import { preferenceLabel, type Theme, type ThemePreference } from "./theme";
import { LocalServerBadge } from "./LocalServerBadge";
import type { FrameSource } from "./source";
import { Mark } from "./Mark";

interface Props {
  current: ScreenId;
  onNavigate: (id: ScreenId) => void;
  preference: ThemePreference;
  theme: Theme;
  onCycleTheme: () => void;
  version: string | null;
  source: FrameSource;
}

const ICONS: Record<ScreenId, string> = {
  extract: "M4 5h16M4 12h16M4 19h10",
  schemas: "M8 4H6a2 2 0 0 0-2 2v4l-2 2 2 2v4a2 2 0 0 0 2 2h2M16 4h2a2 2 0 0 1 2 2v4l2 2-2 2v4a2 2 0 0 1-2 2h-2",
  workflows: "M5 4h5v5H5zM14 15h5v5h-5zM7.5 9v3.5h9V15",
  chat: "M4 5h16v11H9l-5 4z",
  transcripts: "M6 3h9l4 4v14H6zM9 11h7M9 15h7M9 7h3",
  evaluate: "M4 20V10M10 20V4M16 20v-7M3 20h18",
  usage: "M12 3a9 9 0 1 0 9 9h-9zM15 3.5A9 9 0 0 1 20.5 9H15z",
  settings: "M12 15a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM19.4 15l1.6 1-2 3.4-1.8-.7a7 7 0 0 1-2.2 1.3L14.8 22h-4l-.3-2a7 7 0 0 1-2.2-1.3l-1.8.7-2-3.4 1.6-1.3a7 7 0 0 1 0-2.6L4.5 10.8l2-3.4 1.8.7A7 7 0 0 1 10.5 6.8l.3-2h4l.3 2a7 7 0 0 1 2.2 1.3l1.8-.7 2 3.4-1.6 1.3a7 7 0 0 1 0 2.6z",
};

export function Sidebar({ current, onNavigate, preference, theme, onCycleTheme, version, source }: Props) {
  return (
    <aside className="sidebar">
      <div className="brand">
        <Mark />
        <span className="brand-name">Sift</span>
      </div>
      <nav aria-label="Sections">
        <ul className="nav-list">
          {SCREENS.map((s) => (
            <li key={s.id}>
              <button
                type="button"
                className="nav-item"
                aria-current={current === s.id ? "page" : undefined}
                aria-keyshortcuts={`Alt+${s.key}`}
                title={`${s.label} (Alt+${s.key})`}
                data-testid={`nav-${s.id}`}
                onClick={() => onNavigate(s.id)}
              >
                <svg viewBox="0 0 24 24" aria-hidden="true" className="nav-icon">
                  <path d={ICONS[s.id]} />
                </svg>
                {s.label}
              </button>
            </li>
          ))}
        </ul>
      </nav>
      <div className="sidebar-foot">
        <LocalServerBadge source={source} />
        <button type="button" className="ghost" onClick={onCycleTheme} data-testid="theme-toggle" aria-label={`${preferenceLabel(preference, theme)}. Change theme`}>
          {preferenceLabel(preference, theme)}
        </button>
        {version !== null && <span className="muted small">{version}</span>}
      </div>
    </aside>
  );
}
