//! OCR of scanned pages: real text PDFs rasterised by Ghostscript into image-only PDFs (as a
//! scanner or a "print to image" makes them), read by the real Tesseract through the worker.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use policypal::agent::Agent;
use policypal::agent::types::{AskRequest, Event, Status};
use policypal::config::Settings;
use policypal::ingest::IngestError;
use policypal::library::{Flow, Progress, SearchRequest, Stage};
use policypal::{Error, ErrorKind};

use crate::common::{TestLib, assert_quotes_on_pages, fixture, ingest, request};

/// `source` rasterised at `dpi` into an image-only PDF (Ghostscript's `pdfimage8` device: every
/// page one 8-bit grey image, no text).
fn scan(source: &Path, dpi: u32, out: &Path) -> PathBuf {
    let status = std::process::Command::new("gs")
        .args([
            "-q",
            "-dNOPAUSE",
            "-dBATCH",
            "-dSAFER",
            "-sDEVICE=pdfimage8",
        ])
        .arg(format!("-r{dpi}"))
        .arg(format!("-sOutputFile={}", out.display()))
        .arg(source)
        .status()
        .expect("Ghostscript (scripts/lib.sh installs it)");
    assert!(status.success());
    let text = std::process::Command::new("pdftotext")
        .arg(out)
        .arg("-")
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&text.stdout).trim().is_empty(),
        "the scan must have no text layer"
    );
    out.to_owned()
}

