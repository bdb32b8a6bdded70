//! Deterministic resolvers: thread titles, @-tags, follow-up rewriting, intent classification
//! and references to earlier documents ("it", "those two", "the newer one").
//!
//! Owns: the extractive (model-free) versions of spec 002's intent and document resolvers.
//! Must not: touch stores; callers pass in what earlier turns resolved.

use std::sync::LazyLock;

use regex::Regex;

use super::types::{Action, Certainty};

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

static TAG: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"@([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|inquire|summari[sz]e|compare|audit|web)\b").ok()
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
    (Action::Inquire, "a question to answer from the library")
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

static ONE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"\b(it|its|that (document|doc|regulation|policy|standard|guide|manual|license|licence|file|one|text)|this (document|doc|regulation|policy|standard|guide|manual|license|licence|file|one)|the (document|regulation|policy|standard|guide|manual|license|licence) (above|mentioned|you (just )?(cited|quoted|mentioned))|the same (document|regulation|policy|one))\b").ok()
});
static SEVERAL: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"\b(those (two|three|documents|docs|regulations|policies|ones|versions)|these (two|three|documents|docs|versions)|both( of them)?|them|they)\b").ok()
});
static NEWER: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"\b(newer|newest|latest|later|more recent|most recent|current)\b").ok()
});
static OLDER: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\b(older|oldest|earlier|previous|prior|former)\b").ok());

/// Finds a reference to earlier documents in a message.
pub fn reference(message: &str) -> Option<Reference> {
    let m = message.to_lowercase();
    let is = |r: &LazyLock<Option<Regex>>| r.as_ref().is_some_and(|re| re.is_match(&m));
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

/// Candidates from earlier turns, newest turn first: (document ids of that turn).
pub type History<'a> = &'a [Vec<String>];

/// Resolves a reference against earlier turns. `newer_first` orders two documents by age
/// (newest first). Returns the documents, a certainty and the reasoning.
pub fn resolve_reference(
    r: Reference,
    history: History<'_>,
    newer_first: &dyn Fn(&[String]) -> Vec<String>,
) -> (Vec<String>, Certainty, String) {
    let Some(last) = history.iter().find(|docs| !docs.is_empty()) else {
        return (
            Vec::new(),
            Certainty::Low,
            "the message refers to earlier documents, but no earlier turn used any".into(),
        );
    };
    match r {
        Reference::One if last.len() == 1 => (
            last.clone(),
            Certainty::High,
            "the message refers to the one document of the previous turn".into(),
        ),
        Reference::One => (
            last.clone(),
            Certainty::Medium,
            format!(
                "the message refers to one document and the previous turn used {}",
                last.len()
            ),
        ),
        Reference::Several => (
            last.clone(),
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
            last.clone(),
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
            .is_some_and(|r| r == Reference::One && super::text::content_terms(&m).len() < 4)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compliance_officer_question_is_not_an_audit() {
        let (a, _) = classify_intent("How is the compliance officer reached?");
        assert_eq!(a, Action::Inquire);
        let (a, _) = classify_intent("Check the compliance of this memo with @x");
        assert_eq!(a, Action::Audit);
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
        let history = vec![vec!["a".to_owned(), "b".to_owned()]];
        let newest = |d: &[String]| d.iter().rev().cloned().collect::<Vec<_>>();
        let (docs, c, _) = resolve_reference(Reference::Newer, &history, &newest);
        assert_eq!((docs, c), (vec!["b".to_owned()], Certainty::High));
        let (_, c, _) = resolve_reference(Reference::One, &history, &newest);
        assert_eq!(c, Certainty::Medium);
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
}
