//! Page furniture: the running headers and footers a word processor or typesetter repeats at the
//! top or bottom of every page ("Harbour Bank – Internal", "Page 3 of 12", "Debian Policy
//! Manual, Release 4.6").
//!
//! Left in the text they run into the first and last sentence of every page ("Harbour Bank –
//! Internal 4.2 Gifts must not be offered …"), become a chunk's heading and pull every page of
//! the document into a search for the document's name. Owns: finding lines that stand at a
//! page's edge on many pages (numbers aside) and removing them. Must not: touch a line inside a
//! page's body, or a document of one page.

use std::collections::HashMap;

/// How many non-blank lines at the top and at the bottom of a page count as its edge: a header
/// is often two lines (a title and a version), a footer a page number and a notice.
const EDGE_LINES: usize = 2;

/// Share of the document's pages whose edge must hold a line for it to be furniture. Book
/// layouts alternate the document's title (even pages) and the chapter's (odd pages), so half
/// the pages must count; a chapter title that heads a few pages of a long book is left alone.
const MIN_SHARE: f32 = 0.4;

/// The line as repeated: page numbers vary from page to page, so a run of digits is one mark,
/// and case and spacing do not count. A clause number ("4.2.1 Notifications") stays as it is:
/// clauses that open pages under one title differ by it, and are no furniture.
fn key(line: &str) -> String {
    let mut words = Vec::new();
    for token in line.split_whitespace() {
        let chars: Vec<char> = token.chars().collect();
        let dotted = chars
            .windows(3)
            .any(|w| w[0].is_ascii_digit() && w[1] == '.' && w[2].is_ascii_digit());
        let mut word = String::new();
        let mut digit = false;
        for &c in &chars {
            if c.is_ascii_digit() && !dotted {
                if !digit {
                    word.push('#');
                }
                digit = true;
            } else {
                digit = false;
                word.extend(c.to_lowercase());
            }
        }
        words.push(word);
    }
    words.join(" ")
}

/// The non-blank lines at the page's top and bottom edges, each with its key: a header counts
/// with the headers of other pages, a footer with their footers.
fn edge_lines(lines: &[&str]) -> Vec<(usize, String)> {
    let filled: Vec<usize> = (0..lines.len())
        .filter(|&i| !lines[i].trim().is_empty())
        .collect();
    let top = filled.iter().take(EDGE_LINES).map(|&i| (i, "top"));
    let bottom = filled.iter().rev().take(EDGE_LINES).map(|&i| (i, "bottom"));
    top.chain(bottom)
        .map(|(i, edge)| (i, format!("{edge}:{}", key(lines[i]))))
        .collect()
}

