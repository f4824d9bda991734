// No console window next to the app on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() -> tauri::Result<()> {
    // A reader process serves its one document here and exits: no window.
    sift_core::start_reading_in_child_processes();
    sift_app::run()
}
