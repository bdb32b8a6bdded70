//! Hostile PDFs (`tests/fixtures/hostile/`, written by its `make.py`): each one ends in a typed
//! error or a correct ingestion within the limits, this process stays alive, and nothing of a
//! refused attempt is left behind (no row, no stored file, no lock, no chunk).

use policypal::ErrorKind;
use policypal::config::Settings;
use policypal::store::DocStatus;

use crate::common::{TestLib, ingest, ingest_fixture, request};

fn hostile(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hostile")
        .join(name)
}

fn files_under(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| {
            if e.path().is_dir() {
                files_under(&e.path())
            } else {
                1
            }
        })
        .sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_of_the_built_in_extractors_ends_the_worker_not_the_app() {
    // Without poppler (`limits.poppler = false`) pdf-extract recurses through a form that
    // draws itself until its stack overflows: the worker dies, the app reports it and keeps
    // nothing of the attempt.
    let mut settings = Settings::default();
    settings.limits.poppler = false;
    settings.limits.extract_timeout_secs = 20;
    let t = TestLib::with_settings(settings).await;
    let p = t.profile("alice").await;
    for (name, words) in [
        ("self-form.pdf", "crashed"),
        ("nested-forms.pdf", "crashed"),
        ("text-bomb.pdf", ""),
    ] {
        let e = ingest(&t.lib, &p, request(hostile(name)))
            .await
            .expect_err(name);
        assert_eq!(e.kind(), ErrorKind::UnsupportedPdf, "{name}: {e}");
        assert!(e.to_string().contains(words), "{name}: {e}");
    }
    assert!(t.lib.documents(&p).await.unwrap().is_empty());
    assert_eq!(files_under(&t.dir().join("files")), 0);
    assert_eq!(files_under(&t.dir().join("locks")), 0);
    // The app is still there: a good file goes in.
    ingest_fixture(&t.lib, &p, "capital-2024.pdf").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_pdfs_end_in_a_typed_error_or_a_correct_ingestion_and_leave_nothing_behind() {
    let mut settings = Settings::default();
    settings.limits.extract_timeout_secs = 20;
    settings.limits.extract_memory_mb = 1024;
    let t = TestLib::with_settings(settings).await;
    let p = t.profile("alice").await;
    // (file, what must happen: Some(words of the error) for a refusal, None for an ingestion)
    let cases: [(&str, Option<&str>); 10] = [
        // Poppler reads a form that draws itself, and forms nested past any stack, without
        // recursing (below: the built-in extractors, which end the worker on them).
        ("self-form.pdf", None),
        ("nested-forms.pdf", None),
        ("flate-bomb.pdf", Some("memory")),
        // Poppler reads the 40 million characters drawn on one spot as what a viewer shows
        // there (one short run of text); the built-in extractors refuse it (below).
        ("text-bomb.pdf", None),
        ("many-pages.pdf", Some("10000 pages")),
        ("broken-xref.pdf", Some("damaged")),
        ("huge-image.pdf", Some("")),
        ("javascript.pdf", None),
        ("zero-page.pdf", None),
        ("bad-font.pdf", None),
    ];
    let mut ingested = 0;
    for (name, expected) in cases {
        let outcome = ingest(&t.lib, &p, request(hostile(name))).await;
        eprintln!(
            "{name}: {:?}",
            outcome.as_ref().map(|r| r.document.chunk_count)
        );
        match (outcome, expected) {
            (Ok(report), None) => {
                assert_eq!(report.document.status, DocStatus::Ready, "{name}");
                assert!(report.document.chunk_count > 0, "{name}");
                ingested += 1;
            }
            (Err(e), Some(words)) => {
                assert_eq!(e.kind(), ErrorKind::UnsupportedPdf, "{name}: {e}");
                assert!(e.to_string().contains(words), "{name}: {e}");
            }
            (Ok(_), Some(_)) => panic!("{name} was ingested"),
            (Err(e), None) => panic!("{name}: {e}"),
        }
        // Nothing of a refused attempt stays: only the ingested documents are listed, stored
        // and indexed, and no lock is held.
        let docs = t.lib.documents(&p).await.unwrap();
        assert_eq!(docs.len(), ingested, "{name}");
        assert!(docs.iter().all(|d| d.status == DocStatus::Ready), "{name}");
        assert_eq!(files_under(&t.dir().join("files")), ingested, "{name}");
        assert_eq!(files_under(&t.dir().join("locks")), 0, "{name}");
    }
    let index = t.lib.index().await.unwrap();
    let total: i64 = t
        .lib
        .documents(&p)
        .await
        .unwrap()
        .iter()
        .map(|d| d.chunk_count)
        .sum();
    assert_eq!(index.count(&p.id, None).await.unwrap() as i64, total);
}
