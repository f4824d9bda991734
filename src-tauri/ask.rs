//! The `ask` command: one prompt to the configured model, the reply
//! streamed back over a channel.

use sift_core::{AskArgs, AskEvent, Workspace};
use tauri::State;
use tauri::ipc::Channel;

use crate::error::IpcResult;

#[tauri::command]
pub async fn ask(
    args: AskArgs,
    ws: State<'_, Workspace>,
    events: Channel<AskEvent>,
) -> IpcResult<()> {
    Ok(sift_core::ask_streamed(&ws, args, move |e| {
        let _ = events.send(e);
    })
    .await?)
}
