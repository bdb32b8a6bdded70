//! Cleaned pages → one document text → overlapping chunks that remember where they came from.
//!
//! Owns: the document text layout (pages joined by a blank line), character offsets (Unicode
//! scalar values, not bytes), the page span of every chunk, offset → physical page mapping and
//! the heading path ("4 Capital > 4.2 Ratios"). Must not: embed, store or read PDFs.

use std::sync::LazyLock;

use regex::Regex;
use text_splitter::{ChunkConfig, TextSplitter};

use crate::config::ChunkSettings;

/// Separator placed between pages in the document text.
pub const PAGE_SEPARATOR: &str = "\n\n";

/// One physical page inside the document text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageSpan {
    /// 1-based physical page number.
    pub number: u32,
    /// Character offset of the page's first character in the document text.
    pub char_start: usize,
    /// Number of characters of the page's text.
    pub char_len: usize,
}

/// A chunk of the document text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// Position in the document (0-based).
    pub index: u32,
    /// The chunk's text, a verbatim slice of the document text.
    pub text: String,
    /// Character offset of the first character in the document text.
    pub char_start: usize,
    /// Character offset one past the last character.
    pub char_end: usize,
    /// First physical page the chunk touches.
    pub page_start: u32,
    /// Last physical page the chunk touches.
    pub page_end: u32,
    /// Heading path in force where the chunk starts ("" when none is recognisable).
    pub heading: String,
}

/// Joins cleaned pages into the document text and records where each page sits.
pub fn assemble(pages: &[(u32, String)]) -> (String, Vec<PageSpan>) {
    let mut text = String::new();
    let mut spans = Vec::with_capacity(pages.len());
    let mut offset = 0usize;
    for (i, (number, page)) in pages.iter().enumerate() {
        if i > 0 {
            text.push_str(PAGE_SEPARATOR);
            offset += PAGE_SEPARATOR.chars().count();
        }
        let len = page.chars().count();
        spans.push(PageSpan {
            number: *number,
            char_start: offset,
            char_len: len,
        });
        text.push_str(page);
        offset += len;
    }
    (text, spans)
}

/// The physical page holding the character at `offset` (a separator belongs to the page
/// before it).
pub fn page_at(spans: &[PageSpan], offset: usize) -> u32 {
    let i = spans.partition_point(|p| p.char_start <= offset);
    spans
        .get(i.saturating_sub(1))
        .or(spans.first())
        .map_or(1, |p| p.number)
}

/// Splits the document text into chunks of at most `max_chars` characters that overlap by
/// about `overlap`, cutting at the largest unit that fits (paragraph, sentence, word).
pub fn chunk(text: &str, spans: &[PageSpan], settings: ChunkSettings) -> Vec<Chunk> {
    let max = settings.max_chars.max(50);
    let overlap = settings.overlap.min(max / 2);
    let config = ChunkConfig::new(max)
        .with_overlap(overlap)
        .unwrap_or_else(|_| ChunkConfig::new(max))
        .with_trim(true);
    let splitter = TextSplitter::new(config);
    let headings = find_headings(text);
    let chars: Vec<char> = text.chars().collect();
    let ranges: Vec<(usize, usize)> = splitter
        .chunk_char_indices(text)
        .map(|c| (c.char_offset, c.char_offset + c.chunk.chars().count()))
        .collect();
    let ranges = sentence_aligned(&chars, &ranges, overlap);
    ranges
        .into_iter()
        .enumerate()
        .map(|(i, (char_start, char_end))| {
            let len = char_end - char_start;
            let last = char_end.saturating_sub(1).max(char_start);
            Chunk {
                index: u32::try_from(i).unwrap_or(u32::MAX),
                text: chars[char_start..char_end].iter().collect(),
                char_start,
                char_end,
                page_start: page_at(spans, char_start),
                page_end: page_at(spans, last),
                heading: heading_path_at(&headings, char_start, char_start + len / 4),
            }
        })
        .collect()
}

