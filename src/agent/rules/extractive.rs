//! Extractive answering: pick the best verbatim sentences of the retrieved passages and judge
//! how well they cover the question.
//!
//! Owns: sentence scoring (IDF-weighted term overlap with the question, plus the passage's
//! retrieval rank), selection of at most three non-redundant sentences, and the coverage
//! measure used by the confidence check. Pure functions over plain data; deterministic.
//! Must not: call models or stores.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::{acronyms, lexicon, value};

use super::text::{QUOTE_CHARS, Sentence, content_terms, pieces, sentences, stem};
use crate::agent::types::Evidence;

/// A sentence chosen for the answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Picked {
    /// Index of the evidence passage.
    pub evidence: usize,
    /// The sentence (byte offsets inside the passage text).
    pub sentence: Sentence,
    /// Character offset of the sentence in the document text.
    pub doc_char: u64,
    /// Score.
    pub score: f32,
    /// Added because retrieval ranks its passage among the best, not for its own score (see
    /// [`pick_answer`]): cited, but no evidence that the answer covers the question.
    pub ranked: bool,
}

/// Stemmed words of a document's name: its title and its file name (without ".pdf", hyphens
/// and underscores read as spaces: "copyright-format.pdf" is "copyright format").
pub fn name_stems(title: &str, file_name: &str) -> HashSet<String> {
    stems(&format!(
        "{title} {}",
        file_name.trim_end_matches(".pdf").replace(['-', '_'], " ")
    ))
}

/// The title a document prints at the top of its first page (`first_page`: that page's
/// text), when its first line reads as one ([`super::text::looks_like_heading`]): "Eclipse
/// Public License - v 2.0" names a document filed as "EPL-2.0.pdf", and a question may use
/// either name.
pub fn printed_title(first_page: &str) -> Option<&str> {
    let line = first_page
        .lines()
        .map(|l| l.trim().trim_start_matches('#').trim())
        .find(|l| !l.is_empty())?;
    super::text::looks_like_heading(line).then_some(line)
}

/// `question` without the words that name a document (`names`: stemmed, as [`name_stems`]
/// gives them): "Which state's laws govern EPL 1.0?" → "Which state's laws govern?". A
/// document's name says which text a question is about; what it asks is in the other words.
pub fn without_names(question: &str, names: &HashSet<String>) -> String {
    let kept: Vec<&str> = question
        .split_whitespace()
        .filter(|w| {
            let own = stems(w);
            own.is_empty() || !own.iter().all(|t| names.contains(t))
        })
        .collect();
    let mut out = kept.join(" ");
    if question.trim_end().ends_with('?') && !out.ends_with('?') {
        out.push('?');
    }
    out
}

/// Stemmed content terms of a text.
pub fn stems(text: &str) -> HashSet<String> {
    content_terms(text).iter().map(|t| stem(t)).collect()
}

/// Question terms with weights: the user's own words count fully; words borrowed from earlier
/// turns (follow-ups) count half each, and together at most half as much as the user's own
/// words: "Who can suspend it?" after a long question on destroying records asks about
/// suspending, and a sentence that only repeats the earlier question's words must not outweigh
/// the one that answers the new word.
pub fn question_terms(own: &str, context: &str) -> HashMap<String, f32> {
    let own: HashSet<String> = content_terms(own).iter().map(|t| stem(t)).collect();
    let borrowed: HashSet<String> = content_terms(context)
        .iter()
        .map(|t| stem(t))
        .filter(|t| !own.contains(t))
        .collect();
    let each = if own.is_empty() {
        CONTEXT_WEIGHT
    } else {
        (CONTEXT_WEIGHT * own.len() as f32 / borrowed.len().max(1) as f32).min(CONTEXT_WEIGHT)
    };
    let mut w: HashMap<String, f32> = borrowed.into_iter().map(|t| (t, each)).collect();
    w.extend(own.into_iter().map(|t| (t, 1.0)));
    w
}

/// Weight of a word a follow-up borrows from earlier turns, against 1 for the user's own (and
/// the share of the own words' total that all borrowed words together may reach): higher lets
/// the earlier question choose the quotes, lower lets a follow-up drift off its thread.
const CONTEXT_WEIGHT: f32 = 0.5;

/// Specific terms of a question that a supporting passage must contain: acronyms ("GDPR",
/// "SOC"), codes mixing letters and digits ("5D002", "C++17") and quoted phrases.
pub fn anchors(question: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for raw in question.split_whitespace() {
        let visible: String = raw.chars().filter(|c| !is_invisible(*c)).collect();
        let w = visible.trim_matches(|c: char| !c.is_alphanumeric() && c != '+');
        // A possessive names the thing itself ("paragraph 27's" is paragraph 27).
        let w = w
            .strip_suffix("'s")
            .or_else(|| w.strip_suffix("’s"))
            .unwrap_or(w);
        let letters: Vec<char> = w.chars().filter(|c| c.is_alphabetic()).collect();
        let acronym = letters.len() >= 2
            && letters.iter().all(|c| c.is_uppercase())
            && w.chars().count() <= 10;
        let code =
            !letters.is_empty() && w.chars().any(|c| c.is_ascii_digit()) && w.chars().count() >= 3;
        let clause = clause_number(w);
        // A sub-item label without its clause ("(2)(c)") names nothing specific.
        let bare_label = clause.is_none() && w.contains(['(', ')']);
        if !(acronym || code || clause.is_some()) || bare_label || lexicon::is_currency(w) {
            continue;
        }
        let w = clause.unwrap_or(w);
        if !out.iter().any(|o| o.eq_ignore_ascii_case(w)) {
            out.push(w.to_owned());
        }
    }
    let mut rest = question;
    while let Some(start) = rest.find(['"', '“']) {
        let after = &rest[start + rest[start..].chars().next().map_or(1, char::len_utf8)..];
        let Some(end) = after.find(['"', '”']) else {
            break;
        };
        let phrase = after[..end].trim();
        if phrase.split_whitespace().count() >= 2 {
            out.push(phrase.to_owned());
        }
        // Past the closing mark, whatever its width in bytes ('”' takes three).
        let close = after[end..].chars().next().map_or(1, char::len_utf8);
        rest = &after[end + close..];
    }
    out
}

/// The clause a reference to one of its sub-items names: "7.1.1(1)(a)" → "7.1.1", "119(2)(b)"
/// → "119". A clause
/// prints its sub-item labels apart from its number ("7.1.1 … (1) … (a) …"), so only the number
/// can be looked for in its text.
fn clause_number(reference: &str) -> Option<&str> {
    let head = reference.split('(').next()?;
    let numbered = head
        .split('.')
        .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()));
    (numbered && head.len() < reference.len()).then_some(head)
}

/// Characters that take no space and change no meaning: bidirectional marks and zero-width
/// spaces and joiners, which text pasted from right-to-left or web sources carries inside
/// words ("51\u{200e}(3)").
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}'
    )
}

/// Cosine between the question and its closest quote (the answer's `closeness`) at or above
/// which an anchor the library never writes is not missing: the quote says it in other words
/// (an acronym the document writes as plain words, "security cameras" for "CCTV"). Chosen on
/// the development set and ObliQA's fit half: every question refused for a missing anchor
/// that should have been answered had a quote at 0.61 or closer, every refused negative one
/// at 0.56 or further; higher keeps more of those refusals, lower answers more of them.
pub const SAID_OTHERWISE: f32 = 0.6;

/// The anchors that none of the texts contains (case-insensitive).
pub fn missing_anchors(question: &str, texts: &[&str]) -> Vec<String> {
    let lower: Vec<String> = texts
        .iter()
        .map(|t| {
            t.to_lowercase()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    anchors(question)
        .into_iter()
        .filter(|a| {
            let a = a.to_lowercase();
            let spelled_out = versioned(&a).is_some_and(|(name, number)| {
                let version = format!("version {number}");
                lower.iter().any(|t| contains_word(t, name))
                    && lower.iter().any(|t| contains_word(t, &version))
            });
            !spelled_out
                && !lower.iter().any(|t| contains_word(t, &a))
                && !texts
                    .iter()
                    .any(|t| spells_out(t, anchor_letters(&a).as_deref()))
        })
        .collect()
}

/// Whether a word is written as a name: one capital, first, then lower-case letters only, and
/// a content word ("Canada"; not "GDPR", an acronym's plural "NGOs", "The").
fn capitalised(word: &str) -> bool {
    let mut letters = word.chars();
    word.chars().count() >= 2
        && letters.next().is_some_and(char::is_uppercase)
        && letters.all(char::is_lowercase)
        && !content_terms(word).is_empty()
}

/// Whether a question asks yes or no: it opens on an auxiliary or a modal ("Can I moor …?",
/// "Is a permit needed …?"), not on a request ("Can you list …").
pub fn asks_yes_or_no(question: &str) -> bool {
    let l = question.trim_start().to_lowercase();
    let first = l.split_whitespace().next().unwrap_or("");
    lexicon::AUXILIARIES.contains(&first)
        && !lexicon::REQUEST_OPENERS.iter().any(|r| l.starts_with(r))
}

/// The proper names a question writes: runs of capitalised words that do not open a sentence
/// ("Harbour Trust", "Oban", "Board of Harbour Pilots"; the short words an acronym
/// leaves out may join two), each as its content words in lower case. Acronyms are
/// [`anchors`] already; a sentence's first word is capitalised whatever it is.
pub fn proper_names(question: &str) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut run: Vec<String> = Vec::new();
    // A short joining word seen inside the current run ("Board *of* Harbour").
    let mut joined = false;
    let mut opens = true;
    let mut flush = |run: &mut Vec<String>| {
        if !run.is_empty() && !out.contains(run) {
            out.push(std::mem::take(run));
        }
        run.clear();
    };
    for raw in question.split_whitespace() {
        let w = raw.trim_matches(|c: char| !c.is_alphanumeric());
        let w = w
            .strip_suffix("'s")
            .or_else(|| w.strip_suffix("’s"))
            .unwrap_or(w);
        // "Apache-licensed", "Bourne-style": the name is the compound's capitalised part, and
        // the compound, an adjective, ends it.
        let parts: Vec<&str> = w.split('-').collect();
        let named: Vec<&str> = parts.iter().copied().filter(|p| capitalised(p)).collect();
        let joiner = lexicon::LEFT_OUT_OF_ACRONYMS.contains(&w.to_lowercase().as_str());
        if !named.is_empty() && !opens {
            run.extend(named.iter().map(|p| p.to_lowercase()));
            joined = false;
        } else if joiner && !run.is_empty() && !joined && !opens {
            joined = true;
        } else {
            flush(&mut run);
            joined = false;
        }
        if named.len() < parts.len() && !named.is_empty() {
            flush(&mut run);
        }
        let ends = raw.ends_with([',', ';', ')', '"', '”']);
        opens = raw.ends_with(['.', '?', '!', ':']);
        if ends || opens {
            flush(&mut run);
            joined = false;
        }
    }
    flush(&mut run);
    out
}

/// A word as British and American English spell it: "-is-" and "-iz-" ("authorised",
/// "authorized"), "-our" and "-or" ("labour", "labor"); the word itself first.
pub fn spellings(word: &str) -> Vec<String> {
    let mut out = vec![word.to_owned()];
    for (a, b) in [("is", "iz"), ("iz", "is"), ("our", "or"), ("or", "our")] {
        if word.contains(a) {
            let v = word.replace(a, b);
            if !out.contains(&v) {
                out.push(v);
            }
        }
    }
    out
}

/// The proper names of a question ([`proper_names`]) with a word that none of the texts
/// writes (by stem). A name has no other words: a passage about what it names writes it, so
/// unlike an acronym (see [`SAID_OTHERWISE`]) a close quote does not stand in for it; a name
/// whose initials the texts write as an acronym is written.
pub fn unwritten_names(question: &str, texts: &[&str]) -> Vec<Vec<String>> {
    let names = proper_names(question);
    if names.is_empty() {
        return Vec::new();
    }
    let written: HashSet<String> = texts.iter().flat_map(|t| stems(t)).collect();
    let acronyms: HashSet<String> = texts
        .iter()
        .flat_map(|t| t.split(|c: char| !c.is_alphanumeric()))
        .filter(|w| w.len() >= 2 && w.chars().all(|c| c.is_ascii_uppercase()))
        .map(str::to_owned)
        .collect();
    names
        .into_iter()
        .filter(|name| {
            let initials: String = name
                .iter()
                .filter_map(|w| w.chars().next())
                .collect::<String>()
                .to_uppercase();
            let abbreviated = name.len() >= 2 && acronyms.contains(&initials);
            !abbreviated
                && name
                    .iter()
                    .any(|w| !spellings(&stem(w)).iter().any(|v| written.contains(v)))
        })
        .collect()
}

/// Whether a text writes a word whose stem is `spelling`, a stem as British or American English
/// spells it ([`spellings`]; lower case): the page-wide test of [`unwritten_names`]' own, which
/// reads a text's stems — a word the stem only begins inside ("activ" in "inactivity") is
/// another word.
pub fn writes_stem(text: &str, spelling: &str) -> bool {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() >= spelling.len())
        .any(|w| {
            let w = w.to_lowercase();
            w.starts_with(spelling) && spellings(&stem(&w)).iter().any(|v| v == spelling)
        })
}

