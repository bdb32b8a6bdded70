//! Tests of the desktop operations against a real library (SQLite, LanceDB, MiniLM, PDFs):
//! what the window can do, without the window.

use std::path::PathBuf;
use std::sync::Mutex;

use policypal::agent::types::{AskRequest, Event, Status};
use policypal::config::{DataDir, EmbedderSettings, Settings};
use policypal::store::{DocType, UserContext};
use policypal::{ErrorKind, IngestRequest, Stage};

use crate::api::{
    AnswerMode, AskArgs, Desk, ExportFormat, IngestArgs, IngestEvent, IngestPhase, UiSettings,
};
use crate::error::{IpcErrorKind, ShellErrorKind};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(name)
}

fn model_dir() -> PathBuf {
    std::env::var_os("POLICYPAL_MODEL_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../models/all-MiniLM-L6-v2")
        })
}

/// The text-extraction worker for libraries opened in this test binary (which cannot serve as
/// one): the `policypal` CLI that the workspace build puts next to the test binary's `deps/`.
fn worker() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().and_then(|d| d.parent()).unwrap();
    let cli = dir.join(format!("policypal{}", std::env::consts::EXE_SUFFIX));
    assert!(
        cli.exists(),
        "build the workspace first: {} is missing",
        cli.display()
    );
    cli
}

/// A data directory whose settings point at the test model.
fn data_dir(tmp: &tempfile::TempDir) -> DataDir {
    let dir = DataDir::at(tmp.path().join("data"));
    dir.ensure().unwrap();
    let settings = Settings {
        embedder: EmbedderSettings::Local {
            model_dir: Some(model_dir()),
        },
        extract_worker: Some(worker()),
        ..Settings::default()
    };
    dir.save_settings(&settings).unwrap();
    dir
}

fn ingest_args(job: &str, file: &str) -> IngestArgs {
    IngestArgs {
        job_id: job.into(),
        request: IngestRequest {
            path: fixture(file),
            title: Some("Capital Guidelines".into()),
            version: Some("2024".into()),
            doc_type: DocType::Regulatory,
            set: Some("Bank Negara".into()),
            supersedes: None,
        },
    }
}

fn ask_args(text: &str, thread: Option<String>) -> AskArgs {
    AskArgs {
        run_key: uuid_like(text),
        request: AskRequest {
            thread_id: thread,
            text: text.into(),
            ..AskRequest::default()
        },
    }
}

fn uuid_like(s: &str) -> String {
    format!("run-{}", s.len())
}

fn kind(e: &crate::error::IpcError) -> IpcErrorKind {
    e.kind
}