/// Chunk ranges moved onto sentence starts: a chunk that the splitter starts inside a sentence
/// (its overlap with the one before begins at a line break, and a PDF's lines break
/// mid-sentence) starts instead at the first sentence that opens within `overlap` characters,
/// still inside the chunk before. Without such a start a range stays as it is. A quote, a rule or
/// a key point read from the head of a chunk is then a sentence, not the tail of one
/// ("Manager and are reviewed every six months."). Ends are left where the splitter put them:
/// running a chunk on to its sentence's end made chunks longer and, on ObliQA, cost refusals of
/// questions another rulebook answers (96 → 93 and 82 → 80 of 120) and held-out pages.
fn sentence_aligned(
    chars: &[char],
    ranges: &[(usize, usize)],
    overlap: usize,
) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
    for (k, &(start, end)) in ranges.iter().enumerate() {
        let start = match k.checked_sub(1).and_then(|p| out.get(p)) {
            Some(&(_, prev_end)) if !sentence_starts_at(chars, start) => {
                let limit = (start + overlap + 1).min(prev_end).min(end);
                (start..limit)
                    .find(|&i| sentence_starts_at(chars, i))
                    .unwrap_or(start)
            }
            _ => start,
        };
        out.push((start, end.max(start)));
    }
    out
}

/// Whether a sentence opens at character `i`: the text's start, after a blank line, after a
/// sentence's final punctuation and a space when an upper-case letter, a digit or an opening
/// quote or bracket follows, or at a line that opens with a clause number ("3.1 ", "(b) ").
fn sentence_starts_at(chars: &[char], i: usize) -> bool {
    let Some(&c) = chars.get(i) else {
        return false;
    };
    if i == 0 {
        return true;
    }
    if c.is_whitespace() {
        return false;
    }
    let mut j = i;
    let mut newlines = 0;
    while j > 0 && chars[j - 1].is_whitespace() {
        if chars[j - 1] == '\n' {
            newlines += 1;
        }
        j -= 1;
    }
    if j == i {
        return false;
    }
    if j == 0 || newlines >= 2 {
        return true;
    }
    let opens =
        c.is_uppercase() || c.is_ascii_digit() || matches!(c, '"' | '“' | '‘' | '(' | '[' | '•');
    let mut k = j;
    while k > 0 && matches!(chars[k - 1], '"' | '”' | '’' | ')' | ']') {
        k -= 1;
    }
    let finished = k > 0 && matches!(chars[k - 1], '.' | '!' | '?');
    (opens && finished) || (newlines == 1 && clause_number_at(chars, i))
}

/// Whether a clause number opens the text at `i`: "3.1 ", "12. ", "4) ", "(b) ".
fn clause_number_at(chars: &[char], i: usize) -> bool {
    let rest: String = chars[i..(i + 12).min(chars.len())].iter().collect();
    CLAUSE_NUMBER.as_ref().is_some_and(|re| re.is_match(&rest))
}

static CLAUSE_NUMBER: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^(?:\d{1,3}(?:\.\d{1,3})*[.)]?|\([a-z0-9]{1,4}\))\s").ok());

/// A recognised heading line.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Heading {
    char_start: usize,
    level: usize,
    title: String,
}

/// A numbered heading: "4.2 Ratios", "12. Definitions", and an annex and its lettered clauses
/// ("A. Procedure", "A.1. Discussion", "B.3 Fees").
static NUMBERED: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"^(\d{1,2}(?:\.\d{1,3}){0,5}\.?|[A-Z](?:\.\d{1,3}){1,5}\.?|[A-Z]\.)\s+(\p{Lu}[^\n]{1,90})$",
    )
    .ok()
});
static NAMED: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"^(?i:(part|chapter|title|section|article|appendix|annex|schedule))\s+([0-9IVXLC]{1,6}|[A-Z])\b[.:]?(?:\s+[^\n]{0,90})?$",
    )
    .ok()
});

