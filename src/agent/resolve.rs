//! Deterministic resolvers: thread titles, @-tags, follow-up rewriting, intent classification
//! and references to earlier documents ("it", "those two", "the newer one").
//!
//! Owns: the extractive (model-free) versions of spec 002's intent and document resolvers.
//! Must not: touch stores; callers pass in what earlier turns resolved.

use std::sync::LazyLock;

use super::rules::{Pattern, matches, regex, text};

use super::types::{Action, Certainty};
use crate::store::{DocStatus, Document};
use std::collections::HashSet;

/// Spec 004's title rule: the first 80 characters, cut at the last word boundary, with "…"
/// when cut (trailing function words and punctuation are dropped first).
pub fn thread_title(message: &str) -> String {
    let clean = strip_tags(message)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if clean.chars().count() <= 80 {
        return clean;
    }
    let head: String = clean.chars().take(80).collect();
    let mut words: Vec<&str> = head.split(' ').collect();
    words.pop(); // the word the cut went through
    while let Some(last) = words.last() {
        let l = last.to_ascii_lowercase();
        if [
            "in", "of", "and", "the", "a", "an", "to", "for", "on", "at", "or", "by", "with",
        ]
        .contains(&l.as_str())
        {
            words.pop();
        } else {
            break;
        }
    }
    let mut t = words.join(" ");
    while t.ends_with([',', ';', ':', '-']) {
        t.pop();
    }
    t.push('…');
    t
}

static TAG: Pattern = LazyLock::new(|| {
    regex(
        r"@([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|inquire|summari[sz]e|compare|audit|web)\b",
    )
});

/// Tags found in a message: document ids and an action.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tags {
    /// `@<uuid>` document tags, in order.
    pub documents: Vec<String>,
    /// `@compare` etc.
    pub action: Option<Action>,
    /// `@web`.
    pub web: bool,
}

/// Extracts `@<document id>`, `@action` and `@web` tags.
pub fn tags(message: &str) -> Tags {
    let mut t = Tags::default();
    let Some(re) = TAG.as_ref() else { return t };
    for c in re.captures_iter(message) {
        let Some(m) = c.get(1) else { continue };
        let v = m.as_str();
        if v.len() == 36 {
            let id = v.to_ascii_lowercase();
            if !t.documents.contains(&id) {
                t.documents.push(id);
            }
        } else if v.eq_ignore_ascii_case("web") {
            t.web = true;
        } else if t.action.is_none() {
            t.action = Action::parse(v);
        }
    }
    t
}

/// The message without its tags.
pub fn strip_tags(message: &str) -> String {
    match TAG.as_ref() {
        Some(re) => re
            .replace_all(message, "")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
        None => message.to_owned(),
    }
}

/// The message without its tags, line breaks kept (pasted text keeps its paragraphs).
pub fn strip_tags_keep_lines(message: &str) -> String {
    let stripped = match TAG.as_ref() {
        Some(re) => re.replace_all(message, "").into_owned(),
        None => message.to_owned(),
    };
    stripped
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_owned()
}

/// Classifies the action of a message without a model. Returns the action and why.
pub fn classify_intent(message: &str) -> (Action, &'static str) {
    let m = message.to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| m.contains(w));
    if has(&[
        "audit ",
        "audit:",
        "comply with",
        "complies with",
        "compliant with",
        // A trailing space: "compliance officer" is a question, not an audit.
        "compliance of ",
        "violat",
        "check this",
        "check the following",
        "against the",
    ]) && !m.starts_with("what")
    {
        return (
            Action::Audit,
            "the message asks to check a text against rules",
        );
    }
    if has(&[
        "compare",
        "comparison",
        "difference between",
        "differences between",
        "what changed",
        "how does it differ",
        "how do they differ",
        " versus ",
        " vs ",
    ]) {
        return (
            Action::Compare,
            "the message asks for differences between documents",
        );
    }
    if has(&[
        "summarize",
        "summarise",
        "summary",
        "overview",
        "key points",
        "main points",
        "outline of",
        "tl;dr",
    ]) {
        return (Action::Summarize, "the message asks for a summary");
    }
    (Action::Inquire, NO_ACTION_WORDS)
}