/// The dotted numbers of a question ("3.13", "9.7.2") with the word before each (not the
/// question's first word).
fn numbered_words(question: &str) -> Vec<(&str, &str)> {
    let words: Vec<&str> = question.split_whitespace().collect();
    let mut out: Vec<(&str, &str)> = Vec::new();
    for (i, raw) in words.iter().enumerate().skip(2) {
        let w = raw.trim_end_matches(|c: char| !c.is_ascii_digit());
        let before = words[i - 1].trim_matches(|c: char| !c.is_alphanumeric());
        if dotted(w) && !out.iter().any(|(_, n)| *n == w) {
            out.push((before, w));
        }
    }
    out
}

/// Whether `w` is a number of two or more dotted parts ("3.13", "9.7.2").
fn dotted(w: &str) -> bool {
    w.split('.').count() >= 2
        && w.split('.')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
}

/// The version and clause numbers a question names ("Python 3.13", "Rule 9.7.2", "section
/// 4.2"): a number of two or more dotted parts after a capitalised word (not the question's
/// first) or a reference noun. A passage about the thing such a number names holds the number:
/// no other words say it, as they may say an acronym (see [`SAID_OTHERWISE`]).
pub fn named_numbers(question: &str) -> Vec<String> {
    numbered_words(question)
        .into_iter()
        .filter(|(before, _)| {
            before.starts_with(char::is_uppercase)
                || lexicon::is_reference_noun(&before.to_lowercase())
        })
        .map(|(_, n)| n.to_owned())
        .collect()
}

/// The version and clause numbers a question names ([`named_numbers`], and a number after a
/// name the texts themselves write before dotted numbers: "pytest 9.0" where they write
/// "pytest 8.0") that none of the texts holds.
pub fn missing_named_numbers(question: &str, texts: &[&str]) -> Vec<String> {
    let named = named_numbers(question);
    let numbers_a_name = |name: &str| {
        texts.iter().any(|t| {
            let words: Vec<&str> = t.split_whitespace().collect();
            words.windows(2).any(|w| {
                w[0].eq_ignore_ascii_case(name)
                    && dotted(w[1].trim_end_matches(|c: char| !c.is_ascii_digit()))
            })
        })
    };
    numbered_words(question)
        .into_iter()
        .filter(|(before, n)| named.iter().any(|x| x == n) || numbers_a_name(before))
        .map(|(_, n)| n.to_owned())
        .filter(|n| !texts.iter().any(|t| contains_word(t, n)))
        .collect()
}

/// The letters of an acronym anchor ("coo" of "COO", "mlro"): 2 to 6 letters, nothing else.
fn anchor_letters(anchor: &str) -> Option<String> {
    let n = anchor.chars().count();
    ((2..=6).contains(&n) && anchor.chars().all(char::is_alphabetic)).then(|| anchor.to_lowercase())
}

/// Whether `text` writes out the acronym whose letters are `letters`: consecutive words whose
/// initials spell it, "of", "and", "for" and "the" between them skipped, the first word
/// capitalised ("Chief Operating Officer" for COO, "Money Laundering Reporting Officer" for
/// MLRO). A text names the thing under its full name more often than under its acronym.
fn spells_out(text: &str, letters: Option<&str>) -> bool {
    let Some(letters) = letters else {
        return false;
    };
    let want: Vec<char> = letters.chars().collect();
    let words: Vec<&str> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .filter(|w| !w.is_empty())
        .collect();
    let skip = |w: &str| matches!(w, "of" | "and" | "for" | "the");
    (0..words.len()).any(|start| {
        if !words[start].chars().next().is_some_and(char::is_uppercase) {
            return false;
        }
        let mut k = 0;
        let mut i = start;
        while k < want.len() && i < words.len() {
            let w = words[i];
            if k > 0 && skip(w) {
                i += 1;
                continue;
            }
            if w.chars()
                .next()
                .map(|c| c.to_lowercase().eq(want[k].to_lowercase()))
                != Some(true)
            {
                return false;
            }
            k += 1;
            i += 1;
        }
        k == want.len()
    })
}

/// Whether documents' names (`names`, lower case: titles and file names) name `anchor`: as a
/// word, or, for a name with a glued version, by its name and number ("TLSv1.3" names a
/// document "TLS-1.3").
pub fn names_anchor(names: &str, anchor: &str) -> bool {
    let a = anchor.to_lowercase();
    contains_word(names, &a)
        || versioned(&a).is_some_and(|(name, number)| {
            contains_word(names, name) && contains_word(names, number)
        })
}

/// A name with a version glued on by "v" ("tlsv1.2", "ipv6"), as (name, number): texts
/// spell it out ("TLS … version 1.2"), so the anchor is met by the name and "version N".
fn versioned(anchor: &str) -> Option<(&str, &str)> {
    let at = anchor.rfind('v')?;
    let (name, number) = (&anchor[..at], &anchor[at + 1..]);
    let named = name.chars().count() >= 2 && name.chars().all(char::is_alphabetic);
    let numbered = number.starts_with(|c: char| c.is_ascii_digit())
        && number.chars().all(|c| c.is_ascii_digit() || c == '.');
    (named && numbered).then_some((name, number))
}

/// `needle` occurs in `hay` with no letter or digit glued to either end ("SOC" is not in
/// "association").
pub fn contains_word(hay: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return false;
    }
    let mut from = 0;
    while let Some(i) = hay[from..].find(needle) {
        let at = from + i;
        let end = at + needle.len();
        let before = hay[..at].chars().next_back();
        let after = hay[end..].chars().next();
        let glued = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
        if !glued(before) && !glued(after) {
            return true;
        }
        from = at + needle.len().max(1);
        while !hay.is_char_boundary(from) {
            from += 1;
        }
    }
    false
}

/// IDF of each question term over a set of texts (the candidate sentences).
fn idf(terms: &HashMap<String, f32>, docs: &[HashSet<String>]) -> HashMap<String, f32> {
    let n = docs.len().max(1) as f32;
    terms
        .keys()
        .map(|t| {
            let df = docs.iter().filter(|d| d.contains(t)).count() as f32;
            (t.clone(), (1.0 + n / (1.0 + df)).ln())
        })
        .collect()
}

/// Gives each candidate the nouns of the question that its values answer (see
/// [`value::measure_nouns`]: "cost 10 crowns" speaks of the fee), for choosing what to
/// quote. Not for the confidence in an answer ([`coverage`]): an amount in a passage does not
/// make it about the visa fees a question asks of.
pub fn credit_values(terms: &HashMap<String, f32>, cands: &mut [Candidate]) {
    let nouns = value::measure_nouns(terms.keys());
    if nouns.is_empty() {
        return;
    }
    for c in cands {
        for (noun, kind) in &nouns {
            if value::holds(*kind, &c.sentence.text) {
                c.stems.insert(noun.clone());
            }
        }
    }
}

/// The acronyms the evidence defines ([`acronyms::defined`]) that the question writes or
/// spells out (one of its words), each once, with whether it writes the acronym.
pub fn defined_acronyms(
    terms: &HashMap<String, f32>,
    evidence: &[Evidence],
) -> Vec<(acronyms::Acronym, bool)> {
    let mut defined: Vec<(acronyms::Acronym, bool)> = Vec::new();
    for e in evidence {
        for a in acronyms::defined(&e.text) {
            let short = terms.contains_key(&stem(&a.letters.to_lowercase()));
            let asked = short || a.stands_for.iter().any(|t| terms.contains_key(t));
            if asked && !defined.iter().any(|(d, _)| d.letters == a.letters) {
                defined.push((a, short));
            }
        }
    }
    defined
}

/// Gives each candidate the words it says through an acronym the evidence defines
/// ([`defined_acronyms`]): "an HM notice" speaks of the harbour-master notice a question
/// spells out, and back.
pub fn credit_acronyms(
    terms: &HashMap<String, f32>,
    evidence: &[Evidence],
    cands: &mut [Candidate],
) {
    let defined = defined_acronyms(terms, evidence);
    if defined.is_empty() {
        return;
    }
    for c in cands {
        let more = acronyms::said_through(&c.sentence.text, &c.stems, &defined);
        c.stems.extend(more);
    }
}

/// Weighted share of the question's terms present in `text`.
pub fn coverage(terms: &HashMap<String, f32>, text: &str) -> f32 {
    coverage_of(terms, &stems(text))
}

/// Weighted share of the question's terms among `have` (a text's stems).
pub fn coverage_of(terms: &HashMap<String, f32>, have: &HashSet<String>) -> f32 {
    let total: f32 = terms.values().sum();
    if total == 0.0 {
        return 0.0;
    }
    // A fold from +0 (an empty `sum` of floats is -0, shown as "-0%").
    terms
        .iter()
        .filter(|(t, _)| have.contains(*t))
        .fold(0.0, |acc, (_, w)| acc + w)
        / total
}

/// A sentence of the evidence that an extractive answer may quote.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Index of the evidence passage.
    pub evidence: usize,
    /// The sentence (byte offsets inside the passage text).
    pub sentence: Sentence,
    /// Its stemmed content terms.
    stems: HashSet<String>,
    /// Its position among the passage's sentences (and the pieces of long ones).
    position: usize,
    /// For a row of a table under the row that names its columns, that row: the row is a
    /// statement whatever its length ("Low\tEvery 36 months" under "Risk rating\tPeriodic
    /// review"), and its values are what its columns name.
    header: Option<String>,
    /// For an item of a list, the line that introduces the list (see [`candidates`]).
    lead: Option<String>,
}

impl Candidate {
    /// The sentence after the row that names its columns, for a row of a table ("pytest
    /// version\tmin. Python version" before "7.1+\t3.7+"): a value in a row is the value of
    /// what its column names.
    fn with_header(&self) -> std::borrow::Cow<'_, str> {
        match &self.header {
            Some(h) => format!("{h}\n{}", self.sentence.text).into(),
            None => self.sentence.text.as_str().into(),
        }
    }
}

/// The sentences of the evidence that could answer a question, in evidence order; headings and
/// scraps too short to state anything are left out (a heading names a topic, it never answers).
/// A sentence longer than a quote ([`QUOTE_CHARS`]) comes as its clause pieces
/// ([`pieces`]), each a candidate: legal texts run one sentence over several hundred
/// characters, and a quote clipped to its head would leave out the clause that answers
/// ("… the archive may be reopened if … the request is filed within 30 days after …").
///
/// A question the document asks itself ("Can I update the system automatically?" in a FAQ, a
/// rhetorical "What does this mean?") answers nothing: it is no candidate, and its words count
/// for the [`ANSWER_SENTENCES`] sentences after it in its passage, which answer it — "Yes. You
/// can use cron-apt …" matches a question about automatic updates through the question it
/// answers.
pub fn candidates(evidence: &[Evidence]) -> Vec<Candidate> {
    let mut out = Vec::new();
    for (ei, e) in evidence.iter().enumerate() {
        let mut position = 0;
        let mut asked: Option<(HashSet<String>, usize)> = None;
        // The words of a line that introduces a list ("Hand luggage the ferry accepts:"),
        // lent to each of its items as a table's header row lends its words to the rows: an
        // item ("- It must not weigh more than 12 kg.") says what it is about only through it.
        let ss = sentences(&e.text);
        let leads = list_leads(&ss);
        let labels = item_labels(&e.text, &ss);
        for (k, ((s, lead), label)) in ss.iter().zip(leads).zip(labels).enumerate() {
            let lead = lead.map(|l| &e.text[l.start..l.end]);
            // A sentence that points back ("They cannot contain …" after "Bug-fix releases
            // are made when needed.") is about what the one before it named — when its quote
            // will begin there ([`lead_start`]: right before it, both in one quote).
            let antecedent = k.checked_sub(1).map(|j| &ss[j]).filter(|p| {
                e.text[p.end..s.start].trim().is_empty()
                    && e.text[p.start..s.end].chars().count() <= QUOTE_CHARS
                    && refers_back(&s.text, &p.text)
            });
            // A table row states its values against the names of its columns: the table's
            // first row names them, and lends its words to every row below it. The first row
            // itself states no value when rows follow it.
            let row = super::text::is_row(&s.text);
            let first = super::text::table_header(&e.text, s.start);
            let header = first
                .filter(|(at, _)| *at != s.start)
                .map(|(_, h)| h)
                .or_else(|| version_row(&e.text, s));
            let names_columns = first.is_some_and(|(at, _)| at == s.start)
                && e.text[s.end..]
                    .strip_prefix('\n')
                    .and_then(|rest| rest.lines().next())
                    .is_some_and(super::text::is_row);
            if names_columns
                || underlined(&e.text, s)
                || (!row
                    && (super::text::looks_like_heading(&s.text) || is_title_line(&e.text, s))
                    && !is_table_row(&e.text, s))
            {
                position += 1;
                continue;
            }
            if is_question(&s.text) {
                asked = Some((stems(&s.text), ANSWER_SENTENCES));
                position += 1;
                continue;
            }
            let mut inherited = match &asked {
                Some((words, left)) if *left > 0 => words.clone(),
                _ => HashSet::new(),
            };
            inherited.extend(header.map(stems).unwrap_or_default());
            inherited.extend(lead.map(stems).unwrap_or_default());
            inherited.extend(label.map(stems).unwrap_or_default());
            inherited.extend(antecedent.map(|p| stems(&p.text)).unwrap_or_default());
            for piece in pieces(s, QUOTE_CHARS) {
                // A row of numbers states them against its header's words ("7.1+\t3.7+"
                // under "pytest version\tmin. Python version").
                let letters = piece
                    .text
                    .chars()
                    .chain(header.unwrap_or_default().chars())
                    .filter(|c| c.is_alphabetic())
                    .count();
                if letters >= MIN_LETTERS && piece.text.chars().any(char::is_alphanumeric) {
                    let mut own = stems(&piece.text);
                    own.extend(inherited.iter().cloned());
                    if let Some((_, left)) = &mut asked
                        && *left > 0
                    {
                        *left -= 1;
                    }
                    out.push(Candidate {
                        evidence: ei,
                        stems: own,
                        sentence: piece,
                        position,
                        header: header.map(str::to_owned),
                        lead: lead.map(str::to_owned),
                    });
                }
                position += 1;
            }
        }
    }
    out
}