#[tokio::test]
async fn ingest_reports_progress_in_order_and_profiles_stay_isolated() {
    let tmp = tempfile::tempdir().unwrap();
    let desk = Desk::open(data_dir(&tmp)).await;
    let alice = desk.info().await.unwrap().profile;
    let seen: Mutex<Vec<IngestEvent>> = Mutex::new(Vec::new());
    let doc = desk
        .ingest(ingest_args("j1", "capital-2024.pdf"), &|e| {
            seen.lock().unwrap().push(e)
        })
        .await
        .unwrap();
    assert_eq!(doc.label(), "Capital Guidelines (2024)");
    let phases: Vec<IngestPhase> = seen.lock().unwrap().iter().map(|e| e.phase).collect();
    assert_eq!(phases.first(), Some(&IngestPhase::Queued));
    let pos = |s: Stage| {
        phases
            .iter()
            .position(|p| *p == IngestPhase::Stage(s))
            .unwrap()
    };
    assert!(pos(Stage::Extracting) < pos(Stage::Embedding));
    assert!(pos(Stage::Embedding) < pos(Stage::Done));
    assert_eq!(desk.sets().await.unwrap()[0].name, "Bank Negara");
    // A set takes any colour of the palette, and nothing else.
    let palette = desk.palette();
    assert_eq!(palette.len(), 8);
    let set = desk.recolor_set("Bank Negara", &palette[6]).await.unwrap();
    assert_eq!(set.colour, palette[6]);
    let err = desk
        .recolor_set("Bank Negara", "#123456")
        .await
        .unwrap_err();
    assert_eq!(kind(&err), IpcErrorKind::Core(ErrorKind::InvalidInput));
    assert_eq!(desk.sets().await.unwrap()[0].colour, palette[6]);
    // The upload dialog creates a new set with the colour chosen for it.
    let set = desk.create_set("Liquidity", &palette[4]).await.unwrap();
    assert_eq!(
        (set.name.as_str(), set.colour.as_str()),
        ("Liquidity", palette[4].as_str())
    );
    let err = desk.create_set("Liquidity", &palette[2]).await.unwrap_err();
    assert_eq!(kind(&err), IpcErrorKind::Core(ErrorKind::Duplicate));
    let err = desk.create_set("Capital", "red").await.unwrap_err();
    assert_eq!(kind(&err), IpcErrorKind::Core(ErrorKind::InvalidInput));
    assert_eq!(desk.sets().await.unwrap().len(), 2);

    // A new profile sees nothing of alice's library or history.
    let bob = desk
        .create_profile(
            "bob",
            &UserContext {
                organisation: String::new(),
                industry: "Insurance".into(),
                location: "Singapore".into(),
            },
        )
        .await
        .unwrap();
    assert_ne!(bob.id, alice.id);
    assert_eq!(desk.info().await.unwrap().profile.id, bob.id);
    assert!(desk.documents().await.unwrap().is_empty());
    assert!(desk.sets().await.unwrap().is_empty());
    let err = desk
        .recolor_set("Bank Negara", &palette[1])
        .await
        .unwrap_err();
    assert_eq!(kind(&err), IpcErrorKind::Core(ErrorKind::NotFound));
    let err = desk.page_text(&doc.id, 1, "capital").await.unwrap_err();
    assert_eq!(kind(&err), IpcErrorKind::Core(ErrorKind::NotFound));
    let err = desk.delete_document(&doc.id).await.unwrap_err();
    assert_eq!(kind(&err), IpcErrorKind::Core(ErrorKind::NotFound));

    let err = desk.document_bytes(&doc.id).await.unwrap_err();
    assert_eq!(kind(&err), IpcErrorKind::Core(ErrorKind::NotFound));

    desk.switch_profile(&alice.id).await.unwrap();
    assert_eq!(desk.documents().await.unwrap().len(), 1);
    // The stored copy is the file that was added, byte for byte.
    let stored = desk.document_bytes(&doc.id).await.unwrap();
    assert_eq!(stored, std::fs::read(fixture("capital-2024.pdf")).unwrap());
    desk.close().await;

    // The active profile is remembered across launches.
    let desk = Desk::open(DataDir::at(tmp.path().join("data"))).await;
    assert_eq!(desk.info().await.unwrap().profile.id, alice.id);
    desk.close().await;
}