/// [`classify_intent`]'s reason when the message has no word that names an action (it is
/// then read as a question).
pub const NO_ACTION_WORDS: &str = "a question to answer from the library";

/// Whether a model may read a message with no action word ([`NO_ACTION_WORDS`]) as `action`,
/// given how many of the profile's documents the message names by title. A weak model turns
/// plain questions into other actions; the message's shape bounds what it may choose:
/// - a question that asks for a value (a number, a duration, a date, a party — see
///   `rules::value::asks`) is answered, never summarized, compared or audited;
/// - a comparison needs two documents the message names, or a reference to several earlier
///   ones (`Reference::Several`, `Newer`, `Older`).
///
/// Summaries and audits of what the message names otherwise stay the model's call.
pub fn open_to_model(message: &str, action: Action, titles_named: usize) -> bool {
    if action == Action::Inquire {
        return true;
    }
    if !super::rules::value::asks(message).values.is_empty() {
        return false;
    }
    match action {
        Action::Compare => {
            titles_named >= 2
                || matches!(
                    reference(message),
                    Some(Reference::Several | Reference::Newer | Reference::Older)
                )
        }
        _ => true,
    }
}

/// A reference in a follow-up to documents of earlier turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reference {
    /// "it", "that document", "this regulation": one document.
    One,
    /// "those two", "both", "them": several.
    Several,
    /// "the newer/latest one".
    Newer,
    /// "the older/earlier one".
    Older,
}

static ONE: Pattern = LazyLock::new(|| {
    regex(
        r"\b(it|its|that (document|doc|regulation|policy|standard|guide|manual|license|licence|file|one|text)|this (document|doc|regulation|policy|standard|guide|manual|license|licence|file|one)|the (document|regulation|policy|standard|guide|manual|license|licence) (above|mentioned|you (just )?(cited|quoted|mentioned))|the same (document|regulation|policy|one))\b",
    )
});
static SEVERAL: Pattern = LazyLock::new(|| {
    regex(
        r"\b(those (two|three|documents|docs|regulations|policies|ones|versions)|these (two|three|documents|docs|versions)|both( of them)?|them|they)\b",
    )
});
static NEWER: Pattern =
    LazyLock::new(|| regex(r"\b(newer|newest|latest|later|more recent|most recent|current)\b"));
static OLDER: Pattern =
    LazyLock::new(|| regex(r"\b(older|oldest|earlier|previous|prior|former)\b"));

/// Finds a reference to earlier documents in a message.
pub fn reference(message: &str) -> Option<Reference> {
    let m = message.to_lowercase();
    let is = |r: &Pattern| matches(r, &m);
    let several = is(&SEVERAL);
    let one = is(&ONE);
    if (several || one) && is(&NEWER) && (several || m.contains(" of ")) {
        return Some(Reference::Newer);
    }
    if (several || one) && is(&OLDER) && (several || m.contains(" of ")) {
        return Some(Reference::Older);
    }
    if several {
        return Some(Reference::Several);
    }
    if one {
        return Some(Reference::One);
    }
    None
}

/// The documents of one earlier turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EarlierTurn {
    /// The documents the turn was scoped to, in its order (empty when it searched the whole
    /// library).
    pub scope: Vec<String>,
    /// The documents the turn's answer cited, the first cited first (empty for a refusal).
    pub answer_cites: Vec<String>,
}

impl EarlierTurn {
    /// The turn's documents: its scope, else (a whole-library search) those its answer cited.
    pub fn documents(&self) -> &[String] {
        if self.scope.is_empty() {
            &self.answer_cites
        } else {
            &self.scope
        }
    }

    /// Whether the turn searched the whole library, so that its documents are those its answer
    /// cited.
    pub fn searched_library(&self) -> bool {
        self.scope.is_empty()
    }
}

/// Earlier turns, newest first.
pub type History<'a> = &'a [EarlierTurn];

