//! `sift ask`.

use std::io::Write;

use clap::Args;
use sift_core::AskRequest;

use crate::Failure;
use crate::model_args::ModelArgs;

#[derive(Debug, Args)]
pub struct AskArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// A system message sent before the prompt.
    #[arg(long)]
    system: Option<String>,
    /// Print the reply when it is complete instead of as it arrives.
    #[arg(long)]
    no_stream: bool,
    /// The prompt, sent as one user message.
    prompt: String,
}

pub async fn run(args: AskArgs) -> Result<(), Failure> {
    let request = AskRequest {
        provider: args.model.provider_settings(),
        models: args.model.models.clone(),
        system: args.system,
        prompt: args.prompt,
        stream: !args.no_stream,
    };
    let stdout = std::io::stdout();
    let mut on_text = |text: &str| {
        let mut out = stdout.lock();
        // A closed pipe (`sift ask … | head`) is not worth failing the call for.
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
    };
    let outcome = sift_core::ask(&request, &mut on_text).await?;
    let mut out = std::io::stdout().lock();
    if !outcome.streamed {
        let _ = out.write_all(outcome.text.as_bytes());
    }
    let _ = out.write_all(b"\n");
    let _ = out.flush();
    Ok(())
}
