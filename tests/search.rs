//! Hybrid search: paraphrases, rare terms, filters.

use policypal::store::DocType;
use policypal::{ErrorKind, SearchRequest};

use crate::common::{TestLib, fixture, ingest, request};

fn req(q: &str, k: usize) -> SearchRequest {
    SearchRequest {
        query: q.to_owned(),
        k,
        ..SearchRequest::default()
    }
}

async fn library() -> (TestLib, policypal::store::Profile, String, String) {
    let t = TestLib::new().await;
    let p = t.profile("alice").await;
    let mut r = request(fixture("capital-2024.pdf"));
    r.set = Some("Prudential".into());
    let reg = ingest(&t.lib, &p, r).await.unwrap().document.id;
    let mut r = request(fixture("retention-policy.pdf"));
    r.doc_type = DocType::Policy;
    r.set = Some("Acme policies".into());
    let pol = ingest(&t.lib, &p, r).await.unwrap().document.id;
    (t, p, reg, pol)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finds_a_passage_by_paraphrase_and_by_a_rare_term() {
    let (t, p, reg, pol) = library().await;
    // No words of the answer's key phrase ("minimum total capital ratio") in the question.
    let hits = t
        .lib
        .search(
            &p,
            &req(
                "how much money must a bank keep relative to its risky assets",
                3,
            ),
        )
        .await
        .unwrap();
    assert!(
        hits.iter()
            .any(|h| h.hit.document_id == reg
                && h.hit.text.contains("minimum total capital ratio of 8")),
        "{:#?}",
        hits.iter().map(|h| &h.hit.text).collect::<Vec<_>>()
    );
    let hits = t
        .lib
        .search(&p, &req("how long are phone call recordings kept", 3))
        .await
        .unwrap();
    assert_eq!(hits[0].hit.document_id, pol);
    assert!(hits[0].hit.text.contains("ninety days"));

    let hits = t.lib.search(&p, &req("zephyrine", 5)).await.unwrap();
    assert!(
        hits[0].hit.text.to_lowercase().contains("zephyrine"),
        "{}",
        hits[0].hit.text
    );
    assert!(
        hits[0].hit.text_rank.is_some(),
        "BM25 must contribute to a rare-term hit"
    );
    // Section 3.1 (page 2) and Appendix A (page 3) both name the test; each hit carries the
    // page its text is on.
    let mut pages: Vec<u32> = hits.iter().take(2).map(|h| h.page).collect();
    pages.sort();
    assert_eq!(pages, vec![2, 3]);
    for h in hits.iter().take(2) {
        let page = t
            .lib
            .store()
            .page_text(&p.id, &reg, h.page)
            .await
            .unwrap()
            .unwrap();
        assert!(
            page.to_lowercase().contains("zephyrine"),
            "page {} does not name the test",
            h.page
        );
    }
    assert_eq!(hits[0].title, "capital-2024");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filters_by_set_type_and_document() {
    let (t, p, reg, pol) = library().await;
    let q = "how long must records be retained";
    let all = t.lib.search(&p, &req(q, 10)).await.unwrap();
    assert!(
        all.iter().any(|h| h.hit.document_id == reg)
            && all.iter().any(|h| h.hit.document_id == pol)
    );

    let only_set = t
        .lib
        .search(
            &p,
            &SearchRequest {
                set: Some("prudential".into()),
                ..req(q, 10)
            },
        )
        .await
        .unwrap();
    assert!(!only_set.is_empty() && only_set.iter().all(|h| h.hit.document_id == reg));

    let only_policy = t
        .lib
        .search(
            &p,
            &SearchRequest {
                doc_type: Some(DocType::Policy),
                ..req(q, 10)
            },
        )
        .await
        .unwrap();
    assert!(!only_policy.is_empty() && only_policy.iter().all(|h| h.hit.document_id == pol));

    let only_doc = t
        .lib
        .search(
            &p,
            &SearchRequest {
                documents: vec![reg.clone()],
                ..req(q, 10)
            },
        )
        .await
        .unwrap();
    assert!(!only_doc.is_empty() && only_doc.iter().all(|h| h.hit.document_id == reg));

    let none = t
        .lib
        .search(
            &p,
            &SearchRequest {
                set: Some("Prudential".into()),
                doc_type: Some(DocType::Policy),
                ..req(q, 10)
            },
        )
        .await
        .unwrap();
    assert!(none.is_empty());

    let err = t
        .lib
        .search(
            &p,
            &SearchRequest {
                set: Some("No such set".into()),
                ..req(q, 10)
            },
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotFound);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_queries_are_refused_and_an_empty_library_returns_nothing() {
    let t = TestLib::new().await;
    let p = t.profile("alice").await;
    assert!(
        t.lib
            .search(&p, &req("capital ratio", 5))
            .await
            .unwrap()
            .is_empty()
    );
    for bad in [
        req("   ", 5),
        req("x", 0),
        req("x", 101),
        req(&"word ".repeat(1000), 5),
    ] {
        assert_eq!(
            t.lib.search(&p, &bad).await.unwrap_err().kind(),
            ErrorKind::InvalidInput
        );
    }
    // Filter syntax in a query is just text.
    let (t, p, _, _) = library().await;
    let hits = t
        .lib
        .search(&p, &req("' OR profile_id != '' --", 5))
        .await
        .unwrap();
    assert!(hits.iter().all(|h| !h.hit.document_id.is_empty()));
}