/// Resolves a reference against earlier turns. `newer_first` orders two documents by age
/// (newest first). Returns the documents, a certainty and the reasoning.
pub fn resolve_reference(
    r: Reference,
    history: History<'_>,
    newer_first: &dyn Fn(&[String]) -> Vec<String>,
) -> (Vec<String>, Certainty, String) {
    let Some(turn) = history.iter().find(|t| !t.documents().is_empty()) else {
        return (
            Vec::new(),
            Certainty::Low,
            "the message refers to earlier documents, but no earlier turn used any".into(),
        );
    };
    let last = turn.documents();
    match r {
        Reference::One if last.len() == 1 => (
            last.to_vec(),
            Certainty::High,
            "the message refers to the one document of the previous turn".into(),
        ),
        // "That licence" after an answer scoped to several documents that quoted only one of
        // them is the one it quoted: the answer has already picked it out.
        Reference::One if turn.answer_cites.len() == 1 => (
            turn.answer_cites.clone(),
            Certainty::High,
            "the message refers to the one document the previous answer cited".into(),
        ),
        // "That document" after an answer drawn from the whole library is the document the
        // answer rests on first: its best quote's.
        Reference::One if turn.searched_library() => (
            last[..1].to_vec(),
            Certainty::High,
            "the message refers to the document the previous answer cited first".into(),
        ),
        Reference::One => (
            last.to_vec(),
            Certainty::Medium,
            format!(
                "the message refers to one document and the previous turn used {}",
                last.len()
            ),
        ),
        Reference::Several => (
            last.to_vec(),
            Certainty::High,
            format!(
                "the message refers to the {} documents of the previous turn",
                last.len()
            ),
        ),
        Reference::Newer | Reference::Older if last.len() >= 2 => {
            let ordered = newer_first(last);
            let pick = if r == Reference::Newer {
                ordered.first()
            } else {
                ordered.last()
            };
            let which = if r == Reference::Newer {
                "newer"
            } else {
                "older"
            };
            (
                pick.cloned().into_iter().collect(),
                Certainty::High,
                format!("the {which} of the documents of the previous turn"),
            )
        }
        Reference::Newer | Reference::Older => (
            last.to_vec(),
            Certainty::Medium,
            "the message compares versions but the previous turn used one document".into(),
        ),
    }
}

/// A follow-up that needs earlier context to be understood on its own.
pub fn needs_context(message: &str) -> bool {
    let m = message.trim().to_lowercase();
    let starts = [
        "and ",
        "what about",
        "how about",
        "also",
        "does it",
        "is it",
        "and,",
        "then ",
        "so ",
    ];
    starts.iter().any(|s| m.starts_with(s))
        || reference(&m)
            .is_some_and(|r| r == Reference::One && super::rules::text::content_terms(&m).len() < 4)
}

/// Compares version labels or titles naturally ("1.10" > "1.9", "2025" > "2024").
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let key = |s: &str| -> Vec<(u64, String)> {
        let mut out = Vec::new();
        let mut num = String::new();
        let mut txt = String::new();
        for c in s.chars() {
            if c.is_ascii_digit() {
                if !txt.is_empty() {
                    out.push((0, std::mem::take(&mut txt)));
                }
                num.push(c);
            } else {
                if !num.is_empty() {
                    out.push((num.parse().unwrap_or(0), String::new()));
                    num.clear();
                }
                txt.push(c.to_ascii_lowercase());
            }
        }
        if !num.is_empty() {
            out.push((num.parse().unwrap_or(0), String::new()));
        }
        if !txt.is_empty() {
            out.push((0, txt));
        }
        out
    };
    key(a).cmp(&key(b))
}