fn heading_level_of(line: &str) -> Option<usize> {
    let line = line.trim();
    if line.is_empty() || line.chars().count() > 100 {
        return None;
    }
    if let Some(caps) = NAMED.as_ref().and_then(|r| r.captures(line)) {
        let word = caps.get(1).map_or("", |m| m.as_str()).to_ascii_lowercase();
        return Some(match word.as_str() {
            "part" | "title" => 0,
            "chapter" | "appendix" | "annex" | "schedule" => 1,
            _ => 2, // section, article
        });
    }
    if let Some(caps) = NUMBERED.as_ref().and_then(|r| r.captures(line)) {
        let title = caps.get(2).map_or("", |m| m.as_str());
        // Sentences are not headings: a heading does not end with a full stop or a comma,
        // and is mostly letters.
        // Nor is an item that introduces a list ("7. Term limit:").
        if title.ends_with(['.', ',', ';', ':']) {
            return None;
        }
        let letters = title.chars().filter(|c| c.is_alphabetic()).count();
        if letters * 2 < title.chars().count() {
            return None;
        }
        let depth = caps
            .get(1)
            .map_or(1, |m| m.as_str().trim_end_matches('.').split('.').count());
        return Some(2 + depth);
    }
    None
}

fn find_headings(text: &str) -> Vec<Heading> {
    let mut out: Vec<Heading> = Vec::new();
    let mut offset = 0usize;
    let lines: Vec<&str> = text.split('\n').collect();
    let mut levels: Vec<Option<usize>> = lines.iter().map(|l| heading_level_of(l)).collect();
    // A title underlined by a rule line ("Scope" over "-----"): the rule's character gives its
    // level, in the order the document first uses each one (as reStructuredText and Markdown
    // read them).
    let mut styles: Vec<char> = Vec::new();
    for (i, pair) in lines.windows(2).enumerate() {
        let (title, rule) = (pair[0].trim(), pair[1]);
        if !super::text::is_rule_line(rule) || !underlined_title(title) {
            continue;
        }
        let Some(c) = rule.trim().chars().next() else {
            continue;
        };
        let rank = styles.iter().position(|s| *s == c).unwrap_or_else(|| {
            styles.push(c);
            styles.len() - 1
        });
        levels[i] = Some(1 + rank);
    }
    // For each line, the number of the next subsection heading after it ("5" for "5.2 …").
    let mut next_sub: Vec<Option<Option<u32>>> = vec![None; lines.len()];
    let mut seen: Option<Option<u32>> = None;
    for (i, line) in lines.iter().enumerate().rev() {
        next_sub[i] = seen;
        if levels[i].is_some()
            && let Some((first, true)) = first_number(line)
        {
            seen = Some(first);
        }
    }
    for (i, line) in lines.iter().enumerate() {
        // A line whose sentence goes on in the next one ("9.5.4 Subject to Rule 9.5.2, the
        // Regulator may take any action that is necessary and" / "appropriate to …") is the
        // first line of a wrapped clause, not a heading.
        let continues = lines
            .get(i + 1)
            .and_then(|next| next.trim_start().chars().next())
            .is_some_and(char::is_lowercase);
        if let Some(level) = levels[i].filter(|_| !continues)
            && !numbers_a_list_item(line, out.last(), next_sub[i])
        {
            out.push(Heading {
                char_start: offset,
                level,
                title: line.trim().to_owned(),
            });
        }
        offset += line.chars().count() + 1;
    }
    out
}

/// Whether a line above a rule line reads as its title: words, not a sentence's end, not
/// itself a rule.
fn underlined_title(line: &str) -> bool {
    !line.is_empty()
        && line.chars().count() <= 100
        && line.chars().any(char::is_alphabetic)
        && !line.ends_with(['.', ',', ';'])
        && !super::text::is_rule_line(line)
}

