/// <reference types="vitest/config" />
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The Tauri window loads this dev server in `tauri dev` (see devUrl in
// ../tauri.conf.json) and the built `dist/` everywhere else.
export default defineConfig({
  plugins: [react()],
  clearScreen: false,
  server: {
    host: "localhost",
    port: 5173,
    strictPort: true,
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
  },
  test: {
    include: ["src/**/*.test.ts"],
    environment: "node",
    // No unit test waits on a clock; the default 5 s bound only made heavy
    // tests fail on a loaded machine. A test that needs more says so itself
    // (the fuzz test: 120 s).
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
