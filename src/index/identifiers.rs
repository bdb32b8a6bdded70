//! Structured identifiers in a query — clause and section numbers such as "6.8.2", "A10.2.3",
//! "14.13" — which the full-text tokenizer splits into bare digits ("6", "8", "2") and the
//! embedder barely sees. A passage that holds the same identifier verbatim (the clause itself,
//! or a rule that refers to it) is evidence the question is about it.
//!
//! Owns: finding identifiers in a query and checking a passage holds one as a whole token.
//! Must not: search or score (the index does).

use std::sync::LazyLock;

use regex::Regex;

/// A number with at least one dotted part, optionally after one capital letter (appendix
/// rules: "A10.2.3"). Each part has at most three digits, so a decimal like "0.5" matches but
/// not a thousands-grouped figure or a version hash.
static IDENTIFIER: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\b[A-Z]?\d{1,3}(?:\.\d{1,3})+\b").ok());

/// Most identifiers taken from one query (a query listing more is not about one clause).
const MAX_IDENTIFIERS: usize = 4;

/// Characters that carry no text but may sit inside or around a number in a PDF's text layer
/// (left-to-right and right-to-left marks, zero-width space and joiners).
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{200b}'..='\u{200f}' | '\u{2060}' | '\u{feff}')
}

/// The distinct identifiers of `query`, in order of appearance.
pub fn identifiers(query: &str) -> Vec<String> {
    let Some(re) = IDENTIFIER.as_ref() else {
        return Vec::new();
    };
    let visible: String = query.chars().filter(|c| !is_invisible(*c)).collect();
    let mut out: Vec<String> = Vec::new();
    for m in re.find_iter(&visible) {
        let id = m.as_str().to_owned();
        if !out.contains(&id) {
            out.push(id);
        }
        if out.len() == MAX_IDENTIFIERS {
            break;
        }
    }
    out
}

/// Whether `text` holds `id` as a whole identifier: not inside a longer number ("16.8.2",
/// "6.8.21", "6.8.2.1" do not hold "6.8.2"; "6.8.2(a)" and "Rule 6.8.2." do).
pub fn holds(text: &str, id: &str) -> bool {
    let visible: String;
    let text = if text.chars().any(is_invisible) {
        visible = text.chars().filter(|c| !is_invisible(*c)).collect();
        visible.as_str()
    } else {
        text
    };
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(i) = text[from..].find(id) {
        let start = from + i;
        let end = start + id.len();
        let before = start.checked_sub(1).map(|j| bytes[j]);
        let after = bytes.get(end).copied();
        let after_next = bytes.get(end + 1).copied();
        let glued_before = before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'.');
        let glued_after = after.is_some_and(|b| b.is_ascii_digit())
            || (after == Some(b'.') && after_next.is_some_and(|b| b.is_ascii_digit()));
        if !glued_before && !glued_after {
            return true;
        }
        from = start + 1;
        while !text.is_char_boundary(from) {
            from += 1;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pattern_compiles() {
        assert!(IDENTIFIER.is_some());
    }

    #[test]
    fn clause_numbers_are_found_once_each_without_invisible_marks() {
        let q = "Under section \u{200e}4.2.1(b) and Annex B3.1, read with 4.2.1, what is due?";
        assert_eq!(identifiers(q), ["4.2.1", "B3.1"]);
        assert!(identifiers("What does the notice period depend on?").is_empty());
        assert_eq!(identifiers("a 2.5 per cent margin").len(), 1);
    }

    #[test]
    fn a_passage_holds_an_identifier_only_as_a_whole_number() {
        assert!(holds(
            "as required by paragraph 4.2.1(b), the tenant",
            "4.2.1"
        ));
        assert!(holds("see clause 4.2.1.", "4.2.1"));
        assert!(holds("4.2.1 Notice periods", "4.2.1"));
        assert!(holds("under Rule \u{200e}4.2.1 the", "4.2.1"));
        assert!(!holds("see clause 14.2.1", "4.2.1"));
        assert!(!holds("see clause 4.2.10", "4.2.1"));
        assert!(!holds("see clause 4.2.1.3", "4.2.1"));
        assert!(!holds("see clause B4.2.1", "4.2.1"));
        assert!(!holds("nothing numbered here", "4.2.1"));
    }
}
