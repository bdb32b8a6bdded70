//! Profile isolation: one profile never sees another's documents, sets, chunks or files.

use policypal::store::UserContext;
use policypal::{ErrorKind, SearchRequest};

use crate::common::{TestLib, fixture, ingest, ingest_fixture, request};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_profiles_with_the_same_file_never_see_each_other() {
    let t = TestLib::new().await;
    let alice = t.profile("alice").await;
    let bob = t.profile("bob").await;
    let mut r = request(fixture("capital-2024.pdf"));
    r.set = Some("Shared name".into());
    let a = ingest(&t.lib, &alice, r.clone()).await.unwrap().document;
    // The same file is not a duplicate across profiles.
    let b = ingest(&t.lib, &bob, r).await.unwrap().document;
    assert_ne!(a.id, b.id);
    let only_alice = ingest_fixture(&t.lib, &alice, "retention-policy.pdf").await;

    let ids =
        |docs: Vec<policypal::store::Document>| docs.into_iter().map(|d| d.id).collect::<Vec<_>>();
    assert_eq!(
        ids(t.lib.documents(&bob).await.unwrap()),
        vec![b.id.clone()]
    );
    assert_eq!(t.lib.documents(&alice).await.unwrap().len(), 2);

    // Another profile's document is simply not found, by every path.
    assert_eq!(
        t.lib.document(&bob, &a.id).await.unwrap_err().kind(),
        ErrorKind::NotFound
    );
    assert_eq!(
        t.lib
            .delete_document(&bob, &only_alice.id)
            .await
            .unwrap_err()
            .kind(),
        ErrorKind::NotFound
    );
    assert_eq!(
        t.lib
            .set_enabled(&bob, &a.id, false)
            .await
            .unwrap_err()
            .kind(),
        ErrorKind::NotFound
    );
    let err = t
        .lib
        .search(
            &bob,
            &SearchRequest {
                query: "capital".into(),
                k: 5,
                documents: vec![only_alice.id.clone()],
                ..Default::default()
            },
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
    assert!(
        t.lib
            .store()
            .page_texts(&bob.id, &a.id)
            .await
            .unwrap()
            .is_empty()
    );
    // Whether a document writes a word (a name a question asks about) is read in its owner's
    // profile only, on the pages that hold its letters, as the caller reads them.
    let ids = vec![a.id.clone()];
    for (profile, word, words_only, written) in [
        (&alice.id, "capital", false, true),
        (&bob.id, "capital", false, false),
        (&alice.id, "zanzibar", false, false),
        (&alice.id, "capital", true, true),
        (&alice.id, "apit", true, false),
    ] {
        let as_a_word = |page: &str| {
            !words_only
                || page
                    .split(|c: char| !c.is_alphanumeric())
                    .any(|w| w.eq_ignore_ascii_case(word))
        };
        let found = t
            .lib
            .store()
            .pages_write(profile, &ids, word, as_a_word)
            .await
            .unwrap();
        assert_eq!(found, written, "{word} in {profile}");
    }

    // Search results and chunk counts are per profile.
    let q = SearchRequest {
        query: "call recordings retention".into(),
        k: 20,
        ..Default::default()
    };
    let bob_hits = t.lib.search(&bob, &q).await.unwrap();
    assert!(!bob_hits.is_empty());
    assert!(bob_hits.iter().all(|h| h.hit.document_id == b.id));
    let alice_hits = t.lib.search(&alice, &q).await.unwrap();
    assert!(
        alice_hits
            .iter()
            .all(|h| h.hit.document_id == a.id || h.hit.document_id == only_alice.id)
    );
    let index = t.lib.index().await.unwrap();
    assert_eq!(
        index.count(&bob.id, None).await.unwrap() as i64,
        b.chunk_count
    );

    // Sets with the same name are separate per profile.
    let sets_a = t.lib.sets(&alice).await.unwrap();
    let sets_b = t.lib.sets(&bob).await.unwrap();
    assert_eq!(sets_a.len(), 1);
    assert_eq!(sets_b.len(), 1);
    assert_ne!(sets_a[0].id, sets_b[0].id);
    t.lib
        .store()
        .rename_set(&bob.id, "Shared name", "Bob's set")
        .await
        .unwrap();
    assert_eq!(t.lib.sets(&alice).await.unwrap()[0].name, "Shared name");

    // Deleting in one profile leaves the other's copy searchable.
    t.lib.delete_document(&alice, &a.id).await.unwrap();
    assert_eq!(
        t.lib.document(&bob, &b.id).await.unwrap().indexed_chunks as i64,
        b.chunk_count
    );
    assert!(
        t.lib
            .document(&bob, &b.id)
            .await
            .unwrap()
            .stored_file
            .exists()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_data_directory_and_database_are_readable_by_their_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    // A directory that existed with the usual umask (0755), and a database someone made 0644.
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("data");
    std::fs::create_dir(&root).unwrap();
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o755)).unwrap();
    let dir = policypal::config::DataDir::at(&root);
    dir.ensure().unwrap();
    dir.save_settings(&policypal::config::Settings {
        extract_worker: Some(crate::common::worker()),
        ..Default::default()
    })
    .unwrap();
    std::fs::write(dir.database(), b"").unwrap(); // SQLite takes an empty file for a new database
    std::fs::set_permissions(dir.database(), std::fs::Permissions::from_mode(0o644)).unwrap();
    let lib = policypal::Library::open(dir.clone())
        .await
        .unwrap()
        .with_embedder(crate::common::model());
    let p = lib.ensure_profile("Private").await.unwrap();
    crate::common::ingest_fixture(&lib, &p, "retention-policy.pdf").await;
    assert_eq!(mode(&root), 0o700);
    assert_eq!(mode(&dir.database()), 0o600);
    let wal = root.join("policypal.sqlite3-wal");
    if wal.exists() {
        assert_eq!(mode(&wal), 0o600);
    }
    lib.close().await;
    // Made private again when the app finds them opened up.
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(dir.database(), std::fs::Permissions::from_mode(0o644)).unwrap();
    let lib = policypal::Library::open(dir.clone()).await.unwrap();
    assert_eq!((mode(&root), mode(&dir.database())), (0o700, 0o600));
    lib.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_profile_name_shaped_like_another_profiles_id_is_refused() {
    let t = TestLib::new().await;
    let a = t.profile("Compliance").await;
    let err = t
        .lib
        .store()
        .create_profile(&a.id, &UserContext::default())
        .await
        .unwrap_err();
    let err = policypal::Error::from(err);
    assert_eq!(err.kind(), ErrorKind::InvalidInput, "{err}");
    assert!(err.to_string().contains("form of a profile id"), "{err}");
    // Any id-shaped name, not only an existing id: it could shadow a profile made later.
    assert!(
        t.lib
            .store()
            .create_profile(
                "01a21096-a297-7649-8473-ca84a3369bbc",
                &UserContext::default()
            )
            .await
            .is_err()
    );
    assert_eq!(
        t.lib.store().profile(&a.id).await.unwrap().name,
        "Compliance"
    );
    assert_eq!(t.lib.store().profiles().await.unwrap().len(), 1);
}
