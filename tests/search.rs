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

#[test]
fn minilm_vectors_match_the_reference_bert_and_ignore_batching() {
    let m = crate::common::model();
    let text = "Banks must hold a minimum total capital ratio of 8 per cent.".to_owned();
    // First dimensions of the normalised mean-pooled vector from candle-transformers' BertModel
    // on the same weights and token ids (the generic implementation our encoder replaced).
    let reference = [
        0.093_001_12f32,
        -0.012_351_309,
        -0.079_759_72,
        -0.037_801_13,
        -0.027_225_148,
        -0.042_841_41,
        -0.058_599_185,
        0.072_942_37,
    ];
    // f32 arithmetic reproduces it; the default integer arithmetic stays within 1e-3.
    let float = crate::common::float_model()
        .embed_blocking(std::slice::from_ref(&text))
        .unwrap();
    for (got, want) in float.vectors[0].iter().zip(reference) {
        assert!((got - want).abs() < 1e-4, "f32: {got} vs {want}");
    }
    let alone = m.embed_blocking(std::slice::from_ref(&text)).unwrap();
    assert_eq!(alone.vectors[0].len(), 384);
    for (got, want) in alone.vectors[0].iter().zip(reference) {
        assert!((got - want).abs() < 1e-3, "integer: {got} vs {want}");
    }
    // In a batch with longer texts (padding) and across batch boundaries, the vector is the same.
    let mut texts: Vec<String> = (0..11)
        .map(|i| {
            format!(
                "Clause {i}: {}",
                "records are kept for seven years. ".repeat(i * 3 + 1)
            )
        })
        .collect();
    texts.insert(5, text.clone());
    let batched = m.embed_blocking(&texts).unwrap();
    let cos: f32 = batched.vectors[5]
        .iter()
        .zip(&alone.vectors[0])
        .map(|(a, b)| a * b)
        .sum();
    assert!(cos > 0.9999, "cosine {cos}");
    // Meaning: a paraphrase is closer than an unrelated sentence.
    let others = m
        .embed_blocking(&[
            "The minimum capital adequacy ratio for banks is eight percent.".to_owned(),
            "Staff must lock their screens before leaving the desk.".to_owned(),
        ])
        .unwrap();
    let dot = |v: &[f32]| -> f32 { v.iter().zip(&alone.vectors[0]).map(|(a, b)| a * b).sum() };
    assert!(
        dot(&others.vectors[0]) > dot(&others.vectors[1]) + 0.2,
        "{} vs {}",
        dot(&others.vectors[0]),
        dot(&others.vectors[1])
    );
}

#[tokio::test]
async fn integer_arithmetic_embeds_real_chunks_like_f32() {
    use policypal::embed::minilm::Arithmetic;
    // Integer arithmetic wherever the CPU has AVX2 + FMA, the f32 fallback elsewhere.
    #[cfg(target_arch = "x86_64")]
    let expected = if std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
    {
        Arithmetic::Integer
    } else {
        Arithmetic::Float
    };
    #[cfg(not(target_arch = "x86_64"))]
    let expected = Arithmetic::Float;
    assert_eq!(crate::common::model().arithmetic(), expected);
    // `bench quality` on real chunks of every text fixture, as ingestion cuts them.
    let files: Vec<_> = [
        "capital-2024.pdf",
        "capital-2025.pdf",
        "retention-policy.pdf",
        "hostile-markup.pdf",
    ]
    .into_iter()
    .map(crate::common::fixture)
    .collect();
    let q = policypal::bench::quality(&crate::common::model_dir(), &files, Arithmetic::Integer)
        .await
        .unwrap();
    eprintln!("integer vs float: {q:?}");
    assert_eq!(q.arithmetic, expected.name());
    assert!(q.chunks >= 10, "{} chunks", q.chunks);
    // The bar for quantised weights is 0.99; ours keeps 11-12 bits a side.
    assert!(q.worst_cosine > 0.9999, "{q:?}");
    assert!(q.median_cosine >= q.p1_cosine && q.p1_cosine >= q.worst_cosine);
    // Every chunk's nearest neighbour under integer arithmetic is (up to a near-tie) its
    // nearest under f32: rankings do not move. Over 1,148 chunks of the eval corpus the
    // largest such gap measured was 4.8e-4.
    assert!(q.worst_nearest_gap < 1e-3, "{q:?}");
    assert!(q.top10_overlap > 0.9, "{q:?}");
}

