//! Web search against a local HTTP server that speaks Tavily's search API: results come as
//! their own cited section (source type `web`), never as document citations; off by default;
//! typed errors offline or with a refused key; the query is redacted when the profile asks.

use std::sync::{Arc, Mutex};

use policypal::ErrorKind;
use policypal::agent::Agent;
use policypal::agent::types::{AskRequest, Event, SourceType, Status};
use policypal::config::Settings;
use policypal::secrets;
use policypal::web::WebSettings;
use serde_json::json;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

use crate::common::{TestLib, ask_ok, ingest_fixture};

const KEY: &str = "tvly-test-key-0123";

/// A request as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    head: String,
    body: serde_json::Value,
}

/// Serves Tavily's response format with `status`; records every request.
async fn tavily(status: u16) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            let log = log.clone();
            tokio::spawn(async move {
                let Some((head, body)) = crate::common::read_request(&mut sock).await else {
                    return;
                };
                let body = String::from_utf8_lossy(&body).to_string();
                let body: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
                log.lock().unwrap().push(Seen { head, body });
                let reply = json!({
                    "query": "q",
                    "response_time": 0.4,
                    "answer": null,
                    "images": [],
                    "results": [
                        {"title": "Basel III capital buffers explained", "url": "https://example.org/basel-buffers",
                         "content": "Under Basel III, banks hold a capital conservation buffer of 2.5 per cent of risk-weighted assets. The buffer is made of common equity tier 1 capital.",
                         "score": 0.91, "raw_content": null},
                        {"title": "Airline refund rules", "url": "https://example.org/refunds",
                         "content": "Acme Airlines refunds a cancelled ticket within seven days of the request. Refunds go back to the original card.",
                         "score": 0.62, "raw_content": null},
                        {"title": "", "url": "", "content": "dropped: no address", "score": 0.1}
                    ]
                })
                .to_string();
                let reason = if status == 200 { "OK" } else { "Unauthorized" };
                let resp = format!(
                    "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
                    reply.len()
                );
                let _ = sock.write_all(resp.as_bytes()).await;
                let _ = sock.shutdown().await;
            });
        }
    });
    (url, seen)
}

/// The web-search key is one keychain item bound to one endpoint, and each test has its own
/// server: a test holds the key (this guard) while it runs.
static KEY_HOLDER: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

async fn library(
    web: WebSettings,
) -> (
    TestLib,
    policypal::store::Profile,
    tokio::sync::MutexGuard<'static, ()>,
) {
    let holder = KEY_HOLDER.lock().await;
    secrets::set(secrets::WEB_SEARCH_KEY, &web.base_url, KEY).unwrap();
    let t = TestLib::with_settings(Settings {
        web,
        ..Settings::default()
    })
    .await;
    let p = t.profile("alice").await;
    ingest_fixture(&t.lib, &p, "capital-2024.pdf").await;
    (t, p, holder)
}

fn enabled(url: &str) -> WebSettings {
    WebSettings {
        enabled: true,
        base_url: url.to_owned(),
        ..WebSettings::default()
    }
}