/// How many sentences after a question in a document count as its answer (see
/// [`candidates`]): a FAQ answer's first sentences say what it answers; more would lend the
/// question's words to text about something else.
const ANSWER_SENTENCES: usize = 1;

/// "Which document covers …", "what policy says …", "where is … described": a question about
/// which document, not only about what it says.
static WHICH_DOCUMENT: super::Pattern = std::sync::LazyLock::new(|| {
    super::regex(
        r"(?i)\b(?:which|what)\s+(?:\w+\s+)?(?:documents?|polic(?:y|ies)|specifications?|manuals?|licen[cs]es?|rulebooks?)\b|\bwhere\s+(?:is|are)\b.*\b(?:described|specified|defined|documented|set out)\b",
    )
});

/// Whether the question asks which document says something (see [`by_name`]).
pub fn asks_which_document(question: &str) -> bool {
    super::matches(&WHICH_DOCUMENT, question)
}

/// For a question asking which document says something: the evidence of the one document
/// whose name (`names`: document id → stems of its title and file name) holds the most of the
/// question's terms comes first ("Which document specifies the copyright file format?" →
/// copyright-format.pdf before a manual that mentions the format). Nothing moves when no name
/// holds a question term or two names hold as many.
pub fn by_name(
    evidence: &mut [Evidence],
    names: &HashMap<String, HashSet<String>>,
    terms: &HashMap<String, f32>,
) {
    let held = |id: &str| {
        names
            .get(id)
            .map_or(0, |n| terms.keys().filter(|t| n.contains(*t)).count())
    };
    let mut counts: Vec<(usize, &String)> = names.keys().map(|id| (held(id), id)).collect();
    counts.sort_by_key(|c| std::cmp::Reverse(c.0));
    let best = match counts.as_slice() {
        [(n, id), rest @ ..] if *n > 0 && rest.first().is_none_or(|(m, _)| m < n) => (*id).clone(),
        _ => return,
    };
    if evidence.iter().any(|e| e.document_id == best) {
        evidence.sort_by_key(|e| e.document_id != best);
    }
}

/// Whether a sentence is a title a rule line underlines ("Opening hours" over "-----").
fn underlined(passage: &str, s: &Sentence) -> bool {
    passage[s.end..]
        .strip_prefix('\n')
        .and_then(|rest| rest.lines().next())
        .is_some_and(crate::ingest::text::is_rule_line)
}

/// For each sentence of a passage, the line that introduces the list it is an item of ("Hand
/// luggage the ferry accepts:" for "- It must fit under a seat."), if any: the last sentence
/// ending in ":" before an unbroken run of items ([`is_list_item`]).
pub fn list_leads(ss: &[Sentence]) -> Vec<Option<&Sentence>> {
    // The open leads, innermost last, each with the mark of its own item (`None` for a lead
    // that is no item).
    let mut open: Vec<(&Sentence, Option<Mark>)> = Vec::new();
    let items: Vec<bool> = ss.iter().map(|s| is_list_item(&s.text)).collect();
    // The number of the last item under the open leads, by the style of its mark.
    let mut last: HashMap<Mark, u32> = HashMap::new();
    ss.iter()
        .enumerate()
        .map(|(k, s)| {
            let item = items[k];
            if !item && continues_item(ss, &items, k) {
                return None;
            }
            // An item whose number does not follow the last of its style ("3. Electronics"
            // after "4. Record …") starts something else: a numbered section, not the list.
            let place = item.then(|| ordinal(&s.text)).flatten();
            if let Some((mark, n)) = place
                && last.get(&mark).is_some_and(|p| n != p + 1)
            {
                open.clear();
                last.clear();
            }
            let own = if item {
                // An item marked as a lead that is itself an item is that lead's sibling
                // ("B." after "A. retain the following:" and its "i." … "v."): it belongs to
                // the list that lead belongs to.
                let mark = mark_of(&s.text);
                while mark.is_some() && open.last().is_some_and(|(_, m)| *m == mark) {
                    open.pop();
                }
                open.last().map(|(l, _)| *l)
            } else {
                open.clear();
                last.clear();
                None
            };
            if let (Some((mark, n)), Some(_)) = (place, own) {
                last.insert(mark, n);
            }
            if s.text.trim_end().ends_with(':') {
                open.push((s, if item { mark_of(&s.text) } else { None }));
            }
            own
        })
        .collect()
}

/// For each sentence of a passage, the label of the list item it goes on in: an item that
/// opens with a short label and a colon ("• Slipway: hulls are hosed down after use. It is
/// closed at high tide.") speaks of what its label names in each of its later sentences, up to
/// [`LABEL_REACH`] of them, the next item, a heading or a blank line — as a list's lead
/// lends its words to its items ([`list_leads`]).
fn item_labels<'a>(passage: &str, ss: &'a [Sentence]) -> Vec<Option<&'a str>> {
    let mut open: Option<(&str, usize)> = None;
    ss.iter()
        .enumerate()
        .map(|(k, s)| {
            if is_list_item(&s.text) {
                open = item_label(&s.text).map(|l| (l, 0));
                return None;
            }
            let broken = k > 0 && passage[ss[k - 1].end..s.start].contains("\n\n");
            if broken || super::text::looks_like_heading(&s.text) {
                open = None;
            }
            match &mut open {
                Some((label, n)) if *n < LABEL_REACH => {
                    *n += 1;
                    Some(*label)
                }
                _ => {
                    open = None;
                    None
                }
            }
        })
        .collect()
}

/// How many sentences after an item's first one its label speaks for ([`item_labels`]): an
/// item runs a few sentences; more would lend the label to the prose after the list.
const LABEL_REACH: usize = 4;

/// The label an item opens with, after its mark and before a colon: one to [`LABEL_WORDS`]
/// words ("• Slipway:" → "Slipway", "- /var/log:" → "/var/log").
fn item_label(item: &str) -> Option<&str> {
    let (_, body) = item.trim_start().split_once(char::is_whitespace)?;
    let (label, _) = body.split_once(':')?;
    let words = label.split_whitespace().count();
    ((1..=LABEL_WORDS).contains(&words) && !label.contains(['.', ';', ','])).then_some(label.trim())
}

/// Most words of an item's label ([`item_label`]): a longer run before a colon is a sentence
/// that introduces something, not a name.
const LABEL_WORDS: usize = 4;

/// Most sentences of an item's own that may follow its first one ([`continues_item`]).
const ITEM_SENTENCES: usize = 2;

/// Whether the sentence at `k`, no item itself, is more of the item before it: the item after
/// it, within [`ITEM_SENTENCES`], carries on its numbering ("2. Add a warning …", "For
/// libraries, see …", "3. Mention it …"). The list goes on through it.
fn continues_item(ss: &[Sentence], items: &[bool], k: usize) -> bool {
    let before = (k.saturating_sub(ITEM_SENTENCES)..k)
        .rev()
        .find(|&j| items[j]);
    let after = (k + 1..(k + 1 + ITEM_SENTENCES).min(ss.len())).find(|&j| items[j]);
    let (Some(b), Some(a)) = (before, after) else {
        return false;
    };
    // Only prose between them: no other item, no lead of a list of its own.
    if (b + 1..a).any(|j| items[j] || ss[j].text.trim_end().ends_with(':')) {
        return false;
    }
    match (ordinal(&ss[b].text), ordinal(&ss[a].text)) {
        (Some((mb, nb)), Some((ma, na))) => mb == ma && na == nb + 1,
        _ => false,
    }
}

/// The place of a numbered or lettered item in its list, with its mark's style ("3." → 3,
/// "(c)" → 3); `None` for a bullet, a roman numeral or a clause number ("2.1").
fn ordinal(item: &str) -> Option<(Mark, u32)> {
    let (mark, body) = marked(item)?;
    match mark {
        // "2.1" numbers a clause within a section, not an item of a list.
        Mark::Number if !body.contains('.') => body.parse().ok().map(|n| (mark, n)),
        Mark::Lower | Mark::Upper if body.len() == 1 => {
            let c = body.chars().next()?.to_ascii_lowercase();
            Some((mark, u32::from(c) - u32::from('a') + 1))
        }
        _ => None,
    }
}

/// The style of a list item's mark: what tells the items of one list from those of a list
/// nested in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Mark {
    Number,
    Lower,
    Upper,
    Roman,
    Bullet,
}

/// The style of the mark a list item opens with ("2.", "b)", "B.", "iv.", "-").
fn mark_of(item: &str) -> Option<Mark> {
    marked(item).map(|(mark, _)| mark)
}

/// The style of the mark a list item opens with and the mark without its brackets and dot
/// ("(b)" → `Lower`, "b").
fn marked(item: &str) -> Option<(Mark, &str)> {
    let first = item.split_whitespace().next()?;
    let body = first.trim_start_matches('(').trim_end_matches(['.', ')']);
    if body.is_empty() || !first.chars().any(char::is_alphanumeric) {
        return Some((Mark::Bullet, body));
    }
    let mark = if body.chars().all(|c| c.is_ascii_digit() || c == '.') {
        Mark::Number
    } else if body.chars().all(|c| matches!(c, 'i' | 'v' | 'x')) {
        Mark::Roman
    } else if body.chars().all(|c| c.is_ascii_lowercase()) {
        Mark::Lower
    } else if body.chars().all(|c| c.is_ascii_uppercase()) {
        Mark::Upper
    } else {
        return None;
    };
    Some((mark, body))
}

/// Whether a sentence is an item of a list: it opens with a list mark ("- ", "•", "(b)",
/// "2.").
pub fn is_list_item(sentence: &str) -> bool {
    super::text::opens_list_item(sentence)
        || super::matches(&LETTERED_ITEM, sentence)
        || sentence
            .split_whitespace()
            .next()
            .is_some_and(|w| w.chars().any(char::is_alphanumeric) && is_label(w))
}

/// A list item marked by a letter or a roman numeral: "(b) ", "c) ", "(iv) ".
static LETTERED_ITEM: super::Pattern =
    std::sync::LazyLock::new(|| super::regex(r"^\(?(?:[a-z]|[ivx]{1,4})\)\s"));

/// Most words a title line holds (see [`is_title_line`]).
const TITLE_WORDS: usize = 8;

/// Whether a sentence is a title in sentence case ("Keeping your system up-to-date"): a few
/// words on their own line(s), with no closing punctuation, not a bullet item. Such a line
/// names a topic and states nothing ([`super::text::looks_like_heading`] catches titles in
/// capitals).
fn is_title_line(passage: &str, s: &Sentence) -> bool {
    let t = s.text.trim();
    let before = passage[..s.start].trim_end_matches([' ', '\t']);
    let own_line =
        passage[s.end..].starts_with('\n') && (before.is_empty() || before.ends_with('\n'));
    own_line
        && t.split_whitespace().count() <= TITLE_WORDS
        && !t.ends_with(['.', '!', '?', ';', ':', ',', ')', '"', '”'])
        && !super::text::opens_list_item(t)
        // A lettered or roman-numbered item ("(b) managing collective investment funds")
        // states a part of its list.
        && !super::matches(&LETTERED_ITEM, t)
        // Code and commands ("MANPATH=… can be added to $HOME/.profile") are no titles.
        && !t.contains(['=', '$', '/', '\\', '‘', '`', '<', '>', '{', '|'])
}

/// Whether a sentence is a row of a table ("CCTV footage 30 days Facilities"): one short line
/// without closing punctuation, with a number inside it (not only first, as a section number,
/// or last, as a table of contents' page number), next to a line of the same short kind. A row
/// states a value, so it is a candidate even though it looks like a title.
fn is_table_row(passage: &str, s: &Sentence) -> bool {
    let t = s.text.trim();
    let words: Vec<&str> = t.split_whitespace().collect();
    let short = |l: &str| {
        let n = l.split_whitespace().count();
        (2..=ROW_WORDS).contains(&n) && !l.trim_end().ends_with(['.', '!', '?', ';', ':', ','])
    };
    let inner_number = words.len() >= 3
        && words[1..words.len() - 1]
            .iter()
            .any(|w| w.chars().any(|c| c.is_ascii_digit()));
    let line_before = passage[..s.start]
        .trim_end_matches([' ', '\t'])
        .strip_suffix('\n')
        .and_then(|b| b.lines().last());
    let line_after = passage[s.end..]
        .strip_prefix('\n')
        .and_then(|a| a.lines().next());
    !t.contains('\n')
        && short(t)
        && (inner_number || version_row(passage, s).is_some())
        && (line_before.is_some_and(short) || line_after.is_some_and(short))
}

