//! The `policypal` binary end to end: JSON output, exit codes, and a real kill mid-ingestion.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::common::{fixture, make_pdf, model_dir, prose_pages, write};

pub(crate) fn pp(data: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_policypal"));
    c.arg("--data-dir")
        .arg(data)
        .env("POLICYPAL_MODEL_DIR", model_dir())
        .env_remove("POLICYPAL_PROFILE");
    c
}

pub(crate) fn run(data: &Path, args: &[&str]) -> (i32, Value) {
    let out: Output = pp(data).args(args).arg("--json").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: {e}: {stdout} / {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap(), v)
}

#[test]
fn the_issue_walkthrough_works_with_stable_json() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let (code, v) = run(
        d,
        &[
            "profiles",
            "create",
            "alice",
            "--industry",
            "Banking",
            "--location",
            "Malaysia",
        ],
    );
    assert_eq!(code, 0);
    assert_eq!(v["name"], "alice");
    assert_eq!(v["industry"], "Banking");

    let f = fixture("capital-2024.pdf");
    let (code, v) = run(
        d,
        &[
            "--profile",
            "alice",
            "ingest",
            f.to_str().unwrap(),
            "--title",
            "Capital Guidelines",
            "--version",
            "2024",
            "--type",
            "regulatory",
            "--set",
            "Bank Negara",
        ],
    );
    assert_eq!(code, 0, "{v}");
    assert_eq!(v[0]["ok"], true);
    let id = v[0]["document"]["id"].as_str().unwrap().to_owned();
    assert_eq!(v[0]["document"]["status"], "ready");
    assert_eq!(v[0]["document"]["set_name"], "Bank Negara");

    let (code, v) = run(d, &["--profile", "alice", "docs", "list"]);
    assert_eq!(code, 0);
    assert_eq!(v.as_array().unwrap().len(), 1);
    assert_eq!(v[0]["title"], "Capital Guidelines");
    assert_eq!(v[0]["version"], "2024");
    assert_eq!(v[0]["page_count"], 3);

    let (code, v) = run(
        d,
        &[
            "--profile",
            "alice",
            "search",
            "minimum capital ratio",
            "--set",
            "Bank Negara",
            "-k",
            "5",
        ],
    );
    assert_eq!(code, 0);
    let hits = v.as_array().unwrap();
    assert!(!hits.is_empty() && hits.len() <= 5);
    assert_eq!(hits[0]["document_id"], id.as_str());
    assert!(hits[0]["page"].as_u64().unwrap() >= 1);
    assert!(
        hits[0]["text"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains("capital")
    );

    let (code, v) = run(d, &["--profile", "alice", "sets", "list"]);
    assert_eq!(code, 0);
    assert_eq!(v[0]["document_count"], 1);

    let (code, _) = run(d, &["--profile", "alice", "docs", "delete", &id]);
    assert_eq!(code, 0);
    let (_, v) = run(d, &["--profile", "alice", "docs", "list"]);
    assert!(v.as_array().unwrap().is_empty());
}

