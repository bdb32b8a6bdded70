//! Text clean-up of extracted pages.
//!
//! Owns: turning raw extractor output into the canonical page text that is stored, chunked,
//! embedded and quoted (line-end de-hyphenation, ligatures, soft hyphens, control characters,
//! whitespace, a rule line glued to the next line), and what a rule line is. Every later
//! offset refers to this cleaned text, so the rules must be deterministic. Must not: drop
//! content words or reorder text.

static SPLIT_WORD: std::sync::LazyLock<Option<regex::Regex>> =
    std::sync::LazyLock::new(|| regex::Regex::new(r"(\p{Ll})- (\p{Ll}+)").ok());
static SPACED_APOSTROPHE: std::sync::LazyLock<Option<regex::Regex>> =
    std::sync::LazyLock::new(|| regex::Regex::new(r"(\p{L}) ?([’']) (s|t|d|ll|re|ve|m)\b").ok());
static SPACED_URL: std::sync::LazyLock<Option<regex::Regex>> =
    std::sync::LazyLock::new(|| regex::Regex::new(r"(https?://\S*/) (\S)").ok());

/// Re-joins what an extractor that places text runs by position (the lopdf fallback) splits
/// with spaces: a word hyphenated at a line end ("ver- sion"; a suspended hyphen as in
/// "pre- and post-" is kept), an apostrophe set apart ("Developer ’ s") and a URL broken after
/// a slash.
pub fn tidy_positioned(raw: &str) -> String {
    let mut s = raw.to_owned();
    if let Some(re) = SPLIT_WORD.as_ref() {
        s = re
            .replace_all(&s, |c: &regex::Captures<'_>| {
                let next = &c[2];
                if matches!(next, "and" | "or" | "to" | "nor" | "as" | "but") {
                    c[0].to_owned()
                } else {
                    format!("{}{next}", &c[1])
                }
            })
            .into_owned();
    }
    if let Some(re) = SPACED_APOSTROPHE.as_ref() {
        s = re.replace_all(&s, "$1$2$3").into_owned();
    }
    if let Some(re) = SPACED_URL.as_ref() {
        s = re.replace_all(&s, "$1$2").into_owned();
    }
    s
}

/// Cleans one page of extracted text.
pub fn clean_page(raw: &str) -> String {
    // 1. Characters: ligatures and soft hyphens out, controls (except newline) to spaces.
    let mut s = String::with_capacity(raw.len());
    for c in raw.chars() {
        match c {
            '\u{00AD}' | '\u{200B}' | '\u{FEFF}' => {}
            '\u{FB00}' => s.push_str("ff"),
            '\u{FB01}' => s.push_str("fi"),
            '\u{FB02}' => s.push_str("fl"),
            '\u{FB03}' => s.push_str("ffi"),
            '\u{FB04}' => s.push_str("ffl"),
            '\u{FB05}' | '\u{FB06}' => s.push_str("st"),
            '\r' | '\u{2028}' | '\u{2029}' | '\u{000C}' => s.push('\n'),
            '\u{00A0}' => s.push(' '),
            // The cell separator of a table row (see `grid`), kept.
            '\t' => s.push('\t'),
            c if c.is_control() && c != '\n' => s.push(' '),
            c => s.push(c),
        }
    }
    // 2. Lines: trim, collapse inner runs of spaces (a table row keeps one tab between
    // cells), drop runs of blank lines to one.
    let mut lines: Vec<String> = Vec::new();
    let mut blank = true;
    for line in s.split('\n') {
        let collapsed = line
            .split('\t')
            .map(|cell| cell.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|cell| !cell.is_empty())
            .collect::<Vec<_>>()
            .join("\t");
        if collapsed.is_empty() {
            if !blank {
                lines.push(String::new());
            }
            blank = true;
        } else {
            lines.push(collapsed);
            blank = false;
        }
    }
    while lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    // 3. De-hyphenate words split at a line end: "regu-" + "lation" → "regulation".
    let mut joined: Vec<String> = Vec::with_capacity(lines.len());
    for line in lines.iter().flat_map(|l| unglue_rule(l)) {
        match joined.last_mut() {
            Some(prev) if joins_with_next(prev, &line) => {
                prev.pop(); // the hyphen
                let (word, rest) = line.split_once(' ').unwrap_or((line.as_str(), ""));
                prev.push_str(word);
                if !rest.is_empty() {
                    joined.push(rest.to_owned());
                }
            }
            _ => joined.push(line),
        }
    }
    let mut out = joined.join("\n");
    while out.ends_with('\n') {
        out.pop();
    }
    out
}

/// The characters a plain-text document draws a rule line with: the underline of a title
/// (reStructuredText, Markdown's setext headings, plain-text manuals), or a separator.
const RULE_CHARS: &[char] = &[
    '-', '=', '~', '^', '*', '"', '+', '#', '_', '`', '\'', '.', ':',
];

