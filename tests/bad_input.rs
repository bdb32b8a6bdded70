//! Bad input: each gets a clear, typed error, and stored data stays intact.

use policypal::config::{EmbedderSettings, Settings};
use policypal::ingest::IngestError;
use policypal::store::UserContext;
use policypal::{Error, ErrorKind, SearchRequest};

use crate::common::{TestLib, fixture, ingest, ingest_fixture, make_pdf, request, write};

async fn assert_library_intact(t: &TestLib, p: &policypal::store::Profile, doc_id: &str) {
    let docs = t.lib.documents(p).await.unwrap();
    assert_eq!(docs.len(), 1, "{docs:?}");
    assert_eq!(docs[0].id, doc_id);
    let hits = t
        .lib
        .search(
            p,
            &SearchRequest {
                query: "zephyrine reserve test".into(),
                k: 3,
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(hits[0].hit.document_id, doc_id);
    let files = std::fs::read_dir(t.dir().join("files").join(&p.id))
        .unwrap()
        .count();
    assert_eq!(files, 1, "only the good document's file is stored");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broken_pdfs_are_refused_with_typed_errors() {
    let t = TestLib::new().await;
    let p = t.profile("alice").await;
    let good = ingest_fixture(&t.lib, &p, "capital-2024.pdf").await;

    type Check = fn(&Error) -> bool;
    let cases: [(&str, Check); 5] = [
        ("not-a-pdf.pdf", |e| {
            matches!(e, Error::Ingest(IngestError::NotPdf))
        }),
        ("empty.pdf", |e| {
            matches!(e, Error::Ingest(IngestError::EmptyFile))
        }),
        ("truncated.pdf", |e| {
            matches!(e, Error::Ingest(IngestError::Corrupt(_)))
        }),
        ("encrypted.pdf", |e| {
            matches!(e, Error::Ingest(IngestError::Encrypted))
        }),
        ("scanned.pdf", |e| {
            matches!(e, Error::Ingest(IngestError::NoTextLayer { pages: 2, .. }))
        }),
    ];
    for (name, expected) in cases {
        let err = ingest(&t.lib, &p, request(fixture(name)))
            .await
            .unwrap_err();
        assert!(expected(&err), "{name}: {err:?}");
        assert_eq!(err.kind(), ErrorKind::UnsupportedPdf, "{name}");
        assert!(err.is_user_error());
        assert!(!err.to_string().is_empty());
    }
    assert!(
        ingest(&t.lib, &p, request(fixture("encrypted.pdf")))
            .await
            .unwrap_err()
            .to_string()
            .contains("password")
    );
    assert!(
        ingest(&t.lib, &p, request(fixture("scanned.pdf")))
            .await
            .unwrap_err()
            .to_string()
            .contains("OCR")
    );

    let missing = ingest(&t.lib, &p, request(t.dir().join("nope.pdf")))
        .await
        .unwrap_err();
    assert_eq!(missing.kind(), ErrorKind::NotFound);
    let dir = ingest(&t.lib, &p, request(t.dir())).await.unwrap_err();
    assert_eq!(dir.kind(), ErrorKind::InvalidInput);
    assert_library_intact(&t, &p, &good.id).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_two_thousand_page_pdf_is_refused_before_extraction() {
    let t = TestLib::new().await;
    let p = t.profile("alice").await;
    let good = ingest_fixture(&t.lib, &p, "capital-2024.pdf").await;
    let pages: Vec<String> = (1..=2000)
        .map(|i| format!("Page {i} of a very long rulebook."))
        .collect();
    let f = write(t.dir(), "huge.pdf", &make_pdf(&pages));
    let err = ingest(&t.lib, &p, request(&f)).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::Ingest(IngestError::TooManyPages {
                pages: 2000,
                max: 1500
            })
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("max_pages"));
    assert_library_intact(&t, &p, &good.id).await;

    // Within a raised limit the same file goes through.
    let mut settings = Settings::default();
    settings.limits.max_pages = 2000;
    let t2 = TestLib::with_settings(settings).await;
    let p2 = t2.profile("alice").await;
    let doc = ingest(&t2.lib, &p2, request(&f)).await.unwrap().document;
    assert_eq!(doc.page_count, 2000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_file_is_refused_by_size() {
    let mut settings = Settings::default();
    settings.limits.max_file_bytes = 5_000;
    let t = TestLib::with_settings(settings).await;
    let p = t.profile("alice").await;
    let err = ingest(&t.lib, &p, request(fixture("capital-2024.pdf")))
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Ingest(IngestError::TooLarge { max: 5_000, .. })),
        "{err:?}"
    );
    assert!(t.lib.documents(&p).await.unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn odd_names_unknown_profiles_and_bad_titles() {
    let t = TestLib::new().await;
    let p = t.profile("alice").await;
    let mut r = request(fixture("retention-policy.pdf"));
    r.set = Some("  Bank Negara 'BNM' / \"Ops\" ; DROP TABLE sets; ✓  ".into());
    let doc = ingest(&t.lib, &p, r).await.unwrap().document;
    assert_eq!(
        doc.set_name.as_deref(),
        Some("Bank Negara 'BNM' / \"Ops\" ; DROP TABLE sets; ✓")
    );
    let hits = t
        .lib
        .search(
            &p,
            &SearchRequest {
                query: "retention".into(),
                k: 3,
                set: Some("bank negara 'bnm' / \"ops\" ; drop table sets; ✓".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert!(!hits.is_empty());

    let mut r = request(fixture("capital-2024.pdf"));
    r.set = Some("tab\there".into());
    let err = ingest(&t.lib, &p, r).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
    let mut r = request(fixture("capital-2024.pdf"));
    r.title = Some("   ".into());
    assert_eq!(
        ingest(&t.lib, &p, r).await.unwrap_err().kind(),
        ErrorKind::InvalidInput
    );
    assert_eq!(t.lib.documents(&p).await.unwrap().len(), 1);

    assert_eq!(
        t.lib.profile("nobody").await.unwrap_err().kind(),
        ErrorKind::NotFound
    );
    assert_eq!(
        t.lib
            .store()
            .create_profile("alice", &UserContext::default())
            .await
            .map_err(Error::from)
            .unwrap_err()
            .kind(),
        ErrorKind::Duplicate
    );
    let err = t
        .lib
        .store()
        .recolor_set(
            &p.id,
            "Bank Negara 'BNM' / \"Ops\" ; DROP TABLE sets; ✓",
            "#123456",
        )
        .await
        .map_err(Error::from)
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidInput);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_model_directory_is_a_clear_error_and_stores_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = policypal::config::DataDir::at(tmp.path());
    dir.ensure().unwrap();
    dir.save_settings(&Settings {
        embedder: EmbedderSettings::Local {
            model_dir: Some(tmp.path().join("no-model-here")),
        },
        extract_worker: Some(crate::common::worker()),
        ..Settings::default()
    })
    .unwrap();
    let lib = policypal::Library::open(dir).await.unwrap();
    let p = lib.ensure_profile("alice").await.unwrap();
    let err = ingest(&lib, &p, request(fixture("capital-2024.pdf")))
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ModelMissing);
    assert!(err.to_string().contains("model.safetensors"), "{err}");
    assert!(err.to_string().contains("no-model-here"), "{err}");
    assert!(lib.documents(&p).await.unwrap().is_empty());
    assert!(lib.sets(&p).await.unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_index_built_by_another_model_must_be_reindexed() {
    let t = TestLib::new().await;
    let p = t.profile("alice").await;
    ingest_fixture(&t.lib, &p, "capital-2024.pdf").await;
    t.lib
        .store()
        .set_meta("embed_model", "openai:text-embedding-3-small@384")
        .await
        .unwrap();
    let err = t
        .lib
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
    assert!(err.to_string().contains("reindex"), "{err}");
    let err = ingest(&t.lib, &p, request(fixture("retention-policy.pdf")))
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ModelMismatch);
    assert_eq!(t.lib.documents(&p).await.unwrap().len(), 1);

    // Re-indexing with the configured model makes the library usable again.
    let n = t
        .lib
        .reindex(&|_: &policypal::Progress| policypal::Flow::Continue)
        .await
        .unwrap();
    assert_eq!(n, 1);
    let hits = t
        .lib
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
}