#[tokio::test]
async fn answers_stream_and_reopened_history_needs_no_model() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = data_dir(&tmp);
    let desk = Desk::open(dir.clone()).await;
    desk.ingest(ingest_args("j1", "capital-2024.pdf"), &|_| {})
        .await
        .unwrap();
    let events: Mutex<Vec<Event>> = Mutex::new(Vec::new());
    let turn = desk
        .ask(
            ask_args(
                "What minimum total capital ratio must a licensed bank maintain?",
                None,
            ),
            &|e: &Event| events.lock().unwrap().push(e.clone()),
        )
        .await
        .unwrap();
    assert_eq!(turn.answer.status, Status::Answered);
    assert!(!turn.answer.citations.is_empty());
    let events = events.into_inner().unwrap();
    assert!(matches!(events.first(), Some(Event::Started { .. })));
    assert!(matches!(events.last(), Some(Event::Done { .. })));
    assert!(events.iter().any(|e| matches!(e, Event::Sources { .. })));

    // The page view splits the cited page around the quote, even with its line breaks gone.
    let c = &turn.answer.citations[0];
    let flat = c.quote.split_whitespace().collect::<Vec<_>>().join(" ");
    let view = desk.page_text(&c.document_id, c.page, &flat).await.unwrap();
    assert_eq!(view.quote.as_deref(), Some(c.quote.as_str()));
    assert!(view.before.len() + view.after.len() > 0);
    let missing = desk
        .page_text(&c.document_id, c.page, "no such sentence anywhere")
        .await
        .unwrap();
    assert_eq!(missing.quote, None);
    assert!(!missing.before.is_empty());

    let threads = desk.threads(false, Some("capital ratio")).await.unwrap();
    assert_eq!(threads.len(), 1);
    assert!(
        desk.threads(false, Some("refund"))
            .await
            .unwrap()
            .is_empty()
    );
    let md = desk
        .export_thread(&turn.thread_id, None, ExportFormat::Markdown)
        .await
        .unwrap();
    let md = String::from_utf8(md).unwrap();
    assert!(md.contains("page"), "{md}");
    // One answer alone: its question and the answer, nothing else.
    let one = desk
        .export_thread(&turn.thread_id, Some(&turn.message_id), ExportFormat::Json)
        .await
        .unwrap();
    let one: serde_json::Value = serde_json::from_slice(&one).unwrap();
    assert_eq!(one["messages"].as_array().unwrap().len(), 2);
    assert_eq!(one["messages"][1]["id"], turn.message_id.as_str());
    // And as a PDF report.
    let pdf = desk
        .export_thread(&turn.thread_id, Some(&turn.message_id), ExportFormat::Pdf)
        .await
        .unwrap();
    assert!(pdf.starts_with(b"%PDF-") && pdf.len() > 1000);
    desk.close().await;

    // Reopen with the model gone: the conversation is restored whole, offline.
    let mut settings = dir.load_settings().unwrap();
    settings.embedder = EmbedderSettings::Local {
        model_dir: Some(tmp.path().join("no-model")),
    };
    dir.save_settings(&settings).unwrap();
    let desk = Desk::open(dir).await;
    assert!(!desk.info().await.unwrap().model_installed);
    let view = desk.thread(&turn.thread_id).await.unwrap();
    assert_eq!(view.messages.len(), 2);
    let reply = &view.messages[1];
    assert_eq!(reply.status, Some(Status::Answered));
    assert_eq!(reply.citations, turn.answer.citations);
    assert_eq!(reply.confidence, turn.answer.confidence);
    // Asking now fails with a kind the UI explains, and the history is untouched.
    let err = desk
        .ask(
            ask_args("And the buffer?", Some(turn.thread_id.clone())),
            &|_: &Event| {},
        )
        .await
        .unwrap_err();
    assert_eq!(kind(&err), IpcErrorKind::Core(ErrorKind::ModelMissing));
    assert!(desk.thread(&turn.thread_id).await.unwrap().messages.len() >= 2);
    desk.close().await;
}

#[tokio::test]
async fn cancelling_an_ingestion_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let desk = Desk::open(data_dir(&tmp)).await;
    let cancel_at_embedding = |e: IngestEvent| {
        if e.phase == IngestPhase::Stage(Stage::Embedding) {
            assert!(desk.cancel_ingest("j1"));
        }
    };
    let err = desk
        .ingest(ingest_args("j1", "capital-2024.pdf"), &cancel_at_embedding)
        .await
        .unwrap_err();
    assert_eq!(kind(&err), IpcErrorKind::Core(ErrorKind::Cancelled));
    assert!(
        desk.documents()
            .await
            .unwrap()
            .iter()
            .all(|d| d.status != policypal::store::DocStatus::Ready)
    );
    assert!(
        !desk.cancel_ingest("j1"),
        "a finished job has no cancel flag left"
    );
    // The same file can be added afterwards.
    desk.ingest(ingest_args("j2", "capital-2024.pdf"), &|_| {})
        .await
        .unwrap();
    desk.close().await;
}

#[tokio::test]
async fn bad_input_gets_typed_errors_and_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let desk = Desk::open(data_dir(&tmp)).await;
    for (file, expected) in [
        ("not-a-pdf.pdf", ErrorKind::UnsupportedPdf),
        ("encrypted.pdf", ErrorKind::UnsupportedPdf),
        ("scanned.pdf", ErrorKind::UnsupportedPdf),
        ("does-not-exist.pdf", ErrorKind::NotFound),
    ] {
        let err = desk
            .ingest(ingest_args("j", file), &|_| {})
            .await
            .unwrap_err();
        assert_eq!(
            kind(&err),
            IpcErrorKind::Core(expected),
            "{file}: {}",
            err.message
        );
    }
    assert!(
        desk.documents()
            .await
            .unwrap()
            .iter()
            .all(|d| d.status != policypal::store::DocStatus::Ready)
    );
    let err = desk.rename_thread("t", "   ").await.unwrap_err();
    assert_eq!(kind(&err), IpcErrorKind::Core(ErrorKind::InvalidInput));
    let err = desk.thread("no-such-thread").await.unwrap_err();
    assert_eq!(kind(&err), IpcErrorKind::Core(ErrorKind::NotFound));
    let err = desk
        .ask(ask_args("   ", None), &|_: &Event| {})
        .await
        .unwrap_err();
    assert_eq!(kind(&err), IpcErrorKind::Core(ErrorKind::InvalidInput));
    assert!(!desk.cancel_run("nothing-running"));
    desk.close().await;
}

