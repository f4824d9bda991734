//! `sift chat`: one chat turn on a session, its text streamed to stdout.

use std::io::Write;

use clap::Args;
use sift_core::ChatEvent;
use sift_core::Workspace;
use sift_core::chat::{ChatRequest, ChatStatus, chat_turn};

use crate::Failure;
use crate::model_args::ModelArgs;

#[derive(Debug, Args)]
pub struct ChatArgs {
    /// The session (see `sift session new`).
    #[arg(long, value_name = "ID")]
    session: String,
    /// The user's message.
    text: String,
    #[command(flatten)]
    model: ModelArgs,
}

/// Prints the reply's text as it arrives, then one newline. Exit 1 with
/// `error (CATEGORY): MESSAGE` when the turn fails (nothing is stored);
/// exit 3 when it reached its limit of model requests (what it did is
/// stored).
pub async fn run(args: ChatArgs, ws: &Workspace) -> Result<(), Failure> {
    let store = ws.store()?;
    let mut request = ChatRequest::new(args.session, args.text, args.model.selection(ws));
    request.context = ws.config().context;
    let stdout = std::io::stdout();
    let mut printed = false;
    let mut on_event = |event: ChatEvent| {
        if let ChatEvent::TextDelta(text) = event {
            printed = true;
            let mut out = stdout.lock();
            // A closed pipe (`sift chat … | head`) is not worth failing the turn for.
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
        }
    };
    let result = chat_turn(&store, &request, &mut on_event).await;
    let mut out = std::io::stdout().lock();
    // A failed turn may have streamed some text; end its line either way.
    if printed || result.is_ok() {
        let _ = out.write_all(b"\n");
        let _ = out.flush();
    }
    match result?.status {
        ChatStatus::Completed => Ok(()),
        ChatStatus::TurnLimited => Err(Failure::Exit {
            code: 3,
            message: format!(
                "the turn reached its limit of {} model requests; what it did is stored",
                request.max_iterations
            ),
        }),
        // No tools are offered here, so nothing can wait for approval;
        // should the session's tools ever do so, say what waits.
        ChatStatus::AwaitingApproval => Err(Failure::Failed {
            category: "approval_required".into(),
            message: "the turn waits for the user's approval".into(),
        }),
    }
}