/// For a row that gives a version in its last cell ("Chart plotter 4.12.2", "Hull paint 2.x")
/// under a line that names the columns, that line ([`row_header`]): a contents line ends with
/// a page's plain number, and a title with a short version ("Harbour Rules 2.0") sits under no
/// such line. `None` for any other sentence.
fn version_row<'a>(passage: &'a str, s: &Sentence) -> Option<&'a str> {
    let t = s.text.trim();
    let words: Vec<&str> = t.split_whitespace().collect();
    let versioned = !t.contains('\n')
        && words.len() >= 2
        && words.last().is_some_and(|w| {
            w.chars().next().is_some_and(|c| c.is_ascii_digit())
                && (w.matches('.').count() >= 2 || w.ends_with(".x"))
        });
    versioned.then(|| row_header(passage, s)).flatten()
}

/// The line that names the columns of the table whose row ([`is_table_row`]) `s` is: the
/// first line above it, past the rows before it, that holds no number and reads as a row of
/// words ("Component Minimum version" over "Chart plotter 4.12.2").
fn row_header<'a>(passage: &'a str, s: &Sentence) -> Option<&'a str> {
    let above = passage[..s.start]
        .trim_end_matches([' ', '\t'])
        .strip_suffix('\n')?;
    let line = above
        .lines()
        .rev()
        .find(|l| !l.chars().any(|c| c.is_ascii_digit()))?
        .trim();
    let words = line.split_whitespace().count();
    ((2..=ROW_WORDS).contains(&words) && !line.ends_with(['.', '!', '?', ';', ':', ',']))
        .then_some(line)
}

/// Most words a table row holds (see [`is_table_row`]).
const ROW_WORDS: usize = 12;

/// Whether a sentence of a document is a question it asks (a FAQ entry, a rhetorical
/// question), not a statement.
fn is_question(sentence: &str) -> bool {
    sentence
        .trim_end()
        .trim_end_matches(['"', '”', '’', '\'', ')'])
        .ends_with('?')
}

/// What the sentence scorer knows about one candidate: general signals of relevance, none of
/// them about a particular kind of question.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Signals {
    /// Share of the question's terms the sentence holds, each weighted by its rarity among the
    /// candidates (IDF).
    pub overlap: f32,
    /// The same share for the heading path of the sentence's passage ("3 Customer Due
    /// Diligence > 3.2 Enhanced measures").
    pub heading: f32,
    /// The passage's place in the fused retrieval ranking, 1 for the first and falling
    /// linearly to 0 after the last.
    pub rank: f32,
    /// The passage's vector similarity to the question.
    pub vector: f32,
    /// The sentence's own vector similarity to the question (embedder cosine).
    pub similarity: f32,
    /// 1 when the sentence is short (under 40 characters): often a fragment.
    pub short: f32,
    /// 1 when the sentence is very long (over 600 characters): often a run-on of table rows.
    pub long: f32,
}

/// The score of a candidate: rarity-weighted term overlap, plus the passage's retrieval rank,
/// scaled down for fragments and run-ons. Hand-set; a logistic model fitted on ObliQA
/// (`scripts/fit-scorer.py`, which also adds the heading, vector and sentence-similarity
/// signals) did not beat it on held-out questions (hit@1 0.64–0.66 against 0.675), so it stays.
/// Adding the sentence's embedder cosine to the question by hand (weights 0.15 and 0.3) did not
/// either: on the development set and the probes it found some paraphrased answers and lost
/// as many pages and refusals (the quotes it chose were close in meaning to questions the
/// library cannot answer).
pub fn score(s: &Signals) -> f32 {
    let length = if s.short > 0.0 {
        SHORT_FACTOR
    } else if s.long > 0.0 {
        LONG_FACTOR
    } else {
        1.0
    };
    (OVERLAP_WEIGHT * s.overlap + (1.0 - OVERLAP_WEIGHT) * s.rank) * length
}

/// Share of the score that term overlap carries (the rest is the passage's rank): more makes
/// the wording of the question decide, less lets retrieval's order decide.
const OVERLAP_WEIGHT: f32 = 0.8;
/// Score factor of a short sentence (often a fragment or a label).
const SHORT_FACTOR: f32 = 0.7;
/// Score factor of a very long sentence (often table rows run together).
const LONG_FACTOR: f32 = 0.8;

/// Shortest sentence (in letters) that can state anything.
const MIN_LETTERS: usize = 12;
/// Under this many characters a sentence is "short" (see [`Signals::short`]).
const SHORT_CHARS: usize = 40;
/// Over this many characters a sentence is "long" (see [`Signals::long`]).
const LONG_CHARS: usize = 600;
/// A further sentence is quoted when it scores at least this share of the best one and adds a
/// question term the chosen ones lack: lower quotes more (and more noise), higher fewer.
const STRONG_SHARE: f32 = 0.75;
/// The sentence right after the best one, which often finishes its thought, is quoted when it
/// scores at least this share of the best one.
const CONTINUATION_SHARE: f32 = 0.35;
/// How many of retrieval's best pages each get a say in the answer: retrieval ranks pages
/// better than term overlap picks sentences (on ObliQA the gold page is among search's top 5
/// far more often than among the overlap-picked sentences — an answer on a neighbouring page, a
/// clause continued overleaf), so an uncited page among the top ones adds its best sentence,
/// shown apart from the answer's own quotes. More cites more pages (and more noise), fewer
/// trusts overlap. Counted in pages, not passages: several passages of one page are one say.
const RANKED_PAGES: usize = 5;
/// A top-ranked passage's sentence is added when it scores at least this share of the best
/// sentence: lower lets weak passages in, higher keeps only those overlap nearly agrees with.
const RANKED_SHARE: f32 = 0.5;
/// Citations the top-ranked pages may add beyond the caller's maximum.
const RANKED_EXTRA: usize = 3;
/// [`RANKED_PAGES`] for one side of a comparison (see [`pick_side`]).
const SIDE_RANKED_PAGES: usize = 3;
/// [`RANKED_EXTRA`] for one side of a comparison.
const SIDE_RANKED_EXTRA: usize = 2;
/// Pieces of a cut sentence that finishing it may add beyond the caller's maximum.
const FINISHING_EXTRA: usize = 2;
/// Two sentences sharing more than this share of their terms (Jaccard) say the same thing.
const DUPLICATE_JACCARD: f32 = 0.6;

/// The signals of every candidate; `similarity[i]` is candidate `i`'s cosine to the question
/// (an empty slice when no embedder was used: the signal is then 0 for all).
pub fn signals(
    terms: &HashMap<String, f32>,
    evidence: &[Evidence],
    cands: &[Candidate],
    similarity: &[f32],
) -> Vec<Signals> {
    let weights = idf(
        terms,
        &cands.iter().map(|c| c.stems.clone()).collect::<Vec<_>>(),
    );
    let weighted = |have: &HashSet<String>| -> f32 {
        terms
            .iter()
            .filter(|(t, _)| have.contains(*t))
            .map(|(t, w)| w * weights.get(t).copied().unwrap_or(0.0))
            .sum::<f32>()
    };
    let total: f32 = terms
        .iter()
        .map(|(t, w)| w * weights.get(t).copied().unwrap_or(0.0))
        .sum::<f32>()
        .max(1e-6);
    let headings: Vec<HashSet<String>> = evidence.iter().map(|e| stems(&e.heading)).collect();
    let n_ev = evidence.len().max(1) as f32;
    cands
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let len = c.sentence.text.chars().count();
            let e = &evidence[c.evidence];
            Signals {
                overlap: weighted(&c.stems) / total,
                heading: weighted(&headings[c.evidence]) / total,
                rank: 1.0 - c.evidence as f32 / n_ev,
                vector: e.vector_score,
                similarity: similarity.get(i).copied().unwrap_or(0.0),
                short: f32::from(u8::from(len < SHORT_CHARS && c.header.is_none())),
                long: f32::from(u8::from(len > LONG_CHARS)),
            }
        })
        .collect()
}

/// Picks up to `max` sentences that best answer the question, best first: [`score`] ranks
/// every candidate; after the best, a sentence is added when it scores close to it and covers a
/// question term the chosen ones lack, or finishes the best one's thought, and is not a
/// near-duplicate.
pub fn pick(terms: &HashMap<String, f32>, evidence: &[Evidence], max: usize) -> Vec<Picked> {
    pick_from(terms, evidence, max, (0, 0), &value::Asks::default(), false)
}

/// [`pick`] for an answer to a question: then each of the [`RANKED_PAGES`] best-ranked
/// pages not cited yet adds one sentence: the best sentence of the best-ranked of its passages
/// whose best sentence scores at least [`RANKED_SHARE`] of the best (up to [`RANKED_EXTRA`]
/// beyond `max`). Not for comparisons
/// between versions of a document, which choose what differs, not what ranks first.
///
/// `wanted` are the values the question asks for ([`value::asks`]): when no chosen sentence
/// holds a value of a kind it wants, a sentence that gives one ([`value::Asks::answered_by`])
/// and scores at least [`VALUE_SHARE`] of the best is added: first one of a chosen document
/// that names what the question measures ([`value::Asks::names_subject`]), else one of a chosen
/// passage ("What mode should the program have?" is answered by "They should have mode 4754",
/// which shares fewer of its words than the sentences around it), else one of a chosen
/// document that completes the question's words.
pub fn pick_answer(
    terms: &HashMap<String, f32>,
    evidence: &[Evidence],
    max: usize,
    wanted: &value::Asks,
) -> Vec<Picked> {
    pick_from(
        terms,
        evidence,
        max,
        (RANKED_PAGES, RANKED_EXTRA),
        wanted,
        false,
    )
}

/// [`pick_answer`] for one side of a comparison of two different documents: the sides share
/// the answer, so fewer of each side's best pages get a say ([`SIDE_RANKED_PAGES`], up to
/// [`SIDE_RANKED_EXTRA`] beyond `max`) — with more, the first side's quotes crowd the second
/// side's out of what a reader sees first. A side's sentences in which its document says what
/// it is about ("This document describes how deadlocks are resolved") are left out while it has
/// others: they name the subject both sides share, and say nothing of how either treats it.
/// `wanted` are the values the comparison asks for ("Compare how long the two clubs keep
/// their logs"): each side looks for its own, as an answer does.
pub fn pick_side(
    terms: &HashMap<String, f32>,
    evidence: &[Evidence],
    max: usize,
    wanted: &value::Asks,
) -> Vec<Picked> {
    pick_from(
        terms,
        evidence,
        max,
        (SIDE_RANKED_PAGES, SIDE_RANKED_EXTRA),
        wanted,
        true,
    )
}

/// A sentence holding the value a question asks for is added when it scores at least this share
/// of the best sentence (see [`pick_answer`]): lower finds values in passages further from the
/// question (and numbers that answer something else), higher refuses more questions whose
/// answer shares few of their words.
const VALUE_SHARE: f32 = 0.4;