#[test]
fn exit_codes_distinguish_bad_input_from_environment_problems() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let (code, v) = run(d, &["--profile", "nobody", "docs", "list"]);
    assert_eq!(code, 2);
    assert_eq!(v["error"]["kind"], "not_found");

    let bad = fixture("not-a-pdf.pdf");
    let good = fixture("retention-policy.pdf");
    let (code, v) = run(
        d,
        &["ingest", bad.to_str().unwrap(), good.to_str().unwrap()],
    );
    assert_eq!(code, 2, "{v}");
    assert_eq!(v[0]["ok"], false);
    assert_eq!(v[0]["error"]["kind"], "unsupported_pdf");
    assert_eq!(v[1]["ok"], true, "one bad file does not stop the others");

    let (code, v) = run(d, &["ingest", good.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert_eq!(v[0]["error"]["kind"], "duplicate");

    // Usage errors are bad input too.
    let out = pp(d).args(["search"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));

    // A missing model is the environment's fault: exit 3.
    let out = pp(d)
        .env("POLICYPAL_MODEL_DIR", d.join("missing-model"))
        .args([
            "--json",
            "ingest",
            fixture("capital-2024.pdf").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["error"]["kind"], "model_missing");
}

#[test]
fn killing_the_process_mid_ingestion_leaves_no_half_document() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::write(
        d.join("settings.json"),
        r#"{"limits": {"ingest_lease_secs": 1}}"#,
    )
    .unwrap();
    let big = write(d, "big.pdf", &make_pdf(&prose_pages(80, "capital")));
    let mut child = pp(d)
        .args(["--json", "ingest", big.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let mut killed = false;
    for line in stderr.lines() {
        let line = line.unwrap();
        let Ok(v) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if v["progress"]["stage"] == "embedding" && v["progress"]["done"].as_u64().unwrap_or(0) > 0
        {
            child.kill().unwrap();
            killed = true;
            break;
        }
    }
    child.wait().unwrap();
    assert!(killed, "the ingestion finished before it could be killed");
    std::thread::sleep(Duration::from_millis(1500));

    // The next start recovers: the document is failed, and none of its chunks are searchable.
    let (code, v) = run(d, &["docs", "list"]);
    assert_eq!(code, 0);
    assert_eq!(v[0]["status"], "failed", "{v}");
    assert!(v[0]["error"].as_str().unwrap().contains("interrupted"));
    let (_, hits) = run(d, &["search", "capital rule number 105"]);
    assert!(hits.as_array().unwrap().is_empty(), "{hits}");
    // Adding the file again replaces the failed attempt.
    let (code, v) = run(d, &["ingest", big.to_str().unwrap()]);
    assert_eq!(code, 0, "{v}");
    let (_, v) = run(d, &["docs", "list"]);
    assert_eq!(v.as_array().unwrap().len(), 1);
    assert_eq!(v[0]["status"], "ready");
}

/// Starts `ingest FILE` and returns the child once it has embedded its first batch.
fn ingest_until_embedding(d: &Path, file: &Path) -> std::process::Child {
    until_embedding(d, &["ingest", file.to_str().unwrap()], Stdio::null())
}

/// Starts `--json ARGS` and returns the child once it reports its first embedded batch; its
/// progress output is read on (and dropped) from then on.
fn until_embedding(d: &Path, args: &[&str], stdout: Stdio) -> std::process::Child {
    let mut child = pp(d)
        .arg("--json")
        .args(args)
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    for line in lines.by_ref() {
        let Ok(v) = serde_json::from_str::<Value>(&line.unwrap()) else {
            continue;
        };
        if v["progress"]["stage"] == "embedding" && v["progress"]["done"].as_u64().unwrap_or(0) > 0
        {
            // Keep reading, so that the child's progress output never meets a closed pipe.
            std::thread::spawn(move || lines.for_each(drop));
            return child;
        }
    }
    let status = child.wait();
    panic!("the ingestion finished ({status:?}) before it reached the embedding stage");
}

#[test]
fn a_file_whose_ingestion_was_killed_can_be_added_again_at_once() {
    // The default 120 s lease: nothing here waits for it.
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let big = write(d, "big.pdf", &make_pdf(&prose_pages(80, "capital")));
    let mut child = ingest_until_embedding(d, &big);
    child.kill().unwrap();
    child.wait().unwrap();
    let (code, v) = run(d, &["ingest", big.to_str().unwrap()]);
    assert_eq!(code, 0, "{v}");
    let (_, v) = run(d, &["docs", "list"]);
    assert_eq!(v.as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v[0]["status"], "ready");
    assert!(
        !d.join("locks").read_dir().unwrap().any(|_| true),
        "a lock file was left"
    );
}

#[test]
fn recovery_never_touches_an_ingestion_that_a_live_process_runs() {
    // A lease of 1 s that runs out while the ingesting process is stopped (alive, but not
    // renewing anything): the other process must still leave its ingestion alone.
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::write(
        d.join("settings.json"),
        r#"{"limits": {"ingest_lease_secs": 1}}"#,
    )
    .unwrap();
    let big = write(d, "big.pdf", &make_pdf(&prose_pages(80, "capital")));
    let mut child = ingest_until_embedding(d, &big);
    let pid = child.id().to_string();
    let signal = |sig: &str| {
        assert!(
            Command::new("kill")
                .args([sig, &pid])
                .status()
                .unwrap()
                .success()
        );
    };
    signal("-STOP");
    std::thread::sleep(Duration::from_millis(1500));
    // Another process opens the library (and runs recovery), then tries to add the same file.
    let (code, v) = run(d, &["docs", "list"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v[0]["status"], "processing", "{v}");
    let (code, v) = run(d, &["ingest", big.to_str().unwrap()]);
    assert_eq!(
        (code, v[0]["error"]["kind"].as_str()),
        (2, Some("busy")),
        "{v}"
    );
    // The message names who is adding it.
    let message = v[0]["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("(by policypal, process {pid})")),
        "{message}"
    );
    signal("-CONT");
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    let (_, v) = run(d, &["docs", "list"]);
    assert_eq!(v.as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v[0]["status"], "ready", "{v}");
}

#[test]
fn ctrl_c_cancels_an_ingestion_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let big = write(d, "big.pdf", &make_pdf(&prose_pages(80, "capital")));
    let child = until_embedding(d, &["ingest", big.to_str().unwrap()], Stdio::piped());
    let interrupt = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupt.success());
    let out = child.wait_with_output().unwrap();
    // The same outcome as the desktop's cancel: a typed "cancelled", and nothing left behind.
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["error"]["kind"], "cancelled", "{v}");
    let (_, docs) = run(d, &["docs", "list"]);
    assert!(docs.as_array().unwrap().is_empty(), "{docs}");
    let stored: Vec<_> = walk(&d.join("files"));
    assert!(stored.is_empty(), "{stored:?}");
    assert!(
        !d.join("locks").read_dir().unwrap().any(|_| true),
        "a lock file was left"
    );
}

pub(crate) fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn a_killed_reindex_leaves_the_old_index_searchable() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let big = write(d, "big.pdf", &make_pdf(&prose_pages(80, "capital")));
    let (code, v) = run(d, &["ingest", big.to_str().unwrap()]);
    assert_eq!(code, 0, "{v}");
    let (_, before) = run(d, &["search", "capital rule number 12", "-k", "3"]);
    assert_eq!(before.as_array().unwrap().len(), 3, "{before}");
    let tables = || std::fs::read_dir(d.join("lancedb")).unwrap().count();
    assert_eq!(tables(), 1);

    let mut child = until_embedding(d, &["reindex"], Stdio::null());
    child.kill().unwrap();
    child.wait().unwrap();
    // The half-built table is there until the next start drops it; searches see the old one.
    assert_eq!(tables(), 2);
    let (code, after) = run(d, &["search", "capital rule number 12", "-k", "3"]);
    assert_eq!(code, 0, "{after}");
    assert_eq!(after, before);
    assert_eq!(tables(), 1);
    // A reindex run to the end swaps its table in and leaves one table.
    let (code, v) = run(d, &["reindex"]);
    assert_eq!(
        (code, v["reindexed_documents"].as_u64()),
        (0, Some(1)),
        "{v}"
    );
    assert_eq!(tables(), 1);
    let (_, again) = run(d, &["search", "capital rule number 12", "-k", "3"]);
    assert_eq!(again.as_array().unwrap().len(), 3, "{again}");
    assert_eq!(again[0]["chunk_id"], before[0]["chunk_id"]);
}

