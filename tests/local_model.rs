//! The built-in local model: the real Qwen2.5-Coder-0.5B-Instruct GGUF of `../shared/models.md`
//! (fetched and checked by `scripts/test.sh`, path in `$POLICYPAL_TEST_GGUF`) run in process by
//! llama.cpp — registered through the CLI, answering `ask --mode generative` with verified
//! quotes and counted tokens, streaming, stopped by the time limit.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use policypal::agent::Agent;
use policypal::agent::types::{AskRequest, Event, Mode, Status};
use policypal::config::{DataDir, Settings};
use policypal::llm::{ChatModel, LlmSettings, Message};

use crate::cli::run;
use crate::common::{TestLib, assert_quotes_on_pages, fixture};

/// One local-model test at a time: llama.cpp's threads spin while they wait for each other,
/// and two generations on the same two cores slow each other down many times over.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The GGUF file; the tests fail (not skip) without it: the generative path must be proven
/// against a real model.
fn gguf() -> PathBuf {
    let path = std::env::var_os("POLICYPAL_TEST_GGUF").map(PathBuf::from);
    match path {
        Some(p) if p.is_file() => p,
        _ => panic!(
            "the local-model tests need the Qwen2.5-Coder-0.5B GGUF: run scripts/test.sh (it fetches it) or set POLICYPAL_TEST_GGUF"
        ),
    }
}

