//! Ingestion: pages, chunks, offsets, headings, the fallback extractor.

use policypal::ErrorKind;
use policypal::store::DocStatus;

use crate::common::{TestLib, fixture, ingest, ingest_fixture, make_pdf, request, write};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chunks_map_back_to_exact_pages_and_offsets() {
    let t = TestLib::new().await;
    let p = t.profile("alice").await;
    let doc = ingest_fixture(&t.lib, &p, "capital-2024.pdf").await;
    assert_eq!(doc.status, DocStatus::Ready);
    assert_eq!(doc.page_count, 3);
    assert!(doc.chunk_count >= 4, "chunks: {}", doc.chunk_count);
    assert!(doc.empty_pages.is_empty());

    // The document text is the pages joined by a blank line; every chunk is a verbatim slice
    // of it, and its page span matches where its offsets fall.
    let pages = t.lib.store().page_texts(&p.id, &doc.id).await.unwrap();
    let starts = t.lib.store().page_starts(&p.id, &doc.id).await.unwrap();
    let text: Vec<char> = pages
        .iter()
        .map(|(_, t)| t.as_str())
        .collect::<Vec<_>>()
        .join("\n\n")
        .chars()
        .collect();
    let page_of = |off: u64| {
        starts
            .iter()
            .rev()
            .find(|(_, s)| *s as u64 <= off)
            .map(|(p, _)| *p)
            .unwrap()
    };
    let rows = t
        .lib
        .index()
        .await
        .unwrap()
        .rows(&p.id, &doc.id)
        .await
        .unwrap();
    assert_eq!(rows.len() as i64, doc.chunk_count);
    for r in &rows {
        let slice: String = text[r.char_start as usize..r.char_end as usize]
            .iter()
            .collect();
        assert_eq!(slice, r.text, "chunk {}", r.chunk_index);
        assert_eq!(r.page_start, page_of(r.char_start));
        assert_eq!(r.page_end, page_of(r.char_end - 1));
        assert!(r.text.chars().count() <= 1000);
        assert_eq!(r.vector.len(), 384);
    }
    // Known quotes sit on the physical page a PDF viewer shows them on.
    for (quote, page) in [
        ("minimum total capital ratio of 8", 1),
        ("zephyrine reserve test described in Appendix A", 2),
        ("not exceeding one million ringgit", 3),
    ] {
        let (p_no, ptext) = pages
            .iter()
            .find(|(_, t)| t.contains(quote))
            .unwrap_or_else(|| panic!("{quote}"));
        assert_eq!(*p_no, page, "{quote}");
        assert!(!ptext.is_empty());
    }
    // Heading paths are kept per chunk.
    let ratio = rows
        .iter()
        .find(|r| r.text.contains("minimum total capital ratio of 8"))
        .unwrap();
    assert!(
        ratio.heading.starts_with("Section 2 Capital Requirements"),
        "{}",
        ratio.heading
    );
    // The original file is kept for citations.
    let details = t.lib.document(&p, &doc.id).await.unwrap();
    assert_eq!(
        std::fs::read(&details.stored_file).unwrap(),
        std::fs::read(fixture("capital-2024.pdf")).unwrap()
    );
    assert_eq!(details.indexed_chunks as i64, doc.chunk_count);
}

/// A fixture ingested into a new library, and its first page's stored text.
/// The citations of the answer to `question` (a new thread, the answer cache bypassed).
async fn cited(
    t: &TestLib,
    p: &policypal::store::Profile,
    question: &str,
) -> Vec<policypal::agent::types::Citation> {
    let agent = policypal::agent::Agent::new(&t.lib).without_cache();
    let turn = crate::common::ask_ok(
        &agent,
        p,
        policypal::agent::types::AskRequest {
            text: question.into(),
            ..Default::default()
        },
    )
    .await;
    turn.answer.citations
}