/// Whether a line that reads as a one-number heading ("1. If the Leader …") numbers an item of
/// a list inside the section in force instead: the last heading is a subsection ("4.2
/// Procedure") and the line's number is not the next section's ("1." or "11." under "4.2"), or
/// the next subsection heading is not numbered under it. A document's outline moves on one
/// section at a time ("5. Project Leader" after "4.2", before "5.1"); a list inside a section
/// starts again at 1.
fn numbers_a_list_item(
    line: &str,
    last: Option<&Heading>,
    next_subsection: Option<Option<u32>>,
) -> bool {
    let (Some((Some(n), false)), Some((section, true))) = (
        first_number(line),
        last.and_then(|h| first_number(&h.title)),
    ) else {
        return false;
    };
    // Under an annex's clause ("A.2"), a numbered line is one of its items; under a section's,
    // one that does not open the next section ("11." under "5.1"), or whose next subsection is
    // not its own ("6." followed by "5.2").
    let opens_next = section.is_some_and(|section| n == section + 1);
    let owns_next = next_subsection.is_none_or(|next| next == Some(n));
    !(opens_next && owns_next)
}

/// The first part of a heading line's number (`None` for an annex's letter) and whether more
/// parts follow it ("4.2 Ratios" → 4, true; "B. Annex" → none, false).
fn first_number(line: &str) -> Option<(Option<u32>, bool)> {
    let number = line.split_whitespace().next()?.trim_end_matches('.');
    let mut parts = number.split('.');
    let first = parts.next()?;
    let first = if first.chars().all(|c| c.is_ascii_uppercase()) {
        None
    } else {
        Some(first.parse().ok()?)
    };
    Some((first, parts.next().is_some()))
}

