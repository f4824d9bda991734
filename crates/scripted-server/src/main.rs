//! `sift-scripted-server [--port N] [--script FILE]`: runs the scripted
//! model server until killed and prints `listening on http://127.0.0.1:PORT`.

use std::net::SocketAddr;

use anyhow::{Context, bail};
use sift_scripted_server::{Script, ScriptedServer};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut port = 0u16;
    let mut script = Script::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => {
                port = args
                    .next()
                    .context("--port needs a number")?
                    .parse()
                    .context("--port needs a number")?;
            }
            "--script" => {
                let path = args.next().context("--script needs a file")?;
                let text = std::fs::read_to_string(&path)
                    .with_context(|| format!("cannot read {path}"))?;
                script = serde_json::from_str(&text)
                    .with_context(|| format!("{path} is not a valid script"))?;
            }
            "-h" | "--help" => {
                #[allow(clippy::print_stdout)]
                {
                    println!("usage: sift-scripted-server [--port N] [--script FILE]");
                }
                return Ok(());
            }
            other => bail!("unknown argument {other:?}; see --help"),
        }
    }
    let server = ScriptedServer::start_on(SocketAddr::from(([127, 0, 0, 1], port)), script).await?;
    #[allow(clippy::print_stdout)]
    {
        println!("listening on {}", server.url());
    }
    tokio::signal::ctrl_c().await?;
    Ok(())
}
