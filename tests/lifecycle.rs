//! Document lifecycle: duplicates, versions, delete, disable, crash recovery, concurrency.

use std::time::Duration;

use policypal::config::Settings;
use policypal::index::ChunkRow;
use policypal::store::{DocStatus, NewDocument};
use policypal::{ErrorKind, SearchRequest};

use crate::common::{
    TestLib, fixture, ingest, ingest_fixture, make_pdf, prose_pages, request, write,
};

fn req(q: &str) -> SearchRequest {
    SearchRequest {
        query: q.to_owned(),
        k: 10,
        ..SearchRequest::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_file_twice_is_refused_with_the_existing_id() {
    let t = TestLib::new().await;
    let p = t.profile("alice").await;
    let first = ingest_fixture(&t.lib, &p, "capital-2024.pdf").await;
    let chunks = t
        .lib
        .index()
        .await
        .unwrap()
        .count(&p.id, None)
        .await
        .unwrap();
    let mut again = request(fixture("capital-2024.pdf"));
    again.title = Some("Another title".into());
    let err = ingest(&t.lib, &p, again).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Duplicate);
    assert!(err.to_string().contains(&first.id), "{err}");
    assert!(matches!(err, policypal::Error::Duplicate { ref id, .. } if *id == first.id));
    assert_eq!(t.lib.documents(&p).await.unwrap().len(), 1);
    assert_eq!(
        t.lib
            .index()
            .await
            .unwrap()
            .count(&p.id, None)
            .await
            .unwrap(),
        chunks
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_version_supersedes_the_old_one_in_default_searches() {
    let t = TestLib::new().await;
    let p = t.profile("alice").await;
    let mut r = request(fixture("capital-2024.pdf"));
    r.title = Some("Capital Guidelines".into());
    r.version = Some("2024".into());
    let old = ingest(&t.lib, &p, r).await.unwrap().document;

    // Same title and version, different file: refused, nothing stored.
    let mut clash = request(fixture("capital-2025.pdf"));
    clash.title = Some("capital guidelines".into());
    clash.version = Some("2024".into());
    let err = ingest(&t.lib, &p, clash).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Duplicate);

    let mut r = request(fixture("capital-2025.pdf"));
    r.title = Some("Capital Guidelines".into());
    r.version = Some("2025".into());
    let new = ingest(&t.lib, &p, r).await.unwrap().document;
    assert_eq!(new.supersedes.as_deref(), Some(old.id.as_str()));
    let old_now = t.lib.document(&p, &old.id).await.unwrap().document;
    assert_eq!(old_now.superseded_by.as_deref(), Some(new.id.as_str()));
    assert_eq!(old_now.status, DocStatus::Ready);

    let hits = t
        .lib
        .search(&p, &req("minimum total capital ratio"))
        .await
        .unwrap();
    assert!(!hits.is_empty() && hits.iter().all(|h| h.hit.document_id == new.id));
    assert!(
        hits[0].hit.text.contains("10.5 per"),
        "{}",
        hits[0].hit.text
    );
    // Named explicitly, the superseded version is still searchable.
    let old_hits = t
        .lib
        .search(
            &p,
            &SearchRequest {
                documents: vec![old.id.clone()],
                ..req("minimum total capital ratio")
            },
        )
        .await
        .unwrap();
    assert!(old_hits[0].hit.text.contains("ratio of 8 per"));

    // --supersedes names the replaced document explicitly, whatever its title.
    let mut r = request(fixture("retention-policy.pdf"));
    r.supersedes = Some(new.id.clone());
    let third = ingest(&t.lib, &p, r).await.unwrap().document;
    assert_eq!(third.supersedes.as_deref(), Some(new.id.as_str()));
    // An unknown --supersedes id is refused before any text is extracted.
    let mut r = request(write(
        t.dir(),
        "other.pdf",
        &make_pdf(&prose_pages(1, "other")),
    ));
    r.supersedes = Some("0190b0a0-0000-7000-8000-000000000000".into());
    assert_eq!(
        ingest(&t.lib, &p, r).await.unwrap_err().kind(),
        ErrorKind::NotFound
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delete_removes_row_chunks_and_file_and_disable_hides_from_default_search() {
    let t = TestLib::new().await;
    let p = t.profile("alice").await;
    let doc = ingest_fixture(&t.lib, &p, "capital-2024.pdf").await;
    let keep = ingest_fixture(&t.lib, &p, "retention-policy.pdf").await;

    let off = t.lib.set_enabled(&p, &doc.id, false).await.unwrap();
    assert_eq!(off.status, DocStatus::Disabled);
    let hits = t
        .lib
        .search(&p, &req("capital ratio of risk-weighted assets"))
        .await
        .unwrap();
    assert!(hits.iter().all(|h| h.hit.document_id != doc.id));
    let named = t
        .lib
        .search(
            &p,
            &SearchRequest {
                documents: vec![doc.id.clone()],
                ..req("capital ratio")
            },
        )
        .await
        .unwrap();
    assert!(!named.is_empty());
    assert_eq!(
        t.lib.set_enabled(&p, &doc.id, true).await.unwrap().status,
        DocStatus::Ready
    );
    assert!(
        t.lib
            .search(&p, &req("capital ratio"))
            .await
            .unwrap()
            .iter()
            .any(|h| h.hit.document_id == doc.id)
    );

    let stored = t.lib.document(&p, &doc.id).await.unwrap().stored_file;
    assert!(stored.exists());
    t.lib.delete_document(&p, &doc.id).await.unwrap();
    assert!(!stored.exists());
    assert_eq!(
        t.lib.document(&p, &doc.id).await.unwrap_err().kind(),
        ErrorKind::NotFound
    );
    assert_eq!(
        t.lib
            .index()
            .await
            .unwrap()
            .count(&p.id, Some(&doc.id))
            .await
            .unwrap(),
        0
    );
    assert!(
        t.lib
            .store()
            .page_texts(&p.id, &doc.id)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        t.lib.delete_document(&p, &doc.id).await.unwrap_err().kind(),
        ErrorKind::NotFound
    );
    // The other document is untouched.
    assert!(
        t.lib
            .search(&p, &req("call recordings"))
            .await
            .unwrap()
            .iter()
            .any(|h| h.hit.document_id == keep.id)
    );
    // Deleted, the file can be added again.
    ingest_fixture(&t.lib, &p, "capital-2024.pdf").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_mid_ingestion_leaves_no_half_document_and_the_next_start_marks_it_failed() {
    let mut settings = Settings::default();
    settings.limits.ingest_lease_secs = 1;
    let t = TestLib::with_settings(settings).await;
    let p = t.profile("alice").await;
    ingest_fixture(&t.lib, &p, "retention-policy.pdf").await;

    // The state a crash during embedding leaves: a `processing` row and some written chunks.
    let doc_id = t
        .lib
        .store()
        .insert_document(&NewDocument {
            profile_id: &p.id,
            title: "Half",
            version: "",
            doc_type: policypal::store::DocType::Regulatory,
            set_id: None,
            file_name: "half.pdf",
            sha256: "00ff",
            supersedes: None,
            embed_model: "local:all-MiniLM-L6-v2",
            lease: Duration::from_secs(1),
        })
        .await
        .unwrap();
    let index = t.lib.index().await.unwrap();
    let vector = crate::common::model()
        .embed_blocking(&["zephyrine half written".to_owned()])
        .unwrap()
        .vectors
        .remove(0);
    index
        .add(&[ChunkRow {
            chunk_id: format!("{doc_id}:0"),
            profile_id: p.id.clone(),
            document_id: doc_id.clone(),
            set_id: String::new(),
            doc_type: "regulatory".into(),
            page_start: 1,
            page_end: 1,
            chunk_index: 0,
            char_start: 0,
            char_end: 21,
            heading: String::new(),
            text: "zephyrine half written".into(),
            vector,
        }])
        .await
        .unwrap();
    // Invisible while processing, even though its chunk is in the table.
    let hits = t
        .lib
        .search(&p, &req("zephyrine half written"))
        .await
        .unwrap();
    assert!(hits.iter().all(|h| h.hit.document_id != doc_id));

    tokio::time::sleep(Duration::from_millis(1500)).await;
    let t = t.reopen().await;
    let doc = t.lib.document(&p, &doc_id).await.unwrap().document;
    assert_eq!(doc.status, DocStatus::Failed);
    assert!(doc.error.unwrap().contains("interrupted"));
    assert_eq!(
        t.lib
            .index()
            .await
            .unwrap()
            .count(&p.id, Some(&doc_id))
            .await
            .unwrap(),
        0
    );
    assert_eq!(t.lib.documents(&p).await.unwrap().len(), 2);
}

/// The `processing` row of an ingestion of "busy.pdf" (content hash "abcd"), as a live process
/// writes it before extracting.
async fn busy_row(t: &TestLib, p: &policypal::store::Profile) -> String {
    t.lib
        .store()
        .insert_document(&NewDocument {
            profile_id: &p.id,
            title: "Busy",
            version: "",
            doc_type: policypal::store::DocType::Policy,
            set_id: None,
            file_name: "busy.pdf",
            sha256: "abcd",
            supersedes: None,
            embed_model: "local:all-MiniLM-L6-v2",
            lease: Duration::from_secs(120),
        })
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ingestion_in_progress_is_not_claimed_by_a_second_start() {
    let t = TestLib::new().await; // default lease: 120 s
    let p = t.profile("alice").await;
    let id = busy_row(&t, &p).await;
    // A live ingestion holds the file's lock: a second start leaves its row alone.
    let dir = policypal::config::DataDir::at(t.dir());
    let lock = policypal::liveness::IngestLock::try_acquire(&dir, &p.id, "abcd")
        .unwrap()
        .unwrap();
    let t = t.reopen().await;
    assert_eq!(
        t.lib.document(&p, &id).await.unwrap().document.status,
        DocStatus::Processing
    );
    // Once its process is gone (the lock released), the next start recovers it at once,
    // although its 120 s lease has not run out.
    drop(lock);
    let t = t.reopen().await;
    assert_eq!(
        t.lib.document(&p, &id).await.unwrap().document.status,
        DocStatus::Failed
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_ingestions_of_different_files_are_safe() {
    let t = TestLib::new().await;
    let p = t.profile("alice").await;
    let a = write(t.dir(), "a.pdf", &make_pdf(&prose_pages(6, "liquidity")));
    let b = write(t.dir(), "b.pdf", &make_pdf(&prose_pages(6, "solvency")));
    let (ra, rb, rc) = tokio::join!(
        ingest(&t.lib, &p, request(&a)),
        ingest(&t.lib, &p, request(&b)),
        ingest(&t.lib, &p, request(fixture("capital-2024.pdf"))),
    );
    let docs = [
        ra.unwrap().document,
        rb.unwrap().document,
        rc.unwrap().document,
    ];
    let index = t.lib.index().await.unwrap();
    for d in &docs {
        assert_eq!(d.status, DocStatus::Ready);
        assert_eq!(
            index.count(&p.id, Some(&d.id)).await.unwrap() as i64,
            d.chunk_count
        );
    }
    let hits = t
        .lib
        .search(&p, &req("solvency rule number 305"))
        .await
        .unwrap();
    assert_eq!(hits[0].hit.document_id, docs[1].id);
    // The same file from two tasks at once: exactly one wins.
    let c = write(t.dir(), "c.pdf", &make_pdf(&prose_pages(2, "conduct")));
    let (x, y) = tokio::join!(
        ingest(&t.lib, &p, request(&c)),
        ingest(&t.lib, &p, request(&c))
    );
    assert_eq!([x.is_ok(), y.is_ok()].iter().filter(|ok| **ok).count(), 1);
    let err = x.err().or(y.err()).unwrap();
    // "Being added right now" while the winner runs, "already in the library" once it is done.
    assert!(
        matches!(err.kind(), ErrorKind::Busy | ErrorKind::Duplicate),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn marking_failed_never_touches_a_document_that_finished() {
    // A late failure report (a timed-out worker, a second process's recovery) about a
    // document that another path already finished must not turn it into a failed one.
    let t = TestLib::new().await;
    let p = t.profile("alice").await;
    let doc = ingest_fixture(&t.lib, &p, "retention-policy.pdf").await;
    assert_eq!(doc.status, DocStatus::Ready);
    t.lib
        .store()
        .mark_failed(&p.id, &doc.id, "extraction timed out")
        .await
        .unwrap();
    let after = t.lib.document(&p, &doc.id).await.unwrap().document;
    assert_eq!(after.status, DocStatus::Ready);
    assert_eq!(after.chunk_count, doc.chunk_count);
    assert!(after.error.is_none());
    let hits = t
        .lib
        .search(&p, &req("retention of records"))
        .await
        .unwrap();
    assert!(hits.iter().any(|h| h.hit.document_id == doc.id));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delete_cut_short_after_its_row_is_gone_is_finished_by_the_next_start() {
    let t = TestLib::new().await;
    let p = t.profile("alice").await;
    let doc = ingest_fixture(&t.lib, &p, "retention-policy.pdf").await;
    let keep = ingest_fixture(&t.lib, &p, "capital-2024.pdf").await;
    let file = t.lib.data_dir().document_file(&p.id, &doc.id);
    assert!(file.exists());
    // What a crash right after the delete's first step leaves: the row gone (with its
    // tombstone), the chunks and the stored PDF still there.
    t.lib.store().delete_document(&p.id, &doc.id).await.unwrap();
    let listed = t.lib.documents(&p).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert!(
        listed
            .iter()
            .all(|d| d.status == DocStatus::Ready && d.chunk_count > 0)
    );
    let hits = t
        .lib
        .search(&p, &req("retention of records"))
        .await
        .unwrap();
    assert!(hits.iter().all(|h| h.hit.document_id != doc.id));

    let t = t.reopen().await;
    let index = t.lib.index().await.unwrap();
    assert_eq!(index.count(&p.id, Some(&doc.id)).await.unwrap(), 0);
    assert!(!file.exists());
    assert!(t.lib.store().pending_deletes().await.unwrap().is_empty());
    assert_eq!(
        index.count(&p.id, Some(&keep.id)).await.unwrap() as i64,
        keep.chunk_count
    );
    // A delete that runs to the end leaves no tombstone either.
    t.lib.delete_document(&p, &keep.id).await.unwrap();
    assert!(t.lib.store().pending_deletes().await.unwrap().is_empty());
    assert!(t.lib.documents(&p).await.unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupted_delete_waits_while_another_process_rebuilds_the_index() {
    // Regression (a leftover of the hardening issue): recovery finished interrupted deletes
    // whatever else held the library; beside a reindex in another process, whose swap drops
    // the table the delete writes to, the start could fail. Holding the index writers' lock
    // exclusively is what a running reindex does.
    let t = TestLib::new().await;
    let p = t.profile("alice").await;
    let doc = ingest_fixture(&t.lib, &p, "retention-policy.pdf").await;
    let file = t.lib.data_dir().document_file(&p.id, &doc.id);
    t.lib.store().delete_document(&p.id, &doc.id).await.unwrap();
    let reindex = policypal::liveness::IngestLock::try_acquire_named(
        t.lib.data_dir(),
        policypal::library::INDEX_WRITERS_LOCK,
    )
    .unwrap()
    .expect("nothing else holds it");
    let t = t.reopen().await;
    assert_eq!(t.lib.store().pending_deletes().await.unwrap().len(), 1);
    assert!(file.exists(), "left for the next start");
    assert!(t.lib.documents(&p).await.unwrap().is_empty());
    drop(reindex);
    let t = t.reopen().await;
    assert!(t.lib.store().pending_deletes().await.unwrap().is_empty());
    assert!(!file.exists());
    let index = t.lib.index().await.unwrap();
    assert_eq!(index.count(&p.id, Some(&doc.id)).await.unwrap(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partial_copies_left_by_killed_ingestions_are_removed_at_the_next_start() {
    let t = TestLib::new().await;
    let p = t.profile("alice").await;
    let doc = ingest_fixture(&t.lib, &p, "retention-policy.pdf").await;
    // A live ingestion (its row `processing`, its lock held) is writing its copy.
    let live = busy_row(&t, &p).await;
    let dir = policypal::config::DataDir::at(t.dir());
    let _lock = policypal::liveness::IngestLock::try_acquire(&dir, &p.id, "abcd")
        .unwrap()
        .unwrap();
    let stored = t.lib.data_dir().document_file(&p.id, &doc.id);
    let folder = stored.parent().unwrap().to_path_buf();
    let partial = |id: &str| folder.join(format!("{id}.pdf.partial"));
    // What killed processes left: a copy of a document that finished later, and one whose row
    // never got further than the copy (a kill before the rename, the row then failed and
    // replaced).
    std::fs::write(partial(&doc.id), b"%PDF-1.5 half").unwrap();
    std::fs::write(partial("0190a0e0-0000-7000-8000-000000000000"), b"%PDF").unwrap();
    std::fs::write(partial(&live), b"%PDF-1.5 being written").unwrap();
    let t = t.reopen().await;
    assert!(!partial(&doc.id).exists());
    assert!(!partial("0190a0e0-0000-7000-8000-000000000000").exists());
    assert!(
        partial(&live).exists(),
        "the live ingestion's copy was removed"
    );
    assert!(stored.is_file(), "the finished document's file was touched");
    assert_eq!(
        t.lib.document(&p, &doc.id).await.unwrap().document.status,
        DocStatus::Ready
    );
}