/// Removes the running headers and footers of a document's pages in place; `None` marks a page
/// that is left as it is and not counted (an OCR'd page, whose words keep offsets into its text).
/// Returns how many lines were removed.
pub fn strip(pages: &mut [Option<&mut String>]) -> usize {
    let counted = pages
        .iter()
        .filter(|p| p.as_ref().is_some_and(|t| !t.trim().is_empty()))
        .count();
    if counted < 2 {
        return 0;
    }
    let needed = ((counted as f32 * MIN_SHARE).ceil() as usize).max(2);
    let mut seen: HashMap<String, usize> = HashMap::new();
    for page in pages.iter().flatten() {
        let lines: Vec<&str> = page.lines().collect();
        let mut keys: Vec<String> = edge_lines(&lines).into_iter().map(|(_, k)| k).collect();
        keys.sort();
        keys.dedup();
        for k in keys {
            *seen.entry(k).or_default() += 1;
        }
    }
    let mut removed = 0;
    for page in pages.iter_mut().flatten() {
        let lines: Vec<&str> = page.lines().collect();
        let mut drop: Vec<usize> = edge_lines(&lines)
            .into_iter()
            .filter(|(_, k)| seen.get(k).is_some_and(|&n| n >= needed))
            .map(|(i, _)| i)
            .collect();
        drop.sort_unstable();
        drop.dedup();
        if drop.is_empty() {
            continue;
        }
        // Nothing of the body goes: a page that is all furniture keeps its text.
        if drop.len() == lines.iter().filter(|l| !l.trim().is_empty()).count() {
            continue;
        }
        removed += drop.len();
        let kept: Vec<&str> = lines
            .iter()
            .enumerate()
            .filter(|(i, _)| !drop.contains(i))
            .map(|(_, l)| *l)
            .collect();
        **page = kept.join("\n").trim().to_owned();
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(pages: &[&str]) -> Vec<String> {
        let mut owned: Vec<String> = pages.iter().map(|p| (*p).to_owned()).collect();
        let mut refs: Vec<Option<&mut String>> = owned.iter_mut().map(Some).collect();
        strip(&mut refs);
        owned
    }

    #[test]
    fn a_running_header_and_a_numbered_footer_leave_every_page() {
        let pages = run(&[
            "Acme Ltd – Confidential\nTravel Policy\n1. Trains are booked in standard class.\nPage 1 of 3",
            "Acme Ltd – Confidential\n2. Hotels are booked through the travel desk.\nPage 2 of 3",
            "Acme Ltd – Confidential\n3. Taxis need a receipt.\nPage 3 of 3",
        ]);
        assert_eq!(pages[1], "2. Hotels are booked through the travel desk.");
        assert_eq!(
            pages[0],
            "Travel Policy\n1. Trains are booked in standard class."
        );
        assert!(pages.iter().all(|p| !p.contains("Confidential")));
    }

    #[test]
    fn clauses_that_open_pages_under_one_title_are_no_furniture() {
        let pages = run(&[
            "4.2.1 Notifications\nA firm must notify a breach.\nGuidance on breaches.\n1",
            "4.2.4 Notifications\nA firm must notify a new office.\nGuidance on offices.\n2",
            "4.2.7 Notifications\nA firm must notify a new auditor.\nGuidance on auditors.\n3",
        ]);
        assert!(pages[1].starts_with("4.2.4 Notifications"), "{pages:?}");
        assert!(
            pages.iter().all(|p| !p.ends_with(char::is_numeric)),
            "{pages:?}"
        );
    }

    #[test]
    fn body_lines_and_single_pages_are_left_alone() {
        // The same sentence in the middle of two pages is content, not furniture.
        let pages = run(&[
            "Intro line one\nSecond line a\nThe deadline is ten days.\nMiddle\nNext\nLast line a",
            "Intro line two\nSecond line b\nThe deadline is ten days.\nOther\nThen\nLast line b",
        ]);
        assert!(
            pages
                .iter()
                .all(|p| p.contains("The deadline is ten days."))
        );
        let one = run(&["Header\nBody\nFooter 1"]);
        assert_eq!(one[0], "Header\nBody\nFooter 1");
    }

    #[test]
    fn a_title_on_half_the_pages_of_a_book_is_furniture_but_a_chapter_title_on_few_is_not() {
        let mut pages = Vec::new();
        for n in 1..=10 {
            let head = if n % 2 == 0 {
                "Field Guide to Ferns".to_owned()
            } else if n <= 2 {
                "Chapter 1. Spores".to_owned()
            } else {
                format!("Chapter {n}. Fronds of kind {}", "x".repeat(n))
            };
            let body = [
                "Fronds unroll.",
                "Spores ripen.",
                "Roots spread.",
                "Leaves fall.",
                "Moss grows.",
                "Rain comes.",
                "Sun sets.",
                "Frost bites.",
                "Buds open.",
                "Seeds drift.",
            ][n - 1];
            pages.push(format!("{head}\n{body}\nMore of page {body}\n{n}"));
        }
        let refs: Vec<&str> = pages.iter().map(String::as_str).collect();
        let out = run(&refs);
        assert!(out.iter().all(|p| !p.contains("Field Guide")));
        assert!(out.iter().all(|p| !p.ends_with(char::is_numeric)));
        assert!(out[0].starts_with("Chapter 1. Spores"));
    }
}
