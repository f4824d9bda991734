// No console window next to the app on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() -> tauri::Result<()> {
    // Started as a reader process (one document, under limits): no window.
    if sift_core::is_reader_invocation() {
        sift_core::serve_reader();
    }
    // Each document is read in a child process of this executable, so that
    // one that crashes PDFium or passes a limit fails alone.
    if let Ok(command) = sift_core::ReaderCommand::this_executable() {
        sift_core::isolate_readers(command);
    }
    sift_app::run()
}
