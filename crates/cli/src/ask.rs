//! `sift ask`.

use std::io::Write;

use clap::{Args, ValueEnum};
use sift_core::{AskRequest, ProviderChoice, ProviderSettings};

use crate::Failure;

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ProviderArg {
    Openai,
    Anthropic,
    Local,
}

impl From<ProviderArg> for ProviderChoice {
    fn from(arg: ProviderArg) -> Self {
        match arg {
            ProviderArg::Openai => Self::OpenAi,
            ProviderArg::Anthropic => Self::Anthropic,
            ProviderArg::Local => Self::Local,
        }
    }
}

#[derive(Debug, Args)]
pub struct AskArgs {
    /// The provider [default: $SIFT_PROVIDER, else local].
    #[arg(long, value_enum)]
    provider: Option<ProviderArg>,
    /// The server's base URL [default: $SIFT_BASE_URL, else the provider's].
    #[arg(long)]
    base_url: Option<String>,
    /// The model; repeat to fall back to the next on failure (then the
    /// reply is not streamed) [default: $SIFT_MODEL].
    #[arg(long = "model")]
    models: Vec<String>,
    /// A system message sent before the prompt.
    #[arg(long)]
    system: Option<String>,
    /// The environment variable that holds the API key [default:
    /// OPENAI_API_KEY or ANTHROPIC_API_KEY, then SIFT_API_KEY].
    #[arg(long)]
    api_key_env: Option<String>,
    /// The OS keychain account that holds the API key (see `sift key`)
    /// [default: the provider's name].
    #[arg(long)]
    api_key_account: Option<String>,
    /// Print the reply when it is complete instead of as it arrives.
    #[arg(long)]
    no_stream: bool,
    /// The prompt, sent as one user message.
    prompt: String,
}

pub async fn run(args: AskArgs) -> Result<(), Failure> {
    let request = AskRequest {
        provider: ProviderSettings {
            provider: args.provider.map(Into::into),
            base_url: args.base_url,
            api_key_env: args.api_key_env,
            api_key_account: args.api_key_account,
        },
        models: args.models,
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