async fn first_page_of(
    name: &str,
) -> (
    TestLib,
    policypal::store::Profile,
    policypal::store::Document,
    String,
) {
    let t = TestLib::new().await;
    let p = t.profile("alice").await;
    let doc = ingest_fixture(&t.lib, &p, name).await;
    let page = t
        .lib
        .store()
        .page_text(&p.id, &doc.id, 1)
        .await
        .unwrap()
        .unwrap();
    (t, p, doc, page)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ghostscript_made_pdfs_keep_their_body_text() {
    // enscript + ps2pdf output is where pdf-extract has dropped body text; whichever
    // extractor reads it, every page must carry the body.
    let (t, p, doc, page) = first_page_of("retention-policy.pdf").await;
    assert!(
        page.contains("Call recordings with customers are retained for ninety days"),
        "{page}"
    );
    let details = t.lib.document(&p, &doc.id).await.unwrap();
    assert_eq!(details.extractors.values().sum::<usize>(), 1);
    assert!(!details.extractors.contains_key("none"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_is_stored_row_by_row_and_its_rows_answer() {
    // Regression: poppler's reading order gave a groff table column by column ("CCTV footage"
    // far from "30 days"), and a row, looking like a title, was never quoted: "How long must
    // CCTV footage be retained?" was answered from other sentences of the page.
    let (t, p, _doc, page) = first_page_of("retention-schedule.pdf").await;
    // One row on a line, its cells apart by tabs.
    assert!(page.contains("CCTV footage\t30 days\tFacilities"), "{page}");
    // The two columns of prose keep their reading order.
    let words = page.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("Visitor logs must be retained for eighteen months"),
        "{page}"
    );
    let citations = cited(&t, &p, "How long must CCTV footage be retained?").await;
    let quotes: Vec<&str> = citations.iter().map(|c| c.quote.as_str()).collect();
    assert!(
        quotes.iter().any(|q| q.contains("CCTV footage\t30 days")),
        "{quotes:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_columns_that_poppler_reads_across_are_stored_a_column_at_a_time() {
    // Regression: in a LaTeX two-column page whose columns share their baselines, poppler's
    // reading order joined lines of the left column to the lines beside them in the right one
    // ("… whenever they are not aboard a boat. Bicycles are" beside "A complaint about …"),
    // so quotes mixed the two columns and sentences broke at every line.
    let (t, p, _doc, page) = first_page_of("harbour-bylaws.pdf").await;
    let words = page.split_whitespace().collect::<Vec<_>>().join(" ");
    for sentence in [
        "Children under twelve wear a life jacket on the pontoons whenever they are not aboard a boat.",
        "The harbour master answers within ten working days, and a berth holder who is not satisfied may take the complaint to the harbour committee",
        "Boats stored ashore over the winter stand on cradles approved by the yard.",
    ] {
        assert!(words.contains(sentence), "{sentence} not in {page}");
    }
    // The left column before the right.
    let at = |w: &str| words.find(w).unwrap_or(usize::MAX);
    assert!(at("Moorings") < at("Fuel and waste"), "{page}");
    assert!(
        at("Safety on the pontoons") < at("Winter storage"),
        "{page}"
    );
    assert!(at("Winter storage") < at("Complaints"), "{page}");
    let citations = cited(
        &t,
        &p,
        "Within how many working days does the harbour master answer a complaint?",
    )
    .await;
    let quotes: Vec<String> = citations
        .iter()
        .map(|c| c.quote.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    assert!(
        quotes
            .iter()
            .any(|q| q.contains("The harbour master answers within ten working days")),
        "{quotes:?}"
    );
    crate::common::assert_quotes_on_pages(&t.lib, &p, &citations).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_whose_cells_wrap_is_stored_row_by_row_and_a_row_answers_under_its_columns() {
    // Regression: poppler's reading order gave a table with wrapped cells column by column
    // (every berth class, then every fee), and its drawing order scrambles the wrapped cells,
    // so no text held a class beside its fee. The page is now written from poppler's word
    // boxes, one row on a line; a row is quoted whole and answers with the words of the first
    // row, which names the columns ("Season fee").
    let (t, p, _doc, page) = first_page_of("berth-fees.pdf").await;
    assert!(
        page.contains(
            "Resident\t900 crowns for the season, paid before the first of April\tThe marina board, at its spring meeting\tAt least 30 days"
        ),
        "{page}"
    );
    assert!(
        page.contains("Berth class\tSeason fee\tWho allocates the berth\tNotice of leaving"),
        "{page}"
    );
    // Prose around the table keeps its lines.
    assert!(
        page.contains("A boat that leaves before the end of the season receives no refund."),
        "{page}"
    );
    let citations = cited(&t, &p, "What is the season fee for a resident berth?").await;
    assert!(
        citations
            .first()
            .is_some_and(|c| c.quote.starts_with("Resident\t900 crowns")),
        "{citations:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_word_table_whose_cells_all_wrap_and_run_together_is_stored_row_by_row() {
    // Regression: in a Word table of narrow columns printed by LibreOffice, every cell of a row
    // wraps at once, so the second line of a row fills every column and was taken for a new
    // row ("maps  researchers  the reading  Special  suspended"); and poppler joined the words
    // of two neighbouring cells into one line ("with a reading room"), so no column was found
    // at all. Lines are now cut at the columns' edges, and a row goes on while its first
    // column's line carries on the cell above.
    let (t, p, _doc, page) = first_page_of("loan-periods.pdf").await;
    assert!(
        page.contains(
            "Rare printed maps\tRegistered researchers with a reading pass\tThree days in the reading room\tHead of Special Collections\tBorrowing suspended"
        ),
        "{page}"
    );
    assert!(
        page.contains("Item\tWho may borrow\tLoan period\tApproved by\tLate return"),
        "{page}"
    );
    assert!(
        page.contains("Items that are damaged on loan are repaired at the borrower's cost."),
        "{page}"
    );
    let citations = cited(&t, &p, "Who approves a loan of rare printed maps?").await;
    assert!(
        citations
            .first()
            .is_some_and(|c| c.quote.starts_with("Rare printed maps\t")
                && c.quote.contains("Head of Special Collections")),
        "{citations:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_audit_holds_a_statement_to_the_case_of_a_rule_with_one_measure_per_case() {
    // Regression: a rule that sets one measure per case in coordinated parts ("the pontoons
    // every month, and the breakwater every year") bound nothing (several recurrences) or only
    // by its loosest ("within two hours, other spills within fourteen days": 14 days), so "the
    // breakwater every two years" and "fuel spills within three hours" came back compliant;
    // and "fourteen" was read as four "teen". Each part is now a case of its own, and a
    // statement is held to the case whose own words it shares.
    use crate::common::{ask_ok, audit_of};
    use policypal::agent::types::AuditStatus;
    let (t, p, doc, _) = first_page_of("harbour-inspections.pdf").await;
    let agent = policypal::agent::Agent::new(&t.lib).without_cache();
    let audit = |text: &str| {
        audit_of(
            &doc.id,
            &format!("Check this note against the inspection standard.\n\n{text}"),
        )
    };
    let turn = ask_ok(
        &agent,
        &p,
        audit("The breakwater is inspected every two years. Fuel spills are reported within three hours. Other spills are reported within twenty days."),
    )
    .await;
    let report = turn.answer.audit.clone().expect("an audit report");
    let summaries: Vec<&str> = report.findings.iter().map(|f| f.summary.as_str()).collect();
    assert_eq!(
        report.overall_status,
        AuditStatus::MajorViolations,
        "{}",
        turn.answer.text
    );
    assert!(
        summaries.iter().any(|s| s.contains("every year")),
        "{summaries:?}"
    );
    assert!(
        summaries.iter().any(|s| s.contains("within two hours")),
        "{summaries:?}"
    );
    assert!(
        summaries.iter().any(|s| s.contains("within fourteen days")),
        "{summaries:?}"
    );
    assert_eq!(report.findings.len(), 3, "{}", turn.answer.text);
    // Each case met: compliant.
    let turn = ask_ok(
        &agent,
        &p,
        audit("The pontoons are inspected every month. Fuel spills are reported within one hour. Other spills are reported within ten days."),
    )
    .await;
    let report = turn.answer.audit.clone().expect("an audit report");
    assert!(report.findings.is_empty(), "{}", turn.answer.text);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn running_headers_and_page_numbers_leave_the_stored_text() {
    // Regression: a word processor's running header ran into the first sentence of every page
    // ("Harbour Bank – Internal 4.2 Gifts and hospitality must not …") and "Page 2" into the
    // last, in quotes and in chunks. Lines repeated at the pages' edges are page furniture.
    let (t, p, doc, _) = first_page_of("running-headers.pdf").await;
    assert!(doc.page_count >= 3, "{}", doc.page_count);
    for n in 1..=doc.page_count {
        let page = t
            .lib
            .store()
            .page_text(&p.id, &doc.id, u32::try_from(n).unwrap())
            .await
            .unwrap()
            .unwrap();
        assert!(!page.contains("Internal use only"), "page {n}: {page}");
        assert!(
            !page.lines().any(|l| l.trim().starts_with("Page ")),
            "page {n}: {page}"
        );
        assert!(page.contains("Visitors to the"), "page {n}: {page}");
    }
    let citations = cited(
        &t,
        &p,
        "How many days in advance is a drone permit for the tank farm issued?",
    )
    .await;
    let quotes: Vec<&str> = citations.iter().map(|c| c.quote.as_str()).collect();
    assert!(quotes.iter().any(|q| q.contains("22 days")), "{quotes:?}");
    assert!(
        quotes
            .iter()
            .all(|q| !q.contains("Internal use") && !q.contains("Page ")),
        "{quotes:?}"
    );
    crate::common::assert_quotes_on_pages(&t.lib, &p, &citations).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn words_a_pdf_places_apart_are_stored_apart() {
    // Regression: groff-typeset manuals came out with glued words ("hierarchyisdivided",
    // "movedtothe"), so their quotes were not what a PDF viewer shows and their words were
    // not found by search. poppler's pdftotext reads them as a viewer shows them.
    let (t, p, doc, page) = first_page_of("groff-manual.pdf").await;
    for words in [
        "Each archive hierarchy is divided into sections",
        "Boxes older than seven years are moved to the",
    ] {
        assert!(page.contains(words), "{words:?} in {page:?}");
    }
    let details = t.lib.document(&p, &doc.id).await.unwrap();
    assert_eq!(
        details.extractors.get("poppler"),
        Some(&1),
        "{:?}",
        details.extractors
    );
    let hits = t
        .lib
        .search(
            &p,
            &policypal::library::SearchRequest {
                query: "moved to the basement store".into(),
                k: 1,
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert!(
        hits[0].hit.text.contains("seven years are moved to the"),
        "{:?}",
        hits[0].hit.text
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_without_text_are_reported_and_skipped() {
    let t = TestLib::new().await;
    let p = t.profile("alice").await;
    let mut pages = crate::common::prose_pages(3, "retention");
    pages[1] = String::new();
    let f = write(t.dir(), "gap.pdf", &make_pdf(&pages));
    let doc = ingest(&t.lib, &p, request(f)).await.unwrap().document;
    assert_eq!(doc.empty_pages, vec![2]);
    let rows = t
        .lib
        .index()
        .await
        .unwrap()
        .rows(&p.id, &doc.id)
        .await
        .unwrap();
    assert!(rows.iter().all(|r| r.page_start != 2 || r.page_end != 2));
    assert!(rows.iter().any(|r| r.page_start == 3));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_reports_every_stage_and_cancel_leaves_nothing() {
    use policypal::{Flow, Progress, Stage};
    use std::sync::Mutex;
    let t = TestLib::new().await;
    let p = t.profile("alice").await;
    let f = write(
        t.dir(),
        "long.pdf",
        &make_pdf(&crate::common::prose_pages(40, "capital")),
    );

    let seen = Mutex::new(Vec::new());
    let report = t
        .lib
        .ingest(&p, &request(&f), &|pr: &Progress| {
            seen.lock().unwrap().push((pr.stage, pr.done, pr.total));
            Flow::Continue
        })
        .await
        .unwrap();
    let seen = seen.into_inner().unwrap();
    for stage in [
        Stage::Reading,
        Stage::Extracting,
        Stage::Chunking,
        Stage::Embedding,
        Stage::Indexing,
        Stage::Done,
    ] {
        assert!(
            seen.iter().any(|s| s.0 == stage),
            "{stage:?} missing in {seen:?}"
        );
    }
    let total = report.document.chunk_count as usize;
    assert!(seen.contains(&(Stage::Embedding, total, total)));
    assert!(report.timings.tokens > 0);

    // Cancel once the first batch of chunks is written.
    t.lib
        .delete_document(&p, &report.document.id)
        .await
        .unwrap();
    let err = t
        .lib
        .ingest(&p, &request(&f), &|pr: &Progress| {
            if pr.stage == Stage::Embedding && pr.done > 0 {
                Flow::Cancel
            } else {
                Flow::Continue
            }
        })
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Cancelled);
    assert!(t.lib.documents(&p).await.unwrap().is_empty());
    assert_eq!(
        t.lib
            .index()
            .await
            .unwrap()
            .count(&p.id, None)
            .await
            .unwrap(),
        0
    );
    let files: Vec<_> = std::fs::read_dir(t.dir().join("files").join(&p.id))
        .unwrap()
        .collect();
    assert!(files.is_empty(), "stored files left: {files:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_audit_holds_a_statement_to_the_table_row_of_its_case_not_the_most_similar_row() {
    // Regression: the rows of a table differ by their case ("Commercial", "Visitor"), which
    // embedding similarity hardly weighs; "a commercial berth holder gives 45 days" was held
    // to the closest-looking row and came back compliant, though its own row asks 60.
    use policypal::agent::types::AuditStatus;
    let (t, p, doc, _) = first_page_of("berth-fees.pdf").await;
    let agent = policypal::agent::Agent::new(&t.lib).without_cache();
    let turn = crate::common::ask_ok(
        &agent,
        &p,
        crate::common::audit_of(
            &doc.id,
            "Check this note against the berth rules.\n\nA commercial berth holder gives 45 days of notice before leaving. Visitors pay 40 crowns a night.",
        ),
    )
    .await;
    let report = turn.answer.audit.clone().expect("an audit report");
    assert_eq!(
        report.overall_status,
        AuditStatus::MajorViolations,
        "{}",
        turn.answer.text
    );
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.target.quote.starts_with("Commercial\t")
                && f.target.quote.contains("60 days")),
        "{}",
        turn.answer.text
    );
    assert_eq!(report.findings.len(), 1, "{}", turn.answer.text);
}
