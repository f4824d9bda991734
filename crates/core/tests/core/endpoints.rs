//! A provider with several endpoints: `base_urls` in the configuration
//! file (read, refused when wrong, saved back), and a job's calls spread
//! over two scripted servers.

use std::time::{Duration, Instant};

use serde_json::json;
use sift_core::config::{load_settings, parse_settings, render_settings};
use sift_core::extract::{ExtractOptions, Progress, create_job, run_job};
use sift_core::settings::form::SettingsForm;
use sift_core::settings::screen;
use sift_core::{ModelSelection, Workspace, WorkspaceOptions};
use sift_scripted_server::{Reply, Script, ScriptedServer};
use sift_store::Store;
use tokio_util::sync::CancellationToken;

use crate::{TempDir, selection};

const FARM: &str = "# two hosts\n[defaults]\nprovider = \"farm\"\nmodel = \"m\"\n\n[[providers]]\nid = \"farm\"\nkind = \"openai\"\nlabel = \"Farm\"\nbase_urls = [\"http://a:11434/v1\", \" http://b:11434/v1 \"]\n";

fn provider_table(addresses: &str) -> String {
    format!("[[providers]]\nid = \"farm\"\nkind = \"openai\"\n{addresses}\n")
}

#[test]
fn base_urls_give_the_first_address_and_the_others_in_order() {
    let settings = parse_settings(FARM).unwrap();
    let farm = settings.provider("farm").unwrap();
    assert_eq!(farm.base_url.as_deref(), Some("http://a:11434/v1"));
    assert_eq!(farm.extra_base_urls, ["http://b:11434/v1"]);
    settings.validate().unwrap();
    let chosen = settings.selection(None, None).unwrap();
    assert_eq!(
        chosen.provider.base_url.as_deref(),
        Some("http://a:11434/v1")
    );
    assert_eq!(chosen.provider.extra_base_urls, ["http://b:11434/v1"]);
    let config = chosen.provider.client_config();
    assert_eq!(
        config.base_urls().collect::<Vec<_>>(),
        ["http://a:11434/v1", "http://b:11434/v1"]
    );
    // One address in the list is one endpoint.
    let one = parse_settings(&provider_table("base_urls = [\"http://a/v1\"]")).unwrap();
    assert_eq!(one.providers[0].base_url.as_deref(), Some("http://a/v1"));
    assert!(one.providers[0].extra_base_urls.is_empty());
}

#[test]
fn base_urls_refused_with_base_url_empty_or_blank() {
    let error = |addresses: &str| {
        parse_settings(&provider_table(addresses))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        error("base_url = \"http://a/v1\"\nbase_urls = [\"http://b/v1\"]"),
        "provider \"farm\" sets both base_url and base_urls: keep one"
    );
    assert_eq!(
        error("base_urls = []"),
        "provider \"farm\" has an empty base_urls: list at least one address, or leave it out for the default"
    );
    assert_eq!(
        error("base_urls = [\"http://a/v1\", \" \"]"),
        "provider \"farm\" has a blank address in base_urls"
    );
    let not_a_list = error("base_urls = \"http://a/v1\"");
    assert!(not_a_list.contains("invalid type"), "{not_a_list}");
    // From a file, the message says which file.
    let dir = TempDir::new("endpoints-file");
    let path = dir.db().with_file_name("config.toml");
    std::fs::write(&path, provider_table("base_urls = []")).unwrap();
    assert_eq!(
        load_settings(Some(&path)).unwrap_err().to_string(),
        format!(
            "configuration: {}: provider \"farm\" has an empty base_urls: list at least one address, or leave it out for the default",
            path.display()
        )
    );
    // Saving checks every address, as it does `base_url`.
    let mut settings = parse_settings(FARM).unwrap();
    settings.providers[0].extra_base_urls.push("b:11434".into());
    assert_eq!(
        settings.validate().unwrap_err().to_string(),
        "the base URL of \"farm\" must start with http:// or https://"
    );
}

