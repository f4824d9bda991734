//! Files dropped on the window are granted for reading, from the native
//! drag-and-drop event: the page is told of the drop by the same event,
//! but the paths it sends back count only because this grant names them
//! (a path the page makes up is refused). The main window's page fills
//! the window, so its drops come as window events.

use sift_core::Workspace;
use tauri::{DragDropEvent, WindowEvent};

/// Grants each path of a drop (a folder: everything below it); any other
/// event does nothing. Runs in the main thread's handling of the event,
/// before the page can answer it with a command.
pub(crate) fn grant_dropped(ws: &Workspace, event: &WindowEvent) {
    if let WindowEvent::DragDrop(DragDropEvent::Drop { paths, .. }) = event {
        for path in paths {
            ws.grants().grant_read(path);
        }
    }
}