/// Whether a line is a rule: three or more of one [`RULE_CHARS`] character and nothing else
/// ("--------", "========"). It underlines the title above it, or separates parts; it is
/// never a sentence.
pub fn is_rule_line(line: &str) -> bool {
    let line = line.trim();
    let mut chars = line.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    RULE_CHARS.contains(&first) && line.chars().count() >= 3 && chars.all(|c| c == first)
}

/// A rule of hyphens glued to the line after it: the reading of a PDF (poppler's `pdftotext`)
/// takes a line that ends in "-" for a word broken at the line end, drops that hyphen and
/// joins the next line on ("-----The front desk opens …"; "----- Guests …" where the next
/// line was a list item "- Guests …"). A PDF viewer shows the rule on a line of its own, one hyphen
/// longer, and here it gets both back. Four hyphens at least: "---" can be a dash in text.
fn unglue_rule(line: &str) -> Vec<String> {
    let dashes = line.len() - line.trim_start_matches('-').len();
    let rest = &line[dashes..];
    let opens_text = |t: &str| t.starts_with(|c: char| !c.is_whitespace() && c != '-');
    if dashes < 4 {
        vec![line.to_owned()]
    } else if opens_text(rest) {
        vec![format!("{}-", &line[..dashes]), rest.to_owned()]
    } else if rest.strip_prefix(' ').is_some_and(opens_text) {
        vec![line[..dashes].to_owned(), format!("-{rest}")]
    } else {
        vec![line.to_owned()]
    }
}

/// A line ending in `letter-` whose next line starts with a lower-case letter is a word broken
/// by the typesetter, not a compound ("self-\nAssessment" and "-\n2024" stay as they are).
fn joins_with_next(line: &str, next: &str) -> bool {
    let mut rev = line.chars().rev();
    matches!(rev.next(), Some('-'))
        && rev.next().is_some_and(char::is_alphabetic)
        && next.chars().next().is_some_and(char::is_lowercase)
}

/// Number of characters that are not whitespace.
pub fn visible_len(s: &str) -> usize {
    s.chars().filter(|c| !c.is_whitespace()).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positioned_text_is_rejoined_but_suspended_hyphens_stay() {
        assert_eq!(
            tidy_positioned(
                "displays each ver- sion of https://packages.debian.org/ package-name; Developer ’ s portal; pre- and post-processing"
            ),
            "displays each version of https://packages.debian.org/package-name; Developer’s portal; pre- and post-processing"
        );
    }

    #[test]
    fn dehyphenates_line_end_breaks_only() {
        assert_eq!(
            clean_page("the minimum capi-\ntal ratio is\n8 per cent"),
            "the minimum capital\nratio is\n8 per cent"
        );
        assert_eq!(clean_page("a self-\nAssessment"), "a self-\nAssessment");
        assert_eq!(clean_page("year 2023-\n2024"), "year 2023-\n2024");
    }

    #[test]
    fn a_rule_glued_to_the_next_line_by_the_reader_is_given_back_its_line() {
        assert_eq!(
            clean_page("Opening hours\n------------Members may use the hall."),
            "Opening hours\n-------------\nMembers may use the hall."
        );
        // A dash that opens a line of words, or a short one, stays.
        assert_eq!(clean_page("--verbose prints more"), "--verbose prints more");
        assert_eq!(clean_page("---Note"), "---Note");
        // A rule glued to a list item: the rule lost its last hyphen, the item kept its own.
        assert_eq!(
            clean_page("Fees\n---- Members pay 20 euros."),
            "Fees\n----\n- Members pay 20 euros."
        );
        assert!(is_rule_line("  ======== "));
        assert!(is_rule_line("~~~"));
        assert!(!is_rule_line("--"));
        assert!(!is_rule_line("-=-=-="));
        assert!(!is_rule_line("--- note"));
    }

    #[test]
    fn dehyphenates_a_word_that_fills_the_next_line() {
        assert_eq!(clean_page("regu-\nlation\nnext"), "regulation\nnext");
    }

    #[test]
    fn cleans_ligatures_whitespace_and_blank_runs() {
        assert_eq!(
            clean_page("  ﬁnancial  institutions \u{00AD}\n\n\n\nnext\u{0007}line  \n\n"),
            "financial institutions\n\nnext line"
        );
        // A table row keeps one tab between its cells (see `grid`).
        assert_eq!(
            clean_page(" Dog  size \t\t Fee per night \t\n"),
            "Dog size\tFee per night"
        );
    }

    #[test]
    fn empty_and_whitespace_pages_clean_to_nothing() {
        assert_eq!(clean_page(""), "");
        assert_eq!(clean_page(" \n\t\n "), "");
    }
}