#[test]
fn saving_writes_base_urls_back_and_reads_back_equal() {
    let settings = parse_settings(FARM).unwrap();
    let text = render_settings(FARM, &settings).unwrap();
    assert!(
        text.contains("base_urls = [\"http://a:11434/v1\", \"http://b:11434/v1\"]\n"),
        "{text}"
    );
    assert!(!text.contains("base_url ="), "{text}");
    assert_eq!(parse_settings(&text).unwrap(), settings);
}

/// The settings screen does not show the extra addresses: saving from it
/// keeps them while the first address is unchanged, and drops them with
/// a new one.
#[tokio::test]
async fn saving_from_the_settings_screen_keeps_the_extra_addresses() {
    let dir = TempDir::new("endpoints-screen");
    let config = dir.db().with_file_name("config.toml");
    std::fs::write(&config, FARM).unwrap();
    let ws = Workspace::open(WorkspaceOptions::app(Some(config.clone()), Some(dir.db()))).unwrap();
    let mut form: SettingsForm = screen::view(&ws).settings;
    form.providers[0].label = "Two hosts".into();
    screen::save(&ws, &form).await.unwrap();
    let saved = load_settings(Some(&config)).unwrap();
    assert_eq!(saved.providers[0].label, "Two hosts");
    assert_eq!(saved.providers[0].extra_base_urls, ["http://b:11434/v1"]);
    assert_eq!(saved, ws.settings());

    form.providers[0].base_url = Some("http://c:11434/v1".into());
    screen::save(&ws, &form).await.unwrap();
    let moved = load_settings(Some(&config)).unwrap();
    assert_eq!(
        moved.providers[0].base_url.as_deref(),
        Some("http://c:11434/v1")
    );
    assert!(moved.providers[0].extra_base_urls.is_empty());
}

/// Four documents, four at once, over two endpoints of one provider:
/// each endpoint gets two. The answers are held until all four calls
/// arrived, so each was placed with the others in flight; were they
/// placed unevenly, the counts below would say so.
#[tokio::test]
async fn a_jobs_calls_spread_over_the_providers_endpoints() {
    let dir = TempDir::new("endpoints-job");
    let store = Store::open(dir.db()).unwrap();
    let answer = || {
        Script::new().with(
            "m",
            [Reply::tool_call("submit_output", json!({"number": "A"}))
                .held("go")
                .repeated()],
        )
    };
    let a = ScriptedServer::start(answer()).await.unwrap();
    let b = ScriptedServer::start(answer()).await.unwrap();
    let paths: Vec<_> = (0..4)
        .map(|i| {
            let path = dir.db().with_file_name(format!("doc{i}.txt"));
            std::fs::write(&path, format!("document {i}\n")).unwrap();
            path
        })
        .collect();
    let schema = json!({
        "type": "object",
        "properties": {"number": {"type": "string"}},
        "required": ["number"],
    });
    let job = create_job(&store, "invoice", &schema, None, &paths, &["m".into()]).unwrap();
    let mut chosen: ModelSelection = selection(&a, &["m"]);
    chosen.provider.extra_base_urls = vec![b.openai_base_url()];
    let options = ExtractOptions {
        concurrency: 4,
        ..ExtractOptions::new(chosen)
    };
    let run = run_job(
        &store,
        &job.id,
        options,
        |_: Progress| {},
        CancellationToken::new(),
    );
    let release = async {
        let deadline = Instant::now() + Duration::from_secs(60);
        while a.requests().len() + b.requests().len() < 4 {
            assert!(Instant::now() < deadline, "the four calls never arrived");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let counts = (a.requests().len(), b.requests().len());
        a.gate("go").release();
        b.gate("go").release();
        counts
    };
    let (summary, counts) = tokio::join!(run, release);
    let summary = summary.unwrap();
    assert_eq!(counts, (2, 2));
    assert_eq!((summary.totals.done, summary.totals.failed), (4, 0));
    assert_eq!((a.requests().len(), b.requests().len()), (2, 2));
}