#[test]
fn an_ingestion_whose_progress_reader_went_away_still_finishes() {
    // A script that starts `ingest --json` and stops reading its progress (a closed pipe).
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let file = write(d, "p.pdf", &make_pdf(&prose_pages(12, "conduct")));
    let mut child = pp(d)
        .args(["--json", "ingest", file.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    let (_, v) = run(d, &["docs", "list"]);
    assert_eq!(v[0]["status"], "ready", "{v}");
}

/// A memo that breaks the capital fixture's 8 per cent rule.
const AUDIT_MEMO: &str = "Audit this memo.\n\nOur bank maintains a minimum total capital ratio of 6 per cent of its risk-weighted assets.";

/// Adds the capital-2024 fixture; its document id.
fn ingest_capital(d: &Path) -> String {
    let f = fixture("capital-2024.pdf");
    let (code, v) = run(d, &["ingest", f.to_str().unwrap()]);
    assert_eq!(code, 0, "{v}");
    v[0]["document"]["id"].as_str().unwrap().to_owned()
}

#[test]
fn an_audit_in_the_terminal_ends_with_its_verdict_and_severity_badges() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let id = ingest_capital(d);
    let out = pp(d)
        .args(["ask", "--action", "audit", "--doc", &id, AUDIT_MEMO])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let badges = stdout
        .lines()
        .find(|l| l.starts_with("verdict: "))
        .unwrap_or_else(|| panic!("no verdict line: {stdout}"));
    assert!(badges.contains("⛔ Major violations"), "{badges}");
    assert!(badges.contains("🔴 1 high"), "{badges}");
    assert!(
        badges.contains("1 statement(s) against 1 document(s)"),
        "{badges}"
    );
}

#[test]
fn an_audit_exports_as_a_pdf_report_that_a_pdf_reader_reads_back() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let id = ingest_capital(d);
    let (code, v) = run(d, &["ask", "--action", "audit", "--doc", &id, AUDIT_MEMO]);
    assert_eq!(code, 0, "{v}");
    let (thread, message) = (
        v["thread_id"].as_str().unwrap().to_owned(),
        v["message_id"].as_str().unwrap().to_owned(),
    );
    let report = d.join("audit.pdf");
    let out = pp(d)
        .args([
            "threads",
            "export",
            &thread,
            "--message",
            &message,
            "--format",
            "pdf",
            "--out",
        ])
        .arg(&report)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&report).unwrap();
    assert!(bytes.starts_with(b"%PDF-"));
    // Read back the way a PDF viewer shows it (poppler), not by our own extractor.
    let text = Command::new("pdftotext")
        .args(["-layout"])
        .arg(&report)
        .arg("-")
        .output()
        .unwrap();
    assert!(text.status.success());
    let text = String::from_utf8_lossy(&text.stdout);
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for expected in [
        "profile default",
        "Question",
        "Audit: Major violations",
        "Severity",
        "High",
        "capital-2024, p. 1",
        "6 per cent",
        "8 per cent",
        "Sources",
    ] {
        assert!(
            flat.contains(expected),
            "{expected:?} not in the report:\n{text}"
        );
    }
    assert!(flat.replace(' ', "").contains("1/1"), "page number: {text}");
    // To standard output without --out: the same kind of file.
    let out = pp(d)
        .args(["threads", "export", &thread, "--format", "pdf"])
        .output()
        .unwrap();
    assert!(out.status.success() && out.stdout.starts_with(b"%PDF-"));
}