#[tokio::test]
async fn answering_mode_is_saved_validated_and_applied() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = data_dir(&tmp);
    let desk = Desk::open(dir.clone()).await;
    assert_eq!(desk.settings().await.unwrap().mode, AnswerMode::Extractive);
    let mut s = UiSettings {
        mode: AnswerMode::Local,
        base_url: "ftp://127.0.0.1/v1".into(),
        models: Default::default(),
        web_search: false,
        model_file: String::new(),
        ocr: true,
        ocr_language: "eng".into(),
        ocr_installed: Vec::new(),
        ocr_problem: None,
    };
    let err = desk.save_settings(s.clone()).await.unwrap_err();
    assert_eq!(kind(&err), IpcErrorKind::Core(ErrorKind::InvalidInput));
    assert!(
        dir.load_settings().unwrap().llm.is_none(),
        "a refused change is not written"
    );

    s.base_url = "http://127.0.0.1:11434/v1/".into();
    s.models.insert("inquire".into(), "llama3.2".into());
    let saved = desk.save_settings(s).await.unwrap();
    assert_eq!(saved.mode, AnswerMode::Local);
    assert_eq!(saved.base_url, "http://127.0.0.1:11434/v1");
    assert_eq!(saved.models["inquire"], "llama3.2");
    assert!(desk.info().await.unwrap().llm_configured);
    let on_disk = dir.load_settings().unwrap().llm.unwrap();
    assert_eq!(on_disk.base_url, "http://127.0.0.1:11434/v1");

    let back = desk
        .save_settings(UiSettings {
            mode: AnswerMode::Extractive,
            ..saved
        })
        .await
        .unwrap();
    assert_eq!(back.mode, AnswerMode::Extractive);
    assert!(!desk.info().await.unwrap().llm_configured);
    assert!(
        !desk.info().await.unwrap().web_enabled,
        "web search is off by default"
    );

    // Web search is switched on and off with the rest of the settings.
    let on = desk
        .save_settings(UiSettings {
            web_search: true,
            ..back
        })
        .await
        .unwrap();
    assert!(on.web_search);
    assert!(dir.load_settings().unwrap().web.enabled);
    assert!(desk.info().await.unwrap().web_enabled);

    // OCR: on by default with Tesseract's English data (scripts/lib.sh installs it), switched
    // off and back; a language code that is not one is refused and nothing is written.
    assert!(on.ocr && on.ocr_problem.is_none(), "{:?}", on.ocr_problem);
    assert!(on.ocr_installed.contains(&"eng".to_owned()));
    let off = desk
        .save_settings(UiSettings {
            ocr: false,
            ..on.clone()
        })
        .await
        .unwrap();
    assert!(!off.ocr && !dir.load_settings().unwrap().ocr.enabled);
    let err = desk
        .save_settings(UiSettings {
            ocr: true,
            ocr_language: "eng; rm -rf".into(),
            ..off.clone()
        })
        .await
        .unwrap_err();
    assert_eq!(kind(&err), IpcErrorKind::Core(ErrorKind::InvalidInput));
    assert!(!dir.load_settings().unwrap().ocr.enabled, "nothing written");
    let missing = desk
        .save_settings(UiSettings {
            ocr: true,
            ocr_language: "tlh".into(),
            ..off
        })
        .await
        .unwrap();
    assert!(
        missing
            .ocr_problem
            .as_deref()
            .is_some_and(|p| p.contains("tlh")),
        "a language without data is saved and reported: {:?}",
        missing.ocr_problem
    );

    // PII redaction is a setting of the active profile.
    let p = desk.set_privacy(true, &["Jane Doe".into()]).await.unwrap();
    assert!(p.redact_pii);
    assert_eq!(
        desk.info().await.unwrap().profile.redact_names.0,
        vec!["Jane Doe".to_owned()]
    );
    desk.close().await;
}