/// [`pick`], [`pick_answer`] and [`pick_side`]: `(ranked_pages, ranked_extra)` give the
/// best-ranked pages a say, `wanted` credits the values the question asks for, and
/// `content_only` leaves out the sentences in which a document says what it is about
/// ([`super::text::describes_itself`]) while others remain.
fn pick_from(
    terms: &HashMap<String, f32>,
    evidence: &[Evidence],
    max: usize,
    (ranked_pages, ranked_extra): (usize, usize),
    wanted: &value::Asks,
    content_only: bool,
) -> Vec<Picked> {
    let mut cands = candidates(evidence);
    if content_only {
        let (own, other): (Vec<Candidate>, Vec<Candidate>) = cands
            .into_iter()
            .partition(|c| super::text::describes_itself(&c.sentence.text));
        cands = if other.is_empty() { own } else { other };
    }
    if cands.is_empty() {
        return Vec::new();
    }
    credit_values(terms, &mut cands);
    credit_acronyms(terms, evidence, &mut cands);
    // A sentence that holds the length of time a "how long after …" question asks for (or the
    // frequency of a "how often" one) says "long" in its own words.
    if let Some((word, kind)) = value::time_degree(wanted, terms.keys()) {
        for c in &mut cands {
            if value::holds(kind, &c.sentence.text) {
                c.stems.insert(word.clone());
            }
        }
    } else {
        // Otherwise the degree word is the question's, not its subject's ("long" of "How long
        // may a name be?"): a sentence that uses it in another sense ("long and short names")
        // and holds no value the question asks for does not share it.
        let degrees: Vec<String> = wanted
            .degrees
            .iter()
            .map(|d| stem(d))
            .filter(|d| terms.contains_key(d))
            .collect();
        if !degrees.is_empty() {
            for c in cands
                .iter_mut()
                .filter(|c| !wanted.holds_a_value(&c.sentence.text))
            {
                c.stems.retain(|t| !degrees.contains(t));
            }
        }
    }
    let sigs = signals(terms, evidence, &cands, &[]);
    let scores: Vec<f32> = sigs.iter().map(score).collect();
    // A short sentence that gives the value asked for is the answer's shape ("The fee is
    // 40 euros."), not a fragment: against the best sentence it is scored at full length.
    let full_length: Vec<f32> = sigs
        .iter()
        .map(|s| score(&Signals { short: 0.0, ..*s }))
        .collect();
    let mut scored: Vec<(f32, usize)> = scores.iter().copied().zip(0..).collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let Some(&(best, best_i)) = scored.first() else {
        return Vec::new();
    };
    let mut chosen: Vec<usize> = vec![best_i];
    let mut covered: HashSet<String> = cands[best_i]
        .stems
        .iter()
        .filter(|s| terms.contains_key(*s))
        .cloned()
        .collect();
    let next = cands.iter().position(|c| {
        c.evidence == cands[best_i].evidence && c.position == cands[best_i].position + 1
    });
    for &(s, i) in scored.iter().skip(1) {
        if chosen.len() >= max {
            break;
        }
        let c = &cands[i];
        let adds: HashSet<&String> = c
            .stems
            .iter()
            .filter(|t| terms.contains_key(*t) && !covered.contains(*t))
            .collect();
        let continuation = Some(i) == next && s >= CONTINUATION_SHARE * best;
        let strong = s >= STRONG_SHARE * best && !adds.is_empty();
        let duplicate = chosen
            .iter()
            .any(|&j| jaccard(&cands[j].stems, &c.stems) > DUPLICATE_JACCARD);
        if (continuation || strong) && !duplicate {
            covered.extend(adds.into_iter().cloned());
            chosen.push(i);
        }
    }
    // A piece cut out of a long sentence ([`candidates`]) is finished by the piece after it,
    // whatever that scores: a quote that stops mid-sentence may stop before its point ("…
    // available; and … must remain available for at least twelve months …").
    let mut k = 0;
    while k < chosen.len() && chosen.len() < max + FINISHING_EXTRA {
        let c = &cands[chosen[k]];
        let unfinished = !c
            .sentence
            .text
            .trim_end()
            .ends_with(['.', '!', '?', '"', '”', ')']);
        let after = cands
            .iter()
            .position(|n| n.evidence == c.evidence && n.position == c.position + 1)
            .filter(|n| unfinished && !chosen.contains(n));
        if let Some(n) = after {
            chosen.insert(k + 1, n);
        }
        k += 1;
    }
    // A value the question asks for and no chosen sentence gives (a number next to what the
    // question counts, not any number): the best sentence that gives one of that kind.
    for &kind in &wanted.values {
        if chosen
            .iter()
            .any(|&j| wanted.answered_by(kind, &cands[j].with_header()))
        {
            continue;
        }
        // From a passage already chosen, else from another passage of a chosen document that
        // holds a word of the question no chosen sentence holds (a document names what is
        // asked about in one place and states what is asked of it in another): a number
        // elsewhere answers something else.
        let passages: HashSet<usize> = chosen.iter().map(|&j| cands[j].evidence).collect();
        let documents: HashSet<&String> = chosen
            .iter()
            .map(|&j| &evidence[cands[j].evidence].document_id)
            .collect();
        let covered: HashSet<&String> = chosen.iter().flat_map(|&j| &cands[j].stems).collect();
        let completes = |c: &Candidate| {
            documents.contains(&evidence[c.evidence].document_id)
                && c.stems
                    .iter()
                    .any(|t| terms.get(t).is_some_and(|&w| w >= 1.0) && !covered.contains(t))
        };
        let gives = |i: usize| {
            full_length[i] >= VALUE_SHARE * best
                && !chosen.contains(&i)
                && wanted.answered_by(kind, &cands[i].with_header())
        };
        // First a sentence of a chosen document that names all of what the question measures
        // ("How long is the notice period …" and "The notice period is 2 weeks"), itself or
        // through the line that introduces its list: the value is then the subject's,
        // wherever the passage ranked.
        let measures = |c: &Candidate| {
            documents.contains(&evidence[c.evidence].document_id)
                && (wanted.names_subject(&c.sentence.text)
                    || c.lead.as_ref().is_some_and(|l| wanted.names_subject(l)))
        };
        let found = scored
            .iter()
            .find(|&&(_, i)| gives(i) && measures(&cands[i]))
            .or_else(|| {
                scored
                    .iter()
                    .find(|&&(_, i)| gives(i) && passages.contains(&cands[i].evidence))
            })
            .or_else(|| {
                scored
                    .iter()
                    .find(|&&(_, i)| gives(i) && completes(&cands[i]))
            });
        if let Some(&(_, i)) = found {
            chosen.push(i);
        }
    }
    // The answer cites what retrieval ranks best: a top-ranked passage whose page is not cited
    // yet contributes its best sentence when that sentence is not far behind the best one.
    let core = chosen.len();
    let page = |ev: usize| (&evidence[ev].document_id, evidence[ev].page);
    // Retrieval's best pages, in its order; each passage of one of them may give its sentence.
    let mut pages: Vec<(&String, u32)> = Vec::new();
    for rank in 0..evidence.len() {
        if !pages.contains(&page(rank)) {
            pages.push(page(rank));
        }
        if pages.len() > ranked_pages || chosen.len() >= max + ranked_extra {
            break;
        }
        if chosen
            .iter()
            .any(|&j| page(cands[j].evidence) == page(rank))
        {
            continue;
        }
        if let Some(&(s, i)) = scored.iter().find(|(_, i)| cands[*i].evidence == rank) {
            let duplicate = chosen
                .iter()
                .any(|&j| jaccard(&cands[j].stems, &cands[i].stems) > DUPLICATE_JACCARD);
            if s >= RANKED_SHARE * best && !duplicate {
                chosen.push(i);
            }
        }
    }
    chosen
        .into_iter()
        .enumerate()
        .map(|(n, i)| {
            let c = &cands[i];
            let e = &evidence[c.evidence];
            let before = e.text[..c.sentence.start].chars().count() as u64;
            Picked {
                evidence: c.evidence,
                sentence: c.sentence.clone(),
                doc_char: e.char_start + before,
                score: scores[i],
                ranked: n >= core,
            }
        })
        .collect()
}

/// The sentence of a referred clause's passages (`passages`, see `text::clause_references`)
/// that says what a quoted sentence (`lead`) defers to it about. Of the question terms `lead`
/// holds, those the passages' sentences hold least often name what is deferred (the words
/// naming the referred clause's own subject are all over it): the first sentence holding the
/// most of them, then one that gives a value of a deferred term naming a quantity, then the
/// most question terms, is the one ("The fee is the same as for a general meeting (§4.2)" →
/// "Members pay a fee of EUR 20" in 4.2, not "A general meeting is called by …"). `None` when
/// no sentence holds one, or the one found holds fewer than two of the question's own words
/// and no value of a deferred quantity.
pub fn referred_sentence(
    terms: &HashMap<String, f32>,
    lead: &str,
    passages: &[Evidence],
) -> Option<Picked> {
    let lead_stems = stems(lead);
    let cands: Vec<Candidate> = candidates(passages)
        .into_iter()
        .filter(|c| c.sentence.text.trim() != lead.trim())
        .collect();
    let asked: Vec<&String> = terms.keys().filter(|t| lead_stems.contains(*t)).collect();
    let df = |t: &String| cands.iter().filter(|c| c.stems.contains(t)).count();
    let rarest = asked.iter().map(|t| df(t)).filter(|&n| n > 0).min()?;
    let deferred: Vec<&String> = asked.iter().copied().filter(|t| df(t) == rarest).collect();
    let held = |c: &Candidate, ts: &[&String]| ts.iter().filter(|t| c.stems.contains(**t)).count();
    // A deferred term that names a quantity ("quorum", "fee") is answered by a value of it.
    let measures = value::value_nouns(deferred.iter().copied());
    let valued = |c: &Candidate| {
        measures
            .iter()
            .any(|(_, kind)| value::holds(*kind, &c.sentence.text))
    };
    let (_, c) = cands.iter().enumerate().max_by_key(|(i, c)| {
        (
            held(c, &deferred),
            valued(c),
            held(c, &asked),
            std::cmp::Reverse(*i),
        )
    })?;
    // It must say something of the question: two of its own words, or a value of the
    // quantity deferred (a table's header row or an unrelated row shares one word at most).
    let own: Vec<&String> = terms
        .iter()
        .filter(|(_, w)| **w >= 1.0)
        .map(|(t, _)| t)
        .collect();
    if held(c, &deferred) == 0 || (held(c, &own) < 2 && !valued(c)) {
        return None;
    }
    let e = &passages[c.evidence];
    let before = e.text[..c.sentence.start].chars().count() as u64;
    Some(Picked {
        evidence: c.evidence,
        sentence: c.sentence.clone(),
        doc_char: e.char_start + before,
        score: held(c, &asked) as f32,
        ranked: false,
    })
}

/// Where a quote found at `start..end` of a page's text should begin so that it says what it is
/// about: at the line that introduces its list when it is a list's item, at the sentence right
/// before it when the quote points back at that sentence ([`refers_back`]), or at the start of
/// its own sentence when it begins inside one (a lower-case first word after text with no full
/// stop: a passage's edge cut the sentence), provided the whole fits in one quote
/// ([`QUOTE_CHARS`]) and no quote in `quoted` holds that text already; else at `start`.
pub fn lead_start(page: &str, start: usize, end: usize, quoted: &[&str]) -> usize {
    let (Some(head), Some(quote)) = (page.get(..start), page.get(start..end)) else {
        return start;
    };
    let mut before = sentences(head);
    // An item of a list says what it is about through the line that introduces the list
    // ("Hand luggage the ferry accepts:" over "- It cannot weigh more than 12 kg."): the quote
    // begins there, with the items between.
    if is_list_item(quote) {
        let items = before
            .iter()
            .rev()
            .take_while(|s| is_list_item(&s.text))
            .count();
        let intro = before.len().checked_sub(items + 1).map(|k| &before[k]);
        if let Some(intro) = intro.filter(|s| s.text.trim_end().ends_with(':'))
            && page[intro.start..end].chars().count() <= QUOTE_CHARS
            && !quoted.iter().any(|q| q.contains(intro.text.as_str()))
        {
            return intro.start;
        }
    }
    let Some(lead) = before.pop() else {
        return start;
    };
    let adjacent = head[lead.end..].trim().is_empty();
    let fits = page[lead.start..end].chars().count() <= QUOTE_CHARS;
    let fresh = !quoted.iter().any(|q| q.contains(lead.text.as_str()));
    let cut = quote.chars().next().is_some_and(char::is_lowercase)
        && !lead.text.ends_with(['.', '!', '?', ':', ';']);
    if adjacent && fits && fresh && (cut || refers_back(quote, &lead.text)) {
        lead.start
    } else {
        start
    }
}

/// Where a quote found at `start..end` of a page's text should end so that it says what it
/// introduces: a quote that ends in ":" before a list ("The committee's members are:" over
/// "- A. Jones", "- B. Smith") runs on over the list's items, as far as they fit in one quote
/// ([`QUOTE_CHARS`]) with whole items; else at `end`.
pub fn list_end(page: &str, start: usize, end: usize) -> usize {
    let (Some(quote), Some(after)) = (page.get(start..end), page.get(end..)) else {
        return end;
    };
    // The quote ends its line with the colon.
    let Some(own_line) = after.find('\n') else {
        return end;
    };
    if !quote.trim_end().ends_with(':') || !after[..own_line].trim().is_empty() {
        return end;
    }
    let first = end + own_line + 1;
    let mut at = first;
    let mut taken = quote.chars().count();
    for line in page[first..].split_inclusive('\n') {
        let item = line.trim();
        // An item's wrapped line goes with it.
        let wraps = at > first && item.starts_with(char::is_lowercase);
        taken += line.chars().count();
        if item.is_empty() || !(is_list_item(item) || wraps) || taken > QUOTE_CHARS {
            break;
        }
        at += line.len();
    }
    if at == first {
        end
    } else {
        page[..at].trim_end().len()
    }
}

/// Whether `sentence` opens by pointing back at what `previous` named, so that quoted alone it
/// would not say what it is about (dangling anaphora, the known flaw of extractive summaries):
/// its first word is a pronoun or connective of [`lexicon::BACK_OPENERS`] ("They must …",
/// "Therefore …"; "It" too, but not "It is/was …", which usually opens a clause), or a
/// demonstrative of [`lexicon::DEMONSTRATIVES`] anywhere in it is followed by a lower-case
/// noun that `previous` holds ("… must sign this register." after the sentence naming the
/// register). A capitalised noun after the demonstrative is a defined term or a part of the
/// document ("this Policy", "these Rules"): it names itself. List labels ("•", "(a)",
/// "2.") before the first word are skipped.
pub fn refers_back(sentence: &str, previous: &str) -> bool {
    let words: Vec<&str> = sentence
        .split_whitespace()
        .skip_while(|w| is_label(w))
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .collect();
    let Some(first) = words.first().map(|w| w.to_lowercase()) else {
        return false;
    };
    if first == "it" {
        let next = words.get(1).map(|w| w.to_lowercase());
        return !matches!(next.as_deref(), Some("is" | "was"));
    }
    if lexicon::BACK_OPENERS.contains(&first.as_str()) {
        return true;
    }
    // An order whose object points back: "Run it first …", "Send them to the office."
    if !lexicon::AUXILIARIES.contains(&first.as_str())
        && words
            .get(1)
            .is_some_and(|w| matches!(w.to_lowercase().as_str(), "it" | "them"))
    {
        return true;
    }
    // "This" or "that" standing for the whole sentence before: a verb follows it ("This
    // requires two members …", "That is done by …"), where a noun would follow a determiner.
    if matches!(first.as_str(), "this" | "that")
        && words.get(1).is_some_and(|w| {
            let w = w.to_lowercase();
            lexicon::AUXILIARIES.contains(&w.as_str()) || lexicon::ends_like_plural(&w)
        })
    {
        return true;
    }
    // Every word of the sentence before, also inside addresses and paths
    // ("announce@lists.example.org" names a list).
    let before: HashSet<String> = previous
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(stem)
        .collect();
    // The demonstrative's noun: a content word ("that the …" is a conjunction, not a noun).
    // A hyphenated noun is named by its parts ("this one-year period" after "a one year grace
    // period").
    words.windows(2).any(|w| {
        lexicon::DEMONSTRATIVES.contains(&w[0].to_lowercase().as_str())
            && w[1].chars().next().is_some_and(char::is_lowercase)
            && !stems(w[1]).is_empty()
            && (before.contains(&stem(w[1]))
                || (w[1].contains('-') && w[1].split('-').all(|p| before.contains(&stem(p)))))
    })
}

