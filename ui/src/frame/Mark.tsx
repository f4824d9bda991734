export function Mark() {
  return (
    <svg className="mark" viewBox="0 0 64 64" aria-hidden="true">
      <defs>
        <linearGradient id="mark-gradient" x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stopColor="#6366f1" />
          <stop offset="1" stopColor="#0e7490" />
        </linearGradient>
      </defs>
      <rect x="2" y="2" width="60" height="60" rx="14" fill="url(#mark-gradient)" />
      <path d="M15.5 22.5h33L35.75 37.75V50.75h-7.5V37.75z" fill="#fff" />
      <g fill="#fff" fillOpacity="0.78">
        <circle cx="24.25" cy="14.75" r="2.4" />
        <circle cx="32" cy="12.75" r="2.4" />
        <circle cx="39.75" cy="14.75" r="2.4" />
      </g>
    </svg>
  );
}