const QUIET: &(dyn Fn(&Event) + Send + Sync) = &|_: &Event| {};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scanned_policy_is_read_by_ocr_and_answers_cite_the_scan() {
    let t = TestLib::new().await;
    let p = t.profile("alice").await;
    for dpi in [300, 150] {
        let file = scan(
            &fixture("retention-policy.pdf"),
            dpi,
            &t.dir().join(format!("retention-scan-{dpi}.pdf")),
        );
        let seen = Mutex::new(Vec::new());
        let report = t
            .lib
            .ingest(&p, &request(&file), &|pr: &Progress| {
                seen.lock().unwrap().push((pr.stage, pr.done, pr.total));
                Flow::Continue
            })
            .await
            .unwrap();
        let seen = seen.into_inner().unwrap();
        assert!(
            seen.contains(&(Stage::Recognising, 1, 1)),
            "page-by-page OCR progress: {seen:?}"
        );
        let doc = report.document;
        assert!(doc.empty_pages.is_empty(), "{dpi} dpi");
        let details = t.lib.document(&p, &doc.id).await.unwrap();
        assert_eq!(details.extractors.get("ocr"), Some(&1), "{dpi} dpi");
        let text = t.lib.store().page_text(&p.id, &doc.id, 1).await.unwrap();
        let text = text.unwrap().to_lowercase();
        for words in ["call recordings", "ninety days", "legal hold", "six years"] {
            assert!(text.contains(words), "{dpi} dpi: {words:?} in {text}");
        }
        t.lib.delete_document(&p, &doc.id).await.unwrap();
    }

    // The answer quotes the recognised text, verified on its page, marked as OCR with its
    // confidence; the page view gets the quote's word boxes on the scan.
    let file = t.dir().join("retention-scan-300.pdf");
    let doc = ingest(&t.lib, &p, request(&file)).await.unwrap().document;
    let agent = Agent::new(&t.lib);
    let turn = agent
        .ask(
            &p,
            AskRequest {
                text: "How long are call recordings with customers retained?".into(),
                ..AskRequest::default()
            },
            QUIET,
        )
        .await
        .unwrap();
    assert_eq!(turn.answer.status, Status::Answered, "{}", turn.answer.text);
    let c = &turn.answer.citations[0];
    assert_eq!((c.document_id.as_str(), c.page), (doc.id.as_str(), 1));
    assert!(c.quote.contains("ninety days"), "{}", c.quote);
    let confidence = c.ocr_confidence.expect("an OCR'd page is marked");
    assert!((60..=100).contains(&confidence), "{confidence}");
    assert_quotes_on_pages(&t.lib, &p, &turn.answer.citations).await;
    let json = serde_json::to_value(c).unwrap();
    assert_eq!(json["ocr_confidence"], u64::from(confidence));

    let on_page = policypal::agent::evidence::quote_on_page(&t.lib, &p, &doc.id, 1, &c.quote)
        .await
        .unwrap();
    assert_eq!(on_page.quote.as_deref(), Some(c.quote.as_str()));
    let words = c.quote.split_whitespace().count();
    assert!(
        on_page.boxes.len() + 2 >= words && on_page.boxes.len() <= words + 2,
        "{} boxes for {words} words",
        on_page.boxes.len()
    );
    // A4 in points; the boxes lie on the page, in reading order, where the text is printed.
    for b in &on_page.boxes {
        assert!(
            b.x >= 0.0 && b.y >= 0.0 && b.x + b.w <= 596.0 && b.y + b.h <= 843.0,
            "{b:?}"
        );
        assert!(b.w > 1.0 && b.h > 3.0 && b.h < 30.0, "{b:?}");
    }
    assert!(on_page.boxes[0].y <= on_page.boxes[on_page.boxes.len() - 1].y);
    // A page with a text layer has no boxes: the viewer marks the quote itself.
    let capital = crate::common::ingest_fixture(&t.lib, &p, "capital-2024.pdf").await;
    let text = t
        .lib
        .store()
        .page_text(&p.id, &capital.id, 1)
        .await
        .unwrap()
        .unwrap();
    let quote: String = text.chars().take(40).collect();
    let plain = policypal::agent::evidence::quote_on_page(&t.lib, &p, &capital.id, 1, &quote)
        .await
        .unwrap();
    assert!(plain.quote.is_some() && plain.boxes.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_with_some_scanned_pages_keeps_both_kinds() {
    let t = TestLib::new().await;
    let p = t.profile("alice").await;
    let scanned = scan(
        &fixture("retention-policy.pdf"),
        300,
        &t.dir().join("scan.pdf"),
    );
    let mixed = t.dir().join("mixed.pdf");
    let status = std::process::Command::new("gs")
        .args(["-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=pdfwrite"])
        .arg(format!("-sOutputFile={}", mixed.display()))
        .arg(fixture("capital-2024.pdf"))
        .arg(&scanned)
        .status()
        .unwrap();
    assert!(status.success());
    let doc = ingest(&t.lib, &p, request(&mixed)).await.unwrap().document;
    assert_eq!(doc.page_count, 4);
    let details = t.lib.document(&p, &doc.id).await.unwrap();
    assert_eq!(
        details.extractors.get("ocr"),
        Some(&1),
        "{:?}",
        details.extractors
    );
    assert_eq!(
        details.extractors.values().sum::<usize>(),
        4,
        "{:?}",
        details.extractors
    );
    // `docs show` says how much of the file was read by OCR.
    let shown = std::process::Command::new(crate::common::worker())
        .arg("--data-dir")
        .arg(t.dir())
        .args(["--profile", "alice", "docs", "show", &doc.id])
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.contains("1 of 4 pages read by OCR"), "{shown}");
    let last = t
        .lib
        .store()
        .page_text(&p.id, &doc.id, 4)
        .await
        .unwrap()
        .unwrap();
    assert!(last.contains("Chief Compliance Officer"), "{last}");
    let hits = t
        .lib
        .search(
            &p,
            &SearchRequest {
                query: "who may suspend disposal under a legal hold".into(),
                k: 3,
                documents: Vec::new(),
                set: None,
                doc_type: None,
            },
        )
        .await
        .unwrap();
    assert_eq!(hits[0].page, 4, "{hits:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ocr_switched_off_or_cancelled_leaves_nothing_behind() {
    let t = TestLib::with_settings(Settings {
        ocr: policypal::config::OcrSettings {
            enabled: false,
            ..Default::default()
        },
        ..Settings::default()
    })
    .await;
    let p = t.profile("alice").await;
    let file = scan(
        &fixture("retention-policy.pdf"),
        150,
        &t.dir().join("s.pdf"),
    );
    let err = ingest(&t.lib, &p, request(&file)).await.unwrap_err();
    assert!(
        matches!(&err, Error::Ingest(IngestError::NoTextLayer { pages: 1, ocr }) if ocr.contains("turned off")),
        "{err:?}"
    );
    assert_eq!(err.kind(), ErrorKind::UnsupportedPdf);
    assert!(t.lib.documents(&p).await.unwrap().is_empty());

    // With OCR on, a cancel while pages are being recognised ends the worker and leaves no
    // document, chunk or stored file.
    let t = TestLib::new().await;
    let p = t.profile("alice").await;
    let file = scan(&fixture("capital-2024.pdf"), 300, &t.dir().join("c.pdf"));
    let err = t
        .lib
        .ingest(&p, &request(&file), &|pr: &Progress| {
            if pr.stage == Stage::Recognising {
                Flow::Cancel
            } else {
                Flow::Continue
            }
        })
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Cancelled);
    assert!(t.lib.documents(&p).await.unwrap().is_empty());
    let files: Vec<_> = std::fs::read_dir(t.dir().join("files").join(&p.id))
        .map(|d| d.collect())
        .unwrap_or_default();
    assert!(files.is_empty(), "stored files left: {files:?}");
    // The same file, not cancelled, is read whole afterwards.
    let doc = ingest(&t.lib, &p, request(&file)).await.unwrap().document;
    let details = t.lib.document(&p, &doc.id).await.unwrap();
    assert_eq!(details.extractors.get("ocr"), Some(&3));
}