/// A list label before a sentence's first word: a bullet or dash, a number ("2.", "3)") or a
/// letter or roman numeral in brackets or with a stop ("(a)", "iv.").
fn is_label(word: &str) -> bool {
    if !word.chars().any(char::is_alphanumeric) {
        return true;
    }
    let inner = word.trim_start_matches('(');
    let Some(body) = inner.strip_suffix(['.', ')']) else {
        return false;
    };
    !body.is_empty()
        && (body.chars().all(|c| c.is_ascii_digit() || c == '.')
            || (body.chars().count() <= 4 && body.chars().all(|c| c.is_ascii_lowercase()))
            || (body.chars().count() == 1 && body.chars().all(|c| c.is_ascii_uppercase())))
}

/// Shared share of two term sets.
fn jaccard(a: &HashSet<String>, b: &HashSet<String>) -> f32 {
    let inter = a.intersection(b).count() as f32;
    let union = a.union(b).count() as f32;
    if union == 0.0 { 0.0 } else { inter / union }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(text: &str, rank: usize) -> Evidence {
        Evidence {
            chunk_id: format!("d:{rank}"),
            document_id: "d".into(),
            text: text.into(),
            char_start: 100 * rank as u64,
            page: 1,
            vector_score: 0.5,
            text_rank: Some(rank + 1),
            score: 0.1,
            heading: String::new(),
        }
    }

    #[test]
    fn a_question_names_what_it_capitalises_after_its_first_word() {
        assert_eq!(
            proper_names("Which Harbour Master of Portree signs the Berth Register?"),
            vec![
                vec![
                    "harbour".to_owned(),
                    "master".to_owned(),
                    "portree".to_owned()
                ],
                vec!["berth".to_owned(), "register".to_owned()],
            ]
        );
        // An acronym, its plural and a compound's lower-case part are not names; a comma ends
        // one; the sentence's first word is capitalised whatever it is.
        assert_eq!(
            proper_names("Do NGOs in Oban, Skye-based crews and RNLI boats pay dues?"),
            vec![vec!["oban".to_owned()], vec!["skye".to_owned()]]
        );
        assert!(proper_names("Mooring fees are due when?").is_empty());
    }

    #[test]
    fn a_question_opening_on_an_auxiliary_asks_yes_or_no() {
        assert!(asks_yes_or_no("May visitors moor at Oban overnight?"));
        assert!(asks_yes_or_no("Is a permit needed for a slipway launch?"));
        assert!(!asks_yes_or_no(
            "Can you list the berths kept for visitors?"
        ));
        assert!(!asks_yes_or_no("Which pontoon serves visitors in Oban?"));
    }

    #[test]
    fn a_name_the_texts_never_write_is_unwritten() {
        let texts = [
            "Visiting yachts moor at the Harbour Trust pontoon in Oban.",
            "The RNLI keeps a berth free.",
        ];
        assert_eq!(
            unwritten_names("May yachts from Norway moor at the pontoon?", &texts),
            vec![vec!["norway".to_owned()]]
        );
        // Written, written by its initials, or spelt the other side of the Atlantic.
        assert!(unwritten_names("Does the Harbour Trust charge in Oban?", &texts).is_empty());
        assert!(
            unwritten_names("Who crews the Royal National Lifeboat Institution?", &texts)
                .is_empty()
        );
        assert!(unwritten_names("Is the Harbor Trust open?", &texts).is_empty());
        assert_eq!(spellings("harbour"), vec!["harbour", "harbor"]);
        // A page writes a name's word as a word of its own, not inside another one.
        let page = "Moorings lapse after a year of inactivity; active members keep theirs.";
        assert!(writes_stem(page, &stem("Active")));
        assert!(!writes_stem(
            "Moorings lapse after a year of inactivity.",
            &stem("Active")
        ));
        // Spelt the other side of the Atlantic from the stem.
        assert!(writes_stem("Only authorised skippers", "authoris"));
    }

    #[test]
    fn a_quote_that_introduces_a_list_runs_on_over_its_items() {
        let page = "Board\nThe board's members are:\n- Ann Jones (chair)\n- Bob Smith, who keeps\n  the accounts\n- Cy Lee\n\nThe board meets monthly.";
        let at = page.find("The board's").unwrap_or(0);
        let end = at + "The board's members are:".len();
        let to = list_end(page, at, end);
        assert_eq!(
            &page[at..to],
            "The board's members are:\n- Ann Jones (chair)\n- Bob Smith, who keeps\n  the accounts\n- Cy Lee"
        );
        // A quote that introduces nothing, or a colon before prose, stays as it is.
        let other = page.find("The board meets").unwrap_or(0);
        assert_eq!(list_end(page, other, page.len()), page.len());
        let prose = "Note:\nThe board meets monthly.";
        assert_eq!(list_end(prose, 0, 5), 5);
    }

    #[test]
    fn a_sentence_that_points_back_is_read_with_the_one_before_it() {
        let before = "Staff may join the quarterly-review list, which carries the audit calendar.";
        assert!(refers_back(
            "Everyone in finance must subscribe to this list.",
            before
        ));
        assert!(refers_back(
            "• They must renew their badge every year.",
            before
        ));
        assert!(refers_back(
            "(b) Therefore the meeting moves to Monday.",
            before
        ));
        assert!(refers_back("It replaces the old calendar.", before));
        assert!(refers_back("This requires the chair's consent.", before));
        assert!(refers_back("That is decided by the board.", before));
        assert!(refers_back("Print it twice and file one copy.", before));
        assert!(!refers_back("Is it open on Sundays?", before));
        assert!(!refers_back("This badge opens every door.", before));
        assert!(refers_back(
            "At the end of this quarterly-review cycle, the list closes.",
            before
        ));
        // An extraposed "It is …" opens a clause, not an earlier noun.
        assert!(!refers_back(
            "It is recommended that staff subscribe.",
            before
        ));
        // A defined term after the demonstrative names itself.
        assert!(!refers_back("This Policy applies to every list.", before));
        // The demonstrative's noun was not named before.
        assert!(!refers_back("Such badges expire after a year.", before));
        assert!(!refers_back("Visitors sign in at the desk.", before));
        let address = "• news@lists.example.org, for announcements to all staff.";
        assert!(refers_back(
            "Everyone is expected to read this list.",
            address
        ));
    }

    #[test]
    fn a_quote_that_points_back_begins_at_the_sentence_it_points_to() {
        let page = "Opening hours.\n\nThe canteen opens at eight. It shuts its doors at four. Lunch is served until two.";
        let quote = "It shuts its doors at four.";
        let at = page.find(quote).unwrap_or(0);
        let begins = lead_start(page, at, at + quote.len(), &[]);
        assert_eq!(
            &page[begins..at + quote.len()],
            "The canteen opens at eight. It shuts its doors at four."
        );
        // Already quoted: the lead is not repeated.
        assert_eq!(
            lead_start(page, at, at + quote.len(), &["The canteen opens at eight."]),
            at
        );
        // A sentence that stands alone begins where it begins.
        let alone = "Lunch is served until two.";
        let at = page.find(alone).unwrap_or(0);
        assert_eq!(lead_start(page, at, at + alone.len(), &[]), at);
        // A quote cut out of the middle of a sentence begins where the sentence begins.
        let page = "Rules.\n\nWhen a firm opens a branch abroad, it must notify the regulator within ten days.";
        let cut = "it must notify the regulator within ten days.";
        let at = page.find(cut).unwrap_or(0);
        let begins = lead_start(page, at, at + cut.len(), &[]);
        assert!(page[begins..].starts_with("When a firm opens"));
        // "that the …" is a conjunction, not a demonstrative.
        assert!(!refers_back(
            "A firm must show that the records are complete.",
            "Keep the records."
        ));
        // The first sentence of a page has nothing before it to lean on.
        assert_eq!(lead_start(quote, 0, quote.len(), &[]), 0);
    }

    #[test]
    fn a_document_names_itself_by_the_title_atop_its_first_page() {
        assert_eq!(
            printed_title(
                "\n  MARINA BERTH AGREEMENT\nThis agreement sets out the terms of a berth.\n"
            ),
            Some("MARINA BERTH AGREEMENT")
        );
        assert_eq!(
            printed_title("## Harbour Code - v 2.0\n1. Scope"),
            Some("Harbour Code - v 2.0")
        );
        // A page that opens with a sentence prints no title.
        assert_eq!(
            printed_title("Boats must be registered before they are moored.\n"),
            None
        );
    }

    #[test]
    fn a_question_read_without_the_words_that_name_its_document() {
        let names = name_stems("Harbour Rules", "harbour-rules-2.1.pdf");
        assert_eq!(
            without_names("Who may moor overnight under Harbour Rules 2.1?", &names),
            "Who may moor overnight under?"
        );
        // Words of the name that the question uses for its subject go too; nothing else.
        assert_eq!(
            without_names("What rules apply to dinghies?", &names),
            "What apply to dinghies?"
        );
        assert_eq!(
            without_names("When is the slipway closed?", &names),
            "When is the slipway closed?"
        );
    }

    #[test]
    fn a_version_glued_to_a_name_is_met_where_it_is_spelled_out() {
        let texts = ["The TLS protocol, version 1.3, removes static RSA key exchange."];
        assert!(missing_anchors("Does TLSv1.3 allow static RSA?", &texts).is_empty());
        let older = ["The TLS protocol, version 1.2, allows static RSA key exchange."];
        assert_eq!(
            missing_anchors("Does TLSv1.3 allow static RSA?", &older),
            vec!["TLSv1.3".to_owned()]
        );
        assert!(names_anchor("tls-1.3 tls-1.3.pdf", "TLSv1.3"));
        assert!(!names_anchor("tls-1.2 tls-1.2.pdf", "TLSv1.3"));
        assert_eq!(versioned("ipv6"), Some(("ip", "6")));
        assert_eq!(versioned("nvme"), None);
        assert_eq!(versioned("c++17"), None);
    }

    #[test]
    fn a_title_in_sentence_case_is_no_quote_but_code_and_list_items_are() {
        let titled = "The card is issued at the desk.\nTopping up your card\nUse the payroll portal to top up the card.";
        let ss = sentences(titled);
        let title = ss.iter().find(|s| s.text.starts_with("Topping"));
        assert!(title.is_some_and(|t| is_title_line(titled, t)), "{ss:?}");
        assert!(
            !ss.iter()
                .any(|s| s.text.starts_with("Use") && is_title_line(titled, s))
        );
        let code = "Add the line below.\nPATH=$HOME/bin can be set\nin the profile.";
        assert!(!sentences(code).iter().any(|s| is_title_line(code, s)));
        let listed = "Licensed activities are:\n(a) dealing in investments\n(b) managing assets\n";
        assert!(!sentences(listed).iter().any(|s| is_title_line(listed, s)));
        assert!(super::super::all_compile(&[
            &LETTERED_ITEM,
            &WHICH_DOCUMENT
        ]));
    }

    #[test]
    fn a_question_in_the_document_is_answered_by_the_sentences_after_it() {
        let page = "The canteen card is issued to staff by the front desk. Can the canteen card be topped up online? Yes. Use the payroll portal, which credits it overnight. Cash desks close at noon.";
        let terms = question_terms("How can staff top up the canteen card online?", "");
        let picked = pick(&terms, &[ev(page, 0)], 1);
        assert_eq!(picked.len(), 1);
        // The document's own question is never the quote; its answer is, through the words
        // of the question it answers.
        assert!(
            picked[0]
                .sentence
                .text
                .starts_with("Use the payroll portal"),
            "{:?}",
            picked[0].sentence.text
        );
        assert!(is_question("Where do the names come from?”"));
        assert!(!is_question("Names come from films."));
    }

    #[test]
    fn a_question_asking_for_a_value_gets_the_sentence_of_its_passage_that_gives_it() {
        let page = "Setuid helpers run for a particular group of users, so file permissions matter for every helper. They should have mode 4754 when only that group runs them. Only one package may ship the helper.";
        let other = "Spool files live under /var/spool, created in 3 steps by the package.";
        let q = "What file mode should a setuid helper have when only a particular group of users may run it?";
        let terms = question_terms(q, "");
        let evidence = [ev(page, 0), ev(other, 1)];
        let asked = pick_from(&terms, &evidence, 1, (0, 0), &value::asks(q), false);
        assert!(
            asked.iter().any(|p| p.sentence.text.contains("4754")),
            "{asked:?}"
        );
        // A number about something else, or from a passage not chosen, is not added.
        assert!(
            !asked
                .iter()
                .any(|p| p.sentence.text.starts_with("Only one"))
        );
        assert!(!asked.iter().any(|p| p.evidence == 1));
    }

    #[test]
    fn a_value_of_what_the_question_measures_comes_from_any_passage_of_a_chosen_document() {
        let q = "How long is the cooling period for a returned kettle?";
        let terms = question_terms(q, "");
        let evidence = [
            ev(
                "A returned kettle is tested by the workshop. Returned kettle parts are kept.",
                0,
            ),
            ev("Refunds are paid in cash. The cooling period is 3 days.", 1),
            ev(
                "Staff take a 20 minutes break. Kettles are cleaned daily.",
                2,
            ),
        ];
        let asked = pick_from(&terms, &evidence, 1, (0, 0), &value::asks(q), false);
        assert!(
            asked.iter().any(|p| p.sentence.text.contains("3 days")),
            "{asked:?}"
        );
        // A duration that does not name what is measured is not taken.
        assert!(!asked.iter().any(|p| p.sentence.text.contains("20 minutes")));
    }

    #[test]
    fn a_referred_clause_gives_the_sentence_about_what_the_reference_defers() {
        let terms = question_terms("What fee applies to a general meeting?", "");
        let lead = "The fee is the same as for a general meeting (§4.2).";
        let clause = [ev(
            "A general meeting is called by the board. A general meeting elects the chair. \
             The fee is set by the treasurer. Members pay a fee of EUR 20. \
             A general meeting may vote by post.",
            0,
        )];
        let picked = referred_sentence(&terms, lead, &clause).map(|p| p.sentence.text);
        assert_eq!(picked.as_deref(), Some("Members pay a fee of EUR 20."));
        // Nothing the lead and the question share: nothing to follow.
        let terms = question_terms("Who chairs it?", "");
        assert!(referred_sentence(&terms, lead, &clause).is_none());
    }

    #[test]
    fn a_which_document_question_puts_the_document_named_for_it_first() {
        assert!(asks_which_document(
            "Which document specifies the format of badge records?"
        ));
        assert!(asks_which_document(
            "Where is the visitor escort rule described?"
        ));
        assert!(!asks_which_document("What must a visitor wear?"));
        // An outside standard the text refers to is content, not a document of the library.
        assert!(!asks_which_document(
            "Which international standard should the risk policy refer to?"
        ));
        let mut evidence = vec![ev("The manual mentions badge records.", 0), {
            let mut e = ev("Badge records hold a photo.", 1);
            e.document_id = "fmt".into();
            e
        }];
        let names: HashMap<String, HashSet<String>> = [
            ("d".to_owned(), stems("Site Manual site-manual.pdf")),
            ("fmt".to_owned(), stems("badge-record-format.pdf")),
        ]
        .into();
        let terms = question_terms("Which document specifies the format of badge records?", "");
        by_name(&mut evidence, &names, &terms);
        assert_eq!(evidence[0].document_id, "fmt");
        // No name holds a question term: retrieval's order stays.
        let mut evidence = vec![ev("One.", 0), ev("Two.", 1)];
        let terms = question_terms("Which document covers visitor escorts?", "");
        by_name(&mut evidence, &names, &terms);
        assert_eq!(evidence[0].text, "One.");
    }

    #[test]
    fn a_table_row_is_quoted_though_it_looks_like_a_title() {
        let page = "The table below lists the periods.\nRecord type Period Owner\nBadges 2 years Security\nVisitor photos 30 days Reception\nFiling is reviewed every year.";
        let terms = question_terms("How long are visitor photos kept?", "");
        let picked = pick(&terms, &[ev(page, 0)], 1);
        assert_eq!(
            picked.first().map(|p| p.sentence.text.as_str()),
            Some("Visitor photos 30 days Reception")
        );
        let ss = sentences(page);
        let row = |text: &str| {
            ss.iter()
                .find(|s| s.text == text)
                .is_some_and(|s| is_table_row(page, s))
        };
        assert!(row("Badges 2 years Security"));
        // The header row holds no value; a numbered title is no row.
        assert!(!row("Record type Period Owner"));
        let toc = "Contents\n4.2 Keeping badges 12\n4.3 Visitor photos 14\n";
        assert!(!sentences(toc).iter().any(|s| is_table_row(toc, s)));
        // A two-cell row whose value ends it, when the value is no page number.
        let versions = "Component Minimum version\nChart plotter 4.12.2\nRadar unit 7.x\nOlder units are not supported.";
        let ss = sentences(versions);
        let plotter = ss
            .iter()
            .find(|s| s.text == "Chart plotter 4.12.2")
            .unwrap();
        assert!(is_table_row(versions, plotter));
        // A title's short version is no row.
        let titled = "Harbour Rules 2.0\nBerths are let by the season.";
        assert!(!sentences(titled).iter().any(|s| is_table_row(titled, s)));
        let radar = ss.iter().find(|s| s.text == "Radar unit 7.x").unwrap();
        assert_eq!(
            row_header(versions, radar),
            Some("Component Minimum version")
        );
    }

    #[test]
    fn a_row_of_numbers_answers_with_the_names_of_its_columns() {
        let page = "Berths are given out by the length of the boat.\n\nBoat length\tMin. berth width\nup to 8 m\t3.2 m\n8.5 - 12\t4.1\nOwners of longer boats ask the harbour master.";
        let q = "What is the minimum berth width for boats of 8.5 to 12 metres?";
        let picked = pick_answer(&question_terms(q, ""), &[ev(page, 0)], 2, &value::asks(q));
        assert!(
            picked.iter().any(|p| p.sentence.text == "8.5 - 12\t4.1"),
            "{picked:?}"
        );
    }

    #[test]
    fn a_short_sentence_that_gives_the_value_asked_for_is_no_fragment() {
        // The best sentence shares the question's words and holds no version; the short one
        // that gives it shares few, and would fall under the value share as a fragment.
        let page = "The harbour radio protocol is described by the harbour office for every berth holder and visiting skipper.\n\nMoorings are let by the week.\n\nRadio protocol: version 4.2.";
        let q = "Which harbour radio protocol version is current for berth holders?";
        let picked = pick_answer(&question_terms(q, ""), &[ev(page, 0)], 1, &value::asks(q));
        assert!(
            picked
                .iter()
                .any(|p| p.sentence.text == "Radio protocol: version 4.2."),
            "{picked:?}"
        );
    }

    #[test]
    fn the_degree_word_of_a_question_is_not_matched_in_another_sense() {
        // "long" of "How long may …" is no word a sentence shares by saying "long" of
        // something else.
        let page = "Short notes on a berth record are limited to 80 characters.\n\nEvery berth record holds long and short notes on the boat, its owner and its berth.";
        let q = "How long may the short notes on a berth record be?";
        let picked = pick_answer(&question_terms(q, ""), &[ev(page, 0)], 1, &value::asks(q));
        assert_eq!(
            picked.first().map(|p| p.sentence.text.as_str()),
            Some("Short notes on a berth record are limited to 80 characters."),
            "{picked:?}"
        );
    }

    #[test]
    fn a_count_is_looked_for_when_the_chosen_sentences_hold_only_other_numbers() {
        // The best sentence holds a number, but not of the berths the question counts.
        let page = "Visitor berths of the marina are kept free of charge for the first 2 nights.\n\nIn summer six berths stay empty for visitors.";
        let q = "How many visitor berths of the marina are kept free?";
        let picked = pick_answer(&question_terms(q, ""), &[ev(page, 0)], 1, &value::asks(q));
        assert!(
            picked
                .iter()
                .any(|p| p.sentence.text.contains("six berths")),
            "{picked:?}"
        );
    }

    /// The lead of the sentence of `page` that opens with `opening` ([`list_leads`]).
    fn lead_of(page: &str, opening: &str) -> Option<String> {
        let ss = super::super::text::sentences(page);
        let leads = list_leads(&ss);
        ss.iter()
            .zip(&leads)
            .find(|(s, _)| s.text.starts_with(opening))
            .and_then(|(_, l)| l.map(|l| l.text.clone()))
    }

    #[test]
    fn the_later_sentences_of_a_labelled_item_speak_of_its_label() {
        let page = "Where boats are kept.\n• Slipway: hulls are hosed down after use. Ten metres\nat most is allowed. It closes at high tide.\n• Dry dock: for repairs only. Two weeks is the longest stay.\n\nThe office opens at nine.";
        let ss = super::super::text::sentences(page);
        let labels = item_labels(page, &ss);
        let label_of = |opening: &str| {
            ss.iter()
                .zip(&labels)
                .find(|(s, _)| s.text.starts_with(opening))
                .and_then(|(_, l)| *l)
        };
        assert_eq!(label_of("Ten metres"), Some("Slipway"));
        assert_eq!(label_of("It closes"), Some("Slipway"));
        assert_eq!(label_of("Two weeks"), Some("Dry dock"));
        // The item's own sentence names it; prose after a blank line is no longer the item's.
        assert_eq!(label_of("• Slipway"), None);
        assert_eq!(label_of("The office"), None);
        // A run of words before a colon is a sentence's lead-in, not a label.
        assert_eq!(item_label("- Members who keep a boat here must: pay"), None);
        assert_eq!(item_label("- /var/log: kept small"), Some("/var/log"));
    }

    #[test]
    fn an_item_after_a_nested_list_belongs_to_the_list_of_its_own_mark() {
        let page = "Guests.\nA member who brings a guest does the following:\n1. Sign the guest in with:\n- the guest's name;\n- the time of arrival;\n2. Stay with the guest at all times; and\n3. Pay the guest fee.\nThe bar closes at eleven.";
        let lead_of = |opening: &str| lead_of(page, opening);
        assert_eq!(
            lead_of("- the time").as_deref(),
            Some("1. Sign the guest in with:")
        );
        assert_eq!(
            lead_of("2. Stay").as_deref(),
            Some("A member who brings a guest does the following:")
        );
        assert_eq!(lead_of("The bar"), None);
    }

    #[test]
    fn a_sentence_that_points_back_is_about_what_the_one_before_named() {
        let page = "Day passes are sold at the gate. Season tickets are renewed every spring. They cannot be shared with guests. Guests may use the day pool.";
        let terms = question_terms("Can season tickets be shared with guests?", "");
        let picked = pick(&terms, &[ev(page, 0)], 1);
        assert_eq!(
            picked.first().map(|p| p.sentence.text.as_str()),
            Some("They cannot be shared with guests.")
        );
    }

    #[test]
    fn a_sentence_of_an_item_does_not_end_its_list() {
        let page = "Before a boat is lifted out, this is what must be done:\n1. Book the crane.\n2. Empty the bilge. For steel hulls, see the yard notice.\n3. Drain the fuel tank.\nThe yard opens at eight.\n7. Boats stay on stands.";
        let lead_of = |opening: &str| lead_of(page, opening);
        let lead = Some("Before a boat is lifted out, this is what must be done:");
        assert_eq!(lead_of("3. Drain").as_deref(), lead);
        // Prose that no item of the next number follows ends the list.
        assert_eq!(lead_of("The yard"), None);
        assert_eq!(lead_of("7. Boats"), None);
        // So does an item that does not carry on the numbering: a numbered section.
        let page = "This is what must be done:\n1. Book the crane.\n2. Drain the tank.\n3. Log the lift.\n2. Storage ashore";
        let ss = super::super::text::sentences(page);
        let leads = list_leads(&ss);
        assert!(leads[3].is_some() && leads[4].is_none(), "{ss:?} {leads:?}");
    }

    #[test]
    fn a_list_item_answers_with_the_words_of_the_line_that_introduces_it() {
        let page = "Luggage\n-------\nThe ferry takes bags on deck. Hand luggage the ferry accepts on board:\n- It must fit under a seat.\n- It cannot weigh more than 12 kg.\nBikes ride on the car deck.";
        let terms = question_terms("How heavy may hand luggage on the ferry be?", "");
        let asks = value::asks("How heavy may hand luggage on the ferry be?");
        let picked = pick_answer(&terms, &[ev(page, 0)], 3, &asks);
        assert!(
            picked
                .iter()
                .any(|p| p.sentence.text == "- It cannot weigh more than 12 kg."),
            "{picked:?}"
        );
        // Quoted, the item begins at the line that introduces its list.
        let at = page.find("- It cannot").unwrap_or(0);
        let begins = lead_start(page, at, page.find(" kg.").unwrap_or(0) + 4, &[]);
        assert_eq!(
            &page[begins..at],
            "Hand luggage the ferry accepts on board:\n- It must fit under a seat.\n"
        );
        // After the list, a sentence borrows nothing; an underlined title is no candidate.
        let cands = candidates(&[ev(page, 0)]);
        assert!(!cands.iter().any(|c| c.sentence.text == "Luggage"));
        let bikes = cands.iter().find(|c| c.sentence.text.starts_with("Bikes"));
        assert!(bikes.is_some_and(|c| !c.stems.contains(&stem("luggage"))));
    }

    #[test]
    fn a_row_of_a_table_read_across_answers_with_the_names_of_its_columns() {
        // Rows as ingestion writes them (cells apart by tabs): the first row names the columns.
        let page = "Moorings are paid in advance.\n\nBerth class\tSeason fee\tWho allocates\nVisitor\t40 crowns a night\tHarbour office\nResident\t900 crowns\tMarina board\n\nKeys are returned at the end of the stay.";
        let terms = question_terms("What is the season fee for a resident berth?", "");
        let picked = pick(&terms, &[ev(page, 0)], 1);
        assert_eq!(
            picked.first().map(|p| p.sentence.text.as_str()),
            Some("Resident\t900 crowns\tMarina board")
        );
        // The row that names the columns states no value and is no candidate; a passage cut
        // from the middle of a table does not show its first row, so every row in it counts.
        let cands = candidates(&[ev(page, 0)]);
        assert!(
            !cands
                .iter()
                .any(|c| c.sentence.text.starts_with("Berth class"))
        );
        assert!(cands.iter().any(|c| c.sentence.text.starts_with("Visitor")
            && c.stems.contains(&crate::agent::rules::text::stem("fee"))));
        let cut = "Visitor\t40 crowns a night\tHarbour office\nResident\t900 crowns\tMarina board";
        assert_eq!(candidates(&[ev(cut, 0)]).len(), 2);
    }

    #[test]
    fn a_long_sentence_is_quoted_by_its_pieces_and_the_best_one_is_finished() {
        // One sentence of well over a quote's length: its head matches the question's words,
        // its tail holds the period asked for.
        let text = "Every archived ledger which a branch keeps or to which a branch adds entries must be stored in a fire-proof cabinet at the branch itself or in the regional vault that serves the branch, together with the index of the cabinet and the signature of the officer who sealed it at the close of the quarter; and if stored in the regional vault, must stay retrievable for at least eighteen months after it was sealed, or for at least nine months after a later ledger of the same branch has been sealed. Visitors may not enter the vault.";
        let terms = question_terms(
            "How long must an archived ledger stored in the regional vault stay retrievable?",
            "",
        );
        let cands = candidates(&[ev(text, 0)]);
        assert!(
            cands
                .iter()
                .all(|c| c.sentence.text.chars().count() <= QUOTE_CHARS)
        );
        let picked = pick(&terms, &[ev(text, 0)], 3);
        assert!(
            picked
                .iter()
                .any(|p| p.sentence.text.contains("eighteen months")),
            "{picked:?}"
        );
    }

    #[test]
    fn a_version_or_clause_number_a_question_names_must_be_in_a_passage() {
        assert_eq!(
            named_numbers("When does the marina stop accepting Tide 4.2 charts?"),
            ["4.2"]
        );
        assert_eq!(
            named_numbers("What does section 12.1.3 say about moorings?"),
            ["12.1.3"]
        );
        // A quantity, a first word and a plain number name nothing.
        assert!(named_numbers("Is the ratio above 2.5 for all boats?").is_empty());
        assert!(named_numbers("Rule 3.2: who signs the log?").is_empty());
        assert!(named_numbers("What changed in Tide 4?").is_empty());
        let texts = [
            "Tide 4.1 charts are accepted until March.",
            "Tide 4.21 charts are the last.",
        ];
        assert_eq!(
            missing_named_numbers("Are Tide 4.2 charts accepted?", &texts),
            ["4.2"]
        );
        assert!(missing_named_numbers("Are Tide 4.1 charts accepted?", &texts).is_empty());
        // A name the texts write before version numbers names a version in lower case too.
        let texts = ["The winch 2.1 manual replaces the winch 1.4 manual."];
        assert_eq!(
            missing_named_numbers("Where is the winch 3.0 manual kept?", &texts),
            ["3.0"]
        );
        assert!(
            missing_named_numbers("Is a ratio above 2.5 kept for all winches?", &texts).is_empty()
        );
    }

    #[test]
    fn anchors_match_whole_words_only() {
        assert_eq!(
            missing_anchors(
                "Which SOC 2 criteria apply?",
                &["an association of developers"]
            ),
            vec!["SOC".to_owned()]
        );
        assert!(missing_anchors("What does GDPR say?", &["Under the GDPR, data…"]).is_empty());
    }

    #[test]
    fn a_reference_to_a_sub_item_is_looked_for_by_its_clause_number() {
        assert_eq!(
            anchors("Under Rule 4.2.7(3)(b), may a broker net client balances?"),
            vec!["4.2.7".to_owned()]
        );
        assert!(
            missing_anchors(
                "What does Rule 4.2.7(3)(b) require?",
                &["4.2.7 A broker must keep (a) records; (b) client money apart."]
            )
            .is_empty()
        );
        assert_eq!(
            missing_anchors(
                "What does Rule 4.2.7(3) require?",
                &["4.2.8 A broker may …"]
            ),
            vec!["4.2.7".to_owned()]
        );
        assert_eq!(clause_number("A4(b)"), None);
        assert_eq!(clause_number("4.2.7"), None);
        assert_eq!(clause_number("31(2)"), Some("31"));
        // Invisible bidi marks inside a reference, and a bare sub-item label.
        assert_eq!(
            anchors("Is it exempt under section 31\u{200e}(2)\u{200e}(b)?"),
            vec!["31".to_owned()]
        );
        assert!(anchors("What does paragraph (2)(c) add?").is_empty());
    }

    #[test]
    fn curly_quotes_around_a_phrase_are_read_not_a_crash() {
        // Regression: a closing '”' (three bytes) was stepped over by one byte: a panic.
        assert_eq!(
            anchors("Is there a “cooling off period” rule — e.g. 5 € or “Zürich Ω”?"),
            vec!["cooling off period".to_owned(), "Zürich Ω".to_owned()]
        );
        assert!(anchors("Is a “dividend” rule stated?").is_empty());
    }

    #[test]
    fn a_possessive_is_read_as_the_thing_it_belongs_to() {
        assert!(anchors("Does paragraph 27's test apply to a tenant?").is_empty());
        assert_eq!(
            anchors("Is the FCA's rule stricter?"),
            vec!["FCA".to_owned()]
        );
    }

    #[test]
    fn a_currency_code_is_a_unit_not_an_anchor() {
        assert!(anchors("Is a payment above EUR 10,000 reported?").is_empty());
        assert_eq!(
            anchors("Does the NIST guide cover it?"),
            vec!["NIST".to_owned()]
        );
    }

    #[test]
    fn anchors_are_acronyms_codes_and_quoted_phrases() {
        assert_eq!(
            anchors("Which SOC 2 criteria apply, and is ECCN 5D002 or C++17 named?"),
            vec!["SOC", "ECCN", "5D002", "C++17"]
        );
        assert_eq!(
            anchors("What does \"legal hold\" mean for a Bank?"),
            vec!["legal hold"]
        );
        assert_eq!(
            missing_anchors("Does GDPR apply?", &["The gdpr applies."]),
            Vec::<String>::new()
        );
        assert_eq!(
            missing_anchors("Does HIPAA apply?", &["The gdpr applies."]),
            vec!["HIPAA"]
        );
    }

    #[test]
    fn picks_the_sentence_that_answers_and_maps_its_offset() {
        let evidence = vec![
            ev(
                "The board meets monthly. A licensed bank must maintain a minimum total capital ratio of 8 per cent of its risk-weighted assets.",
                0,
            ),
            ev(
                "Penalties apply to late returns. Returns are due within 14 days.",
                1,
            ),
        ];
        let terms = question_terms("What minimum capital ratio must a bank maintain?", "");
        let picked = pick(&terms, &evidence, 3);
        assert!(
            picked[0]
                .sentence
                .text
                .starts_with("A licensed bank must maintain"),
            "{picked:?}"
        );
        assert_eq!(picked[0].doc_char, 25);
        assert!(coverage(&terms, &picked[0].sentence.text) > 0.7);
        assert!(
            coverage(
                &question_terms("What does HIPAA require for encryption?", ""),
                &evidence[0].text
            ) < 0.3
        );
        let none = coverage(&terms, "Nothing in common here.");
        assert!(none == 0.0 && none.is_sign_positive(), "{none}");
    }

    #[test]
    fn the_best_ranked_pages_are_cited_when_their_sentences_come_close() {
        let on_page = |text: &str, rank: usize| Evidence {
            page: rank as u32 + 1,
            ..ev(text, rank)
        };
        let evidence = vec![
            on_page("Harbour pilots report incidents to the port authority.", 0),
            on_page(
                "The canteen serves lunch between noon and two o'clock daily.",
                1,
            ),
            on_page(
                "A pilot licence for the harbour is renewed by the port authority every two years.",
                2,
            ),
        ];
        let terms = question_terms(
            "How often is a harbour pilot licence renewed by the port authority?",
            "",
        );
        let pages: Vec<(u32, bool)> = pick_answer(&terms, &evidence, 1, &value::Asks::default())
            .iter()
            .map(|p| (evidence[p.evidence].page, p.ranked))
            .collect();
        // The best sentence (page 3) first, then retrieval's first page, which shares enough
        // of the question and is marked as cited for its rank; the canteen page stays out.
        assert_eq!(pages, [(3, false), (1, true)]);
    }

    #[test]
    fn several_passages_of_one_page_are_one_say_among_the_best_ranked_pages() {
        let on_page = |text: &str, rank: usize, page: u32| Evidence {
            page,
            ..ev(text, rank)
        };
        // Retrieval's first three passages are one page; its fifth is the clause continued
        // overleaf, a page of its own.
        let evidence = vec![
            on_page(
                "A ferry pass for island residents is renewed at the harbour office.",
                0,
                7,
            ),
            on_page("Ferry timetables change in the winter season.", 1, 7),
            on_page("Bicycles travel on the lower deck only.", 2, 7),
            on_page("The kiosk sells newspapers and coffee.", 3, 8),
            on_page(
                "Residents bring a recent photograph when their ferry pass is renewed.",
                4,
                9,
            ),
        ];
        let terms = question_terms("How is a ferry pass for island residents renewed?", "");
        let pages: Vec<(u32, bool)> = pick_answer(&terms, &evidence, 1, &value::Asks::default())
            .iter()
            .map(|p| (evidence[p.evidence].page, p.ranked))
            .collect();
        assert_eq!(pages, [(7, false), (9, true)]);
    }

    #[test]
    fn one_side_of_a_comparison_gives_fewer_ranked_pages_a_say() {
        // Five pages that each answer a little: an answer cites more of them than one side of
        // a comparison, whose quotes share the reader's first lines with the other side's.
        let evidence: Vec<Evidence> = [
            "Rowing boats are hired from the boathouse on the lakes by the hour.",
            "Hired rowing boats return to the jetty before dusk.",
            "Children in hired rowing boats wear life jackets.",
            "The lake warden checks each hired rowing boat at noon.",
            "Rowing boats hired for a whole day cost twenty pounds.",
        ]
        .iter()
        .enumerate()
        .map(|(i, t)| Evidence {
            page: i as u32 + 1,
            ..ev(t, i)
        })
        .collect();
        let terms = question_terms("How are rowing boats hired on the lakes?", "");
        let answer = pick_answer(&terms, &evidence, 1, &value::Asks::default());
        let side = pick_side(&terms, &evidence, 1, &value::Asks::default());
        assert!(
            answer.len() > side.len(),
            "{} vs {}",
            answer.len(),
            side.len()
        );
        assert!(side.len() <= 1 + SIDE_RANKED_EXTRA);
    }

    #[test]
    fn signals_follow_rank_heading_and_similarity() {
        let mut first = ev(
            "Tenants must report a burst pipe to the landlord at once.",
            0,
        );
        first.heading = "4 Repairs > 4.1 Plumbing".into();
        let second = ev("The garden shed is shared by all flats in the building.", 1);
        let evidence = vec![first, second];
        let terms = question_terms("Who must hear about plumbing repairs?", "");
        let cands = candidates(&evidence);
        assert_eq!(cands.len(), 2);
        let s = signals(&terms, &evidence, &cands, &[0.7, 0.1]);
        assert!(s[0].rank > s[1].rank);
        assert!(s[0].heading > 0.0 && s[1].heading == 0.0);
        assert_eq!((s[0].similarity, s[1].similarity), (0.7, 0.1));
        assert_eq!(s[0].short, 0.0);
        // Without similarities the signal is 0, never a guess.
        assert_eq!(signals(&terms, &evidence, &cands, &[])[1].similarity, 0.0);
    }

    #[test]
    fn an_acronym_is_found_written_out() {
        let texts = ["Leave longer than ten days is approved by the Head of Human Resources."];
        assert!(missing_anchors("Does the HHR approve long leave?", &texts).is_empty());
        assert_eq!(
            missing_anchors("Does the CFO approve long leave?", &texts),
            ["CFO"]
        );
        // Initials of words that merely follow each other spell nothing when the first is
        // not capitalised.
        assert!(!spells_out("the loan value is set", Some("lvs")));
    }

    #[test]
    fn borrowed_words_weigh_at_most_half_of_a_short_follow_up() {
        let terms = question_terms(
            "Who can waive it?",
            "How many days after the season ends must the club return unused pitch deposits to members?",
        );
        assert_eq!(terms.get("waiv"), Some(&1.0));
        let borrowed: f32 = terms
            .iter()
            .filter(|(t, _)| *t != "waiv")
            .map(|(_, w)| w)
            .sum();
        assert!(borrowed <= 0.5 + 1e-6, "{terms:?}");
        // A follow-up as long as its context keeps half weight per borrowed word.
        let long = question_terms(
            "What about deposits for indoor courts and lockers?",
            "When are pitch fees due?",
        );
        assert_eq!(long.get("pitch"), Some(&0.5));
        assert_eq!(long.get("deposit"), Some(&1.0));
    }

    #[test]
    fn the_score_prefers_shared_rare_terms_then_rank_and_discounts_fragments() {
        let base = Signals {
            overlap: 0.2,
            heading: 0.0,
            rank: 0.5,
            vector: 0.4,
            similarity: 0.3,
            short: 0.0,
            long: 0.0,
        };
        let more_terms = Signals {
            overlap: 0.6,
            ..base
        };
        let earlier = Signals { rank: 0.9, ..base };
        let fragment = Signals { short: 1.0, ..base };
        assert!(score(&more_terms) > score(&earlier));
        assert!(score(&earlier) > score(&base));
        assert!(score(&fragment) < score(&base));
    }
}