/// Settings whose every action runs on the local model, with a remote endpoint that cannot
/// answer: anything sent over the network would fail the test.
fn local_settings(timeout_secs: u64) -> LlmSettings {
    let mut llm = LlmSettings {
        base_url: "http://127.0.0.1:9/v1".into(),
        timeout_secs,
        ..LlmSettings::default()
    };
    llm.use_local_model("qwen", gguf());
    llm
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_local_model_answers_in_process_with_verified_quotes_and_counted_tokens() {
    let _one = ONE_AT_A_TIME.lock().await;
    let t = TestLib::with_settings(Settings {
        llm: Some(local_settings(300)),
        ..Settings::default()
    })
    .await;
    let p = crate::common::banking_profile(&t).await;
    let agent = Agent::new(&t.lib);
    let tokens = Mutex::new(0usize);
    let asked = agent
        .ask(
            &p,
            AskRequest {
                text: "What capital conservation buffer must a licensed bank hold?".into(),
                mode: Some(Mode::Generative),
                ..AskRequest::default()
            },
            &|e: &Event| {
                if let Event::Token { .. } = e {
                    *tokens.lock().unwrap() += 1;
                }
            },
        )
        .await;
    assert!(
        *tokens.lock().unwrap() > 0,
        "the model's reply was streamed"
    );
    // A 0.5 B model may ignore the reply format even after the corrective retry: that is the
    // typed error of a malformed reply (it cannot come from the unreachable remote endpoint).
    let turn = match asked {
        Ok(turn) => turn,
        Err(e) => {
            assert_eq!(e.kind(), policypal::ErrorKind::Remote, "{e}");
            assert!(e.to_string().contains("malformed"), "{e}");
            return;
        }
    };
    assert_eq!(turn.retrieval.mode, Mode::Generative);
    let usage = turn.answer.usage.clone().expect("tokens are counted");
    assert_eq!(usage.model, "qwen");
    assert!(usage.prompt_tokens > 200, "{usage:?}");
    assert!(usage.completion_tokens > 0, "{usage:?}");
    assert_eq!(usage.cost_usd, 0.0, "a local token costs nothing");
    // Whatever the small model wrote, only quotes found on their page are shown.
    assert_quotes_on_pages(&t.lib, &p, &turn.answer.citations).await;
    if turn.answer.status == Status::Answered {
        assert!(!turn.answer.citations.is_empty(), "{}", turn.answer.text);
        assert!(*tokens.lock().unwrap() > 0, "the answer was streamed");
    }
    assert_eq!(
        policypal::llm::local::loaded(),
        Some(gguf()),
        "the model stays loaded for the next question"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_whose_caller_goes_away_stops_generating_and_the_model_still_answers_after() {
    let _one = ONE_AT_A_TIME.lock().await;
    let model = ChatModel::new(local_settings(60), String::new());
    let long = Message::User(
        "Write a numbered list of two hundred different rules for keeping records, one per line."
            .into(),
    );
    let seen = Mutex::new(String::new());
    let cut = tokio::time::timeout(
        Duration::from_secs(4),
        model.complete("qwen", std::slice::from_ref(&long), &|t: &str| {
            seen.lock().unwrap().push_str(t)
        }),
    )
    .await;
    assert!(cut.is_err(), "two hundred rules take longer than 4 s");
    let after_cut = seen.lock().unwrap().len();
    assert!(after_cut > 0, "tokens were streamed before the cut");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        seen.lock().unwrap().len(),
        after_cut,
        "nothing is streamed after the caller went away"
    );
    // The generation thread stopped: the same model answers a short request.
    let started = Instant::now();
    let ok = model
        .complete(
            "qwen",
            &[Message::User("Reply with the single word: yes".into())],
            &|_: &str| {},
        )
        .await
        .unwrap();
    assert!(ok.usage.completion_tokens > 0 && !ok.text.trim().is_empty());
    assert_eq!(ok.usage.cost_usd, 0.0);
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "not queued behind the abandoned reply"
    );
}

#[test]
fn models_add_registers_a_gguf_for_generative_mode_and_refuses_a_file_that_is_no_model() {
    let _one = ONE_AT_A_TIME.blocking_lock();
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    // A PDF renamed .gguf is refused with a typed error; nothing is registered.
    let fake = tmp.path().join("policy.gguf");
    std::fs::copy(fixture("capital-2024.pdf"), &fake).unwrap();
    let (code, v) = run(d, &["models", "add", fake.to_str().unwrap()]);
    assert_eq!(code, 3, "{v}");
    assert_eq!(v["error"]["kind"], "model_missing");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not a GGUF"),
        "{v}"
    );
    let (_, v) = run(d, &["models", "list"]);
    assert_eq!(v, serde_json::json!([]));

    let (code, v) = run(d, &["models", "add", gguf().to_str().unwrap()]);
    assert_eq!(code, 0, "{v}");
    let name = v["model"]["name"].as_str().unwrap().to_owned();
    assert!(
        v["info"]["parameters"].as_u64().unwrap() > 100_000_000,
        "{v}"
    );
    assert_eq!(
        v["info"]["context"], 32768,
        "read from the file's metadata: {v}"
    );
    let settings = DataDir::at(d).load_settings().unwrap();
    let llm = settings.llm.unwrap();
    assert_eq!(llm.model_for("inquire"), name);
    assert_eq!(llm.model_for("audit"), name);

    let (code, v) = run(
        d,
        &["ingest", fixture("capital-2024.pdf").to_str().unwrap()],
    );
    assert_eq!(code, 0, "{v}");
    let (code, v) = run(
        d,
        &[
            "ask",
            "What capital conservation buffer must a licensed bank hold?",
            "--mode",
            "generative",
        ],
    );
    if code == 0 {
        assert_eq!(v["usage"]["model"], name.as_str(), "{v}");
        assert_eq!(v["usage"]["cost_usd"], 0.0, "{v}");
        assert!(v["usage"]["completion_tokens"].as_u64().unwrap() > 0, "{v}");
    } else {
        // The small model ignored the reply format twice: its typed error (the unconfigured
        // remote endpoint would have failed for want of a key instead).
        assert_eq!(code, 3, "{v}");
        assert_eq!(v["error"]["kind"], "remote", "{v}");
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .contains("malformed"),
            "{v}"
        );
    }

    let (code, _) = run(d, &["models", "remove", &name]);
    assert_eq!(code, 0);
    assert!(DataDir::at(d).load_settings().unwrap().llm.is_none());
    let (code, v) = run(d, &["models", "remove", &name]);
    assert_eq!(code, 2);
    assert_eq!(v["error"]["kind"], "invalid_input");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_local_model_summarizes_and_compares_and_only_grounded_sentences_are_shown() {
    let _one = ONE_AT_A_TIME.lock().await;
    let t = TestLib::with_settings(Settings {
        llm: Some(local_settings(300)),
        ..Settings::default()
    })
    .await;
    let p = crate::common::banking_profile(&t).await;
    crate::common::ingest_fixture(&t.lib, &p, "capital-2025.pdf").await;
    let ids = crate::common::document_ids(&t.lib, &p).await;
    let agent = Agent::new(&t.lib).without_cache();
    for (action, text, documents) in [
        (
            policypal::agent::types::Action::Summarize,
            "Summarize this document",
            vec![ids[0].clone()],
        ),
        (
            policypal::agent::types::Action::Compare,
            "Compare the capital requirements of these documents",
            ids.clone(),
        ),
    ] {
        let turn = agent
            .ask(
                &p,
                AskRequest {
                    text: text.into(),
                    documents,
                    action: Some(action),
                    mode: Some(Mode::Generative),
                    ..AskRequest::default()
                },
                &|_: &Event| {},
            )
            .await
            .unwrap();
        let answer = &turn.answer;
        assert_eq!(answer.status, Status::Answered, "{}", answer.text);
        assert_quotes_on_pages(&t.lib, &p, &answer.citations).await;
        assert!(
            answer.usage.as_ref().is_some_and(|u| u.model == "qwen"),
            "{:?}",
            answer.usage
        );
        // What the model wrote (before the quoted passages, or the whole summary) is shown only
        // where the quotes support it; a write-up it could not ground says so.
        // (The sources list after the answer is the app's, not the model's.)
        let written = answer
            .text
            .split("**The quoted passages**")
            .next()
            .and_then(|w| w.split("**Sources:**").next())
            .unwrap_or_default();
        if written.contains("is not shown:") {
            continue;
        }
        let quotes: Vec<&str> = answer.citations.iter().map(|c| c.quote.as_str()).collect();
        let prose: String = written
            .lines()
            .filter(|l| {
                !l.starts_with('_') && !l.starts_with("Summary of") && !l.starts_with("Comparing")
            })
            .collect::<Vec<_>>()
            .join("\n");
        let g = policypal::agent::rules::grounding::ground(&prose, &quotes);
        assert!(
            g.unsupported.is_empty(),
            "shown but unsupported: {:?} in {}",
            g.unsupported,
            answer.text
        );
    }
}