/// Documents whose title (or file name stem) the message names.
pub(in crate::agent) fn mentioned_titles(message: &str, docs: &[Document]) -> Vec<String> {
    let norm = |s: &str| {
        format!(
            " {} ",
            s.to_lowercase()
                .replace(['-', '_', '(', ')', ',', '?', '.', ':'], " ")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        )
    };
    // Acronyms of the titles ("LGPL", "GFDL") as a message may spell them out ("Library GPL",
    // "GNU Free Documentation License"), and "version 2" as the "-2" of a title.
    let acronyms: HashSet<String> = docs
        .iter()
        .flat_map(|d| {
            format!("{} {}", d.title, d.file_name)
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| w.len() >= 3 && w.chars().all(|c| c.is_ascii_uppercase()))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect();
    let message = versions(&spell_acronyms(message, &acronyms));
    // Keep dots inside version numbers ("1.2") by normalising them the same way on both sides.
    let m = norm(&message.replace('.', " . "));
    let mut out = Vec::new();
    for (d, stem) in named(docs) {
        for name in [d.title.as_str(), stem, &d.label()] {
            let n = norm(&versions(name).replace('.', " . "));
            if n.trim().chars().count() >= 4 && m.contains(&n) && !out.contains(&d.id) {
                out.push(d.id.clone());
            }
        }
    }
    if out.is_empty() {
        out = named_by_version(&m, docs, |s| norm(&versions(s).replace('.', " . ")));
    }
    out
}

/// "version 2" and "v2" as "2", in a message and in the names alike (a file named
/// "…-VER03181223" must still match itself).
pub(in crate::agent) fn versions(s: &str) -> String {
    VERSION_WORD
        .as_ref()
        .map_or(s.to_owned(), |re| re.replace_all(s, "$2").into_owned())
}

/// Documents a follow-up names by their version alone ("And under the 2023 one?"): versions
/// of a document of the previous turn (`previous`) whose name, with its version, the message
/// completes — the message read with that document's name minus its version.
pub(in crate::agent) fn version_siblings(
    message: &str,
    previous: &[&Document],
    docs: &[Document],
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for p in previous {
        // A title is often the file name's stem ("pool-rules-2024", "clean-desk-standard-v2").
        let title = versions(&p.title.replace(['-', '_'], " "));
        let tokens: Vec<&str> = title.split_whitespace().collect();
        let cut = version_start(&tokens);
        if cut == tokens.len() || cut == 0 {
            continue;
        }
        let base = tokens[..cut].join(" ");
        for id in mentioned_titles(&format!("{message} ({base})"), docs) {
            if !out.contains(&id) {
                out.push(id);
            }
        }
    }
    out
}

/// Where the version of a name's words begins: the run of numbers (and dots) that ends it
/// ("retention standard 1 . 1", "pool rules 2024"); the length of `tokens` when it has none.
fn version_start(tokens: &[&str]) -> usize {
    tokens
        .iter()
        .rposition(|t| !t.chars().all(|c| c.is_ascii_digit() || c == '.'))
        .map_or(0, |i| i + 1)
}

/// The documents a message can name (ready or disabled), each with its file name's stem.
fn named(docs: &[Document]) -> impl Iterator<Item = (&Document, &str)> {
    docs.iter()
        .filter(|d| matches!(d.status, DocStatus::Ready | DocStatus::Disabled))
        .map(|d| {
            let stem = d
                .file_name
                .rsplit_once('.')
                .map_or(d.file_name.as_str(), |(s, _)| s);
            (d, stem)
        })
}

/// Documents a message names in its own word order: their version number as written in the
/// name ("1 . 1", "2025") and every word of the rest of the name ("retention", "standard"), in
/// any order and inflection: "version 1.1 of the retention standard" names
/// "retention-standard-1.1", "the 2025 gifts and hospitality policies" "gifts-hospitality-2025".
/// Only names that carry a version count: two versions of one title differ by nothing else.
fn named_by_version(m: &str, docs: &[Document], norm: impl Fn(&str) -> String) -> Vec<String> {
    let words: HashSet<String> = m.split_whitespace().map(text::stem).collect();
    let mut out = Vec::new();
    for (d, stem) in named(docs) {
        for name in [d.title.as_str(), stem] {
            let n = norm(name);
            let tokens: Vec<&str> = n.split_whitespace().collect();
            let (base, version) = tokens.split_at(version_start(&tokens));
            let base: Vec<&&str> = base.iter().filter(|t| t.chars().count() >= 3).collect();
            if version.is_empty() || base.is_empty() {
                continue;
            }
            let version = format!(" {} ", version.join(" "));
            // A name of three words or more may be named without one of them ("the 2025
            // continuity standard" for "Business Continuity Standard 2025"): people drop the
            // word that is the same across a library's names.
            let named = base
                .iter()
                .filter(|t| words.contains(&text::stem(t)))
                .count();
            let enough = if base.len() >= 3 {
                base.len() - 1
            } else {
                base.len()
            };
            if m.contains(&version) && named >= enough && !out.contains(&d.id) {
                out.push(d.id.clone());
            }
        }
    }
    out
}

/// "version 2", "ver. 3", "v2": a version number the message names.
static VERSION_WORD: Pattern = LazyLock::new(|| regex(r"(?i)\b(version|ver\.?|v\.?)\s*(\d)"));

/// Replaces a run of words whose initials (or, for a word in capitals, the word itself) spell
/// one of `acronyms` by that acronym: "the Library GPL" → "the LGPL".
pub(in crate::agent) fn spell_acronyms(message: &str, acronyms: &HashSet<String>) -> String {
    if acronyms.is_empty() {
        return message.to_owned();
    }
    let words: Vec<&str> = message.split_whitespace().collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    'outer: while i < words.len() {
        for k in (2..=5).rev() {
            if i + k > words.len() {
                continue;
            }
            let window = &words[i..i + k];
            let clean: Vec<String> = window
                .iter()
                .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_owned())
                .collect();
            if clean.iter().any(String::is_empty)
                || !clean[0].starts_with(|c: char| c.is_uppercase())
            {
                continue;
            }
            // Every way of reading each word: its initial, or the whole word if in capitals.
            let mut spellings = vec![String::new()];
            for w in &clean {
                let initial = w.chars().next().map(|c| c.to_ascii_uppercase());
                let whole =
                    (w.len() >= 2 && w.chars().all(|c| c.is_ascii_uppercase())).then(|| w.clone());
                let mut next = Vec::new();
                for sp in &spellings {
                    if let Some(c) = initial {
                        next.push(format!("{sp}{c}"));
                    }
                    if let Some(wh) = &whole {
                        next.push(format!("{sp}{wh}"));
                    }
                }
                spellings = next;
            }
            if let Some(a) = spellings.iter().find(|sp| acronyms.contains(*sp))
                && !clean.iter().any(|w| w == a)
            {
                out.push(a.clone());
                i += k;
                continue 'outer;
            }
        }
        out.push(words[i].to_owned());
        i += 1;
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ready document of a test library.
    fn document(id: &str, title: &str, file_name: &str) -> Document {
        Document {
            id: id.into(),
            profile_id: "p".into(),
            title: title.into(),
            version: String::new(),
            doc_type: crate::store::DocType::Regulatory,
            set_id: None,
            set_name: None,
            file_name: file_name.into(),
            sha256: String::new(),
            page_count: 1,
            chunk_count: 1,
            empty_pages: Vec::new(),
            status: DocStatus::Ready,
            error: None,
            supersedes: None,
            superseded_by: None,
            embed_model: String::new(),
            created_at: String::new(),
            updated_at: String::new(),
        }
    }

    #[test]
    fn a_model_may_not_turn_a_question_for_a_value_into_another_action() {
        // Questions asking for a value: answered, whatever a model reads.
        for q in [
            "How long do tenants keep the spare keys after moving out?",
            "How many visitors may a member bring to the pool?",
            "How often is the boiler serviced?",
        ] {
            assert!(!open_to_model(q, Action::Compare, 2), "{q}");
            assert!(!open_to_model(q, Action::Summarize, 0), "{q}");
            assert!(open_to_model(q, Action::Inquire, 0), "{q}");
        }
        // A comparison needs two documents named or referred to.
        let q = "Where do the gym rules and the pool rules disagree on guests?";
        assert!(open_to_model(q, Action::Compare, 2));
        assert!(!open_to_model(q, Action::Compare, 1));
        assert!(open_to_model(
            "Do both of them allow pets?",
            Action::Compare,
            0
        ));
        assert!(!open_to_model(
            "What do our pet rules say?",
            Action::Compare,
            0
        ));
        // An open request about one document may be read as a summary.
        assert!(open_to_model(
            "What do our pet rules say, in short?",
            Action::Summarize,
            1
        ));
    }

    #[test]
    fn a_version_and_most_of_a_name_name_a_document_and_a_version_alone_names_a_sibling() {
        let doc = |id: &str, title: &str| {
            document(
                id,
                title,
                &format!("{}.pdf", title.to_lowercase().replace(' ', "-")),
            )
        };
        let docs = vec![
            doc("a", "Garden Allotment Rules 2022"),
            doc("b", "Garden Allotment Rules 2024"),
            doc("c", "Pool Rules 2024"),
            doc("d", "sauna-rules-2021"),
            doc("e", "sauna-rules-2023"),
        ];
        // One word of a three-word name left out, the version kept.
        assert_eq!(
            mentioned_titles("What do the 2024 allotment rules say about sheds?", &docs),
            ["b"]
        );
        // A two-word name needs both words; a version alone names nothing.
        assert!(mentioned_titles("What do the 2024 rules say about sheds?", &docs).is_empty());
        // A follow-up that gives only a version: the previous turn's document in that version.
        let previous = [&docs[1]];
        assert_eq!(
            version_siblings("And in the 2022 ones?", &previous, &docs),
            ["a"]
        );
        assert!(version_siblings("And in the 2019 ones?", &previous, &docs).is_empty());
        assert!(version_siblings("And for visitors?", &previous, &docs).is_empty());
        // A title that is a file name's stem.
        assert_eq!(
            version_siblings("What did the 2021 one say?", &[&docs[4]], &docs),
            ["d"]
        );
        // A version glued to the name as "v2", named back as "version 1".
        let marina = [
            doc("f", "marina-berthing-code-v1"),
            doc("g", "marina-berthing-code-v2"),
        ];
        assert_eq!(
            version_siblings("How about version 1?", &[&marina[1]], &marina),
            ["f"]
        );
    }

    #[test]
    fn compliance_officer_question_is_not_an_audit() {
        let (a, _) = classify_intent("How is the compliance officer reached?");
        assert_eq!(a, Action::Inquire);
        let (a, _) = classify_intent("Check the compliance of this memo with @x");
        assert_eq!(a, Action::Audit);
    }

    #[test]
    fn a_file_name_with_a_version_code_is_found_in_the_message_that_names_it() {
        let doc = |id: &str, file: &str| document(id, file.trim_end_matches(".pdf"), file);
        let docs = [
            doc("a", "harbour-pilotage-code-VER04112019.pdf"),
            doc("b", "harbour-fees-v2.pdf"),
        ];
        assert_eq!(
            mentioned_titles(
                "Give me an overview of harbour-pilotage-code-VER04112019.",
                &docs
            ),
            ["a"]
        );
        assert_eq!(
            mentioned_titles("What changed in harbour fees version 2?", &docs),
            ["b"]
        );
        // The name's words in the message's own order, the version named apart.
        let docs = [
            doc("c", "canteen-menu-rules-3.0.pdf"),
            doc("d", "canteen-menu-rules-3.1.pdf"),
        ];
        assert_eq!(
            mentioned_titles(
                "Under version 3.1 of the menu rules for the canteen, who orders?",
                &docs
            ),
            ["d"]
        );
        assert!(mentioned_titles("What do the canteen menu rules say?", &docs).is_empty());
    }

    #[test]
    fn titles_follow_spec_004() {
        assert_eq!(
            thread_title(
                "What is the university's policy on academic integrity and plagiarism in submitted coursework?"
            ),
            "What is the university's policy on academic integrity and plagiarism…"
        );
        assert_eq!(thread_title("Refund?"), "Refund?");
    }

    #[test]
    fn tags_are_found_and_stripped() {
        let t = tags(
            "@compare @0190b0a0-0000-7000-8000-000000000001 and @0190B0A0-0000-7000-8000-000000000002 @web",
        );
        assert_eq!(t.documents.len(), 2);
        assert_eq!(t.action, Some(Action::Compare));
        assert!(t.web);
        assert_eq!(
            strip_tags("What does @0190b0a0-0000-7000-8000-000000000001 require?"),
            "What does require?"
        );
    }

    #[test]
    fn intents_are_classified() {
        assert_eq!(
            classify_intent("Compare GFDL 1.2 with GFDL 1.3.").0,
            Action::Compare
        );
        assert_eq!(
            classify_intent("Give me an overview of the FHS").0,
            Action::Summarize
        );
        assert_eq!(
            classify_intent("Audit this email against the policy").0,
            Action::Audit
        );
        assert_eq!(
            classify_intent("What is the minimum capital ratio?").0,
            Action::Inquire
        );
    }

    #[test]
    fn references_resolve_against_earlier_turns() {
        assert_eq!(
            reference("According to it, where should programs go?"),
            Some(Reference::One)
        );
        assert_eq!(
            reference("In the newer of those two, how many authors?"),
            Some(Reference::Newer)
        );
        assert_eq!(reference("Do those two agree?"), Some(Reference::Several));
        assert_eq!(reference("What is the capital ratio?"), None);
        let scoped = |cited: bool| {
            let both = vec!["a".to_owned(), "b".to_owned()];
            vec![EarlierTurn {
                scope: if cited { Vec::new() } else { both.clone() },
                answer_cites: both,
            }]
        };
        let newest = |d: &[String]| d.iter().rev().cloned().collect::<Vec<_>>();
        let (docs, c, _) = resolve_reference(Reference::Newer, &scoped(false), &newest);
        assert_eq!((docs, c), (vec!["b".to_owned()], Certainty::High));
        // "It" after a turn scoped to two documents is ambiguous: ask.
        let (_, c, _) = resolve_reference(Reference::One, &scoped(false), &newest);
        assert_eq!(c, Certainty::Medium);
        // After a whole-library answer, "that document" is the one it cited first.
        let (docs, c, _) = resolve_reference(Reference::One, &scoped(true), &newest);
        assert_eq!((docs, c), (vec!["a".to_owned()], Certainty::High));
        let (docs, _, _) = resolve_reference(Reference::Several, &scoped(true), &newest);
        assert_eq!(docs.len(), 2);
        // ... and after an answer scoped to two documents that quoted one, it is that one.
        let one_cited = [EarlierTurn {
            answer_cites: vec!["b".to_owned()],
            ..scoped(false)[0].clone()
        }];
        let (docs, c, _) = resolve_reference(Reference::One, &one_cited, &newest);
        assert_eq!((docs, c), (vec!["b".to_owned()], Certainty::High));
        let (docs, _, _) = resolve_reference(Reference::Several, &one_cited, &newest);
        assert_eq!(docs.len(), 2);
        let (docs, c, _) = resolve_reference(Reference::One, &[], &newest);
        assert!(docs.is_empty());
        assert_eq!(c, Certainty::Low);
    }

    #[test]
    fn versions_sort_naturally() {
        assert_eq!(
            natural_cmp("GFDL-1.3", "GFDL-1.2"),
            std::cmp::Ordering::Greater
        );
        assert_eq!(natural_cmp("1.10", "1.9"), std::cmp::Ordering::Greater);
    }

    #[test]
    fn titles_spelled_out_as_words_are_read_as_their_acronyms() {
        let acronyms: HashSet<String> = ["LGPL", "GFDL", "FHS"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            spell_acronyms("What does the Library GPL version 2 say?", &acronyms),
            "What does the LGPL version 2 say?"
        );
        assert_eq!(
            spell_acronyms(
                "Under the GNU Free Documentation License 1.3, may I",
                &acronyms
            ),
            "Under the GFDL 1.3, may I"
        );
        assert_eq!(
            spell_acronyms("the LGPL and the Filesystem Hierarchy Standard", &acronyms),
            "the LGPL and the FHS"
        );
        assert_eq!(
            spell_acronyms("a Large General Proposal Letter", &HashSet::new()),
            "a Large General Proposal Letter"
        );
    }

    #[test]
    fn every_pattern_compiles() {
        assert!(crate::agent::rules::all_compile(&[
            &TAG,
            &ONE,
            &SEVERAL,
            &NEWER,
            &OLDER,
            &VERSION_WORD
        ]));
    }
}