fn ask(text: &str, web: bool) -> AskRequest {
    AskRequest {
        text: text.to_owned(),
        web,
        ..AskRequest::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn web_results_are_their_own_cited_section_never_document_citations() {
    let (url, seen) = tavily(200).await;
    let (t, p, _key) = library(enabled(&url)).await;
    let agent = Agent::new(&t.lib);
    let turn = ask_ok(
        &agent,
        &p,
        ask(
            "@web What capital conservation buffer must a licensed bank hold?",
            false,
        ),
    )
    .await;
    assert_eq!(turn.answer.status, Status::Answered, "{}", turn.answer.text);
    let docs: Vec<_> = turn
        .answer
        .citations
        .iter()
        .filter(|c| c.source_type == SourceType::Document)
        .collect();
    let web: Vec<_> = turn
        .answer
        .citations
        .iter()
        .filter(|c| c.source_type == SourceType::Web)
        .collect();
    assert!(!docs.is_empty(), "the library still answers");
    assert!(docs.iter().all(|c| c.url.is_none() && c.page > 0));
    assert!(!web.is_empty(), "{}", turn.answer.text);
    assert!(web.iter().all(
        |c| c.url.as_deref() == Some("https://example.org/basel-buffers")
            && c.title == "Basel III capital buffers explained"
            && c.document_id.is_empty()
    ));
    assert!(
        web[0]
            .quote
            .contains("capital conservation buffer of 2.5 per cent")
    );
    // Library citations first, then the web section, numbered on.
    let first_web = turn
        .answer
        .citations
        .iter()
        .position(|c| c.source_type == SourceType::Web)
        .unwrap();
    assert!(
        turn.answer.citations[..first_web]
            .iter()
            .all(|c| c.source_type == SourceType::Document)
    );
    let text = &turn.answer.text;
    let sources = text.find("**Sources:**").unwrap();
    let from_web = text
        .find("**From the web** (not from your library")
        .unwrap();
    assert!(sources < from_web, "{text}");
    assert!(text.contains(&format!(
        "{}. 🌐 Basel III capital buffers explained — https://example.org/basel-buffers",
        first_web + 1
    )));
    // What the service received: the key as a bearer token, the question without its tag.
    let req = seen.lock().unwrap()[0].clone();
    assert!(req.head.starts_with("POST /search "), "{}", req.head);
    assert!(req.head.contains(&format!("Bearer {KEY}")));
    assert_eq!(
        req.body["query"],
        "What capital conservation buffer must a licensed bank hold?"
    );
    assert_eq!(req.body["max_results"], 5);
    // Reopened offline, the web citations are still there, with their addresses.
    let view = agent.thread(&p, &turn.thread_id).await.unwrap();
    assert_eq!(view.messages[1].citations, turn.answer.citations);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_library_says_it_has_nothing_when_only_the_web_answers() {
    let (url, _seen) = tavily(200).await;
    let (t, p, _key) = library(enabled(&url)).await;
    let agent = Agent::new(&t.lib);
    // Without the web: a low-confidence refusal that offers the web as an option.
    let turn = ask_ok(
        &agent,
        &p,
        ask(
            "How fast does Acme Airlines refund a cancelled ticket?",
            false,
        ),
    )
    .await;
    assert_eq!(turn.answer.status, Status::Refused, "{}", turn.answer.text);
    assert!(turn.answer.options.iter().any(|o| o.id == "web"));
    // Choosing it searches the web and answers from the web only, saying so.
    let turn = agent
        .resume(&p, &turn.thread_id, Some("web"), &|_: &Event| {})
        .await
        .unwrap();
    assert_eq!(turn.answer.status, Status::Answered, "{}", turn.answer.text);
    assert!(
        turn.answer
            .text
            .starts_with("The library does not support an answer to this question."),
        "{}",
        turn.answer.text
    );
    assert!(!turn.answer.citations.is_empty());
    assert!(
        turn.answer
            .citations
            .iter()
            .all(|c| c.source_type == SourceType::Web),
        "no weak library quote is passed off as support: {:?}",
        turn.answer.citations
    );
    assert!(
        turn.answer.citations[0]
            .quote
            .contains("refunds a cancelled ticket within seven days")
    );
}

/// Asks a question with web search in a fresh library using `web`; returns the error.
async fn web_error(web: WebSettings) -> policypal::Error {
    let (t, p, _key) = library(web).await;
    failing_web_ask(&t, &p).await
}

/// Asks a question with web search that must fail; returns the error.
async fn failing_web_ask(t: &TestLib, p: &policypal::store::Profile) -> policypal::Error {
    Agent::new(&t.lib)
        .ask(
            p,
            ask(
                "What capital conservation buffer must a licensed bank hold?",
                true,
            ),
            &|_: &Event| {},
        )
        .await
        .unwrap_err()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn web_search_is_off_by_default_and_failures_are_typed() {
    // Off by default: a clear error the user can act on, and the message is kept.
    let (t, p, key) = library(WebSettings::default()).await;
    let e = failing_web_ask(&t, &p).await;
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(e.to_string().contains("web search is off"), "{e}");
    let threads = t
        .lib
        .store()
        .conversations(&p.id, false, None, 10)
        .await
        .unwrap();
    assert_eq!(threads.len(), 1, "the question is kept");
    drop(key);

    // Offline (nothing listens): a remote error that names the service, never the key.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let e = web_error(enabled(&format!("http://{closed}"))).await;
    assert_eq!(e.kind(), ErrorKind::Remote);
    assert!(e.to_string().contains("could not reach"), "{e}");
    assert!(!e.to_string().contains(KEY));

    // A refused key.
    let (url, _) = tavily(401).await;
    let e = web_error(enabled(&url)).await;
    assert_eq!(e.kind(), ErrorKind::Remote);
    assert!(e.to_string().contains("API key was refused"), "{e}");

    // A key stored for another search service is not sent to this one.
    let (url, seen) = tavily(200).await;
    let (t, p, key) = library(enabled(&url)).await;
    secrets::set(secrets::WEB_SEARCH_KEY, "https://api.tavily.com", KEY).unwrap();
    let e = failing_web_ask(&t, &p).await;
    assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");
    assert!(e.to_string().contains("stored for its service"), "{e}");
    assert!(seen.lock().unwrap().is_empty(), "the search was sent");
    drop((t, key));

    // Web search answers questions only.
    let (url, seen) = tavily(200).await;
    let (t, p, _key) = library(enabled(&url)).await;
    let turn = Agent::new(&t.lib)
        .ask(
            &p,
            ask("@web summarize the capital guidelines", false),
            &|_: &Event| {},
        )
        .await
        .unwrap();
    assert_eq!(turn.answer.status, Status::NeedsClarification);
    assert!(turn.answer.text.contains("Web search answers questions"));
    assert!(seen.lock().unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_web_query_is_redacted_when_the_profile_asks() {
    let (url, seen) = tavily(200).await;
    let (t, p, _key) = library(enabled(&url)).await;
    let p = t
        .lib
        .store()
        .set_privacy(&p.id, true, &["Jane Doe".into()])
        .await
        .unwrap();
    Agent::new(&t.lib)
        .ask(
            &p,
            ask(
                "Jane Doe (jane.doe@bank.example) asks: what capital conservation buffer must a licensed bank hold?",
                true,
            ),
            &|_: &Event| {},
        )
        .await
        .unwrap();
    let q = seen.lock().unwrap()[0].body["query"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        q,
        "[PERSON_1] ([EMAIL_1]) asks: what capital conservation buffer must a licensed bank hold?"
    );
}