/// The heading path in force at `at`, or at the first heading starting before `lookahead`
/// (a chunk that opens a section belongs to it).
fn heading_path_at(headings: &[Heading], at: usize, lookahead: usize) -> String {
    let upto = headings
        .iter()
        .position(|h| h.char_start >= at && h.char_start <= lookahead)
        .map_or_else(
            || headings.partition_point(|h| h.char_start <= at),
            |i| i + 1,
        );
    let mut stack: Vec<&Heading> = Vec::new();
    for h in &headings[..upto] {
        while stack.last().is_some_and(|top| top.level >= h.level) {
            stack.pop();
        }
        stack.push(h);
    }
    stack
        .iter()
        .map(|h| h.title.as_str())
        .collect::<Vec<_>>()
        .join(" > ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pages() -> Vec<(u32, String)> {
        vec![
            (
                1,
                "1 Introduction\nThis guideline applies to banks.".to_owned(),
            ),
            (2, String::new()),
            (
                3,
                "2 Capital\n2.1 Minimum ratio\nA bank must hold a ratio of 8 per cent.".to_owned(),
            ),
        ]
    }

    #[test]
    fn page_spans_map_offsets_back_to_physical_pages() {
        let (text, spans) = assemble(&pages());
        let at = text.find("A bank must").map(|b| text[..b].chars().count());
        assert_eq!(at.map(|o| page_at(&spans, o)), Some(3));
        assert_eq!(page_at(&spans, 0), 1);
        assert_eq!(spans[1].char_len, 0);
    }

    #[test]
    fn chunks_are_verbatim_slices_with_offsets_pages_and_headings() {
        let (text, spans) = assemble(&pages());
        let chunks = chunk(
            &text,
            &spans,
            ChunkSettings {
                max_chars: 60,
                overlap: 10,
            },
        );
        assert!(chunks.len() >= 2);
        let chars: Vec<char> = text.chars().collect();
        for c in &chunks {
            let slice: String = chars[c.char_start..c.char_end].iter().collect();
            assert_eq!(slice, c.text);
            assert!(c.page_start <= c.page_end);
        }
        let last = chunks.last().map(|c| (c.page_end, c.heading.clone()));
        assert_eq!(last, Some((3, "2 Capital > 2.1 Minimum ratio".to_owned())));
    }

    #[test]
    fn a_chunk_starts_at_a_sentence_when_its_overlap_holds_one() {
        let text = "The bakery opens at six.\nFlour deliveries are checked by the\nshift lead before they are stored. Ovens are\ncleaned every night by the\nclosing team. Staff wear hair nets\nat all times in the kitchen.";
        let chars: Vec<char> = text.chars().collect();
        let at = |s: &str| text[..text.find(s).unwrap()].chars().count();
        // A chunk that would start at "shift lead" (a line break inside a sentence) starts at
        // "Ovens", still inside the chunk before; ends stay.
        let ranges = [(0, at("cleaned")), (at("shift lead"), chars.len())];
        let aligned = sentence_aligned(&chars, &ranges, 60);
        assert_eq!(aligned[1].0, at("Ovens"));
        assert_eq!(aligned[0], ranges[0]);
        assert_eq!(aligned[1].1, chars.len());
        // Without a sentence start within the overlap the range stays.
        let far = sentence_aligned(&chars, &ranges, 3);
        assert_eq!(far[1].0, at("shift lead"));
        // A line opening with a clause number is a sentence start.
        let rules: Vec<char> = "2 Keys\n2.1 Keys are signed out\n2.2 Keys are returned"
            .chars()
            .collect();
        assert!(sentence_starts_at(&rules, 7));
        assert!(!sentence_starts_at(&rules, 11));
    }

    #[test]
    fn the_first_line_of_a_wrapped_numbered_rule_is_not_a_heading() {
        let text = "3.2 Moorings\n3.2.1 Subject to Rule 3.1.4, the harbour master may extend a stay and\n\
                    charge a fee for each further day.";
        let titles: Vec<String> = find_headings(text).into_iter().map(|h| h.title).collect();
        assert_eq!(titles, ["3.2 Moorings"]);
    }

    #[test]
    fn a_numbered_list_inside_a_subsection_is_no_heading_and_an_annex_clause_is_one() {
        let text = "3. Officers\n3.1. Election\n1. If the Chair or their deputy, or the Warden\n\
                    Board, has decided, members may appeal.\n2. Appeals go to the Board\n\
                    4. Meetings\n4.1. Calendar\n9. Add or remove a meeting from the list\n\
                    5. Together with the Warden, set the dates of the\nBoard. (See 4.1.)\n\
                    4.2. Minutes\n7. Quorum rules:\nThe Board meets monthly.\n5. Fees\n\
                    5.1. Dues\nB. Annex\nB.2. Notices\n1. Notices are posted\nB.3. Votes";
        let titles: Vec<String> = find_headings(text).into_iter().map(|h| h.title).collect();
        assert_eq!(
            titles,
            [
                "3. Officers",
                "3.1. Election",
                "4. Meetings",
                "4.1. Calendar",
                "4.2. Minutes",
                "5. Fees",
                "5.1. Dues",
                "B. Annex",
                "B.2. Notices",
                "B.3. Votes"
            ]
        );
    }

    #[test]
    fn titles_underlined_by_rule_lines_are_headings_ranked_by_their_rule() {
        let text = "Club handbook\n=============\nIntro text.\nOpening hours\n-------------\nThe hall opens at 9.\nHolidays\n~~~~~~~~\nClosed on 1 May.\nFees\n----\nMembers pay 20 euros.";
        let hs = find_headings(text);
        let titles: Vec<(&str, usize)> = hs.iter().map(|h| (h.title.as_str(), h.level)).collect();
        assert_eq!(
            titles,
            vec![
                ("Club handbook", 1),
                ("Opening hours", 2),
                ("Holidays", 3),
                ("Fees", 2)
            ]
        );
        let at = text.find("Members").unwrap_or(0);
        assert_eq!(heading_path_at(&hs, at, at), "Club handbook > Fees");
        // A sentence above a rule is no title.
        assert!(find_headings("The hall opens at 9.\n-----").is_empty());
    }

    #[test]
    fn headings_are_recognised_and_sentences_are_not() {
        assert_eq!(
            heading_level_of("Article 5 Obligations of providers"),
            Some(2)
        );
        assert_eq!(heading_level_of("PART II"), Some(0));
        assert_eq!(
            heading_level_of("4.2.1 Capital conservation buffer"),
            Some(5)
        );
        assert_eq!(
            heading_level_of("10 Days after the notice, the bank must act."),
            None
        );
        assert_eq!(heading_level_of("3 12 45 67 88"), None);
    }
}