#[test]
fn ipc_payloads_flatten_into_the_core_requests() {
    let a: AskArgs = serde_json::from_value(serde_json::json!({
        "run_key": "r1", "text": "Compare", "documents": ["d1", "d2"], "action": "compare"
    }))
    .unwrap();
    assert_eq!(a.run_key, "r1");
    assert_eq!(a.request.documents, vec!["d1", "d2"]);
    assert_eq!(
        a.request.action,
        Some(policypal::agent::types::Action::Compare)
    );
    assert!(a.request.thread_id.is_none());
    let i: IngestArgs = serde_json::from_value(serde_json::json!({
        "job_id": "j", "path": "/x.pdf", "doc_type": "policy", "title": "T"
    }))
    .unwrap();
    assert_eq!(i.request.doc_type, DocType::Policy);
    assert_eq!(i.request.title.as_deref(), Some("T"));
}

#[test]
fn only_web_links_are_handed_to_the_browser() {
    assert!(crate::api::checked_link("https://example.org/a?b=c").is_ok());
    assert!(crate::api::checked_link("HTTP://example.org").is_ok());
    for bad in [
        "javascript:alert(1)",
        "file:///etc/passwd",
        "https://",
        "https:///path",
        "https://exa mple.org",
        "https://example.org/\n",
        "mailto:a@b.c",
    ] {
        let err = crate::api::checked_link(bad).unwrap_err();
        assert_eq!(
            kind(&err),
            IpcErrorKind::Core(ErrorKind::InvalidInput),
            "{bad}"
        );
    }
}

#[tokio::test]
async fn a_model_file_is_checked_before_it_answers_and_shows_as_the_file_mode() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = data_dir(&tmp);
    let desk = Desk::open(dir.clone()).await;
    let base = desk.settings().await.unwrap();
    let fake = tmp.path().join("handbook.gguf");
    std::fs::write(&fake, b"%PDF-1.7").unwrap();
    let err = desk
        .save_settings(UiSettings {
            mode: AnswerMode::File,
            model_file: fake.display().to_string(),
            ..base.clone()
        })
        .await
        .unwrap_err();
    assert_eq!(kind(&err), IpcErrorKind::Core(ErrorKind::ModelMissing));
    assert!(
        dir.load_settings().unwrap().llm.is_none(),
        "nothing written"
    );
    // The real GGUF of the generative tests (scripts/test.sh fetches it).
    let gguf = std::env::var("POLICYPAL_TEST_GGUF")
        .expect("POLICYPAL_TEST_GGUF: run scripts/test.sh, which fetches the test model");
    let saved = desk
        .save_settings(UiSettings {
            mode: AnswerMode::File,
            model_file: gguf.clone(),
            ..base
        })
        .await
        .unwrap();
    assert_eq!(saved.mode, AnswerMode::File);
    let file = std::fs::canonicalize(&gguf).unwrap();
    assert_eq!(saved.model_file, file.display().to_string());
    assert!(desk.info().await.unwrap().llm_configured);
    let llm = dir.load_settings().unwrap().llm.unwrap();
    assert_eq!(
        llm.local_model(&llm.model_for("audit")),
        Some(file.as_path())
    );
    desk.close().await;
}

#[tokio::test]
async fn a_library_that_cannot_open_is_reported_not_ready() {
    let tmp = tempfile::tempdir().unwrap();
    let blocker = tmp.path().join("file");
    std::fs::write(&blocker, b"not a directory").unwrap();
    let desk = Desk::open(DataDir::at(blocker.join("data"))).await;
    let err = desk.info().await.unwrap_err();
    assert_eq!(kind(&err), IpcErrorKind::Shell(ShellErrorKind::NotReady));
    assert!(
        err.message.contains("could not be opened"),
        "{}",
        err.message
    );
    let err = desk.documents().await.unwrap_err();
    assert_eq!(kind(&err), IpcErrorKind::Shell(ShellErrorKind::NotReady));
}

