//! The OpenAI-compatible embedder against a scripted server on 127.0.0.1 (the only kind of
//! test double allowed: a remote service we cannot reach here).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use policypal::config::{EmbedderSettings, Settings};
use policypal::embed::openai::OpenAiEmbedder;
use policypal::embed::{EmbedError, Embedder};
use policypal::{ErrorKind, SearchRequest};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

use crate::common::{fixture, ingest, request};

/// How the scripted server answers.
#[derive(Clone, Copy)]
enum Script {
    /// Correct vectors of this dimension, listed in reverse order (the `index` field counts).
    Vectors(usize),
    /// HTTP 400 with an OpenAI error body.
    BadRequest,
}

async fn server(script: Script) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            let counter = counter.clone();
            tokio::spawn(async move {
                let Some((_, body)) = crate::common::read_request(&mut sock).await else {
                    return;
                };
                counter.fetch_add(1, Ordering::SeqCst);
                let req: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                let inputs: Vec<String> = match &req["input"] {
                    Value::Array(a) => a
                        .iter()
                        .map(|v| v.as_str().unwrap_or("").to_owned())
                        .collect(),
                    Value::String(s) => vec![s.clone()],
                    _ => vec![],
                };
                let (status, body) = match script {
                    Script::Vectors(dim) => {
                        let data: Vec<Value> = inputs
                            .iter()
                            .enumerate()
                            .rev()
                            .map(|(i, t)| {
                                // A bag-of-letters vector: similar texts get similar vectors.
                                let mut v = vec![0.0f32; dim];
                                for b in t.to_lowercase().bytes().filter(u8::is_ascii_alphabetic) {
                                    v[(b - b'a') as usize % dim] += 1.0;
                                }
                                v[0] += 0.5;
                                json!({"object": "embedding", "index": i, "embedding": v})
                            })
                            .collect();
                        let tokens: usize =
                            inputs.iter().map(|t| t.split_whitespace().count()).sum();
                        (
                            "200 OK",
                            json!({"object": "list", "model": req["model"], "data": data,
                                          "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}),
                        )
                    }
                    Script::BadRequest => (
                        "400 Bad Request",
                        json!({"error": {"message": "model not found", "type": "invalid_request_error", "param": null, "code": null}}),
                    ),
                };
                let body = body.to_string();
                let resp = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = sock.write_all(resp.as_bytes()).await;
                let _ = sock.shutdown().await;
            });
        }
    });
    (format!("http://{addr}/v1"), calls)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vectors_come_back_normalised_in_input_order() {
    let (url, calls) = server(Script::Vectors(16)).await;
    let e = OpenAiEmbedder::new(&url, "nomic-embed-text", 16, "sk-local".into());
    let texts: Vec<String> = (0..70)
        .map(|i| format!("text number {i} about capital"))
        .collect();
    let out = e.embed(&texts).await.unwrap();
    assert_eq!(out.vectors.len(), 70);
    assert_eq!(calls.load(Ordering::SeqCst), 2, "batches of 64");
    for v in &out.vectors {
        let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4);
    }
    assert!(out.tokens > 0);
    // Identical texts → identical vectors, whatever order the server listed them in.
    let again = e.embed(&[texts[3].clone()]).await.unwrap();
    assert_eq!(again.vectors[0], out.vectors[3]);
    assert_eq!(e.model_id(), "openai:nomic-embed-text@16");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_dimensions_errors_and_unreachable_servers_are_typed() {
    let (url, _) = server(Script::Vectors(8)).await;
    let e = OpenAiEmbedder::new(&url, "m", 16, String::new());
    assert!(matches!(
        e.embed(&["a".into()]).await,
        Err(EmbedError::BadResponse(_))
    ));

    let (url, _) = server(Script::BadRequest).await;
    let e = OpenAiEmbedder::new(&url, "m", 16, String::new());
    let err = e.embed(&["a".into()]).await.unwrap_err();
    assert!(
        matches!(err, EmbedError::Remote(ref m) if m.contains("model not found")),
        "{err:?}"
    );

    // Nothing listens on this port.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let e = OpenAiEmbedder::new(
        &format!("http://127.0.0.1:{port}/v1"),
        "m",
        16,
        String::new(),
    );
    let started = std::time::Instant::now();
    assert!(matches!(
        e.embed(&["a".into()]).await,
        Err(EmbedError::Remote(_))
    ));
    assert!(started.elapsed().as_secs() < 30);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_library_can_be_built_with_a_remote_embedder() {
    let (url, calls) = server(Script::Vectors(32)).await;
    let tmp = tempfile::tempdir().unwrap();
    let dir = policypal::config::DataDir::at(tmp.path());
    dir.ensure().unwrap();
    dir.save_settings(&Settings {
        embedder: EmbedderSettings::OpenAi {
            base_url: url,
            model: "nomic-embed-text".into(),
            dimension: 32,
        },
        extract_worker: Some(crate::common::worker()),
        ..Settings::default()
    })
    .unwrap();
    let lib = policypal::Library::open(dir).await.unwrap();
    let p = lib.ensure_profile("alice").await.unwrap();
    let doc = ingest(&lib, &p, request(fixture("capital-2024.pdf")))
        .await
        .unwrap()
        .document;
    assert_eq!(doc.embed_model, "openai:nomic-embed-text@32");
    assert!(calls.load(Ordering::SeqCst) >= 1);
    let hits = lib
        .search(
            &p,
            &SearchRequest {
                query: "zephyrine".into(),
                k: 3,
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert!(hits[0].hit.text.contains("zephyrine"));
    // The same data directory opened with the local model is refused until re-indexed.
    lib.close().await;
    let dir = policypal::config::DataDir::at(tmp.path());
    dir.save_settings(&Settings::default()).unwrap();
    let lib = policypal::Library::open(dir)
        .await
        .unwrap()
        .with_embedder(crate::common::model());
    let err = lib
        .search(
            &p,
            &SearchRequest {
                query: "capital".into(),
                k: 3,
                ..Default::default()
            },
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ModelMismatch);
}
