//! Extractive summaries: representative, non-redundant sentences spread over a whole document,
//! in document order.
//!
//! Owns: the stratified sample of a document's chunks (spec 002: 15–20 % of them, at least 10,
//! at most 30, spread evenly from beginning to end, plus the starts of its sections), the
//! scoring of their sentences (centrality in the document's vocabulary, with a bonus for the
//! opening sentences of a section, which usually state what the section is for) and the
//! selection of key points so that every part of the document is represented.
//! Pure functions over plain data; deterministic. Must not: call models or stores.

use std::collections::{HashMap, HashSet};

use super::extractive::stems;
use super::lexicon;
use super::text::{Sentence, sentences};

/// One chunk of a document, in document order.
#[derive(Debug, Clone, Copy)]
pub struct Passage<'a> {
    /// Chunk text.
    pub text: &'a str,
    /// Heading path ("4 Capital > 4.2 Buffers"), possibly empty.
    pub heading: &'a str,
    /// Offset of the chunk in the document text (characters).
    pub char_start: u64,
}

/// A sentence chosen as a key point.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyPoint {
    /// Index of the passage it comes from.
    pub passage: usize,
    /// The sentence (byte offsets inside the passage text).
    pub sentence: Sentence,
    /// Character offset of the sentence in the document text.
    pub doc_char: u64,
    /// Score.
    pub score: f32,
}

/// Chunks to sample from a document of `n` chunks.
pub fn sample_size(n: usize) -> usize {
    ((n as f32 * 0.18).round() as usize).clamp(10, 30).min(n)
}

/// The section a heading path belongs to at `depth` ("4 Capital > 4.2 Buffers" is "4 Capital"
/// at depth 1, the whole path at depth 2).
fn section(heading: &str, depth: usize) -> String {
    heading
        .split('>')
        .take(depth)
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" > ")
}

/// Fewest sections a summary should see a document cut into: a document that is one chapter
/// (a manual's "Chapter 4") is read by its subsections instead.
const MIN_SECTIONS: usize = 4;