#[tokio::test]
async fn the_first_run_sets_up_the_profile_and_its_sample_answers_with_a_citation() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = data_dir(&tmp);
    let desk = Desk::open(dir.clone()).await;
    assert!(desk.info().await.unwrap().first_run);
    let context = UserContext {
        organisation: "Acme Bank".into(),
        industry: "Banking".into(),
        location: "Malaysia".into(),
    };
    let p = desk
        .finish_onboarding(" Jane Tan ", &context)
        .await
        .unwrap();
    assert_eq!(p.name, "Jane Tan");
    assert_eq!(
        (p.organisation.as_str(), p.location.as_str()),
        ("Acme Bank", "Malaysia")
    );
    let info = desk.info().await.unwrap();
    assert!(!info.first_run);
    assert_eq!(
        info.profiles.len(),
        1,
        "the first profile is set up, not a second one made"
    );

    let sample = desk.sample_document().await.unwrap();
    desk.ingest(
        IngestArgs {
            job_id: "sample".into(),
            request: IngestRequest {
                path: sample.path.clone(),
                title: Some(sample.title.clone()),
                version: None,
                doc_type: DocType::Policy,
                set: None,
                supersedes: None,
            },
        },
        &|_| {},
    )
    .await
    .unwrap();
    let turn = desk
        .ask(ask_args(&sample.question, None), &|_: &Event| {})
        .await
        .unwrap();
    assert_eq!(turn.answer.status, Status::Answered, "{}", turn.answer.text);
    let c = &turn.answer.citations[0];
    assert_eq!((c.title.as_str(), c.page), (sample.title.as_str(), 1));
    assert!(c.quote.contains("ninety days"), "{}", c.quote);
    desk.close().await;

    // Restarted: set up, not asked again.
    let desk = Desk::open(dir).await;
    let info = desk.info().await.unwrap();
    assert!(!info.first_run);
    assert_eq!(info.profile.organisation, "Acme Bank");
    desk.close().await;
}

#[tokio::test]
async fn onboarding_is_offered_only_to_a_new_library_and_a_taken_name_is_refused() {
    // A library in use before onboarding existed: documents already there.
    let tmp = tempfile::tempdir().unwrap();
    let desk = Desk::open(data_dir(&tmp)).await;
    desk.ingest(ingest_args("j", "capital-2024.pdf"), &|_| {})
        .await
        .unwrap();
    assert!(!desk.info().await.unwrap().first_run);
    desk.close().await;

    // Skipped: not shown again, nothing changed.
    let tmp = tempfile::tempdir().unwrap();
    let desk = Desk::open(data_dir(&tmp)).await;
    let before = desk.info().await.unwrap().profile;
    desk.skip_onboarding().await.unwrap();
    let info = desk.info().await.unwrap();
    assert!(!info.first_run);
    assert_eq!(info.profile, before);

    // A name another profile has is refused; the active profile is unchanged.
    desk.create_profile("Audit team", &UserContext::default())
        .await
        .unwrap();
    desk.switch_profile(&before.id).await.unwrap();
    let err = desk
        .finish_onboarding("Audit team", &UserContext::default())
        .await
        .unwrap_err();
    assert_eq!(kind(&err), IpcErrorKind::Core(ErrorKind::Duplicate));
    assert_eq!(desk.info().await.unwrap().profile, before);
    desk.close().await;
}

#[tokio::test]
async fn a_pdf_the_app_was_opened_with_is_offered_once_as_an_absolute_path() {
    let tmp = tempfile::tempdir().unwrap();
    let pdf = fixture("capital-2024.pdf");
    let args = [
        pdf.clone().into_os_string(),
        "--some-option".into(),
        tmp.path().join("missing.pdf").into_os_string(),
        tmp.path().as_os_str().to_owned(),
    ];
    let opened = crate::opened_files(args.into_iter());
    assert_eq!(opened, vec![std::path::absolute(&pdf).unwrap()]);
    let desk = Desk::open(data_dir(&tmp)).await.with_opened_files(opened);
    let first = desk.take_opened_files();
    assert_eq!(first.len(), 1);
    assert!(first[0].ends_with("capital-2024.pdf"), "{first:?}");
    assert!(desk.take_opened_files().is_empty());
    desk.close().await;
}

#[test]
fn the_desktop_program_serves_as_the_command_line() {
    // The installed `policypal` is a script that runs `policypal-desktop --cli …`.
    let desktop =
        worker().with_file_name(format!("policypal-desktop{}", std::env::consts::EXE_SUFFIX));
    let out = std::process::Command::new(&desktop)
        .args([crate::CLI_FLAG, "--version"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "policypal 0.1.0"
    );
    let tmp = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(&desktop)
        .arg(crate::CLI_FLAG)
        .arg("--data-dir")
        .arg(tmp.path())
        .env("POLICYPAL_MODEL_DIR", model_dir())
        .args(["--json", "profiles", "create", "alice"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["name"], "alice");
    // Its exit codes are the CLI's: an unknown profile is bad input.
    let out = std::process::Command::new(&desktop)
        .arg(crate::CLI_FLAG)
        .arg("--data-dir")
        .arg(tmp.path())
        .args(["--profile", "nobody", "docs", "list"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}