#[tokio::test]
async fn the_cli_without_a_profile_uses_the_library_the_app_set_up() {
    // Regression: the app's first run renames "default" to the user's name; the CLI's
    // default was then a new, empty "default", so `policypal docs list` showed nothing.
    let t = crate::common::TestLib::new().await;
    let default = t.lib.active_profile().await.unwrap();
    assert_eq!(default.name, "default");
    let context = policypal::store::UserContext::default();
    let jane = policypal::onboarding::finish(&t.lib, &default, "Jane Tan", &context)
        .await
        .unwrap();
    crate::common::ingest_fixture(&t.lib, &jane, "capital-2024.pdf").await;
    let other = t.lib.ensure_profile("audit team").await.unwrap();
    t.lib.close().await;
    let d = t.dir();

    let (code, v) = run(d, &["docs", "list"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v.as_array().unwrap().len(), 1, "{v}");
    let (_, v) = run(d, &["profiles", "show"]);
    assert_eq!(v["name"], "Jane Tan");
    // No "default" was created behind the user's back.
    let (_, v) = run(d, &["profiles", "list"]);
    assert_eq!(v.as_array().unwrap().len(), 2, "{v}");

    // `profiles use` switches what an unnamed profile means, for the app too.
    let (code, v) = run(d, &["profiles", "use", "audit team"]);
    assert_eq!((code, v["id"].as_str()), (0, Some(other.id.as_str())));
    let (_, v) = run(d, &["docs", "list"]);
    assert!(v.as_array().unwrap().is_empty(), "{v}");
    let lib = policypal::Library::open(policypal::config::DataDir::at(d))
        .await
        .unwrap();
    assert_eq!(lib.active_profile().await.unwrap().id, other.id);
    lib.close().await;
    // An unknown profile is a typed error and changes nothing.
    let (code, v) = run(d, &["profiles", "use", "nobody"]);
    assert_eq!(code, 2, "{v}");
    let (_, v) = run(d, &["profiles", "show"]);
    assert_eq!(v["name"], "audit team");
}