/// The heading depth that cuts the document into sections for the summary: the shallowest
/// at which it has at least [`MIN_SECTIONS`] sections (at most 3 deep), else the top level.
fn depth(passages: &[Passage<'_>]) -> usize {
    (1..=3)
        .find(|&d| section_starts(passages, d).len() >= MIN_SECTIONS)
        .unwrap_or(1)
}

/// The chunks where a section at `depth` begins.
fn section_starts(passages: &[Passage<'_>], depth: usize) -> Vec<usize> {
    (0..passages.len())
        .filter(|&i| {
            let s = section(passages[i].heading, depth);
            !s.is_empty() && (i == 0 || section(passages[i - 1].heading, depth) != s)
        })
        .collect()
}

/// Indexes of the chunks a summary reads: evenly spaced over the document, plus the chunk where
/// each section starts, at the depth [`depth`] chooses (thinned evenly when there are many).
pub fn sample(passages: &[Passage<'_>]) -> Vec<usize> {
    sample_from(passages.len(), &section_starts(passages, depth(passages)))
}

/// [`sample`] of `n` chunks whose sections start at `starts`.
fn sample_from(n: usize, starts: &[usize]) -> Vec<usize> {
    if n == 0 {
        return Vec::new();
    }
    let k = sample_size(n);
    let mut picked: Vec<usize> = (0..k).map(|i| ((2 * i + 1) * n) / (2 * k)).collect();
    let cap = 2 * k;
    let step = starts.len().div_ceil(cap).max(1);
    picked.extend(starts.iter().step_by(step).copied());
    picked.sort_unstable();
    picked.dedup();
    picked
}

/// A sentence that cannot stand as a key point: too short or long, a heading in capitals, a
/// table-of-contents line, mostly numbers.
fn unusable(s: &str) -> bool {
    let chars = s.chars().count();
    let words = s.split_whitespace().count();
    if !(40..=300).contains(&chars) || words < 6 {
        return true;
    }
    if s.contains("...") || s.contains(". . .") || s.contains("…") {
        return true;
    }
    // A lower-case start is the tail of a sentence a chunk's edge cut ("your system (see
    // Section 4.19 …)."); a key point is a whole sentence, so it ends as one (not at a
    // colon introducing what it does not show, nor at a chunk's edge, nor as a title).
    if s.starts_with(|c: char| c.is_lowercase())
        || !s.trim_end().ends_with(['.', '!', '?', '"', '”', '’', ')'])
    {
        return true;
    }
    // Table rows run together (a table has no full stops to end its sentences): most lines
    // of a few words each.
    let lines: Vec<&str> = s.lines().collect();
    let cells = lines
        .iter()
        .filter(|l| l.split_whitespace().count() <= ROW_WORDS)
        .count();
    if lines.len() >= 3 && 2 * cells >= lines.len() {
        return true;
    }
    let letters = s.chars().filter(|c| c.is_alphabetic()).count();
    let lower = s.chars().filter(|c| c.is_lowercase()).count();
    letters * 2 < chars || lower * 2 < letters
}

/// Score added to the first sentences of a section, which usually say what it is for: higher
/// makes a summary a list of section openings, lower lets central sentences from inside a
/// section win.
const OPENING_BONUS: f32 = 0.5;

/// Most words a line of a table row holds (see [`unusable`]).
const ROW_WORDS: usize = 4;

/// How many sentences of a section's opening get [`OPENING_BONUS`].
const OPENING_SENTENCES: usize = 2;

/// Where a section's own text begins in the chunk that opens it: after the title the heading
/// path ends with ("4.2. Execute a security update"; its number may stand on a line of its
/// own), or at 0 when the chunk does not show the title.
fn title_end(text: &str, heading: &str) -> usize {
    let last = heading.rsplit('>').next().unwrap_or_default().trim();
    let title = last.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ' ');
    if title.chars().count() < 3 {
        return 0;
    }
    super::text::find_quote(text, title).map_or(0, |(_, end)| end)
}

/// Up to `max` key points of one document, in document order.
pub fn key_points(passages: &[Passage<'_>], max: usize) -> Vec<KeyPoint> {
    let n = passages.len();
    if n == 0 || max == 0 {
        return Vec::new();
    }
    // Document frequency of each stem: a term many chunks share is central to the document;
    // one in nearly every chunk is boilerplate (running headers), so its weight is capped.
    let mut df: HashMap<String, usize> = HashMap::new();
    for p in passages {
        for t in stems(p.text) {
            *df.entry(t).or_default() += 1;
        }
    }
    let cap = (n / 2).max(1);
    let weight = |t: &String| df.get(t).map_or(0, |&d| d.min(cap)) as f32 / cap as f32;

    let starts = section_starts(passages, depth(passages));
    let mut candidates: Vec<KeyPoint> = Vec::new();
    // A document of fewer chunks than points (a two-page policy) gives several points per
    // chunk, each section's opening first: its sections sit inside its chunks.
    let per_chunk = if n < max { max.div_ceil(n) } else { 1 };
    for i in sample_from(n, &starts) {
        let p = &passages[i];
        // A chunk where a section begins may start with the end of the one before: the
        // section's opening is what follows its title.
        let opens_at = starts
            .binary_search(&i)
            .ok()
            .map(|_| title_end(p.text, p.heading));
        let mut openers = 0;
        let mut scored: Vec<KeyPoint> = Vec::new();
        let mut after_title = false;
        for s in sentences(p.text) {
            let title = super::text::looks_like_heading(&s.text);
            let opens_inner = per_chunk > 1 && after_title;
            after_title = title;
            if unusable(&s.text) {
                continue;
            }
            let terms = stems(&s.text);
            if terms.len() < 4 {
                continue;
            }
            let central = terms.iter().map(weight).sum::<f32>() / (terms.len() as f32).sqrt();
            let opening = match opens_at {
                Some(at) if s.start >= at && openers < OPENING_SENTENCES => {
                    openers += 1;
                    OPENING_BONUS
                }
                _ if opens_inner => OPENING_BONUS,
                _ => 0.0,
            };
            let score = central + opening;
            let doc_char = p.char_start + p.text[..s.start].chars().count() as u64;
            scored.push(KeyPoint {
                passage: i,
                sentence: s,
                doc_char,
                score,
            });
        }
        scored.sort_by(|a, b| b.score.total_cmp(&a.score));
        scored.truncate(per_chunk);
        candidates.extend(scored);
    }

    // Coverage first: the document is cut into `max` equal parts and each part gives its best
    // candidate; parts without one leave their place to the best remaining candidates.
    let mut chosen: Vec<KeyPoint> = Vec::new();
    let mut seen: Vec<HashSet<String>> = Vec::new();
    let redundant = |terms: &HashSet<String>, seen: &[HashSet<String>]| {
        seen.iter().any(|s| {
            let inter = s.intersection(terms).count() as f32;
            let union = s.union(terms).count().max(1) as f32;
            inter / union > 0.5
        })
    };
    let mut rest: Vec<KeyPoint> = Vec::new();
    for b in 0..max {
        let (lo, hi) = (b * n / max, ((b + 1) * n / max).max(b * n / max + 1));
        let mut in_bucket: Vec<&KeyPoint> = candidates
            .iter()
            .filter(|c| c.passage >= lo && c.passage < hi)
            .collect();
        in_bucket.sort_by(|a, b| b.score.total_cmp(&a.score));
        let mut taken = false;
        for c in in_bucket {
            let terms = stems(&c.sentence.text);
            if !taken && !redundant(&terms, &seen) {
                seen.push(terms);
                chosen.push(c.clone());
                taken = true;
            } else {
                rest.push(c.clone());
            }
        }
    }
    rest.sort_by(|a, b| b.score.total_cmp(&a.score));
    for c in rest {
        if chosen.len() >= max {
            break;
        }
        let terms = stems(&c.sentence.text);
        if !redundant(&terms, &seen) {
            seen.push(terms);
            chosen.push(c);
        }
    }
    chosen.sort_by_key(|c| (c.passage, c.sentence.start));
    chosen.dedup_by_key(|c| (c.passage, c.sentence.start));
    chosen
}

/// Whether the part a request asks about ([`focus`]) is what most of the document is about:
/// more than half of its chunks carry every word of the part (besides the document's own
/// name, `names`) in their heading path ("Chapter 2. Winter storage" for "how boats are
/// stored in winter"). Such a request is answered by the whole document's summary.
pub fn covers_most(passages: &[Passage<'_>], part: &str, names: &HashSet<String>) -> bool {
    let own: HashSet<String> = stems(part)
        .into_iter()
        .filter(|t| !names.contains(t))
        .collect();
    if own.is_empty() || passages.is_empty() {
        return true;
    }
    let under = passages
        .iter()
        .filter(|p| {
            let heading = stems(p.heading);
            own.iter().all(|t| heading.contains(t))
        })
        .count();
    2 * under > passages.len()
}

/// Words that open the part of a document a request for a summary asks about: "advice *on*
/// backup", "what it says *about* fees", "the rules *for* visitors", "*regarding* …".
const FOCUS_MARKERS: [&str; 5] = [" on ", " about ", " regarding ", " concerning ", " for "];

/// Interrogatives that open the part asked about right after the request's verb ("Summarize
/// *who* has chaired the club", "Summarize *how* a complaint is handled").
const FOCUS_QUESTIONS: [&str; 6] = ["who", "what", "how", "when", "where", "which"];

/// The part of a document a request for a summary asks about, as written: the words after a
/// [`FOCUS_MARKERS`] word, or a question right after the verb — `None` when there is none, when
/// it speaks of the document itself ("…: why it exists and whom its rules bind"), or when nothing of
/// it is left besides the document's own name (`names`, stemmed) and the words of asking for a
/// summary (`lexicon::SUMMARY_WORDS`, `lexicon::DOCUMENT_NOUNS`): "A summary of the rules for
/// berth holders" names the berth-holder rules' own document, not a part of it.
pub fn focus(request: &str, names: &HashSet<String>) -> Option<String> {
    let lower = format!(
        " {} ",
        request.to_lowercase().trim_end_matches(['.', '?', '!'])
    );
    let words: Vec<&str> = lower.split_whitespace().collect();
    let after_verb = words
        .iter()
        .position(|w| w.starts_with("summari") || *w == "overview")
        .and_then(|i| words.get(i + 1))
        .filter(|w| FOCUS_QUESTIONS.contains(w))
        .and_then(|w| lower.find(&format!(" {w} ")).map(|at| at + 1));
    let after_marker = FOCUS_MARKERS
        .iter()
        .filter_map(|m| lower.find(m).map(|at| at + m.len()))
        .min();
    let start = after_verb.or(after_marker)?;
    let part = lower[start..].trim();
    let of_itself = part
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| matches!(w, "it" | "its" | "itself"));
    let asking = stems(
        &lexicon::SUMMARY_WORDS
            .iter()
            .chain(&lexicon::DOCUMENT_NOUNS)
            .copied()
            .collect::<Vec<_>>()
            .join(" "),
    );
    let own = stems(part)
        .into_iter()
        .any(|t| !names.contains(&t) && !asking.contains(&t));
    (!of_itself && own).then(|| part.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORDS: [&str; 24] = [
        "capital",
        "liquidity",
        "records",
        "privacy",
        "auditors",
        "training",
        "outsourcing",
        "incidents",
        "complaints",
        "sanctions",
        "lending",
        "deposits",
        "reporting",
        "governance",
        "remuneration",
        "custody",
        "payments",
        "valuation",
        "collateral",
        "exposures",
        "conduct",
        "continuity",
        "encryption",
        "vendors",
    ];

    /// A document whose chunks each talk about their own subject, plus a row of numbers.
    fn doc(n: usize) -> Vec<String> {
        (0..n)
            .map(|i| {
                let w = |k: usize| WORDS[(i * 3 + k) % WORDS.len()];
                format!(
                    "Part {i} governs {} together with {} for {} whenever {} change. \
                     Table {i}: 12 34 56 78 90 12 34 56 78. \
                     Short note {i}.",
                    w(0),
                    w(1),
                    w(2),
                    WORDS[(i * 7 + 5) % WORDS.len()]
                )
            })
            .collect()
    }

    #[test]
    fn the_sample_spreads_over_the_whole_document_within_the_spec_bounds() {
        assert_eq!(sample_size(5), 5);
        assert_eq!(sample_size(40), 10);
        assert_eq!(sample_size(100), 18);
        assert_eq!(sample_size(1000), 30);
        let texts = doc(100);
        let ps: Vec<Passage> = texts
            .iter()
            .map(|t| Passage {
                text: t,
                heading: "",
                char_start: 0,
            })
            .collect();
        let s = sample(&ps);
        assert_eq!(s.len(), 18);
        assert!(s[0] < 10 && *s.last().unwrap_or(&0) > 90, "{s:?}");
    }

    #[test]
    fn a_short_document_gives_a_point_per_section_not_per_chunk() {
        let text = "1. Opening hours\nThe pool opens at seven every morning for lane swimmers.\n\
                    2. Lockers\nLockers are emptied every evening by the duty manager on shift.\n\
                    3. Children\nChildren under eight swim with an adult in the water beside them.\n\
                    4. Lessons\nLessons are booked at the front desk a week ahead of the session.";
        let ps = [Passage {
            text,
            heading: "",
            char_start: 0,
        }];
        let k = key_points(&ps, 4);
        let firsts: Vec<&str> = k
            .iter()
            .map(|p| p.sentence.text.split_whitespace().next().unwrap_or(""))
            .collect();
        assert_eq!(firsts, ["The", "Lockers", "Children", "Lessons"]);
    }

    #[test]
    fn key_points_are_spread_in_order_and_skip_number_rows() {
        let texts = doc(60);
        let ps: Vec<Passage> = texts
            .iter()
            .enumerate()
            .map(|(i, t)| Passage {
                text: t,
                heading: "",
                char_start: i as u64 * 1000,
            })
            .collect();
        let k = key_points(&ps, 6);
        assert!(!k.is_empty() && k.len() <= 6, "{k:?}");
        assert!(k.windows(2).all(|w| w[0].passage < w[1].passage));
        assert!(k.iter().all(|p| !p.sentence.text.starts_with("Table")));
        assert!(
            k[0].passage < 15 && k.last().map_or(0, |p| p.passage) > 40,
            "{k:?}"
        );
    }

    #[test]
    fn a_document_of_one_chapter_is_read_by_its_subsections() {
        let texts = doc(40);
        let headings: Vec<String> = (0..40)
            .map(|i| format!("Chapter 4. Hardening > 4.{} Part {}", i / 5, i / 5))
            .collect();
        let ps: Vec<Passage> = texts
            .iter()
            .zip(&headings)
            .map(|(t, h)| Passage {
                text: t,
                heading: h,
                char_start: 0,
            })
            .collect();
        assert_eq!(depth(&ps), 2);
        // Every subsection's first chunk is read.
        let s = sample(&ps);
        assert!((0..8).all(|k| s.contains(&(k * 5))), "{s:?}");
        let flat: Vec<Passage> = ps
            .iter()
            .map(|p| Passage {
                heading: "Chapter 4. Hardening",
                ..*p
            })
            .collect();
        assert_eq!(depth(&flat), 1);
    }

    #[test]
    fn a_section_opens_after_its_title_and_key_points_are_whole_sentences() {
        let text = "the end of the previous part (see below). 4.2.\nKeep the ledger\nEvery branch keeps one ledger per quarter. It is sealed by the officer.";
        let at = title_end(text, "3 Books > 4.2. Keep the ledger");
        assert!(
            text[at..].trim_start().starts_with("Every branch"),
            "{}",
            &text[at..]
        );
        assert_eq!(title_end(text, "3 Books > 4.3. Archive"), 0);
        assert!(unusable(
            "the end of the previous part of the text (see below)."
        ));
        assert!(unusable(
            "Restricting the access of visitors to the archive rooms"
        ));
        assert!(unusable(
            "The following script creates such a snapshot of the data:"
        ));
        assert!(!unusable(
            "Every branch keeps one ledger per quarter of the year."
        ));
        // Table rows run together are no key point.
        assert!(unusable(
            "Directory Description\nbin Most user commands\nlib Libraries\nsbin Other binaries."
        ));
        assert!(!unusable(
            "Every branch keeps one ledger per quarter\nof the year and seals it at the close\nof the quarter."
        ));
    }

    #[test]
    fn a_section_opening_sentence_is_preferred() {
        let a = "The weather was pleasant during the long review meeting of the committee members.";
        let b = "This part defines where installed software must keep its variable data files.";
        let texts = [a.to_owned(), format!("{b} {a}")];
        let ps = [
            Passage {
                text: &texts[0],
                heading: "1 Intro",
                char_start: 0,
            },
            Passage {
                text: &texts[1],
                heading: "2 Var",
                char_start: 100,
            },
        ];
        let k = key_points(&ps, 2);
        assert!(k.iter().any(|p| p.sentence.text == b), "{k:?}");
    }

    #[test]
    fn a_request_for_a_summary_names_the_part_it_asks_about() {
        let names = stems("Marina Code marina-code");
        assert_eq!(
            focus(
                "Summarize the Marina Code's chapter on winter storage.",
                &names
            ),
            Some("winter storage".to_owned())
        );
        assert_eq!(
            focus(
                "Summarize who has chaired the marina board since 1990",
                &names
            ),
            Some("who has chaired the marina board since 1990".to_owned())
        );
        // The whole document, in its own words or by what it is.
        assert_eq!(focus("Summarize the Marina Code.", &names), None);
        assert_eq!(
            focus(
                "Summarize the Marina Code: why it exists and whom its rules bind.",
                &names
            ),
            None
        );
        assert_eq!(
            focus(
                "A short overview of this marina code policy, please.",
                &names
            ),
            None
        );
        assert_eq!(
            focus("Summarize the rules regarding the marina code.", &names),
            None
        );
    }

    #[test]
    fn a_part_most_of_the_document_is_about_is_the_whole_document() {
        let passages: Vec<Passage<'_>> = (0..10)
            .map(|i| Passage {
                text: "Boats are winterised in the shed.",
                heading: if i < 8 {
                    "Chapter 2. Winter storage"
                } else {
                    "Chapter 3. Launching"
                },
                char_start: i * 100,
            })
            .collect();
        let names = stems("Harbour Handbook");
        assert!(covers_most(&passages, "winter storage", &names));
        assert!(!covers_most(&passages, "launching", &names));
        assert!(!covers_most(&passages, "the fuel dock", &names));
    }
}
