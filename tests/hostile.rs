//! Hostile PDFs (`tests/fixtures/hostile/`, written by its `make.py`): each one ends in a typed
//! error or a correct ingestion within the limits, this process stays alive, and nothing of a
//! refused attempt is left behind (no row, no stored file, no lock, no chunk).

use policypal::ErrorKind;
use policypal::config::Settings;
use policypal::store::DocStatus;

use crate::common::{TestLib, ingest, request};

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
async fn hostile_pdfs_end_in_a_typed_error_or_a_correct_ingestion_and_leave_nothing_behind() {
    let mut settings = Settings::default();
    settings.limits.extract_timeout_secs = 20;
    settings.limits.extract_memory_mb = 1024;
    let t = TestLib::with_settings(settings).await;
    let p = t.profile("alice").await;
    // (file, what must happen: Some(words of the error) for a refusal, None for an ingestion)
    let cases: [(&str, Option<&str>); 10] = [
        ("self-form.pdf", Some("crashed")),
        ("nested-forms.pdf", Some("crashed")),
        ("flate-bomb.pdf", Some("memory")),
        ("text-bomb.pdf", Some("")),
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