/// A rulebook whose clauses share their wording and differ by number, as regulations do.
fn rulebook() -> Vec<String> {
    let filler = |topic: &str| {
        (1..=6)
            .map(|i| format!("Guidance {i}. A firm should keep its {topic} arrangements under review and record the outcome."))
            .collect::<Vec<_>>()
            .join("\n")
    };
    vec![
        format!(
            "2.1 Application\nThese rules apply to every licensed firm that notifies the supervisor of its business.\n{}",
            filler("governance")
        ),
        format!(
            "4.2.1 Notifications\nA firm must notify the supervisor of a breach of these rules within 7 business days.\n{}",
            filler("breach")
        ),
        format!(
            "4.2.4 Notifications\nA firm must notify the supervisor of a change of its registered office within 7 business days.\n{}",
            filler("office")
        ),
        format!(
            "4.2.7 Notifications\nA firm must notify the supervisor before it appoints a new auditor.\n{}",
            filler("audit")
        ),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clause_number_in_the_question_finds_that_clause_and_a_version_number_does_not() {
    let t = TestLib::new().await;
    let p = t.profile("alice").await;
    let path = crate::common::write(
        t.dir(),
        "rulebook.pdf",
        &crate::common::make_pdf(&rulebook()),
    );
    let mut r = request(path);
    r.version = Some("2.1".into());
    ingest(&t.lib, &p, r).await.unwrap();
    // The tokenizer splits "4.2.4" into digits that every clause of the chapter shares; the
    // clause whose number the question names must come first.
    for (clause, page) in [("4.2.4", 3), ("4.2.7", 4), ("4.2.1", 2)] {
        let hits = t
            .lib
            .search(
                &p,
                &req(
                    &format!("When must a firm notify the supervisor under {clause}?"),
                    3,
                ),
            )
            .await
            .unwrap();
        assert_eq!(
            hits[0].page,
            page,
            "{clause}: {:#?}",
            hits.iter()
                .map(|h| (h.page, &h.hit.text[..40]))
                .collect::<Vec<_>>()
        );
    }
    // "2.1" is the document's version here, not a clause: the clause numbered 2.1 gets no lift.
    let hits = t
        .lib
        .search(
            &p,
            &req(
                "In version 2.1, when must a firm report a breach to the supervisor?",
                3,
            ),
        )
        .await
        .unwrap();
    assert_eq!(
        hits[0].page,
        2,
        "{:#?}",
        hits.iter().map(|h| h.page).collect::<Vec<_>>()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_passage_a_chunk_boundary_cuts_mid_sentence_comes_back_to_the_sentence_end() {
    // Regression: chunks end where their size runs out, at a line break of the PDF, and a hit
    // handed on such a chunk as it was stored ("… so that no other crew takes it out before
    // a warden"), which quotes then stopped in the middle of.
    let t = TestLib::new().await;
    let p = t.profile("alice").await;
    let doc = crate::common::ingest_fixture(&t.lib, &p, "rowing-bylaws.pdf").await;
    let rows = t
        .lib
        .index()
        .await
        .unwrap()
        .rows(&p.id, &doc.id)
        .await
        .unwrap();
    // Every chunk but the last (the text goes on after it) that stops without a stop.
    let cut: Vec<_> = rows[..rows.len().saturating_sub(1)]
        .iter()
        .filter(|r| !r.text.trim_end().ends_with(['.', ':', ';', ')', '"', '”']))
        .collect();
    assert!(!cut.is_empty(), "no chunk of the fixture ends mid-sentence");
    for row in cut {
        let last_line = row.text.trim_end().lines().last().unwrap_or_default();
        let hits = t
            .lib
            .search(
                &p,
                &SearchRequest {
                    documents: vec![doc.id.clone()],
                    ..req(last_line, 10)
                },
            )
            .await
            .unwrap();
        let hit = hits
            .iter()
            .find(|h| h.hit.chunk_id == row.chunk_id)
            .expect("the chunk is found by its own last line");
        assert!(hit.hit.text.starts_with(&row.text), "{}", hit.hit.text);
        assert!(hit.hit.text.len() > row.text.len(), "{}", hit.hit.text);
        assert!(hit.hit.text.ends_with('.'), "{}", hit.hit.text);
    }
}
