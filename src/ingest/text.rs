//! Text clean-up of extracted pages.
//!
//! Owns: turning raw extractor output into the canonical page text that is stored, chunked,
//! embedded and quoted (line-end de-hyphenation, ligatures, soft hyphens, control characters,
//! whitespace). Every later offset refers to this cleaned text, so the rules must be
//! deterministic. Must not: drop content words or reorder text.

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
    for line in lines {
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
